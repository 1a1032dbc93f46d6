// Table lookups (word, position and token-type embeddings): gather forward, scatter-add of the
// table's gradient backward.
#include "backends/cuda/kernels.hpp"
#include "backends/cuda/ops/op_table.hpp"

namespace fulcrum::backends::cuda::ops {

void embedding_forward(const Launch& k) {
  const i64 dim = k.op().out.dims.back();
  kernels::embedding_gather(k.y(), k.x(), k.params(), k.out_n() / dim, dim,
                            k.layer().params.floats / dim, k.stream);
  k.launched("embedding_gather");
}

void embedding_backward(const Launch& k) {
  const i64 dim = k.op().out.dims.back();
  kernels::embedding_scatter_add(k.param_grad(), k.x(), k.dy(), k.out_n() / dim, dim,
                                 k.layer().params.floats / dim, k.stream);
  k.launched("embedding_scatter_add");
}

}  // namespace fulcrum::backends::cuda::ops
