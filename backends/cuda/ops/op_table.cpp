#include "backends/cuda/ops/op_table.hpp"

namespace fulcrum::backends::cuda::ops {

namespace {

using models::OpKind;

constexpr OpTable kTable{{
    {OpKind::input, &input_forward, &no_backward},
    {OpKind::conv, &conv_forward, &conv_backward},
    {OpKind::linear, &linear_forward, &linear_backward},
    {OpKind::matmul, &matmul_forward, &matmul_backward},
    {OpKind::bn, &bn_forward, &bn_backward},
    {OpKind::layernorm, &layernorm_forward, &layernorm_backward},
    {OpKind::act, &act_forward, &act_backward},
    {OpKind::pool, &pool_forward, &pool_backward},
    {OpKind::add, &add_forward, &add_backward},
    {OpKind::mul, &mul_forward, &mul_backward},
    {OpKind::concat, &concat_forward, &concat_backward},
    {OpKind::upsample, &upsample_forward, &upsample_backward},
    {OpKind::softmax, &softmax_forward, &softmax_backward},
    {OpKind::embedding, &embedding_forward, &embedding_backward},
    {OpKind::lstm, &lstm_forward, &lstm_backward},
    {OpKind::view, &view_forward, &no_backward},
}};

// Complete: every row in the enum's order (a missing row shifts the rest, a row too many does not
// fit std::array's size, a row too few leaves a null function), each with both functions.
constexpr bool complete(const OpTable& table) {
  for (int i = 0; i < models::kOpKindCount; ++i) {
    const OpEntry& e = table[static_cast<std::size_t>(i)];
    if (static_cast<int>(e.kind) != i || e.forward == nullptr || e.backward == nullptr)
      return false;
  }
  return true;
}
static_assert(complete(kTable), "the operator table needs one row per OpKind, in the enum's order");

}  // namespace

const OpEntry& op(models::OpKind kind) { return kTable[static_cast<std::size_t>(kind)]; }

}  // namespace fulcrum::backends::cuda::ops
