// The cuda backend's operators as a table indexed by OpKind: per kind, the forward launches and
// the backward launches (input and parameter gradients; the optimizer's update is the backend's,
// after it). The table is checked complete at compile time (op_table.cpp): one row per kind, in
// the enum's order, each with both functions.
//
//   const OpEntry& e = op(OpKind::conv);
//   e.forward(launch);
#pragma once

#include <array>

#include "backends/cuda/ops/op_context.hpp"
#include "models/workload/op_kind.hpp"

namespace fulcrum::backends::cuda::ops {

using OpFn = void (*)(const Launch&);

struct OpEntry {
  models::OpKind kind;
  OpFn forward;
  OpFn backward;
};

using OpTable = std::array<OpEntry, models::kOpKindCount>;

// The row of `kind`.
const OpEntry& op(models::OpKind kind);

// ---- the operators (one file per kind or family of kinds in this folder) ----
void input_forward(const Launch& k);  // input.cpp: the minibatch copied to the GPU
void view_forward(const Launch& k);   // input.cpp: reshapes launch nothing
void no_backward(const Launch& k);    // input.cpp: input and view have no gradient to compute
void conv_forward(const Launch& k);   // conv.cpp
void conv_backward(const Launch& k);
void linear_forward(const Launch& k);  // linear.cpp
void linear_backward(const Launch& k);
void matmul_forward(const Launch& k);  // matmul.cpp
void matmul_backward(const Launch& k);
void bn_forward(const Launch& k);  // normalization.cpp
void bn_backward(const Launch& k);
void layernorm_forward(const Launch& k);
void layernorm_backward(const Launch& k);
void act_forward(const Launch& k);  // elementwise.cpp
void act_backward(const Launch& k);
void add_forward(const Launch& k);
void add_backward(const Launch& k);
void mul_forward(const Launch& k);
void mul_backward(const Launch& k);
void softmax_forward(const Launch& k);
void softmax_backward(const Launch& k);
void pool_forward(const Launch& k);  // resampling.cpp
void pool_backward(const Launch& k);
void upsample_forward(const Launch& k);
void upsample_backward(const Launch& k);
void concat_forward(const Launch& k);
void concat_backward(const Launch& k);
void embedding_forward(const Launch& k);  // embedding.cpp
void embedding_backward(const Launch& k);
void lstm_forward(const Launch& k);  // lstm.cpp
void lstm_backward(const Launch& k);

}  // namespace fulcrum::backends::cuda::ops
