// Products of two activations per attention head, batched through cuBLAS: the scores
// S = Q K^T ({heads, T, T}) and the context C = P V ({T, d}).
#include "backends/cuda/ops/op_table.hpp"

namespace fulcrum::backends::cuda::ops {

void matmul_forward(const Launch& k) {
  const models::Layer& L = k.op();
  const float* a = k.x();
  const float* bm = k.item.at(k.input(1).output);
  float* y = k.y();
  const i64 batch = k.batch();
  if (L.out.rank() == 3) {  // scores {h, T, T} = Q K^T per head
    const i64 heads = L.out[0], t = L.out[1];
    const i64 dh = k.input_shape().dims.back() / heads;
    check(cublasSgemmStridedBatched(k.blas, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(t),
                                    static_cast<int>(t), static_cast<int>(dh), &kOne, bm,
                                    static_cast<int>(dh), t * dh, a, static_cast<int>(dh), t * dh,
                                    &kZero, y, static_cast<int>(t), t * t,
                                    static_cast<int>(batch * heads)),
          "cublasSgemmStridedBatched", k.site);
  } else {  // context {T, d} = P V per head
    const models::Shape& ps = k.input_shape();
    const i64 heads = ps[0], t = ps[1];
    const i64 dh = L.out.dims.back() / heads;
    check(cublasSgemmStridedBatched(
              k.blas, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(dh), static_cast<int>(t),
              static_cast<int>(t), &kOne, bm, static_cast<int>(dh), t * dh, a, static_cast<int>(t),
              t * t, &kZero, y, static_cast<int>(dh), t * dh, static_cast<int>(batch * heads)),
          "cublasSgemmStridedBatched", k.site);
  }
  k.called();
}

void matmul_backward(const Launch& k) {
  const models::Layer& L = k.op();
  const PlannedLayer& in1 = k.input(1);
  const float* bm = k.item.at(in1.output);
  float* dbm = k.item.at(in1.gradient);
  const float* x = k.x();
  float* dx = k.dx();
  const float* dy = k.dy();
  const i64 batch = k.batch();
  if (L.out.rank() == 3) {  // S = Q K^T: dQ = dS K, dK = dS^T Q
    const i64 heads = L.out[0], t = L.out[1];
    const i64 dh = k.input_shape().dims.back() / heads;
    const int hb = static_cast<int>(batch * heads);
    check(cublasSgemmStridedBatched(k.blas, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(dh),
                                    static_cast<int>(t), static_cast<int>(t), &kOne, bm,
                                    static_cast<int>(dh), t * dh, dy, static_cast<int>(t), t * t,
                                    &kOne, dx, static_cast<int>(dh), t * dh, hb),
          "cublasSgemmStridedBatched(grad a)", k.site);
    check(cublasSgemmStridedBatched(k.blas, CUBLAS_OP_N, CUBLAS_OP_T, static_cast<int>(dh),
                                    static_cast<int>(t), static_cast<int>(t), &kOne, x,
                                    static_cast<int>(dh), t * dh, dy, static_cast<int>(t), t * t,
                                    &kOne, dbm, static_cast<int>(dh), t * dh, hb),
          "cublasSgemmStridedBatched(grad b)", k.site);
  } else {  // C = P V: dP = dC V^T, dV = P^T dC
    const models::Shape& ps = k.input_shape();
    const i64 heads = ps[0], t = ps[1];
    const i64 dh = L.out.dims.back() / heads;
    const int hb = static_cast<int>(batch * heads);
    check(cublasSgemmStridedBatched(k.blas, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(t),
                                    static_cast<int>(t), static_cast<int>(dh), &kOne, bm,
                                    static_cast<int>(dh), t * dh, dy, static_cast<int>(dh), t * dh,
                                    &kOne, dx, static_cast<int>(t), t * t, hb),
          "cublasSgemmStridedBatched(grad a)", k.site);
    check(cublasSgemmStridedBatched(k.blas, CUBLAS_OP_N, CUBLAS_OP_T, static_cast<int>(dh),
                                    static_cast<int>(t), static_cast<int>(t), &kOne, dy,
                                    static_cast<int>(dh), t * dh, x, static_cast<int>(t), t * t,
                                    &kOne, dbm, static_cast<int>(dh), t * dh, hb),
          "cublasSgemmStridedBatched(grad b)", k.site);
  }
  k.called();
  k.called();
}

}  // namespace fulcrum::backends::cuda::ops
