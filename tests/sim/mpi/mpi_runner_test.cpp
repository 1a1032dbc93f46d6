// Sweeps and studies over ranks (sim/mpi/mpi_runner.hpp) with ranks that are threads of this
// process (thread_world.hpp): the blocks, the bytes one process publishes, a failing rank named
// and nothing published; and when a process takes itself for a rank of an MPI job. The same
// through mpirun and the MPI plugin: tests/sim/mpi/plugin/.
#include "sim/mpi/mpi_runner.hpp"

#include <stdlib.h>

#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "models/error.hpp"
#include "tests/reference_data.hpp"
#include "tests/scoped_env.hpp"
#include "tests/sim/mpi/thread_world.hpp"
#include "tests/temp_dir.hpp"

using namespace fulcrum;
using namespace fulcrum::sim;
using fulcrum::sim::mpi::Communicator;
using fulcrum::sim::mpi::testing::on_ranks;
using fulcrum::testing::slurp;
using fulcrum::testing::TempDir;

using fulcrum::testing::ScopedEnv;

namespace {

// Two workload sets x 2 rates x 2 power budgets = 8 configurations.
const char* const kSweep =
    "version: 1\nname: s\nworkloads:\n  - {training: lstm, inference: resnet50}\n"
    "  - {training: resnet18, inference: mobilenet_v3}\narrivals: {fixed: [30, 60]}\n"
    "latency_budget_s: [1]\npower_budget_w: [20, 30]\nstrategies: [random, binary, oracle]\n";

std::string study_text(const std::string& grid, const std::string& seeds) {
  return "version: 1\nname: st\nscenario: " +
         std::filesystem::absolute("scenarios/quickstart.yaml").string() +
         "\nset: {duration_s: 10}\ngrid:\n  " + grid + "\nseeds: " + seeds + "\n";
}

}  // namespace

TEST_CASE("rank blocks are contiguous, in rank order, and cover every configuration once",
          "[mpi]") {
  using B = std::pair<std::size_t, std::size_t>;
  CHECK(mpi::rank_block(10, 0, 3) == B{0, 3});
  CHECK(mpi::rank_block(10, 1, 3) == B{3, 6});
  CHECK(mpi::rank_block(10, 2, 3) == B{6, 10});
  // More ranks than configurations: some ranks run none.
  CHECK(mpi::rank_block(2, 0, 3) == B{0, 0});
  CHECK(mpi::rank_block(2, 1, 3) == B{0, 1});
  CHECK(mpi::rank_block(2, 2, 3) == B{1, 2});
}

TEST_CASE("a study's rows cross between ranks bit for bit", "[mpi]") {
  StudyRow a;
  a.point = 7;
  a.seed = 0xFFFFFFFFFFFFFFFFULL;
  a.figures = {{"training_samples_per_s", 123.456},
               {"infer.p99_ms", std::nullopt},
               {"energy_j", -0.0},
               {"power_avg_w", std::numeric_limits<double>::denorm_min()}};
  a.latency_ms = {{"infer", {0.1, 0.2, 1e300}}, {"empty", {}}};
  StudyRow b;  // nothing in it
  const std::vector<StudyRow> back = mpi::decode_rows(mpi::encode_rows({a, b}));
  REQUIRE(back.size() == 2);
  CHECK(back[0].point == 7);
  CHECK(back[0].seed == 0xFFFFFFFFFFFFFFFFULL);
  REQUIRE(back[0].figures.size() == 4);
  CHECK(back[0].figures[0] == a.figures[0]);
  CHECK_FALSE(back[0].figures[1].second.has_value());
  CHECK(std::signbit(*back[0].figures[2].second));
  CHECK(*back[0].figures[3].second == std::numeric_limits<double>::denorm_min());
  CHECK(back[0].latency_ms == a.latency_ms);
  CHECK(back[1].figures.empty());
  CHECK(back[1].latency_ms.empty());
  CHECK_THROWS(mpi::decode_rows(mpi::encode_rows({a}).substr(1)));
}

TEST_CASE("a sweep over three ranks publishes the bytes and the summary of one process",
          "[mpi][sweep]") {
  const std::optional<std::string> ref = fulcrum::testing::reference_path("");
  if (!ref) return;
  TempDir dir;
  app::SweepRequest one;
  one.sweep_file = dir.write("s.yaml", kSweep);
  one.reference_dir = *ref;
  one.threads = 1;
  one.out = dir.path() / "one.csv";
  const app::SweepReport whole = app::sweep(one);

  app::SweepRequest split = one;
  split.out = dir.path() / "three.csv";
  split.threads = 0;  // each rank its share of the cores
  std::vector<std::size_t> progress_seen(3, 0);
  const std::vector<std::optional<app::SweepReport>> got =
      on_ranks<std::optional<app::SweepReport>>(3, [&](Communicator& world) {
        app::SweepRequest r = split;
        r.progress = [&, rank = world.rank()](const std::string&, std::size_t done, std::size_t) {
          progress_seen[static_cast<std::size_t>(rank)] = done;
        };
        return mpi::sweep_over_ranks(world, r);
      });
  REQUIRE(got[0].has_value());
  CHECK_FALSE(got[1].has_value());
  CHECK_FALSE(got[2].has_value());
  CHECK(slurp(dir.path() / "three.csv") == slurp(dir.path() / "one.csv"));
  CHECK(got[0]->csv == dir.path() / "three.csv");
  CHECK(sweep::format_summary(got[0]->summary) == sweep::format_summary(whole.summary));
  CHECK(got[0]->summary.configurations == 8);
  // Progress on rank 0 only: the 8 configurations split 2, 3, 3 (8*1/3 = 2, 8*2/3 = 5).
  CHECK(progress_seen == std::vector<std::size_t>{2, 0, 0});
  CHECK_FALSE(std::filesystem::exists(dir.path() / "three.csv.lock"));
  CHECK_FALSE(std::filesystem::exists(dir.path() / "three.csv.partial"));
}

TEST_CASE("a sweep output that rank 0 refuses stops every rank, and --shard is refused",
          "[mpi][sweep]") {
  const std::optional<std::string> ref = fulcrum::testing::reference_path("");
  if (!ref) return;
  TempDir dir;
  app::SweepRequest request;
  request.sweep_file = dir.write("s.yaml", kSweep);
  request.reference_dir = *ref;
  request.threads = 1;
  request.out = dir.path() / "a-folder";
  std::filesystem::create_directories(*request.out);
  auto run = [&](const app::SweepRequest& r, const std::string& prefix) {
    return on_ranks<int>(3, [&](Communicator& world) {
      try {
        return mpi::sweep_over_ranks(world, r) ? 1 : 0;
      } catch (const InputError& e) {
        CHECK(world.rank() == 0);
        CHECK_THAT(e.what(), Catch::StartsWith(prefix) && Catch::EndsWith(" (rank 0 of 3)"));
        return 2;
      }
    });
  };
  CHECK(run(request, "--out: ") == std::vector<int>{2, 0, 0});
  CHECK(std::filesystem::is_empty(*request.out));

  request.out = dir.path() / "x.csv";
  request.shard = 1;
  request.shards = 2;
  CHECK(run(request, "--shard: does not combine with MPI ranks") == std::vector<int>{2, 0, 0});
  CHECK_FALSE(std::filesystem::exists(dir.path() / "x.csv"));
}

TEST_CASE("a study over three ranks publishes the files of one process", "[mpi][study]") {
  TempDir dir;
  app::StudyRequest one;
  one.study_path = dir.write("st.yaml", study_text("gpu_sharing: [managed, native]", "[1, 2]"));
  one.out_dir = dir.path() / "one";
  one.jobs = 1;
  const app::StudyReport whole = app::run_study(one);
  app::StudyRequest split = one;
  split.out_dir = dir.path() / "three";
  const std::vector<std::optional<app::StudyReport>> got =
      on_ranks<std::optional<app::StudyReport>>(
          3, [&](Communicator& world) { return mpi::study_over_ranks(world, split); });
  REQUIRE(got[0].has_value());
  CHECK_FALSE(got[1].has_value());
  CHECK_FALSE(got[2].has_value());
  CHECK(got[0]->rows.size() == 4);
  for (const char* f : {"study.csv", "study_summary.csv", "study_latency.csv"}) {
    INFO(f);
    CHECK(!slurp(dir.path() / "one" / f).empty());
    CHECK(slurp(dir.path() / "three" / f) == slurp(dir.path() / "one" / f));
  }
}

TEST_CASE("a run that fails on rank 2 ends the study with rank 2's error and publishes nothing",
          "[mpi][study]") {
  TempDir dir;
  app::StudyRequest request;
  // Four runs over three ranks: rank 2 runs the last two, and the last one cannot start.
  request.study_path =
      dir.write("st.yaml", study_text("training.batch_size: [8, 16, 32, 0]", "[1]"));
  request.out_dir = dir.path() / "o";
  request.jobs = 1;
  std::string one_process;
  try {
    app::run_study(request);
  } catch (const InputError& e) {
    one_process = e.what();
  }
  INFO(one_process);
  REQUIRE(one_process.rfind(request.study_path + ":6:36: training.batch_size: ", 0) == 0);
  const std::vector<int> got = on_ranks<int>(3, [&](Communicator& world) {
    try {
      return mpi::study_over_ranks(world, request) ? 1 : 0;
    } catch (const InputError& e) {
      CHECK(std::string(e.what()) == one_process + " (rank 2 of 3)");
      return 2;
    }
  });
  CHECK(got == std::vector<int>{2, 0, 0});
  CHECK_FALSE(std::filesystem::exists(dir.path() / "o"));
}

TEST_CASE("a process takes itself for a rank only when a launcher started several",
          "[mpi][environment]") {
  const ScopedEnv no_force("FULCRUM_MPI", nullptr);
  const ScopedEnv no_ompi("OMPI_COMM_WORLD_SIZE", nullptr);
  const ScopedEnv no_pmix("PMIX_RANK", nullptr);
  const ScopedEnv no_tasks("SLURM_STEP_NUM_TASKS", nullptr);
  CHECK_FALSE(mpi::launched_by_mpi());
  {
    const ScopedEnv ompi("OMPI_COMM_WORLD_SIZE", "3");
    CHECK(mpi::launched_by_mpi());
    const ScopedEnv off("FULCRUM_MPI", "0");
    CHECK_FALSE(mpi::launched_by_mpi());
  }
  {
    const ScopedEnv ompi("OMPI_COMM_WORLD_SIZE", "1");  // mpirun -n 1: a plain process
    CHECK_FALSE(mpi::launched_by_mpi());
  }
  {
    const ScopedEnv pmix("PMIX_RANK", "0");
    CHECK_FALSE(mpi::launched_by_mpi());  // srun of one task (or a job array's task)
    const ScopedEnv tasks("SLURM_STEP_NUM_TASKS", "4");
    CHECK(mpi::launched_by_mpi());
  }
  // A plain process opens no world and loads no MPI library.
  CHECK(mpi::open_world() == nullptr);
  CHECK(slurp("/proc/self/maps").find("libmpi") == std::string::npos);
}

TEST_CASE("a rank knows its number from the launcher before MPI starts", "[mpi][environment]") {
  const ScopedEnv no_force("FULCRUM_MPI", nullptr);
  const ScopedEnv no_pmix("PMIX_RANK", nullptr);
  const ScopedEnv no_tasks("SLURM_STEP_NUM_TASKS", nullptr);
  const ScopedEnv no_rank("OMPI_COMM_WORLD_RANK", nullptr);
  const ScopedEnv no_size("OMPI_COMM_WORLD_SIZE", nullptr);
  CHECK_FALSE(mpi::launcher_rank());  // a plain process
  {
    const ScopedEnv rank("OMPI_COMM_WORLD_RANK", "2");
    CHECK_FALSE(mpi::launcher_rank());  // not started as one of several ranks
    const ScopedEnv size("OMPI_COMM_WORLD_SIZE", "3");
    CHECK(mpi::launcher_rank() == 2);
  }
  {
    const ScopedEnv pmix("PMIX_RANK", "1");
    const ScopedEnv tasks("SLURM_STEP_NUM_TASKS", "4");
    CHECK(mpi::launcher_rank() == 1);
  }
}

TEST_CASE("started by a launcher without the MPI plugin, the line names the plugin's path",
          "[mpi][environment]") {
  const ScopedEnv force("FULCRUM_MPI", "1");
  const ScopedEnv plugin("FULCRUM_MPI_PLUGIN", "/nonexistent/libfulcrum_mpi.so");
  CHECK(mpi::plugin_path() == "/nonexistent/libfulcrum_mpi.so");
  try {
    (void)mpi::open_world();
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::StartsWith("mpi: started by an MPI launcher, but cannot load "
                                           "/nonexistent/libfulcrum_mpi.so: no such file"));
  }
}
