// The cuda backend as a plugin (backends/cuda/plugin_api.hpp): `fulcrum` links no CUDA library,
// and a plugin that cannot be loaded -- absent, not a library, a CUDA library missing -- is one
// line and exit status 2, only for a command that asks for the GPU, while a simulation runs.
// The in-process checks only ever fail to load the plugin (a plugin loaded once stays loaded).
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "backends/backend_factory.hpp"
#include "models/error.hpp"
#include "tests/input_error.hpp"
#include "tests/temp_dir.hpp"

using namespace fulcrum;
using namespace fulcrum::backends;
namespace fs = std::filesystem;

namespace {

bool has_cuda_backend() {
  const std::vector<std::string> names = available_backends();
  return std::find(names.begin(), names.end(), "cuda") != names.end();
}

// Sets an environment variable for the scope.
struct ScopedEnv {
  std::string name;
  ScopedEnv(std::string n, const std::string& value) : name(std::move(n)) {
    setenv(name.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() { unsetenv(name.c_str()); }
};

// stdout of `command`, and its exit status.
struct Ran {
  int status = -1;
  std::string out;
};
Ran run_shell(const std::string& command) {
  Ran r;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    r.out.append(buffer.data(), n);
  const int raw = pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

std::string quote(const std::string& s) { return "'" + s + "'"; }

int lines_in(const std::string& s) {
  return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
}

}  // namespace

TEST_CASE("with the plugin path pointing at nothing, asking for cuda is one line naming it") {
  const models::DeviceSpec device;
  testing::TempDir dir;
  const std::string absent = (dir.path() / "no-such-libfulcrum_cuda.so").string();
  const ScopedEnv env("FULCRUM_CUDA_PLUGIN", absent);
  const InputError e = testing::error_of([&] { make_backend("cuda", {.device = &device}); });
  CHECK(e.key_path() == "--backend");
  CHECK(std::string(e.what()).find('\n') == std::string::npos);
  if (has_cuda_backend()) {
    CHECK_THAT(e.problem(), Catch::StartsWith("cannot load the cuda backend " + absent + ": "));
    CHECK_THAT(e.problem(), Catch::Contains("No such file"));
    const InputError probe = testing::error_of([] { probe_gpu(0); });
    CHECK(probe.key_path() == "--probe");
    CHECK_THAT(probe.problem(), Catch::Contains(absent));
  } else {
    CHECK(e.problem() == "'cuda' is not available in this build (available: sim)");
  }
  CHECK(cuda_gpu_count() == 0);  // never throws
  // The simulator is unaffected.
  CHECK_FALSE(is_measured_backend("sim"));
}

TEST_CASE("a plugin file that is not a library is one line naming the file and the loader's word") {
  if (!has_cuda_backend()) return;  // nothing is loaded in a build without the backend
  const models::DeviceSpec device;
  testing::TempDir dir;
  const std::string bad = dir.write("libfulcrum_cuda.so", "this is not an ELF file\n");
  const ScopedEnv env("FULCRUM_CUDA_PLUGIN", bad);
  const InputError e = testing::error_of([&] { make_backend("cuda", {.device = &device}); });
  CHECK(e.key_path() == "--backend");
  CHECK_THAT(e.problem(), Catch::StartsWith("cannot load the cuda backend " + bad + ": "));
  CHECK(std::string(e.what()).find('\n') == std::string::npos);
}

TEST_CASE("the fulcrum executable links no CUDA library") {
  if (run_shell("command -v readelf >/dev/null 2>&1").status != 0) {
    WARN(FULCRUM_SKIP_MARKER " readelf is not installed");
    return;
  }
  const Ran r = run_shell("readelf -d " + quote(FULCRUM_BINARY));
  REQUIRE(r.status == 0);
  REQUIRE_THAT(r.out, Catch::Contains("(NEEDED)"));  // it lists what it needs
  for (const char* lib : {"libcudart", "libcublas", "libcublasLt", "libcudnn", "libcuda.so"}) {
    INFO(lib);
    CHECK_THAT(r.out, !Catch::Contains(lib));
  }
}

TEST_CASE(
    "without its plugin, --backend cuda and devices --probe are one line and exit 2, and a "
    "simulation runs") {
  testing::TempDir dir;
  const std::string absent = (dir.path() / "nowhere.so").string();
  const std::string env = "FULCRUM_CUDA_PLUGIN=" + quote(absent) + " ";
  const std::string fulcrum = quote(FULCRUM_BINARY);
  const std::string scenario =
      quote(std::string(FULCRUM_SOURCE_DIR) + "/scenarios/quickstart.yaml");
  const auto out = [&](const char* name) { return quote((dir.path() / name).string()); };

  const Ran cuda = run_shell(env + fulcrum + " run " + scenario + " --backend cuda --out " +
                             out("cuda") + " 2>&1 >/dev/null");
  CHECK(cuda.status == 2);
  CHECK(lines_in(cuda.out) == 1);
  CHECK_THAT(cuda.out, Catch::StartsWith("--backend: "));
  if (has_cuda_backend()) CHECK_THAT(cuda.out, Catch::Contains(absent));
  CHECK_FALSE(fs::exists(dir.path() / "cuda"));

  const Ran probe =
      run_shell(env + fulcrum + " devices --probe --out " + out("probe.yaml") + " 2>&1 >/dev/null");
  CHECK(probe.status == 2);
  CHECK(lines_in(probe.out) == 1);
  CHECK_THAT(probe.out, Catch::StartsWith("--probe: "));

  const Ran sim = run_shell(env + fulcrum + " run " + scenario + " --out " + out("sim") +
                            " -q 2>&1 >/dev/null");
  CHECK(sim.status == 0);
  CHECK(fs::exists(dir.path() / "sim" / "summary.json"));
}
