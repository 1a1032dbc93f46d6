// One LSTM layer over a whole sequence: the input projection of every step in one cuBLAS product,
// then per step the recurrent product and the cell kernel; backward in reverse step order, then
// the weight gradients in two products.
#include "backends/cuda/kernels.hpp"
#include "backends/cuda/ops/op_table.hpp"

namespace fulcrum::backends::cuda::ops {

void lstm_forward(const Launch& k) {
  const models::Shape& xs = k.input_shape();
  const i64 batch = k.batch();
  const i64 t_steps = xs[0], xd = xs[1], h = k.op().out.dims.back();
  float* y = k.y();
  float* gates = k.item.at(k.layer().scratch);
  float* cells = gates + batch * t_steps * 4 * h;
  const float* w_ih = k.params();
  const float* w_hh = w_ih + k.layer().param_tensors[0];
  const float* bias = w_hh + k.layer().param_tensors[1];
  check(cublasSgemm(k.blas, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(4 * h),
                    static_cast<int>(batch * t_steps), static_cast<int>(xd), &kOne, w_ih,
                    static_cast<int>(xd), k.x(), static_cast<int>(xd), &kZero, gates,
                    static_cast<int>(4 * h)),
        "cublasSgemm(input projection)", k.site);
  k.called();
  for (i64 t = 0; t < t_steps; ++t) {
    if (t > 0) {
      check(cublasSgemm(k.blas, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(4 * h),
                        static_cast<int>(batch), static_cast<int>(h), &kOne, w_hh,
                        static_cast<int>(h), y + (t - 1) * h, static_cast<int>(t_steps * h), &kOne,
                        gates + t * 4 * h, static_cast<int>(t_steps * 4 * h)),
            "cublasSgemm(recurrent)", k.site);
      k.called();
    }
    kernels::lstm_cell(gates + t * 4 * h, t_steps * 4 * h, bias,
                       t > 0 ? cells + (t - 1) * h : nullptr, cells + t * h, t_steps * h, y + t * h,
                       t_steps * h, batch, h, k.stream);
    k.launched("lstm_cell");
  }
}

void lstm_backward(const Launch& k) {
  const models::Shape& xs = k.input_shape();
  const i64 batch = k.batch();
  const i64 t_steps = xs[0], xd = xs[1], h = k.op().out.dims.back();
  const float* y = k.y();
  const float* dy = k.dy();
  const float* x = k.x();
  const float* gates = k.item.at(k.layer().scratch);
  const float* cells = gates + batch * t_steps * 4 * h;
  float* dgates = const_cast<float*>(cells) + batch * t_steps * h;
  float* dh_carry = dgates + batch * t_steps * 4 * h;
  float* dc_carry = dh_carry + batch * h;
  const float* w_ih = k.params();
  const float* w_hh = w_ih + k.layer().param_tensors[0];
  float* dw_ih = k.param_grad();
  float* dw_hh = dw_ih + k.layer().param_tensors[0];
  float* db = dw_hh + k.layer().param_tensors[1];
  check(cudaMemsetAsync(dh_carry, 0, static_cast<std::size_t>(2 * batch * h) * 4, k.stream),
        "cudaMemsetAsync(lstm carry)", k.site);
  k.called();
  const int ld_g = static_cast<int>(t_steps * 4 * h);
  for (i64 t = t_steps; t-- > 0;) {
    kernels::lstm_cell_grad(dgates + t * 4 * h, t_steps * 4 * h, gates + t * 4 * h,
                            t > 0 ? cells + (t - 1) * h : nullptr, cells + t * h, t_steps * h,
                            dy + t * h, t_steps * h, dh_carry, dc_carry, batch, h, k.stream);
    k.launched("lstm_cell_grad");
    if (t > 0) {
      check(cublasSgemm(k.blas, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(h),
                        static_cast<int>(batch), static_cast<int>(4 * h), &kOne, w_hh,
                        static_cast<int>(h), dgates + t * 4 * h, ld_g, &kZero, dh_carry,
                        static_cast<int>(h)),
            "cublasSgemm(recurrent dgrad)", k.site);
      k.called();
    }
  }
  const int bt = static_cast<int>(batch * t_steps);
  check(cublasSgemm(k.blas, CUBLAS_OP_N, CUBLAS_OP_T, static_cast<int>(xd), static_cast<int>(4 * h),
                    bt, &kOne, x, static_cast<int>(xd), dgates, static_cast<int>(4 * h), &kOne,
                    dw_ih, static_cast<int>(xd)),
        "cublasSgemm(wgrad input)", k.site);
  check(cublasSgemm(k.blas, CUBLAS_OP_N, CUBLAS_OP_T, static_cast<int>(h), static_cast<int>(4 * h),
                    bt, &kOne, y, static_cast<int>(h), dgates, static_cast<int>(4 * h), &kOne,
                    dw_hh, static_cast<int>(h)),
        "cublasSgemm(wgrad recurrent)", k.site);
  k.called();
  k.called();
  kernels::bias_grad(db, dgates, batch * t_steps, 4 * h, 1, k.stream);
  k.launched("bias_grad");
  if (k.layer().needs_input_gradient) {
    check(cublasSgemm(k.blas, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(xd), bt,
                      static_cast<int>(4 * h), &kOne, w_ih, static_cast<int>(xd), dgates,
                      static_cast<int>(4 * h), &kOne, k.dx(), static_cast<int>(xd)),
          "cublasSgemm(dgrad input)", k.site);
    k.called();
  }
}

}  // namespace fulcrum::backends::cuda::ops
