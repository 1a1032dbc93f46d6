// OpKind: what one DNN layer computes. The layer graph builds layers of these kinds and the
// performance model reads them from each layer's work (LayerWork), so the two agree by type.
#pragma once

namespace fulcrum::models {

enum class OpKind {
  input,      // the minibatch as it arrives on the GPU
  conv,       // 2-D convolution (optionally grouped/depthwise), bias optional
  linear,     // fully connected over the last dimension
  matmul,     // activation x activation product (attention scores and context)
  bn,         // batch normalisation
  layernorm,  // layer normalisation over the last dimension
  act,        // pointwise nonlinearity
  pool,       // max / average pooling (global average included)
  add,        // elementwise sum (residual)
  mul,        // elementwise product with broadcast (squeeze-excite scaling)
  concat,     // concatenation along channels / features
  upsample,   // nearest-neighbour upsampling
  softmax,    // softmax over the last dimension (with scaling and masking)
  embedding,  // table lookup (word, position, token type)
  lstm,       // one LSTM layer over a whole sequence
  view,       // reshape, flatten, channel slice: no data movement, no kernel
};

// The number of kinds, for tables indexed by OpKind (backends/cuda/ops/): `view` stays the last
// enumerator, and a new kind goes before it.
inline constexpr int kOpKindCount = static_cast<int>(OpKind::view) + 1;

// The kind's lower-case name ("conv", "linear", ...), for messages and listings.
const char* to_string(OpKind kind);

}  // namespace fulcrum::models
