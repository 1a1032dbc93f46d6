// The files of a study: nearest-rank percentiles, the 95% t quantile, the mean and confidence
// half-width over a point's seeds, and the CSV layout.
#include "sim/report/study_csv.hpp"

#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

using namespace fulcrum::sim;

namespace {

std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::string cell;
    bool quoted = false;
    for (char c : line) {
      if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        cells.push_back(cell);
        cell.clear();
      } else {
        cell += c;
      }
    }
    cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

}  // namespace

TEST_CASE("The 95% t quantile matches the published table and tends to the normal's", "[study]") {
  // Published two-sided 95% Student t values.
  CHECK(t_quantile_975(1) == Approx(12.706).margin(1e-3));
  CHECK(t_quantile_975(4) == Approx(2.776).margin(1e-3));
  CHECK(t_quantile_975(30) == Approx(2.042).margin(1e-3));
  CHECK(t_quantile_975(60) == Approx(2.000).margin(1e-3));
  CHECK(t_quantile_975(120) == Approx(1.980).margin(1e-3));
  CHECK(t_quantile_975(100000) == Approx(1.960).margin(1e-3));
}

TEST_CASE("Latency percentiles are nearest-rank over the sorted latencies", "[study]") {
  std::vector<double> values;
  for (int i = 100; i >= 1; --i) values.push_back(i);  // 1..100 ms, reversed
  const std::vector<double> p = latency_percentiles(values);
  const std::vector<double> at = study_percentiles();
  REQUIRE(p.size() == at.size());
  CHECK(at.front() == 0);
  CHECK(p.front() == 1);  // the minimum
  CHECK(p[1] == 1);       // 1st percentile: rank ceil(1) = 1
  CHECK(p[50] == 50);     // rank 50
  CHECK(p[99] == 99);     // rank 99
  CHECK(at[100] == 99.9);
  CHECK(p[100] == 100);    // rank ceil(99.9) = 100
  CHECK(p.back() == 100);  // the maximum
  CHECK(latency_percentiles({}).empty());
}

TEST_CASE("The summary gives the mean and the 95% CI half-width over a point's seeds", "[study]") {
  const StudyAxes axes{.keys = {"a"}, .values = {{"x"}, {"y"}}};
  std::vector<StudyRow> rows;
  for (int i = 0; i < 3; ++i) rows.push_back({0, std::uint64_t(i + 1), {{"f", 1.0 + i}}, {}});
  for (int i = 0; i < 3; ++i) rows.push_back({1, std::uint64_t(i + 1), {{"f", 10.0}}, {}});
  const auto table = csv_rows(study_summary_csv(axes, rows));
  REQUIRE(table.size() == 3);
  CHECK(table[0] == std::vector<std::string>{"point", "a", "runs", "f_mean", "f_ci95"});
  // 1, 2, 3: mean 2, sample sd 1, half-width t(2) * 1 / sqrt(3) = 4.303 / 1.732 = 2.484.
  CHECK(table[1][1] == "x");
  CHECK(table[1][2] == "3");
  CHECK(std::stod(table[1][3]) == Approx(2.0));
  CHECK(std::stod(table[1][4]) == Approx(2.484).margin(1e-3));
  CHECK(std::stod(table[2][3]) == Approx(10.0));
  CHECK(std::stod(table[2][4]) == 0);

  const auto runs = csv_rows(study_runs_csv(axes, rows));
  REQUIRE(runs.size() == 7);
  CHECK(runs[0] == std::vector<std::string>{"run", "point", "seed", "a", "f"});
  CHECK(runs[5] == std::vector<std::string>{"4", "1", "2", "y", "10"});
}

TEST_CASE("An axis value with a comma or a quote is one quoted CSV field", "[study]") {
  const StudyAxes axes{.keys = {"gpu_sharing"},
                       .values = {{"{policy: managed, variant: \"greedy\"}"}}};
  const std::vector<StudyRow> rows{{0, 7, {{"f", std::nullopt}}, {{"s", {1.5}}}}};
  CHECK(study_runs_csv(axes, rows) ==
        "run,point,seed,gpu_sharing,f\n"
        "0,0,7,\"{policy: managed, variant: \"\"greedy\"\"}\",\n");
  // One run: a mean but no interval; an absent figure: both empty.
  CHECK(study_summary_csv(axes, rows) ==
        "point,gpu_sharing,runs,f_mean,f_ci95\n"
        "0,\"{policy: managed, variant: \"\"greedy\"\"}\",1,,\n");
}

TEST_CASE("A study's folder holds its three files and its figures, nothing of a run's", "[study]") {
  const ResultLayout& layout = study_layout();
  for (const char* name : {"study.csv", "study_summary.csv", "study_latency.csv",
                           "study.csv.partial", "study_front.png", "study_latency_cdf.svg"}) {
    CHECK(layout.is_file(name));
  }
  for (const char* name : {"summary.json", "notes.txt", "study_front.jpg", "study.csv.bak",
                           "latency_cdf.png", ".partial"}) {
    CHECK_FALSE(layout.is_file(name));
  }
}
