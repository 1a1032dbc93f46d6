#include "models/workload/op_kind.hpp"

namespace fulcrum::models {

const char* to_string(OpKind kind) {
  switch (kind) {
    case OpKind::input:
      return "input";
    case OpKind::conv:
      return "conv";
    case OpKind::linear:
      return "linear";
    case OpKind::matmul:
      return "matmul";
    case OpKind::bn:
      return "bn";
    case OpKind::layernorm:
      return "layernorm";
    case OpKind::act:
      return "act";
    case OpKind::pool:
      return "pool";
    case OpKind::add:
      return "add";
    case OpKind::mul:
      return "mul";
    case OpKind::concat:
      return "concat";
    case OpKind::upsample:
      return "upsample";
    case OpKind::softmax:
      return "softmax";
    case OpKind::embedding:
      return "embedding";
    case OpKind::lstm:
      return "lstm";
    case OpKind::view:
      return "view";
  }
  return "view";
}

}  // namespace fulcrum::models
