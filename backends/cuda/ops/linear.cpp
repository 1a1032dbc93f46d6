// Fully connected layers over the last dimension: cuBLAS products, with their bias.
#include "backends/cuda/kernels.hpp"
#include "backends/cuda/ops/op_table.hpp"

namespace fulcrum::backends::cuda::ops {

namespace {

struct LinearDims {
  i64 in_f, out_f, rows;
};

LinearDims dims_of(const Launch& k) {
  const i64 in_f = k.input_shape().dims.back();
  const i64 out_f = k.op().out.dims.back();
  return {in_f, out_f, k.out_n() / out_f};
}

}  // namespace

void linear_forward(const Launch& k) {
  const auto [in_f, out_f, rows] = dims_of(k);
  float* y = k.y();
  check(
      cublasSgemm(k.blas, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(out_f), static_cast<int>(rows),
                  static_cast<int>(in_f), &kOne, k.params(), static_cast<int>(in_f), k.x(),
                  static_cast<int>(in_f), &kZero, y, static_cast<int>(out_f)),
      "cublasSgemm", k.site);
  k.called();
  if (k.op().geometry.bias) {
    kernels::bias_add(y, k.params() + k.layer().param_tensors[0], rows, out_f, 1, k.stream);
    k.launched("bias_add");
  }
}

void linear_backward(const Launch& k) {
  const auto [in_f, out_f, rows] = dims_of(k);
  const float* dy = k.dy();
  if (k.layer().needs_input_gradient) {
    check(cublasSgemm(k.blas, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(in_f),
                      static_cast<int>(rows), static_cast<int>(out_f), &kOne, k.params(),
                      static_cast<int>(in_f), dy, static_cast<int>(out_f), &kOne, k.dx(),
                      static_cast<int>(in_f)),
          "cublasSgemm(dgrad)", k.site);
    k.called();
  }
  check(
      cublasSgemm(k.blas, CUBLAS_OP_N, CUBLAS_OP_T, static_cast<int>(in_f), static_cast<int>(out_f),
                  static_cast<int>(rows), &kOne, k.x(), static_cast<int>(in_f), dy,
                  static_cast<int>(out_f), &kZero, k.param_grad(), static_cast<int>(in_f)),
      "cublasSgemm(wgrad)", k.site);
  k.called();
  if (k.op().geometry.bias) {
    kernels::bias_grad(k.param_grad() + k.layer().param_tensors[0], dy, rows, out_f, 1, k.stream);
    k.launched("bias_grad");
  }
}

}  // namespace fulcrum::backends::cuda::ops
