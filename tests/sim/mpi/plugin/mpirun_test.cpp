// `mpirun -n 3 fulcrum sweep|study` through OpenMPI and the plugin libfulcrum_mpi.so: the bytes
// one process publishes, and a failing rank named with nothing published. Registered only where
// OpenMPI was found (sim/CMakeLists.txt); each test runs alone (RUN_SERIAL: three ranks on two
// cores). mpirun may run as root here only: the variables that allow it are set on the command
// line of each run, never in the user's shell.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "tests/reference_data.hpp"
#include "tests/run_shell.hpp"
#include "tests/temp_dir.hpp"

using fulcrum::testing::slurp;
using fulcrum::testing::TempDir;

namespace {

using fulcrum::testing::shell_quote;
using Outcome = fulcrum::testing::ShellOutcome;

// The start of a command line that runs what follows as `ranks` ranks of mpirun.
std::string mpirun(int ranks) {
  return "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " +
         shell_quote(FULCRUM_MPIRUN) + " --allow-run-as-root --oversubscribe -q -n " +
         std::to_string(ranks) + " ";
}

// `fulcrum ARGS`, alone or as `ranks` ranks of mpirun (0: a plain process).
Outcome run_fulcrum(const TempDir& dir, int ranks, const std::string& args) {
  const std::string cmd = ranks > 0 ? mpirun(ranks) : "";
  return fulcrum::testing::run_shell(cmd + shell_quote(FULCRUM_BINARY) + " " + args, dir.path());
}

// The report's last line names the CSV and the time taken: compare what comes before it.
std::string before_last_line(const std::string& text) {
  const std::size_t end = text.rfind('\n', text.size() >= 2 ? text.size() - 2 : 0);
  return end == std::string::npos ? "" : text.substr(0, end + 1);
}

}  // namespace

TEST_CASE("mpirun -n 3 fulcrum sweep publishes the bytes of one process", "[mpi][mpirun]") {
  if (!fulcrum::testing::reference_path("")) return;
  TempDir dir;
  const Outcome one = run_fulcrum(dir, 0,
                                  "sweep scenarios/sweeps/small.yaml -q -j 1 --out " +
                                      shell_quote((dir.path() / "one.csv").string()));
  REQUIRE(one.status == 0);
  const Outcome three = run_fulcrum(dir, 3,
                                    "sweep scenarios/sweeps/small.yaml -q --out " +
                                        shell_quote((dir.path() / "three.csv").string()));
  INFO(three.err);
  REQUIRE(three.status == 0);
  const std::string csv = slurp(dir.path() / "one.csv");
  CHECK(csv.rfind("# fulcrum sweep small: 108 configurations", 0) == 0);
  CHECK(slurp(dir.path() / "three.csv") == csv);
  // One summary, printed by rank 0 alone, the same as one process's.
  CHECK(before_last_line(three.out) == before_last_line(one.out));
  CHECK(three.err.empty());
}

TEST_CASE("mpirun -n 3 fulcrum study publishes the files of one process", "[mpi][mpirun]") {
  TempDir dir;
  const std::string study =
      dir.write("st.yaml", "version: 1\nname: st\nscenario: " +
                               std::filesystem::absolute("scenarios/quickstart.yaml").string() +
                               "\nset: {duration_s: 20}\ngrid:\n  gpu_sharing: [managed, native, "
                               "sequential]\n  inference[0].batch_size: [8, 16]\nseeds: [1, 2]\n");
  REQUIRE(
      run_fulcrum(dir, 0,
                  "study " + study + " -q -j 1 --out " + shell_quote((dir.path() / "one").string()))
          .status == 0);
  const Outcome three = run_fulcrum(
      dir, 3, "study " + study + " --out " + shell_quote((dir.path() / "three").string()));
  INFO(three.err);
  REQUIRE(three.status == 0);
  // Rank 0's line alone: 12 runs of 6 points.
  CHECK(three.err.rfind("fulcrum study: 12 runs of 6 points in ", 0) == 0);
  CHECK(three.err.find('\n') == three.err.size() - 1);
  for (const char* f : {"study.csv", "study_summary.csv", "study_latency.csv"}) {
    INFO(f);
    CHECK(!slurp(dir.path() / "one" / f).empty());
    CHECK(slurp(dir.path() / "three" / f) == slurp(dir.path() / "one" / f));
  }
}

TEST_CASE("a run that fails on rank 2 ends the mpirun job with one line naming the rank",
          "[mpi][mpirun]") {
  TempDir dir;
  // Four runs over three ranks: rank 2 runs the last two, and the last one cannot start.
  const std::string study = dir.write(
      "st.yaml", "version: 1\nname: st\nscenario: " +
                     std::filesystem::absolute("scenarios/quickstart.yaml").string() +
                     "\nset: {duration_s: 10}\ngrid:\n  training.batch_size: [8, 16, 32, 0]\n");
  const Outcome three =
      run_fulcrum(dir, 3, "study " + study + " --out " + shell_quote((dir.path() / "o").string()));
  CHECK(three.status == 2);
  CHECK(three.out.empty());
  CHECK(three.err == study +
                         ":6:36: training.batch_size: must be an integer in 1..65536, got 0 "
                         "(rank 2 of 3)\n");
  CHECK_FALSE(std::filesystem::exists(dir.path() / "o"));
}

TEST_CASE("a bad option under mpirun -n 3 is one line, from rank 0 alone", "[mpi][mpirun]") {
  TempDir dir;
  const Outcome three = run_fulcrum(dir, 3, "sweep --no-such-option");
  const Outcome one = run_fulcrum(dir, 0, "sweep --no-such-option");
  CHECK(one.status == 2);
  CHECK(three.status == 2);
  CHECK(three.out.empty());
  CHECK(three.err == one.err);
  CHECK(std::count(three.err.begin(), three.err.end(), '\n') == 1);
}

TEST_CASE("a bad option on one rank alone is said by that rank, and the job ends",
          "[mpi][mpirun]") {
  if (!fulcrum::testing::reference_path("")) return;  // rank 0's sweep reads the measurements
  TempDir dir;
  // Rank 1 meets the bad option; rank 0 starts a sweep and waits in MPI's start-up for its peers.
  // Rank 1 waits for rank 0 to fail first, then says its own error and ends the job: no hang.
  const std::string fulcrum = shell_quote(FULCRUM_BINARY);
  const std::string per_rank =
      "if [ \"$OMPI_COMM_WORLD_RANK\" = 1 ]; then exec " + fulcrum +
      " sweep --no-such-option; fi; exec " + fulcrum + " sweep " +
      shell_quote(std::filesystem::absolute("scenarios/sweeps/small.yaml").string()) +
      " -q --out " + shell_quote((dir.path() / "o.csv").string());
  const Outcome two = fulcrum::testing::run_shell(
      "timeout 120 env " + mpirun(2) + "sh -c " + shell_quote(per_rank), dir.path());
  CHECK(two.status == 2);
  CHECK(two.out.empty());
  CHECK(two.err ==
        "fulcrum sweep: unrecognised option '--no-such-option' (see fulcrum sweep --help) "
        "(rank 1)\n");
  CHECK_FALSE(std::filesystem::exists(dir.path() / "o.csv"));
}
