// The CUDA backend's own kernels (kernels.cu): elementwise, normalisation, activation, pooling,
// softmax, embedding, LSTM cell, loss and optimizer update, fp32, batch outermost. Each launcher
// enqueues one kernel on `stream` and returns; the caller checks cudaGetLastError() and names the
// layer. Gradient kernels ACCUMULATE (+=) into their input-gradient buffers, because a layer's
// output gradient is the sum over its consumers (the buffers are zeroed once per minibatch).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace fulcrum::backends::cuda::kernels {

using i64 = std::int64_t;

void fill_uniform(float* x, i64 n, float scale, std::uint32_t seed, cudaStream_t s);

// y[n, c, i] += bias[c] (inner = spatial size; 1 for a linear layer's [rows, c]).
void bias_add(float* y, const float* bias, i64 outer, i64 c, i64 inner, cudaStream_t s);
// db[c] += sum over outer and inner of dy[n, c, i].
void bias_grad(float* db, const float* dy, i64 outer, i64 c, i64 inner, cudaStream_t s);

// Batch normalisation over [n, c, inner]: stats = {mean[c], invstd[c], r1[c], r2[c]}.
void bn_stats(float* stats, const float* x, i64 n, i64 c, i64 inner, cudaStream_t s);
void bn_apply(float* y, const float* x, const float* stats, const float* gamma, const float* beta,
              i64 n, i64 c, i64 inner, cudaStream_t s);
void bn_grad_reduce(float* stats, float* dgamma, float* dbeta, const float* dy, const float* x,
                    i64 n, i64 c, i64 inner, cudaStream_t s);
void bn_grad_apply(float* dx, const float* dy, const float* x, const float* stats,
                   const float* gamma, i64 n, i64 c, i64 inner, cudaStream_t s);

// Layer normalisation over the last dimension: rows x width; stats = {mean, invstd} per row.
void layernorm(float* y, float* stats, const float* x, const float* gamma, const float* beta,
               i64 rows, i64 width, cudaStream_t s);
void layernorm_grad(float* dx, float* dgamma, float* dbeta, const float* dy, const float* x,
                    const float* stats, const float* gamma, i64 rows, i64 width, cudaStream_t s);

// Pointwise nonlinearity; `kind` is models::Activation as an int.
void activation(float* y, const float* x, i64 n, int kind, cudaStream_t s);
void activation_grad(float* dx, const float* dy, const float* x, i64 n, int kind, cudaStream_t s);

// Pooling of [planes, h, w] -> [planes, ho, wo] (planes = batch x channels).
void pool(float* y, const float* x, i64 planes, i64 h, i64 w, i64 ho, i64 wo, i64 k, i64 stride,
          i64 pad, bool max, cudaStream_t s);
void pool_grad(float* dx, const float* dy, const float* x, i64 planes, i64 h, i64 w, i64 ho, i64 wo,
               i64 k, i64 stride, i64 pad, bool max, cudaStream_t s);
void global_avg_pool(float* y, const float* x, i64 planes, i64 inner, cudaStream_t s);
void global_avg_pool_grad(float* dx, const float* dy, i64 planes, i64 inner, cudaStream_t s);

void add(float* y, const float* a, const float* b, i64 n, cudaStream_t s);
void add_grad(float* da, float* db, const float* dy, i64 n, cudaStream_t s);
// y[i] = a[i] * b[i / inner] (b broadcast over the `inner` trailing elements).
void mul_broadcast(float* y, const float* a, const float* b, i64 n, i64 inner, cudaStream_t s);
void mul_broadcast_grad(float* da, float* db, const float* dy, const float* a, const float* b,
                        i64 n, i64 inner, cudaStream_t s);
// Copies `outer` blocks of `in_block` floats from x into y at y_offset within blocks of
// `out_block`; the split copies back (accumulating).
void concat_copy(float* y, const float* x, i64 outer, i64 in_block, i64 out_block, i64 y_offset,
                 cudaStream_t s);
void concat_split(float* dx, const float* dy, i64 outer, i64 in_block, i64 out_block, i64 y_offset,
                  cudaStream_t s);
void upsample_nearest(float* y, const float* x, i64 planes, i64 h, i64 w, i64 scale,
                      cudaStream_t s);
void upsample_nearest_grad(float* dx, const float* dy, i64 planes, i64 h, i64 w, i64 scale,
                           cudaStream_t s);

void scale(float* y, const float* x, i64 n, float factor, cudaStream_t s);
void mask_add(float* y, i64 rows, i64 width, cudaStream_t s);
void softmax(float* y, const float* x, i64 rows, i64 width, cudaStream_t s);
void softmax_grad(float* dx, const float* dy, const float* y, i64 rows, i64 width, cudaStream_t s);

// y[r, :] = table[id(r), :] with id(r) derived from ids[r] (random inputs) modulo vocab.
void embedding_gather(float* y, const float* ids, const float* table, i64 rows, i64 dim, i64 vocab,
                      cudaStream_t s);
void embedding_scatter_add(float* dtable, const float* ids, const float* dy, i64 rows, i64 dim,
                           i64 vocab, cudaStream_t s);

// One LSTM step for a batch: gates [b, 4h] (row stride gate_ld) pre-activation on entry,
// activated on exit; c_prev / c [b, h] (row stride cell_ld; c_prev null at t = 0); h out [b, h]
// (row stride h_ld).
void lstm_cell(float* gates, i64 gate_ld, const float* bias, const float* c_prev, float* c,
               i64 cell_ld, float* h_out, i64 h_ld, i64 batch, i64 hidden, cudaStream_t s);
// Backward of one step: reads dh (from the output gradient, plus the carried dh), the carried
// dc; writes the gate gradients and the new carried dh is produced by the caller's GEMM; dc is
// carried in place.
void lstm_cell_grad(float* dgates, i64 gate_ld, const float* gates, const float* c_prev,
                    const float* c, i64 cell_ld, const float* dh_out, i64 h_ld,
                    const float* dh_carry, float* dc_carry, i64 batch, i64 hidden, cudaStream_t s);

// d loss / d y of the loss 0.5 * mean(y^2) (an MSE against zeros): dy += y / n.
void mse_loss_grad(float* dy, const float* y, i64 n, cudaStream_t s);
// v = momentum * v + g; w -= lr * v.
void sgd_momentum(float* w, float* v, const float* g, i64 n, float lr, float momentum,
                  cudaStream_t s);

}  // namespace fulcrum::backends::cuda::kernels
