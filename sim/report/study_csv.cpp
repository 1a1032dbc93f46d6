#include "sim/report/study_csv.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

#include "models/error.hpp"
#include "sim/report/json_writer.hpp"
#include "sim/report/number_format.hpp"

namespace fulcrum::sim {

namespace {

std::string number(double v) {
  char buf[kMaxNumberChars];
  return std::string(buf, put_double(buf, v));
}

std::string cell(const std::optional<double>& v) { return v ? number(*v) : std::string(); }

// RFC 4180: a field with a comma, a quote or a line break is quoted, quotes doubled.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

// The axis columns, each after a comma.
std::string axis_header(const StudyAxes& axes) {
  std::string s;
  for (const std::string& k : axes.keys) s += ',' + csv_field(k);
  return s;
}

std::string axis_cells(const StudyAxes& axes, std::size_t point) {
  std::string s;
  if (point < axes.values.size()) {
    for (const std::string& v : axes.values[point]) s += ',' + csv_field(v);
  }
  return s;
}

// Every figure name in the rows, in order of first appearance.
std::vector<std::string> figure_names(const std::vector<StudyRow>& rows) {
  std::vector<std::string> names;
  for (const StudyRow& r : rows) {
    for (const auto& [name, value] : r.figures) {
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  }
  return names;
}

std::optional<double> figure(const StudyRow& row, const std::string& name) {
  for (const auto& [n, v] : row.figures) {
    if (n == name) return v;
  }
  return std::nullopt;
}

constexpr std::array<std::string_view, 3> kStudyFiles{"study.csv", "study_summary.csv",
                                                      "study_latency.csv"};
constexpr std::array<std::string_view, 2> kStudyFigures{"study_latency_cdf", "study_front"};
constexpr std::array<std::string_view, 3> kFigureFormats{"png", "pdf", "svg"};

bool is_study_file(std::string_view name) {
  const auto in = [](const auto& list, std::string_view v) {
    return std::find(list.begin(), list.end(), v) != list.end();
  };
  constexpr std::string_view kPartial = ".partial";
  if (name.ends_with(kPartial)) name.remove_suffix(kPartial.size());
  if (in(kStudyFiles, name)) return true;
  const auto dot = name.rfind('.');
  return dot != std::string_view::npos && in(kStudyFigures, name.substr(0, dot)) &&
         in(kFigureFormats, name.substr(dot + 1));
}

}  // namespace

const ResultLayout& study_layout() {
  static const ResultLayout layout{.is_file = is_study_file};
  return layout;
}

std::vector<double> study_percentiles() {
  std::vector<double> p;
  for (int i = 0; i <= 99; ++i) p.push_back(i);
  p.push_back(99.9);
  p.push_back(100);
  return p;
}

std::vector<double> latency_percentiles(std::vector<double> latencies_ms) {
  std::vector<double> out;
  if (latencies_ms.empty()) return out;
  std::sort(latencies_ms.begin(), latencies_ms.end());
  const double n = static_cast<double>(latencies_ms.size());
  for (double p : study_percentiles()) {
    // Nearest rank: the smallest value with at least p% of the values at or below it.
    const double rank = std::ceil(p / 100.0 * n - 1e-9);
    const auto i = static_cast<std::size_t>(std::clamp(rank, 1.0, n)) - 1;
    out.push_back(latencies_ms[i]);
  }
  return out;
}

double t_quantile_975(std::size_t dof) {
  static constexpr std::array<double, 30> kTable{
      12.7062047, 4.30265273, 3.18244631, 2.77644511, 2.57058184, 2.44691185,
      2.36462425, 2.30600414, 2.26215716, 2.22813885, 2.20098516, 2.17881283,
      2.16036866, 2.14478669, 2.13144955, 2.11990530, 2.10981558, 2.10092204,
      2.09302405, 2.08596345, 2.07961384, 2.07387307, 2.06865761, 2.06389856,
      2.05953855, 2.05552944, 2.05183052, 2.04840714, 2.04522964, 2.04227246};
  if (dof == 0) throw Error("t_quantile_975: needs at least one degree of freedom");
  if (dof <= kTable.size()) return kTable[dof - 1];
  // Beyond the table: the Cornish-Fisher expansion around the normal quantile (error < 1e-5).
  const double z = 1.959963985;
  const double n = static_cast<double>(dof);
  return z + (z * z * z + z) / (4 * n) +
         (5 * std::pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * n * n);
}

std::string study_runs_csv(const StudyAxes& axes, const std::vector<StudyRow>& rows) {
  const std::vector<std::string> names = figure_names(rows);
  std::string out = "run,point,seed" + axis_header(axes);
  for (const std::string& n : names) out += ',' + csv_field(n);
  out += '\n';
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const StudyRow& r = rows[i];
    out += std::to_string(i) + ',' + std::to_string(r.point) + ',' + std::to_string(r.seed) +
           axis_cells(axes, r.point);
    for (const std::string& n : names) out += ',' + cell(figure(r, n));
    out += '\n';
  }
  return out;
}

std::string study_summary_csv(const StudyAxes& axes, const std::vector<StudyRow>& rows) {
  const std::vector<std::string> names = figure_names(rows);
  std::string out = "point" + axis_header(axes) + ",runs";
  for (const std::string& n : names)
    out += ',' + csv_field(n + "_mean") + ',' + csv_field(n + "_ci95");
  out += '\n';
  std::size_t begin = 0;
  while (begin < rows.size()) {
    std::size_t end = begin;
    while (end < rows.size() && rows[end].point == rows[begin].point) ++end;
    out += std::to_string(rows[begin].point) + axis_cells(axes, rows[begin].point) + ',' +
           std::to_string(end - begin);
    for (const std::string& n : names) {
      std::vector<double> v;
      for (std::size_t i = begin; i < end; ++i) {
        if (auto x = figure(rows[i], n)) v.push_back(*x);
      }
      if (v.empty()) {
        out += ",,";
        continue;
      }
      double sum = 0;
      for (double x : v) sum += x;
      const double mean = sum / static_cast<double>(v.size());
      out += ',' + number(mean) + ',';
      if (v.size() >= 2) {
        double ss = 0;
        for (double x : v) ss += (x - mean) * (x - mean);
        const double sd = std::sqrt(ss / static_cast<double>(v.size() - 1));
        out += number(t_quantile_975(v.size() - 1) * sd / std::sqrt(static_cast<double>(v.size())));
      }
    }
    out += '\n';
    begin = end;
  }
  return out;
}

std::string study_latency_csv(const StudyAxes& axes, const std::vector<StudyRow>& rows) {
  const std::vector<double> percentiles = study_percentiles();
  std::string out = "run,point,seed" + axis_header(axes) + ",stream,percentile,latency_ms\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const StudyRow& r = rows[i];
    const std::string prefix = std::to_string(i) + ',' + std::to_string(r.point) + ',' +
                               std::to_string(r.seed) + axis_cells(axes, r.point) + ',';
    for (const auto& [stream, values] : r.latency_ms) {
      for (std::size_t k = 0; k < values.size(); ++k) {
        out += prefix + csv_field(stream) + ',' + number(percentiles[k]) + ',' + number(values[k]) +
               '\n';
      }
    }
  }
  return out;
}

std::string study_json(const std::string& name, const std::string& out_dir, const StudyAxes& axes,
                       const std::vector<StudyRow>& rows) {
  JsonWriter j;
  j.begin_object();
  j.key("study").value(name);
  j.key("out_dir").value(out_dir);
  j.key("runs").begin_array();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const StudyRow& r = rows[i];
    j.begin_object();
    j.key("run").value(static_cast<std::uint64_t>(i));
    j.key("point").value(static_cast<std::uint64_t>(r.point));
    j.key("seed").value(r.seed);
    j.key("axes").begin_object();
    for (std::size_t k = 0; k < axes.keys.size(); ++k) {
      j.key(axes.keys[k]).value(axes.values.at(r.point).at(k));
    }
    j.end_object();
    j.key("figures").begin_object();
    for (const auto& [figure, value] : r.figures) j.key(figure).value(value);
    j.end_object();
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return j.take();
}

}  // namespace fulcrum::sim
