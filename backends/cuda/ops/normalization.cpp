// Batch normalisation (statistics over the minibatch in training) and layer normalisation over
// the last dimension: the backend's own kernels.
#include "backends/cuda/kernels.hpp"
#include "backends/cuda/ops/op_table.hpp"

namespace fulcrum::backends::cuda::ops {

void bn_forward(const Launch& k) {
  const ImageDims d = image_dims(k.op().out);
  float* stats = k.item.at(k.layer().scratch);
  const float* gamma = k.params();
  const float* x = k.x();
  if (k.training()) {
    kernels::bn_stats(stats, x, k.batch(), d.c, d.h * d.w, k.stream);
    k.launched("bn_stats");
  }
  kernels::bn_apply(k.y(), x, stats, gamma, gamma + d.c, k.batch(), d.c, d.h * d.w, k.stream);
  k.launched("bn_apply");
}

void bn_backward(const Launch& k) {
  const ImageDims d = image_dims(k.op().out);
  float* stats = k.item.at(k.layer().scratch);
  float* dgamma = k.param_grad();
  const float* x = k.x();
  const float* dy = k.dy();
  kernels::bn_grad_reduce(stats, dgamma, dgamma + d.c, dy, x, k.batch(), d.c, d.h * d.w, k.stream);
  k.launched("bn_grad_reduce");
  kernels::bn_grad_apply(k.dx(), dy, x, stats, k.params(), k.batch(), d.c, d.h * d.w, k.stream);
  k.launched("bn_grad_apply");
}

void layernorm_forward(const Launch& k) {
  const i64 width = k.op().out.dims.back();
  const float* gamma = k.params();
  kernels::layernorm(k.y(), k.item.at(k.layer().scratch), k.x(), gamma, gamma + width,
                     k.out_n() / width, width, k.stream);
  k.launched("layernorm");
}

void layernorm_backward(const Launch& k) {
  const i64 width = k.op().out.dims.back();
  float* dgamma = k.param_grad();
  kernels::layernorm_grad(k.dx(), dgamma, dgamma + width, k.dy(), k.x(),
                          k.item.at(k.layer().scratch), k.params(), k.out_n() / width, width,
                          k.stream);
  k.launched("layernorm_grad");
}

}  // namespace fulcrum::backends::cuda::ops
