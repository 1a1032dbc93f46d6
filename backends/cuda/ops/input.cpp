// The input layer (the minibatch copied to the GPU) and views (reshapes that move no data).
#include "backends/cuda/ops/op_table.hpp"

namespace fulcrum::backends::cuda::ops {

void input_forward(const Launch& k) {
  check(
      cudaMemcpyAsync(k.y(), k.item.host_input, static_cast<std::size_t>(k.out_n()) * sizeof(float),
                      cudaMemcpyHostToDevice, k.stream),
      "cudaMemcpyAsync(input)", k.site);
  k.called();
}

void view_forward(const Launch&) {}

void no_backward(const Launch&) {}

}  // namespace fulcrum::backends::cuda::ops
