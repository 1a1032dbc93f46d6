// make_backend's options: FULCRUM_CUDA_GRAPHS=1 in the environment turns graph replay on as
// --cuda-graphs does, and nothing else turns it on.
#include "backends/backend_factory.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>

using namespace fulcrum::backends;

TEST_CASE("FULCRUM_CUDA_GRAPHS=1 adds graph replay to the options; the flag alone also sets it") {
  unsetenv("FULCRUM_CUDA_GRAPHS");
  CHECK_FALSE(with_environment({}).cuda_graphs);
  CHECK(with_environment({.cuda_graphs = true}).cuda_graphs);
  CHECK(with_environment({.layer_timing = true}).layer_timing);
  setenv("FULCRUM_CUDA_GRAPHS", "0", 1);
  CHECK_FALSE(with_environment({}).cuda_graphs);
  setenv("FULCRUM_CUDA_GRAPHS", "1", 1);
  const BackendOptions o = with_environment({.layer_timing = false});
  CHECK(o.cuda_graphs);
  CHECK_FALSE(o.layer_timing);
  unsetenv("FULCRUM_CUDA_GRAPHS");
}
