// Pointwise and row-wise operators: activations, the residual sum, the broadcast product
// (squeeze-excite scaling) and softmax (with attention's scaling and mask).
#include <cmath>

#include "backends/cuda/kernels.hpp"
#include "backends/cuda/ops/op_table.hpp"

namespace fulcrum::backends::cuda::ops {

void act_forward(const Launch& k) {
  kernels::activation(k.y(), k.x(), k.out_n(), static_cast<int>(k.op().geometry.activation),
                      k.stream);
  k.launched("activation");
}

void act_backward(const Launch& k) {
  kernels::activation_grad(k.dx(), k.dy(), k.x(), k.out_n(),
                           static_cast<int>(k.op().geometry.activation), k.stream);
  k.launched("activation_grad");
}

void add_forward(const Launch& k) {
  kernels::add(k.y(), k.x(), k.item.at(k.input(1).output), k.out_n(), k.stream);
  k.launched("add");
}

void add_backward(const Launch& k) {
  kernels::add_grad(k.dx(), k.item.at(k.input(1).gradient), k.dy(), k.out_n(), k.stream);
  k.launched("add_grad");
}

namespace {

// Elements of the output per element of the second (broadcast) input.
i64 broadcast_inner(const Launch& k) {
  return static_cast<i64>(k.op().out.elements() / k.input_shape(1).elements());
}

}  // namespace

void mul_forward(const Launch& k) {
  kernels::mul_broadcast(k.y(), k.x(), k.item.at(k.input(1).output), k.out_n(), broadcast_inner(k),
                         k.stream);
  k.launched("mul_broadcast");
}

void mul_backward(const Launch& k) {
  const PlannedLayer& in1 = k.input(1);
  kernels::mul_broadcast_grad(k.dx(), k.item.at(in1.gradient), k.dy(), k.x(), k.item.at(in1.output),
                              k.out_n(), broadcast_inner(k), k.stream);
  k.launched("mul_broadcast_grad");
}

void softmax_forward(const Launch& k) {
  const i64 width = k.op().out.dims.back();
  const i64 out_n = k.out_n();
  float* y = k.y();
  if (k.op().geometry.attention_scaling) {
    kernels::scale(y, k.x(), out_n, 1.f / std::sqrt(static_cast<float>(width)), k.stream);
    k.launched("scale");
    kernels::mask_add(y, out_n / width, width, k.stream);
    k.launched("mask_add");
    kernels::softmax(y, y, out_n / width, width, k.stream);
  } else {
    kernels::softmax(y, k.x(), out_n / width, width, k.stream);
  }
  k.launched("softmax");
}

void softmax_backward(const Launch& k) {
  const i64 width = k.op().out.dims.back();
  const i64 out_n = k.out_n();
  float* dx = k.dx();
  kernels::softmax_grad(dx, k.dy(), k.y(), out_n / width, width, k.stream);
  k.launched("softmax_grad");
  if (k.op().geometry.attention_scaling) {
    kernels::scale(dx, dx, out_n, 1.f / std::sqrt(static_cast<float>(width)), k.stream);
    k.launched("scale");
  }
}

}  // namespace fulcrum::backends::cuda::ops
