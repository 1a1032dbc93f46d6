#include <cuda_runtime.h>

#include <algorithm>

#include "backends/cuda/kernels.hpp"

namespace fulcrum::backends::cuda::kernels {

namespace {

constexpr int kThreads = 256;

unsigned blocks_for(i64 n) {
  const i64 b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(std::max<i64>(1, std::min<i64>(b, 65535LL * 8)));
}

#define FULCRUM_GRID_LOOP(i, n)                                                  \
  for (i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += static_cast<i64>(blockDim.x) * gridDim.x)

__device__ float block_sum(float v) {
  __shared__ float shared[32];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  __syncthreads();
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  v = threadIdx.x < (blockDim.x + 31) / 32 ? shared[lane] : 0.f;
  if (warp == 0) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  }
  return v;  // valid in thread 0
}

__device__ float block_max(float v) {
  __shared__ float shared[32];
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, o));
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  __syncthreads();
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  v = threadIdx.x < (blockDim.x + 31) / 32 ? shared[lane] : -3.0e38f;
  if (warp == 0) {
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, o));
  }
  return v;
}

__global__ void k_fill(float* x, i64 n, float scale, std::uint32_t seed) {
  FULCRUM_GRID_LOOP(i, n) {
    std::uint32_t h = static_cast<std::uint32_t>(i) * 2654435761u ^ seed;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    x[i] = scale * (static_cast<float>(h & 0xffffff) / 16777216.f * 2.f - 1.f);
  }
}

__global__ void k_bias_add(float* y, const float* bias, i64 total, i64 c, i64 inner) {
  FULCRUM_GRID_LOOP(i, total) { y[i] += bias[(i / inner) % c]; }
}

// One block per channel.
__global__ void k_channel_reduce(float* out, const float* dy, i64 outer, i64 c, i64 inner) {
  const i64 ch = blockIdx.x;
  float acc = 0;
  for (i64 j = threadIdx.x; j < outer * inner; j += blockDim.x) {
    const i64 n = j / inner, i = j % inner;
    acc += dy[(n * c + ch) * inner + i];
  }
  acc = block_sum(acc);
  if (threadIdx.x == 0) out[ch] += acc;
}

__global__ void k_bn_stats(float* stats, const float* x, i64 n, i64 c, i64 inner) {
  const i64 ch = blockIdx.x;
  float s = 0, s2 = 0;
  for (i64 j = threadIdx.x; j < n * inner; j += blockDim.x) {
    const float v = x[(j / inner * c + ch) * inner + j % inner];
    s += v;
    s2 += v * v;
  }
  s = block_sum(s);
  __syncthreads();
  s2 = block_sum(s2);
  if (threadIdx.x == 0) {
    const float count = static_cast<float>(n * inner);
    const float mean = s / count;
    stats[ch] = mean;
    stats[c + ch] = rsqrtf(fmaxf(s2 / count - mean * mean, 0.f) + 1e-5f);
  }
}

__global__ void k_bn_apply(float* y, const float* x, const float* stats, const float* gamma,
                           const float* beta, i64 total, i64 c, i64 inner) {
  FULCRUM_GRID_LOOP(i, total) {
    const i64 ch = (i / inner) % c;
    y[i] = (x[i] - stats[ch]) * stats[c + ch] * gamma[ch] + beta[ch];
  }
}

__global__ void k_bn_grad_reduce(float* stats, float* dgamma, float* dbeta, const float* dy,
                                 const float* x, i64 n, i64 c, i64 inner) {
  const i64 ch = blockIdx.x;
  const float mean = stats[ch], invstd = stats[c + ch];
  float sdy = 0, sdyx = 0;
  for (i64 j = threadIdx.x; j < n * inner; j += blockDim.x) {
    const i64 idx = (j / inner * c + ch) * inner + j % inner;
    sdy += dy[idx];
    sdyx += dy[idx] * (x[idx] - mean) * invstd;
  }
  sdy = block_sum(sdy);
  __syncthreads();
  sdyx = block_sum(sdyx);
  if (threadIdx.x == 0) {
    stats[2 * c + ch] = sdy;
    stats[3 * c + ch] = sdyx;
    dbeta[ch] += sdy;
    dgamma[ch] += sdyx;
  }
}

__global__ void k_bn_grad_apply(float* dx, const float* dy, const float* x, const float* stats,
                                const float* gamma, i64 total, i64 c, i64 inner, float count) {
  FULCRUM_GRID_LOOP(i, total) {
    const i64 ch = (i / inner) % c;
    const float invstd = stats[c + ch];
    const float xhat = (x[i] - stats[ch]) * invstd;
    dx[i] +=
        gamma[ch] * invstd * (dy[i] - stats[2 * c + ch] / count - xhat * stats[3 * c + ch] / count);
  }
}

// One block per row.
__global__ void k_layernorm(float* y, float* stats, const float* x, const float* gamma,
                            const float* beta, i64 width) {
  const i64 r = blockIdx.x;
  const float* xr = x + r * width;
  float s = 0, s2 = 0;
  for (i64 j = threadIdx.x; j < width; j += blockDim.x) {
    s += xr[j];
    s2 += xr[j] * xr[j];
  }
  s = block_sum(s);
  __syncthreads();
  s2 = block_sum(s2);
  __shared__ float mean_invstd[2];
  if (threadIdx.x == 0) {
    const float mean = s / static_cast<float>(width);
    mean_invstd[0] = mean;
    mean_invstd[1] = rsqrtf(fmaxf(s2 / static_cast<float>(width) - mean * mean, 0.f) + 1e-5f);
    stats[2 * r] = mean_invstd[0];
    stats[2 * r + 1] = mean_invstd[1];
  }
  __syncthreads();
  for (i64 j = threadIdx.x; j < width; j += blockDim.x) {
    y[r * width + j] = (xr[j] - mean_invstd[0]) * mean_invstd[1] * gamma[j] + beta[j];
  }
}

__global__ void k_layernorm_grad(float* dx, float* dgamma, float* dbeta, const float* dy,
                                 const float* x, const float* stats, const float* gamma,
                                 i64 width) {
  const i64 r = blockIdx.x;
  const float mean = stats[2 * r], invstd = stats[2 * r + 1];
  float a = 0, bsum = 0;
  for (i64 j = threadIdx.x; j < width; j += blockDim.x) {
    const float xhat = (x[r * width + j] - mean) * invstd;
    const float g = dy[r * width + j] * gamma[j];
    a += g;
    bsum += g * xhat;
    atomicAdd(&dgamma[j], dy[r * width + j] * xhat);
    atomicAdd(&dbeta[j], dy[r * width + j]);
  }
  a = block_sum(a);
  __syncthreads();
  bsum = block_sum(bsum);
  __shared__ float sums[2];
  if (threadIdx.x == 0) {
    sums[0] = a / static_cast<float>(width);
    sums[1] = bsum / static_cast<float>(width);
  }
  __syncthreads();
  for (i64 j = threadIdx.x; j < width; j += blockDim.x) {
    const float xhat = (x[r * width + j] - mean) * invstd;
    dx[r * width + j] += invstd * (dy[r * width + j] * gamma[j] - sums[0] - xhat * sums[1]);
  }
}

// models::Activation order: relu, hardswish, hardsigmoid, sigmoid, silu, gelu, tanh.
__device__ float act_f(float x, int kind) {
  switch (kind) {
    case 0:
      return fmaxf(x, 0.f);
    case 1:
      return x * fminf(fmaxf(x + 3.f, 0.f), 6.f) / 6.f;
    case 2:
      return fminf(fmaxf(x + 3.f, 0.f), 6.f) / 6.f;
    case 3:
      return 1.f / (1.f + __expf(-x));
    case 4:
      return x / (1.f + __expf(-x));
    case 5:
      return 0.5f * x * (1.f + erff(x * 0.70710678f));
    default:
      return tanhf(x);
  }
}

__device__ float act_df(float x, int kind) {
  switch (kind) {
    case 0:
      return x > 0.f ? 1.f : 0.f;
    case 1:
      return x < -3.f ? 0.f : (x > 3.f ? 1.f : (2.f * x + 3.f) / 6.f);
    case 2:
      return (x > -3.f && x < 3.f) ? 1.f / 6.f : 0.f;
    case 3: {
      const float s = 1.f / (1.f + __expf(-x));
      return s * (1.f - s);
    }
    case 4: {
      const float s = 1.f / (1.f + __expf(-x));
      return s * (1.f + x * (1.f - s));
    }
    case 5:
      return 0.5f * (1.f + erff(x * 0.70710678f)) + x * 0.39894228f * __expf(-0.5f * x * x);
    default: {
      const float t = tanhf(x);
      return 1.f - t * t;
    }
  }
}

__global__ void k_activation(float* y, const float* x, i64 n, int kind) {
  FULCRUM_GRID_LOOP(i, n) { y[i] = act_f(x[i], kind); }
}

__global__ void k_activation_grad(float* dx, const float* dy, const float* x, i64 n, int kind) {
  FULCRUM_GRID_LOOP(i, n) { dx[i] += dy[i] * act_df(x[i], kind); }
}

__global__ void k_pool(float* y, const float* x, i64 planes, i64 h, i64 w, i64 ho, i64 wo, i64 k,
                       i64 stride, i64 pad, bool max) {
  FULCRUM_GRID_LOOP(i, planes * ho * wo) {
    const i64 p = i / (ho * wo), oy = (i / wo) % ho, ox = i % wo;
    float acc = max ? -3.0e38f : 0.f;
    for (i64 ky = 0; ky < k; ++ky) {
      for (i64 kx = 0; kx < k; ++kx) {
        const i64 iy = oy * stride - pad + ky, ix = ox * stride - pad + kx;
        if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
        const float v = x[(p * h + iy) * w + ix];
        acc = max ? fmaxf(acc, v) : acc + v;
      }
    }
    y[i] = max ? acc : acc / static_cast<float>(k * k);
  }
}

__global__ void k_pool_grad(float* dx, const float* dy, const float* x, i64 planes, i64 h, i64 w,
                            i64 ho, i64 wo, i64 k, i64 stride, i64 pad, bool max) {
  FULCRUM_GRID_LOOP(i, planes * ho * wo) {
    const i64 p = i / (ho * wo), oy = (i / wo) % ho, ox = i % wo;
    i64 best = -1;
    float best_v = -3.0e38f;
    for (i64 ky = 0; ky < k; ++ky) {
      for (i64 kx = 0; kx < k; ++kx) {
        const i64 iy = oy * stride - pad + ky, ix = ox * stride - pad + kx;
        if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
        const i64 idx = (p * h + iy) * w + ix;
        if (max) {
          if (x[idx] > best_v) {
            best_v = x[idx];
            best = idx;
          }
        } else {
          atomicAdd(&dx[idx], dy[i] / static_cast<float>(k * k));
        }
      }
    }
    if (max && best >= 0) atomicAdd(&dx[best], dy[i]);
  }
}

__global__ void k_global_avg_pool(float* y, const float* x, i64 inner) {
  const i64 p = blockIdx.x;
  float s = 0;
  for (i64 j = threadIdx.x; j < inner; j += blockDim.x) s += x[p * inner + j];
  s = block_sum(s);
  if (threadIdx.x == 0) y[p] = s / static_cast<float>(inner);
}

__global__ void k_global_avg_pool_grad(float* dx, const float* dy, i64 total, i64 inner) {
  FULCRUM_GRID_LOOP(i, total) { dx[i] += dy[i / inner] / static_cast<float>(inner); }
}

__global__ void k_add(float* y, const float* a, const float* b, i64 n) {
  FULCRUM_GRID_LOOP(i, n) { y[i] = a[i] + b[i]; }
}

__global__ void k_add_grad(float* da, float* db, const float* dy, i64 n) {
  FULCRUM_GRID_LOOP(i, n) {
    da[i] += dy[i];
    db[i] += dy[i];
  }
}

__global__ void k_mul_broadcast(float* y, const float* a, const float* b, i64 n, i64 inner) {
  FULCRUM_GRID_LOOP(i, n) { y[i] = a[i] * b[i / inner]; }
}

// One block per element of b.
__global__ void k_mul_broadcast_grad(float* da, float* db, const float* dy, const float* a,
                                     const float* b, i64 inner) {
  const i64 j = blockIdx.x;
  float s = 0;
  for (i64 k = threadIdx.x; k < inner; k += blockDim.x) {
    const i64 i = j * inner + k;
    da[i] += dy[i] * b[j];
    s += dy[i] * a[i];
  }
  s = block_sum(s);
  if (threadIdx.x == 0) db[j] += s;
}

__global__ void k_concat_copy(float* y, const float* x, i64 outer, i64 in_block, i64 out_block,
                              i64 y_offset, bool split) {
  FULCRUM_GRID_LOOP(i, outer * in_block) {
    const i64 o = i / in_block, j = i % in_block;
    if (split) {
      y[i] += x[o * out_block + y_offset + j];  // y is dx, x is dy here
    } else {
      y[o * out_block + y_offset + j] = x[i];
    }
  }
}

__global__ void k_upsample(float* y, const float* x, i64 planes, i64 h, i64 w, i64 scale) {
  const i64 ho = h * scale, wo = w * scale;
  FULCRUM_GRID_LOOP(i, planes * ho * wo) {
    const i64 p = i / (ho * wo), oy = (i / wo) % ho, ox = i % wo;
    y[i] = x[(p * h + oy / scale) * w + ox / scale];
  }
}

__global__ void k_upsample_grad(float* dx, const float* dy, i64 planes, i64 h, i64 w, i64 scale) {
  const i64 wo = w * scale;
  FULCRUM_GRID_LOOP(i, planes * h * w) {
    const i64 p = i / (h * w), iy = (i / w) % h, ix = i % w;
    float s = 0;
    for (i64 dy_ = 0; dy_ < scale; ++dy_) {
      for (i64 dx_ = 0; dx_ < scale; ++dx_) {
        s += dy[(p * h * scale + iy * scale + dy_) * wo + ix * scale + dx_];
      }
    }
    dx[i] += s;
  }
}

__global__ void k_scale(float* y, const float* x, i64 n, float factor) {
  FULCRUM_GRID_LOOP(i, n) { y[i] = x[i] * factor; }
}

__global__ void k_mask_add(float* y, i64 rows, i64 width) {
  // An all-visible attention mask (0 added), read as a [width] row per row as HuggingFace does.
  FULCRUM_GRID_LOOP(i, rows * width) { y[i] += (i % width) < 0 ? -1e4f : 0.f; }
}

__global__ void k_softmax(float* y, const float* x, i64 width) {
  const i64 r = blockIdx.x;
  const float* xr = x + r * width;
  float m = -3.0e38f;
  for (i64 j = threadIdx.x; j < width; j += blockDim.x) m = fmaxf(m, xr[j]);
  m = block_max(m);
  __shared__ float shared[2];
  if (threadIdx.x == 0) shared[0] = m;
  __syncthreads();
  m = shared[0];
  float s = 0;
  for (i64 j = threadIdx.x; j < width; j += blockDim.x) s += __expf(xr[j] - m);
  s = block_sum(s);
  if (threadIdx.x == 0) shared[1] = s;
  __syncthreads();
  s = shared[1];
  for (i64 j = threadIdx.x; j < width; j += blockDim.x) y[r * width + j] = __expf(xr[j] - m) / s;
}

__global__ void k_softmax_grad(float* dx, const float* dy, const float* y, i64 width) {
  const i64 r = blockIdx.x;
  float dot = 0;
  for (i64 j = threadIdx.x; j < width; j += blockDim.x) dot += dy[r * width + j] * y[r * width + j];
  dot = block_sum(dot);
  __shared__ float shared;
  if (threadIdx.x == 0) shared = dot;
  __syncthreads();
  for (i64 j = threadIdx.x; j < width; j += blockDim.x) {
    const i64 i = r * width + j;
    dx[i] += y[i] * (dy[i] - shared);
  }
}

__device__ i64 token_id(float v, i64 vocab) {
  const i64 id = static_cast<i64>(fabsf(v) * 1e6f);
  return id % vocab;
}

__global__ void k_embedding_gather(float* y, const float* ids, const float* table, i64 rows,
                                   i64 dim, i64 vocab) {
  FULCRUM_GRID_LOOP(i, rows * dim) {
    const i64 r = i / dim;
    y[i] = table[token_id(ids[r], vocab) * dim + i % dim];
  }
}

__global__ void k_embedding_scatter_add(float* dtable, const float* ids, const float* dy, i64 rows,
                                        i64 dim, i64 vocab) {
  FULCRUM_GRID_LOOP(i, rows * dim) {
    const i64 r = i / dim;
    atomicAdd(&dtable[token_id(ids[r], vocab) * dim + i % dim], dy[i]);
  }
}

__device__ float sigmoid(float x) { return 1.f / (1.f + __expf(-x)); }

// Gate order i, f, g, o (PyTorch's).
__global__ void k_lstm_cell(float* gates, i64 gate_ld, const float* bias, const float* c_prev,
                            float* c, i64 cell_ld, float* h_out, i64 h_ld, i64 batch, i64 hidden) {
  FULCRUM_GRID_LOOP(i, batch * hidden) {
    const i64 b = i / hidden, j = i % hidden;
    float* g = gates + b * gate_ld;
    const float gi = sigmoid(g[j] + bias[j] + bias[4 * hidden + j]);
    const float gf = sigmoid(g[hidden + j] + bias[hidden + j] + bias[5 * hidden + j]);
    const float gg = tanhf(g[2 * hidden + j] + bias[2 * hidden + j] + bias[6 * hidden + j]);
    const float go = sigmoid(g[3 * hidden + j] + bias[3 * hidden + j] + bias[7 * hidden + j]);
    const float cp = c_prev != nullptr ? c_prev[b * cell_ld + j] : 0.f;
    const float cn = gf * cp + gi * gg;
    c[b * cell_ld + j] = cn;
    h_out[b * h_ld + j] = go * tanhf(cn);
    g[j] = gi;
    g[hidden + j] = gf;
    g[2 * hidden + j] = gg;
    g[3 * hidden + j] = go;
  }
}

__global__ void k_lstm_cell_grad(float* dgates, i64 gate_ld, const float* gates,
                                 const float* c_prev, const float* c, i64 cell_ld,
                                 const float* dh_out, i64 h_ld, const float* dh_carry,
                                 float* dc_carry, i64 batch, i64 hidden) {
  FULCRUM_GRID_LOOP(i, batch * hidden) {
    const i64 b = i / hidden, j = i % hidden;
    const float* g = gates + b * gate_ld;
    const float gi = g[j], gf = g[hidden + j], gg = g[2 * hidden + j], go = g[3 * hidden + j];
    const float cn = c[b * cell_ld + j];
    const float tc = tanhf(cn);
    const float dh = dh_out[b * h_ld + j] + dh_carry[i];
    const float dc = dc_carry[i] + dh * go * (1.f - tc * tc);
    const float cp = c_prev != nullptr ? c_prev[b * cell_ld + j] : 0.f;
    float* d = dgates + b * gate_ld;
    d[j] = dc * gg * gi * (1.f - gi);
    d[hidden + j] = dc * cp * gf * (1.f - gf);
    d[2 * hidden + j] = dc * gi * (1.f - gg * gg);
    d[3 * hidden + j] = dh * tc * go * (1.f - go);
    dc_carry[i] = dc * gf;
  }
}

__global__ void k_mse_loss_grad(float* dy, const float* y, i64 n) {
  FULCRUM_GRID_LOOP(i, n) { dy[i] += y[i] / static_cast<float>(n); }
}

__global__ void k_sgd_momentum(float* w, float* v, const float* g, i64 n, float lr,
                               float momentum) {
  FULCRUM_GRID_LOOP(i, n) {
    const float vn = momentum * v[i] + g[i];
    v[i] = vn;
    w[i] -= lr * vn;
  }
}

unsigned rows_grid(i64 rows) { return static_cast<unsigned>(std::max<i64>(1, rows)); }

}  // namespace

void fill_uniform(float* x, i64 n, float scale, std::uint32_t seed, cudaStream_t s) {
  k_fill<<<blocks_for(n), kThreads, 0, s>>>(x, n, scale, seed);
}
void bias_add(float* y, const float* bias, i64 outer, i64 c, i64 inner, cudaStream_t s) {
  k_bias_add<<<blocks_for(outer * c * inner), kThreads, 0, s>>>(y, bias, outer * c * inner, c,
                                                                inner);
}
void bias_grad(float* db, const float* dy, i64 outer, i64 c, i64 inner, cudaStream_t s) {
  k_channel_reduce<<<rows_grid(c), kThreads, 0, s>>>(db, dy, outer, c, inner);
}
void bn_stats(float* stats, const float* x, i64 n, i64 c, i64 inner, cudaStream_t s) {
  k_bn_stats<<<rows_grid(c), kThreads, 0, s>>>(stats, x, n, c, inner);
}
void bn_apply(float* y, const float* x, const float* stats, const float* gamma, const float* beta,
              i64 n, i64 c, i64 inner, cudaStream_t s) {
  k_bn_apply<<<blocks_for(n * c * inner), kThreads, 0, s>>>(y, x, stats, gamma, beta, n * c * inner,
                                                            c, inner);
}
void bn_grad_reduce(float* stats, float* dgamma, float* dbeta, const float* dy, const float* x,
                    i64 n, i64 c, i64 inner, cudaStream_t s) {
  k_bn_grad_reduce<<<rows_grid(c), kThreads, 0, s>>>(stats, dgamma, dbeta, dy, x, n, c, inner);
}
void bn_grad_apply(float* dx, const float* dy, const float* x, const float* stats,
                   const float* gamma, i64 n, i64 c, i64 inner, cudaStream_t s) {
  k_bn_grad_apply<<<blocks_for(n * c * inner), kThreads, 0, s>>>(
      dx, dy, x, stats, gamma, n * c * inner, c, inner, static_cast<float>(n * inner));
}
void layernorm(float* y, float* stats, const float* x, const float* gamma, const float* beta,
               i64 rows, i64 width, cudaStream_t s) {
  k_layernorm<<<rows_grid(rows), kThreads, 0, s>>>(y, stats, x, gamma, beta, width);
}
void layernorm_grad(float* dx, float* dgamma, float* dbeta, const float* dy, const float* x,
                    const float* stats, const float* gamma, i64 rows, i64 width, cudaStream_t s) {
  k_layernorm_grad<<<rows_grid(rows), kThreads, 0, s>>>(dx, dgamma, dbeta, dy, x, stats, gamma,
                                                        width);
}
void activation(float* y, const float* x, i64 n, int kind, cudaStream_t s) {
  k_activation<<<blocks_for(n), kThreads, 0, s>>>(y, x, n, kind);
}
void activation_grad(float* dx, const float* dy, const float* x, i64 n, int kind, cudaStream_t s) {
  k_activation_grad<<<blocks_for(n), kThreads, 0, s>>>(dx, dy, x, n, kind);
}
void pool(float* y, const float* x, i64 planes, i64 h, i64 w, i64 ho, i64 wo, i64 k, i64 stride,
          i64 pad, bool max, cudaStream_t s) {
  k_pool<<<blocks_for(planes * ho * wo), kThreads, 0, s>>>(y, x, planes, h, w, ho, wo, k, stride,
                                                           pad, max);
}
void pool_grad(float* dx, const float* dy, const float* x, i64 planes, i64 h, i64 w, i64 ho, i64 wo,
               i64 k, i64 stride, i64 pad, bool max, cudaStream_t s) {
  k_pool_grad<<<blocks_for(planes * ho * wo), kThreads, 0, s>>>(dx, dy, x, planes, h, w, ho, wo, k,
                                                                stride, pad, max);
}
void global_avg_pool(float* y, const float* x, i64 planes, i64 inner, cudaStream_t s) {
  k_global_avg_pool<<<rows_grid(planes), kThreads, 0, s>>>(y, x, inner);
}
void global_avg_pool_grad(float* dx, const float* dy, i64 planes, i64 inner, cudaStream_t s) {
  k_global_avg_pool_grad<<<blocks_for(planes * inner), kThreads, 0, s>>>(dx, dy, planes * inner,
                                                                         inner);
}
void add(float* y, const float* a, const float* b, i64 n, cudaStream_t s) {
  k_add<<<blocks_for(n), kThreads, 0, s>>>(y, a, b, n);
}
void add_grad(float* da, float* db, const float* dy, i64 n, cudaStream_t s) {
  k_add_grad<<<blocks_for(n), kThreads, 0, s>>>(da, db, dy, n);
}
void mul_broadcast(float* y, const float* a, const float* b, i64 n, i64 inner, cudaStream_t s) {
  k_mul_broadcast<<<blocks_for(n), kThreads, 0, s>>>(y, a, b, n, inner);
}
void mul_broadcast_grad(float* da, float* db, const float* dy, const float* a, const float* b,
                        i64 n, i64 inner, cudaStream_t s) {
  k_mul_broadcast_grad<<<rows_grid(n / inner), kThreads, 0, s>>>(da, db, dy, a, b, inner);
}
void concat_copy(float* y, const float* x, i64 outer, i64 in_block, i64 out_block, i64 y_offset,
                 cudaStream_t s) {
  k_concat_copy<<<blocks_for(outer * in_block), kThreads, 0, s>>>(y, x, outer, in_block, out_block,
                                                                  y_offset, false);
}
void concat_split(float* dx, const float* dy, i64 outer, i64 in_block, i64 out_block, i64 y_offset,
                  cudaStream_t s) {
  k_concat_copy<<<blocks_for(outer * in_block), kThreads, 0, s>>>(dx, dy, outer, in_block,
                                                                  out_block, y_offset, true);
}
void upsample_nearest(float* y, const float* x, i64 planes, i64 h, i64 w, i64 scale,
                      cudaStream_t s) {
  k_upsample<<<blocks_for(planes * h * w * scale * scale), kThreads, 0, s>>>(y, x, planes, h, w,
                                                                             scale);
}
void upsample_nearest_grad(float* dx, const float* dy, i64 planes, i64 h, i64 w, i64 scale,
                           cudaStream_t s) {
  k_upsample_grad<<<blocks_for(planes * h * w), kThreads, 0, s>>>(dx, dy, planes, h, w, scale);
}
void scale(float* y, const float* x, i64 n, float factor, cudaStream_t s) {
  k_scale<<<blocks_for(n), kThreads, 0, s>>>(y, x, n, factor);
}
void mask_add(float* y, i64 rows, i64 width, cudaStream_t s) {
  k_mask_add<<<blocks_for(rows * width), kThreads, 0, s>>>(y, rows, width);
}
void softmax(float* y, const float* x, i64 rows, i64 width, cudaStream_t s) {
  k_softmax<<<rows_grid(rows), kThreads, 0, s>>>(y, x, width);
}
void softmax_grad(float* dx, const float* dy, const float* y, i64 rows, i64 width, cudaStream_t s) {
  k_softmax_grad<<<rows_grid(rows), kThreads, 0, s>>>(dx, dy, y, width);
}
void embedding_gather(float* y, const float* ids, const float* table, i64 rows, i64 dim, i64 vocab,
                      cudaStream_t s) {
  k_embedding_gather<<<blocks_for(rows * dim), kThreads, 0, s>>>(y, ids, table, rows, dim, vocab);
}
void embedding_scatter_add(float* dtable, const float* ids, const float* dy, i64 rows, i64 dim,
                           i64 vocab, cudaStream_t s) {
  k_embedding_scatter_add<<<blocks_for(rows * dim), kThreads, 0, s>>>(dtable, ids, dy, rows, dim,
                                                                      vocab);
}
void lstm_cell(float* gates, i64 gate_ld, const float* bias, const float* c_prev, float* c,
               i64 cell_ld, float* h_out, i64 h_ld, i64 batch, i64 hidden, cudaStream_t s) {
  k_lstm_cell<<<blocks_for(batch * hidden), kThreads, 0, s>>>(gates, gate_ld, bias, c_prev, c,
                                                              cell_ld, h_out, h_ld, batch, hidden);
}
void lstm_cell_grad(float* dgates, i64 gate_ld, const float* gates, const float* c_prev,
                    const float* c, i64 cell_ld, const float* dh_out, i64 h_ld,
                    const float* dh_carry, float* dc_carry, i64 batch, i64 hidden, cudaStream_t s) {
  k_lstm_cell_grad<<<blocks_for(batch * hidden), kThreads, 0, s>>>(
      dgates, gate_ld, gates, c_prev, c, cell_ld, dh_out, h_ld, dh_carry, dc_carry, batch, hidden);
}
void mse_loss_grad(float* dy, const float* y, i64 n, cudaStream_t s) {
  k_mse_loss_grad<<<blocks_for(n), kThreads, 0, s>>>(dy, y, n);
}
void sgd_momentum(float* w, float* v, const float* g, i64 n, float lr, float momentum,
                  cudaStream_t s) {
  k_sgd_momentum<<<blocks_for(n), kThreads, 0, s>>>(w, v, g, n, lr, momentum);
}

}  // namespace fulcrum::backends::cuda::kernels
