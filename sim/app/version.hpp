// The version printed by `fulcrum --version` and recorded in run.json; kept equal to the
// project VERSION in the top-level CMakeLists.txt (a test checks it).
#pragma once

namespace fulcrum::sim {

inline constexpr const char* kFulcrumVersion = "0.1.0";

}  // namespace fulcrum::sim
