// Studies: full runs over a grid and seeds, their CSV rows, the mean and 95% CI over seeds,
// published whole, and located errors.
#include "sim/app/study.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "models/error.hpp"
#include "tests/input_error.hpp"
#include "tests/temp_dir.hpp"

using namespace fulcrum;
using namespace fulcrum::sim;
using namespace fulcrum::sim::app;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using fulcrum::testing::error_of;
using fulcrum::testing::TempDir;

namespace {

using fulcrum::testing::slurp;

std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::string cellv;
    bool quoted = false;
    for (char c : line) {
      if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        cells.push_back(cellv);
        cellv.clear();
      } else {
        cellv += c;
      }
    }
    cells.push_back(cellv);
    rows.push_back(cells);
  }
  return rows;
}

std::size_t column(const std::vector<std::string>& header, const std::string& name) {
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return i;
  }
  FAIL("no column " << name);
  return 0;
}

std::string quickstart() { return std::filesystem::absolute("scenarios/quickstart.yaml").string(); }

// A small study of the quickstart: 20 s, managed and sequential, two seeds.
std::string small_study(const std::string& sharing = "[managed, sequential]") {
  return "version: 1\nname: small\nscenario: " + quickstart() +
         "\nset:\n  duration_s: 20\n  outputs: {requests: false, minibatches: false, power: false, "
         "trace: false}\ngrid:\n  gpu_sharing: " +
         sharing + "\nseeds: [1, 2]\n";
}

}  // namespace

TEST_CASE("A study runs every point over its seeds and publishes its three files at once",
          "[study]") {
  TempDir dir;
  const std::string path = dir.write("small.yaml", small_study());
  const StudyReport r = run_study({.study_path = path, .out_dir = dir.path() / "out", .jobs = 2});
  CHECK(r.rows.size() == 4);
  const auto runs = csv_rows(slurp(dir.path() / "out" / "study.csv"));
  REQUIRE(runs.size() == 5);
  const auto& h = runs[0];
  CHECK(runs[1][column(h, "gpu_sharing")] == "managed");
  CHECK(runs[3][column(h, "gpu_sharing")] == "sequential");
  CHECK(runs[2][column(h, "seed")] == "2");
  // Managed: 100 requests/s of fixed arrivals, all served within 20 s but the last batch, so
  // just under 100/s. Sequential: training always has a next minibatch, inference is starved
  // (scenarios/sequential.yaml) and nothing completes.
  for (std::size_t i = 1; i < runs.size(); ++i) {
    const double rate = std::stod(runs[i][column(h, "resnet50.throughput_per_s")]);
    const bool managed = runs[i][column(h, "gpu_sharing")] == "managed";
    CHECK(rate > (managed ? 98 : -1));
    CHECK(rate <= (managed ? 100 : 0));
    CHECK(runs[i][column(h, "resnet50.stable")] == (managed ? "1" : "0"));
    CHECK(runs[i][column(h, "resnet50.p99_ms")].empty() == !managed);
    CHECK(runs[i][column(h, "power_budget_met")] == "0");  // MAXN draws ~40 W > 30 W
  }
  // Fixed arrivals and a simulated device: both seeds give the same figures, so every
  // confidence interval is exactly 0.
  const auto summary = csv_rows(slurp(dir.path() / "out" / "study_summary.csv"));
  REQUIRE(summary.size() == 3);
  CHECK(summary[1][column(summary[0], "runs")] == "2");
  CHECK(summary[1][column(summary[0], "resnet50.p99_ms_ci95")] == "0");
  // The latency CDF: 102 percentiles per run and stream that served requests (the two managed).
  const auto latency = csv_rows(slurp(dir.path() / "out" / "study_latency.csv"));
  CHECK(latency.size() == 1 + 2 * 102);
  CHECK(std::filesystem::exists(dir.path() / "out" / "study_summary.csv"));
}

TEST_CASE("A study's files are the same bytes whatever the number of threads", "[study]") {
  TempDir dir;
  const std::string path = dir.write("small.yaml", small_study("[managed, native, sequential]"));
  (void)run_study({.study_path = path, .out_dir = dir.path() / "one", .jobs = 1});
  (void)run_study({.study_path = path, .out_dir = dir.path() / "two", .jobs = 2});
  for (const char* f : {"study.csv", "study_summary.csv", "study_latency.csv"}) {
    CHECK(slurp(dir.path() / "one" / f) == slurp(dir.path() / "two" / f));
  }
}

TEST_CASE("A bad value of a study is located in the study file and nothing is published",
          "[study]") {
  TempDir dir;
  const std::string path = dir.write("bad.yaml", small_study("[managed, bogus]"));
  const InputError e =
      error_of([&] { run_study({.study_path = path, .out_dir = dir.path() / "out"}); });
  // "  gpu_sharing: [managed, bogus]" is line 8 of the study; bogus starts at column 26.
  CHECK_THAT(e.what(), StartsWith(path + ":8:26: gpu_sharing: "));
  CHECK_FALSE(std::filesystem::exists(dir.path() / "out"));
}

TEST_CASE("A study key that names no field of the scenario is located in the study file",
          "[study]") {
  TempDir dir;
  // A grid key past the end of the inference list, and a set key the scenario does not have.
  const std::string grid = small_study() + "zip:\n  inference[5].batch_size: [8]\n";
  const std::string grid_path = dir.write("grid.yaml", grid);
  const InputError past_end =
      error_of([&] { run_study({.study_path = grid_path, .out_dir = dir.path() / "a"}); });
  // "  inference[5].batch_size: [8]" is line 11; the value starts at column 29.
  CHECK_THAT(past_end.what(), StartsWith(grid_path + ":11:29: inference[5]: no element 5"));
  std::string set = small_study();
  set.replace(set.find("  duration_s: 20"), 16, "  duration_s: 20\n  nosuch.key: 3");
  const std::string set_path = dir.write("set.yaml", set);
  const InputError unknown =
      error_of([&] { run_study({.study_path = set_path, .out_dir = dir.path() / "b"}); });
  CHECK_THAT(unknown.what(), StartsWith(set_path + ":6:15: nosuch: unknown key 'nosuch'"));
  CHECK_FALSE(std::filesystem::exists(dir.path() / "a"));
  CHECK_FALSE(std::filesystem::exists(dir.path() / "b"));
}

TEST_CASE("A study refuses an output folder holding other files, and leaves it untouched",
          "[study]") {
  TempDir dir;
  const std::string path = dir.write("small.yaml", small_study());
  dir.write("out/notes.txt", "mine");
  const InputError e =
      error_of([&] { run_study({.study_path = path, .out_dir = dir.path() / "out"}); });
  CHECK_THAT(e.what(), StartsWith("--out: "));
  CHECK(slurp(dir.path() / "out" / "notes.txt") == "mine");
}

TEST_CASE("The shipped sharing study gives the figures docs/STUDIES.md quotes", "[study]") {
  TempDir dir;
  const StudyReport r = run_study(
      {.study_path = "scenarios/studies/sharing.yaml", .out_dir = dir.path() / "out", .jobs = 2});
  CHECK(r.rows.size() == 48);
  const auto summary = csv_rows(slurp(dir.path() / "out" / "study_summary.csv"));
  REQUIRE(summary.size() == 17);
  const auto& h = summary[0];
  // Points in grid order: sharing (windowed, greedy, native, sequential) x rate (50, 100) x
  // batch (8, 16), so point = 4 * sharing + 2 * rate + batch.
  const auto at = [&](std::size_t point, const std::string& name) {
    const std::string& v = summary[point + 1][column(h, name)];
    return v.empty() ? -1.0 : std::stod(v);
  };
  struct Quoted {
    std::size_t point;
    double training, training_ci, p99, p99_ci, power, met;
  };
  // The table of docs/STUDIES.md, to its one decimal.
  for (const Quoted& q :
       {Quoted{2, 0, 0, 152.6, 7.3, 28.0, 1}, Quoted{6, 103.5, 2.6, 217.3, 12.7, 43.5, 1},
        Quoted{10, 100.3, 2.6, 189.4, 5.5, 43.1, 1}, Quoted{1, 26.0, 4.3, 474.3, 50.2, 26.9, 0},
        Quoted{5, 139.9, 0.8, 536.2, 79.4, 44.1, 0}}) {
    INFO("point " << q.point);
    CHECK(at(q.point, "training_samples_per_s_mean") == Approx(q.training).margin(0.051));
    CHECK(at(q.point, "training_samples_per_s_ci95") == Approx(q.training_ci).margin(0.051));
    CHECK(at(q.point, "resnet50.p99_ms_mean") == Approx(q.p99).margin(0.051));
    CHECK(at(q.point, "resnet50.p99_ms_ci95") == Approx(q.p99_ci).margin(0.051));
    CHECK(at(q.point, "power_avg_w_mean") == Approx(q.power).margin(0.051));
    CHECK(at(q.point, "latency_budget_met_mean") == q.met);
  }
  for (std::size_t point = 12; point < 16; ++point) {  // sequential: nothing served
    CHECK(at(point, "training_samples_per_s_mean") == Approx(166.9).margin(0.051));
    CHECK(at(point, "resnet50.p99_ms_mean") == -1.0);
    CHECK(at(point, "resnet50.stable_mean") == 0);
    CHECK(at(point, "power_avg_w_mean") == Approx(43.4).margin(0.051));
  }
}
