#include "models/learn/mode_predictor.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <istream>
#include <ostream>
#include <string_view>
#include <system_error>

#include "models/error.hpp"
#include "models/random/rng_streams.hpp"

namespace fulcrum::models {

std::vector<ModeEstimate> ModePredictor::predict_all(std::span<const PowerMode> modes) const {
  std::vector<ModeEstimate> out;
  out.reserve(modes.size());
  for (const PowerMode& m : modes) out.push_back(predict(m));
  return out;
}

ModeEstimate PerfModelPredictor::predict(const PowerMode& mode) const {
  const Prediction p = model_.predict({device_, mode, workload_, phase_, batch_});
  return {p.time_ms / 1e3, p.power.module_w()};
}

Matrix mode_features(std::span<const PowerMode> modes) {
  Matrix x(static_cast<Eigen::Index>(modes.size()), 4);
  for (std::size_t i = 0; i < modes.size(); ++i) {
    const auto r = static_cast<Eigen::Index>(i);
    x(r, 0) = static_cast<float>(modes[i].cores);
    x(r, 1) = static_cast<float>(modes[i].cpu_khz / 1e3);
    x(r, 2) = static_cast<float>(modes[i].gpu_hz / 1e6);
    x(r, 3) = static_cast<float>(modes[i].emc_hz / 1e6);
  }
  return x;
}

namespace {

std::vector<double> evaluate(const TargetNet& t, const Matrix& features) {
  const Matrix y = t.y.invert(t.net.predict(t.x.apply(features)));
  std::vector<double> out(static_cast<std::size_t>(y.rows()));
  for (Eigen::Index r = 0; r < y.rows(); ++r) {
    const double v = y(r, 0);
    // Far outside the fitted modes a network can extrapolate to nonsense; time and power stay
    // positive and finite (log time within +-50, power at least 1 mW) so a prediction is always a
    // valid profile value. Within the grid nothing comes near these bounds.
    out[static_cast<std::size_t>(r)] =
        t.log_target ? std::exp(std::clamp(v, -50.0, 50.0)) : std::max(v, 1e-3);
  }
  return out;
}

struct Sample {
  Matrix x;
  Matrix log_time;
  Matrix power;
};

Sample sample_of(std::span<const ModeMeasurement> rows) {
  std::vector<PowerMode> modes;
  modes.reserve(rows.size());
  for (const ModeMeasurement& r : rows) modes.push_back(r.mode);
  Sample s{mode_features(modes), Matrix(static_cast<Eigen::Index>(rows.size()), 1),
           Matrix(static_cast<Eigen::Index>(rows.size()), 1)};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    s.log_time(static_cast<Eigen::Index>(i), 0) = static_cast<float>(std::log(rows[i].time_s));
    s.power(static_cast<Eigen::Index>(i), 0) = static_cast<float>(rows[i].power_w);
  }
  return s;
}

// Standardises on the sample and trains `t.net` (already initialised) on it.
void fit_target(TargetNet& t, const Matrix& x, const Matrix& y, const ModeFitOptions& options,
                Rng rng) {
  t.x = Standardizer::fit(x);
  t.y = Standardizer::fit(y);
  train(t.net, t.x.apply(x), t.y.apply(y), options.train, rng);
}

// Trains the two networks at once, each on its own thread and random streams: the result does not
// depend on the scheduling, and a fit takes the time of one network on two cores.
void fit_both(TargetNet& time, TargetNet& power, const Sample& s, const ModeFitOptions& options,
              const RngStreams& streams) {
  std::future<void> power_done = std::async(std::launch::async, [&] {
    fit_target(power, s.x, s.power, options, streams.stream("learn/power/train"));
  });
  fit_target(time, s.x, s.log_time, options, streams.stream("learn/time/train"));
  power_done.get();
}

void require_rows(std::span<const ModeMeasurement> rows) {
  if (rows.empty()) throw InputError("a predictor needs at least one measured mode");
  for (const ModeMeasurement& r : rows) {
    if (!(r.time_s > 0) || !(r.power_w > 0) || !std::isfinite(r.time_s) ||
        !std::isfinite(r.power_w)) {
      throw InputError("measured time and power must be positive and finite (mode " +
                       r.mode.label() + ")");
    }
  }
}

}  // namespace

ModeEstimate MlpModePredictor::predict(const PowerMode& mode) const {
  return predict_all(std::span<const PowerMode>(&mode, 1)).front();
}

std::vector<ModeEstimate> MlpModePredictor::predict_all(std::span<const PowerMode> modes) const {
  const Matrix features = mode_features(modes);
  const std::vector<double> t = evaluate(time_, features);
  const std::vector<double> p = evaluate(power_, features);
  std::vector<ModeEstimate> out(modes.size());
  for (std::size_t i = 0; i < modes.size(); ++i) out[i] = {t[i], p[i]};
  return out;
}

MlpModePredictor fit_mode_predictor(std::span<const ModeMeasurement> rows,
                                    const ModeFitOptions& options, std::uint64_t seed) {
  require_rows(rows);
  const Sample s = sample_of(rows);
  const RngStreams streams(seed);
  Rng init_time = streams.stream("learn/time/init");
  Rng init_power = streams.stream("learn/power/init");
  TargetNet time{Mlp(powertrain_layout(4), init_time), {}, {}, true};
  TargetNet power{Mlp(powertrain_layout(4), init_power), {}, {}, false};
  fit_both(time, power, s, options, streams);
  return {std::move(time), std::move(power)};
}

MlpModePredictor transfer_mode_predictor(const MlpModePredictor& reference,
                                         std::span<const ModeMeasurement> rows,
                                         const ModeFitOptions& options, std::uint64_t seed) {
  require_rows(rows);
  const Sample s = sample_of(rows);
  const RngStreams streams(seed);
  TargetNet time = reference.time_net();
  TargetNet power = reference.power_net();
  Rng init_time = streams.stream("learn/time/init");
  Rng init_power = streams.stream("learn/power/init");
  time.net.reset_output_layer(init_time);
  power.net.reset_output_layer(init_power);
  fit_both(time, power, s, options, streams);
  return {std::move(time), std::move(power)};
}

double mape_percent(std::span<const double> predicted, std::span<const double> actual) {
  double sum = 0;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    sum += std::abs(predicted[i] - actual[i]) / std::abs(actual[i]);
  }
  return 100.0 * sum / static_cast<double>(actual.size());
}

// ---------------------------------------------------------------------------------------------
// The weights file.

namespace {

constexpr std::string_view kMagic = "fulcrum-mode-predictor";
constexpr int kVersion = 1;

std::string number(float v) {
  char buf[32];
  const int n = std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
  return std::string(buf, static_cast<std::size_t>(n));
}

void write_row(std::ostream& out, std::string_view key, const float* v, Eigen::Index n) {
  out << key;
  for (Eigen::Index i = 0; i < n; ++i) out << ' ' << number(v[i]);
  out << '\n';
}

void write_target(std::ostream& out, std::string_view name, const TargetNet& t) {
  out << "target " << name << ' ' << (t.log_target ? "log" : "linear") << '\n';
  write_row(out, "x_mean", t.x.mean.data(), t.x.mean.size());
  write_row(out, "x_scale", t.x.scale.data(), t.x.scale.size());
  write_row(out, "y_mean", t.y.mean.data(), t.y.mean.size());
  write_row(out, "y_scale", t.y.scale.data(), t.y.scale.size());
  out << "layers " << t.net.layers().size() << '\n';
  for (const DenseLayer& l : t.net.layers()) {
    out << "layer " << l.w.rows() << ' ' << l.w.cols() << ' ' << number(l.dropout) << '\n';
    for (Eigen::Index r = 0; r < l.w.rows(); ++r)
      write_row(out, "w", l.w.row(r).data(), l.w.cols());
    write_row(out, "b", l.b.data(), l.b.size());
  }
}

// Reads the file a line at a time, splitting lines into whitespace-separated words with columns.
class WeightsReader {
 public:
  WeightsReader(std::istream& in, std::string source) : in_(in), source_(std::move(source)) {}

  struct Word {
    std::string_view text;
    int column = 0;
  };

  // The next line that is neither blank nor a comment, split; false at the end.
  bool next() {
    while (std::getline(in_, line_)) {
      ++line_no_;
      if (!line_.empty() && line_.back() == '\r') line_.pop_back();
      words_.clear();
      std::size_t i = 0;
      while (i < line_.size()) {
        while (i < line_.size() && (line_[i] == ' ' || line_[i] == '\t')) ++i;
        const std::size_t start = i;
        while (i < line_.size() && line_[i] != ' ' && line_[i] != '\t') ++i;
        if (i > start) {
          words_.push_back(
              {std::string_view(line_).substr(start, i - start), static_cast<int>(start) + 1});
        }
      }
      if (words_.empty() || words_.front().text.front() == '#') continue;
      return true;
    }
    return false;
  }

  // The next content line, which must start with `key` and have exactly `values` more words
  // (-1: any number).
  const std::vector<Word>& expect(std::string_view key, int values) {
    if (!next()) fail(line_no_ + 1, 1, std::string(key), "unexpected end of file");
    if (words_.front().text != key) {
      fail(line_no_, 1, std::string(key),
           "expected a line starting with '" + std::string(key) + "', found '" +
               std::string(words_.front().text) + "'");
    }
    if (values >= 0 && static_cast<int>(words_.size()) - 1 != values) {
      fail(line_no_, 1, std::string(key),
           "expected " + std::to_string(values) + " values, found " +
               std::to_string(words_.size() - 1));
    }
    return words_;
  }

  float real(const Word& w, std::string_view key) const {
    float v = 0;
    const char* first = w.text.data();
    const char* last = first + w.text.size();
    auto [ptr, ec] = std::from_chars(first, last, v);
    if (ec != std::errc() || ptr != last || !std::isfinite(v)) {
      fail(line_no_, w.column, std::string(key),
           "expected a finite number, found '" + std::string(w.text) + "'");
    }
    return v;
  }

  int count(const Word& w, std::string_view key, int max) const {
    int v = 0;
    const char* first = w.text.data();
    const char* last = first + w.text.size();
    auto [ptr, ec] = std::from_chars(first, last, v);
    if (ec != std::errc() || ptr != last || v < 1 || v > max) {
      fail(line_no_, w.column, std::string(key),
           "expected an integer from 1 to " + std::to_string(max) + ", found '" +
               std::string(w.text) + "'");
    }
    return v;
  }

  [[noreturn]] void fail(int line, int column, const std::string& key,
                         const std::string& problem) const {
    throw InputError(SourceLocation{source_, line, column}, key, problem);
  }

  int line_no() const { return line_no_; }

 private:
  std::istream& in_;
  std::string source_;
  std::string line_;
  int line_no_ = 0;
  std::vector<Word> words_;
};

RowVector read_vector(WeightsReader& r, std::string_view key, int n) {
  const auto& words = r.expect(key, n);
  RowVector v(n);
  for (int i = 0; i < n; ++i) v(i) = r.real(words[static_cast<std::size_t>(i) + 1], key);
  return v;
}

TargetNet read_target(WeightsReader& r, std::string_view name) {
  const auto& head = r.expect("target", 2);
  if (head[1].text != name) {
    r.fail(
        r.line_no(), head[1].column, "target",
        "expected target '" + std::string(name) + "', found '" + std::string(head[1].text) + "'");
  }
  TargetNet t;
  if (head[2].text == "log") {
    t.log_target = true;
  } else if (head[2].text != "linear") {
    r.fail(r.line_no(), head[2].column, "target",
           "expected log or linear, found '" + std::string(head[2].text) + "'");
  }
  t.x.mean = read_vector(r, "x_mean", 4);
  t.x.scale = read_vector(r, "x_scale", 4);
  t.y.mean = read_vector(r, "y_mean", 1);
  t.y.scale = read_vector(r, "y_scale", 1);
  const int n_layers = r.count(r.expect("layers", 1)[1], "layers", 64);
  std::vector<DenseLayer> layers;
  int expected_in = 4;
  for (int l = 0; l < n_layers; ++l) {
    const auto& lw = r.expect("layer", 3);
    const int in = r.count(lw[1], "layer", 1 << 16);
    const int out = r.count(lw[2], "layer", 1 << 16);
    if (in != expected_in) {
      r.fail(r.line_no(), lw[1].column, "layer",
             "expected " + std::to_string(expected_in) + " inputs (the previous layer's outputs)");
    }
    DenseLayer layer{Matrix(in, out), RowVector(out), r.real(lw[3], "layer")};
    for (int row = 0; row < in; ++row) layer.w.row(row) = read_vector(r, "w", out);
    layer.b = read_vector(r, "b", out);
    layers.push_back(std::move(layer));
    expected_in = out;
  }
  if (expected_in != 1) r.fail(r.line_no(), 1, "layer", "the last layer must have one output");
  t.net = Mlp(std::move(layers));
  return t;
}

}  // namespace

void write_mode_predictor(std::ostream& out, const MlpModePredictor& predictor,
                          const std::vector<std::string>& comments) {
  for (const std::string& c : comments) out << "# " << c << '\n';
  out << kMagic << ' ' << kVersion << '\n';
  write_target(out, "time", predictor.time_net());
  write_target(out, "power", predictor.power_net());
}

MlpModePredictor read_mode_predictor(std::istream& in, const std::string& source) {
  WeightsReader r(in, source);
  const auto& head = r.expect(kMagic, 1);
  if (head[1].text != std::to_string(kVersion)) {
    r.fail(r.line_no(), head[1].column, std::string(kMagic),
           "unsupported version '" + std::string(head[1].text) + "' (expected " +
               std::to_string(kVersion) + ")");
  }
  TargetNet time = read_target(r, "time");
  TargetNet power = read_target(r, "power");
  if (r.next()) r.fail(r.line_no(), 1, "", "unexpected content after the power network");
  return {std::move(time), std::move(power)};
}

MlpModePredictor load_mode_predictor(const std::string& path) {
  // Only a regular file of a bounded size is read: a device such as /dev/zero would be read
  // forever, a FIFO would block. (The committed networks are about 1 MB.)
  constexpr std::uintmax_t kMaxWeightsBytes = std::uintmax_t{64} << 20;
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec)) {
    throw InputError(SourceLocation{path, 0, 0}, "",
                     "is not a regular file (a folder, device or FIFO is not read as weights)");
  }
  if (const std::uintmax_t size = std::filesystem::file_size(path, ec);
      !ec && size > kMaxWeightsBytes) {
    throw InputError(SourceLocation{path, 0, 0}, "",
                     "is larger than 64 MiB; not a weights file of fulcrum's networks");
  }
  std::ifstream in(path);
  if (!in) throw InputError(SourceLocation{path, 0, 0}, "", "cannot open weights file");
  return read_mode_predictor(in, path);
}

}  // namespace fulcrum::models
