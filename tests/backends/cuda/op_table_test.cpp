// The cuda backend's operator table (backends/cuda/ops/): one row per operator kind, found by its
// kind, each with a forward and a backward function. Completeness is also checked at compile
// time (op_table.cpp); this checks the lookup the backend makes at run time. Host only.
#include "backends/cuda/ops/op_table.hpp"

#include <catch2/catch.hpp>
#include <set>

using namespace fulcrum::backends::cuda::ops;
using fulcrum::models::OpKind;

TEST_CASE("every operator kind has its own row with a forward and a backward function") {
  std::set<OpFn> forwards;
  for (int i = 0; i < fulcrum::models::kOpKindCount; ++i) {
    const auto kind = static_cast<OpKind>(i);
    INFO(fulcrum::models::to_string(kind));
    const OpEntry& e = op(kind);
    CHECK(e.kind == kind);
    CHECK(e.forward != nullptr);
    CHECK(e.backward != nullptr);
    forwards.insert(e.forward);
  }
  // Each kind has a forward of its own: as many distinct forwards as kinds.
  CHECK(forwards.size() == static_cast<std::size_t>(fulcrum::models::kOpKindCount));
  // Input and view compute no gradient.
  CHECK(op(OpKind::input).backward == op(OpKind::view).backward);
  CHECK(fulcrum::models::kOpKindCount == 16);  // input ... view, as op_kind.hpp lists them
}
