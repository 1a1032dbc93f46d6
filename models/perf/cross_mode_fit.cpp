#include "models/perf/cross_mode_fit.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

#include "models/error.hpp"
#include "models/parallel/parallel.hpp"
#include "models/random/rng_streams.hpp"

namespace fulcrum::models {

const std::vector<CrossModeField>& cross_mode_fields() {
  using D = CrossModeDevice;
  static const std::vector<CrossModeField> fields = {
      {"cpu_ref_khz", "kHz", "prior: the device's highest CPU clock", &D::cpu_ref_khz, 'x'},
      {"launch_us", "us of host time per kernel launch at cpu_ref_khz", "fitted", &D::launch_us,
       'p'},
      {"overhead_ms", "ms of host time per minibatch at cpu_ref_khz", "fitted", &D::overhead_ms,
       'p'},
      {"kernel_gpu_kcycles", "thousand GPU cycles per kernel however small", "fitted",
       &D::kernel_gpu_kcycles, 'p'},
      {"occupancy", "p-norm exponent, kernels' fixed cycles with their work", "fitted",
       &D::occupancy, 'e'},
      {"eff_weights", "share of peak DRAM bandwidth streaming weights", "fitted", &D::eff_weights,
       's'},
      {"l2_speedup",
       "bandwidth of L2-resident layers / peak DRAM bandwidth, at least 1 (DRAM traffic passes "
       "through the L2)",
       "fitted", &D::l2_speedup, 'e'},
      {"host_memory_share", "share of CPU-side time that scales with 1/f_emc", "fitted",
       &D::host_memory_share, 's'},
      {"overlap_memory", "p-norm exponent, compute with DRAM time", "fitted", &D::overlap_memory,
       'e'},
      {"overlap_host", "p-norm exponent, GPU with launch time", "fitted", &D::overlap_host, 'e'},
      {"overlap_pipeline", "p-norm exponent, GPU path with the data pipeline", "fitted",
       &D::overlap_pipeline, 'e'},
      {"main_thread_cores", "cores the training thread keeps busy", "fitted", &D::main_thread_cores,
       'p'},
      {"workers", "dataloader workers", "prior: the measurements' num_workers=4", &D::workers, 'x'},
      {"oversubscription_mhz",
       "MHz of each core's clock lost per runnable training thread beyond one per core", "fitted",
       &D::oversubscription_mhz, 'p'},
      {"base_w", "W, always on", "fitted", &D::base_w, 'p'},
      {"gpu_static_w", "W of GPU leakage at the top GPU voltage", "fitted", &D::gpu_static_w, 'p'},
      {"cpu_core_static_w", "W per online core at the top CPU voltage", "fitted",
       &D::cpu_core_static_w, 'p'},
      {"emc_static_w", "W of EMC/DRAM background at the top EMC clock", "fitted", &D::emc_static_w,
       'p'},
      {"gpu_dynamic_w", "W with the GPU 100% busy at the top clock", "fitted", &D::gpu_dynamic_w,
       'p'},
      {"gpu_stall_power_share", "share of gpu_dynamic_w drawn while waiting on DRAM", "fitted",
       &D::gpu_stall_power_share, 's'},
      {"cpu_core_dynamic_w", "W per core 100% busy at the top CPU clock", "fitted",
       &D::cpu_core_dynamic_w, 'p'},
      {"dram_dynamic_w", "W at 100% of peak DRAM bandwidth", "fitted", &D::dram_dynamic_w, 'p'},
      {"gpu_v_min_ratio", "V(f_min)/V(f_max), GPU", "fitted", &D::gpu_v_min_ratio, 's'},
      {"cpu_v_min_ratio", "V(f_min)/V(f_max), CPU", "fitted", &D::cpu_v_min_ratio, 's'},
      {"gpu_v_curve", "exponent of V(f) between f_min and f_max, GPU", "fitted", &D::gpu_v_curve,
       'e'},
      {"cpu_v_curve", "exponent of V(f) between f_min and f_max, CPU", "fitted", &D::cpu_v_curve,
       'e'},
      {"base_gpu_soc_share", "share of base_w on VDD_GPU_SOC (rest VIN_SYS_5V0)",
       "prior: rail split (module totals measured)", &D::base_gpu_soc_share, 'x'},
  };
  return fields;
}

bool cross_mode_power_field(const CrossModeField& field) {
  static const std::set<std::string> power = {"base_w",
                                              "gpu_static_w",
                                              "cpu_core_static_w",
                                              "emc_static_w",
                                              "gpu_dynamic_w",
                                              "gpu_stall_power_share",
                                              "cpu_core_dynamic_w",
                                              "dram_dynamic_w",
                                              "gpu_v_min_ratio",
                                              "cpu_v_min_ratio",
                                              "gpu_v_curve",
                                              "cpu_v_curve",
                                              "base_gpu_soc_share"};
  return power.count(field.name) > 0;
}

namespace {

// Kinds: 'p' positive (log), 's' share in (0, 1) (logit), 'e' exponent > 1, 'c' compute
// efficiency in (0, kMaxEfficiency): above the FP32 CUDA-core peak only as far as TF32 tensor
// cores reach (Orin AGX: 4x the CUDA-core FP32 rate, rounded up).
constexpr double kMaxEfficiency = 5;

double to_theta(double v, char kind) {
  switch (kind) {
    case 'c':
      return to_theta(v / kMaxEfficiency, 's');
    case 's':
      v = std::clamp(v, 1e-6, 1 - 1e-6);
      return std::log(v / (1 - v));
    case 'e':
      return std::log(std::max(v - 1, 1e-6));
    default:
      return std::log(std::max(v, 1e-12));
  }
}

double from_theta(double t, char kind) {
  t = std::clamp(t, -40.0, 40.0);
  switch (kind) {
    case 'c':
      return kMaxEfficiency / (1 + std::exp(-t));
    case 's':
      return 1 / (1 + std::exp(-t));
    case 'e':
      return 1 + std::exp(t);
    default:
      return std::exp(t);
  }
}

double huber_residual(double r, double delta) {
  const double a = std::abs(r);
  if (a <= delta) return r;
  return std::copysign(std::sqrt(delta * (2 * a - delta)), r);
}

// The least-squares problem over rows grouped by (workload, phase).
class Problem {
 public:
  Problem(const DeviceSpec& device, const std::vector<ModeRow>& rows,
          const WorkloadCatalog& catalog, const CrossModeFitOptions& options)
      : device_(device), options_(options) {
    if (rows.empty()) throw InputError("no measured rows to fit");
    std::map<std::tuple<std::string, int, int>, std::size_t> feature_index;
    for (const ModeRow& r : rows) {
      const WorkloadKey key{r.workload, r.phase};
      auto [it, added] = key_index_.try_emplace(key, keys_.size());
      if (added) keys_.push_back(key);
      const auto fkey = std::make_tuple(r.workload, static_cast<int>(r.phase), r.batch_size);
      auto [fit, fadded] = feature_index.try_emplace(fkey, features_.size());
      if (fadded) {
        features_.push_back(work_features(device, catalog.get(r.workload), r.phase, r.batch_size));
      }
      rows_.push_back({&r, it->second, fit->second});
    }
    // Rows grouped by key (stable), so a workload's Jacobian columns touch one range.
    std::stable_sort(rows_.begin(), rows_.end(),
                     [](const Row& a, const Row& b) { return a.key < b.key; });
    ranges_.assign(keys_.size(), {0, 0});
    for (std::size_t i = 0; i < rows_.size(); ++i) {
      if (i == 0 || rows_[i].key != rows_[i - 1].key) ranges_[rows_[i].key].first = i;
      ranges_[rows_[i].key].second = i + 1;
    }
  }

  const std::vector<WorkloadKey>& keys() const { return keys_; }
  std::size_t residual_count() const { return 2 * rows_.size() + priors_per_key() * keys_.size(); }

  // A prior holding each key's five physical parameters near `center`'s (in the encoded scale),
  // at weight `strength` (0: none). fit_workload's few-shot fits: the zero-shot parameters.
  void set_center(double strength, const CrossModeWorkload& center) {
    center_strength_ = strength;
    center_ = {to_theta(center.eff_compute, 'c'), to_theta(center.eff_memory, 's'),
               to_theta(center.gpu_activity, 'p'), to_theta(center.kernel_scale, 'p'),
               to_theta(center.preprocess_ms, 'p')};
  }

  // Whether each workload's kernel_cycles and overlap_host are free too (a new workload's own
  // rows, fit_workload), each held toward 1 and the device's exponent by options.extras_prior.
  void set_extras(bool extras) { extras_ = extras; }
  std::size_t workload_param_count() const { return extras_ ? 7 : 5; }
  std::size_t priors_per_key() const {
    return (extras_ ? 4 : 2) + (center_strength_ > 0 ? center_.size() : 0);
  }

  // Parameter layout: free device fields, then each key's parameters.
  void set_layout(bool device_free) {
    device_fields_.clear();
    if (device_free) {
      for (const CrossModeField& f : cross_mode_fields()) {
        if (f.kind != 'x') device_fields_.push_back(&f);
      }
    }
    key_offset_.clear();
    std::size_t n = device_fields_.size();
    for (const WorkloadKey& k : keys_) {
      key_offset_.push_back(n);
      (void)k;
      n += workload_param_count();
    }
    parameters_ = n;
  }
  std::size_t parameter_count() const { return parameters_; }

  Eigen::VectorXd encode(const CrossModeDevice& d, const std::vector<CrossModeWorkload>& w) const {
    Eigen::VectorXd t(static_cast<Eigen::Index>(parameters_));
    for (std::size_t i = 0; i < device_fields_.size(); ++i) {
      t[static_cast<Eigen::Index>(i)] =
          to_theta(d.*(device_fields_[i]->member), device_fields_[i]->kind);
    }
    for (std::size_t k = 0; k < keys_.size(); ++k) {
      const auto o = static_cast<Eigen::Index>(key_offset_[k]);
      t[o] = to_theta(w[k].eff_compute, 'c');
      t[o + 1] = to_theta(w[k].eff_memory, 's');
      t[o + 2] = to_theta(w[k].gpu_activity, 'p');
      t[o + 3] = to_theta(w[k].kernel_scale, 'p');
      t[o + 4] = to_theta(w[k].preprocess_ms, 'p');
      if (extras_) {
        t[o + 5] = to_theta(w[k].kernel_cycles, 'p');
        t[o + 6] = to_theta(w[k].overlap_host.value_or(d.overlap_host), 'e');
      }
    }
    return t;
  }

  void decode(const Eigen::VectorXd& t, CrossModeDevice& d,
              std::vector<CrossModeWorkload>& w) const {
    for (std::size_t i = 0; i < device_fields_.size(); ++i) {
      d.*(device_fields_[i]->member) =
          from_theta(t[static_cast<Eigen::Index>(i)], device_fields_[i]->kind);
    }
    w.resize(keys_.size());
    for (std::size_t k = 0; k < keys_.size(); ++k) {
      const auto o = static_cast<Eigen::Index>(key_offset_[k]);
      w[k].eff_compute = from_theta(t[o], 'c');
      w[k].eff_memory = from_theta(t[o + 1], 's');
      w[k].gpu_activity = from_theta(t[o + 2], 'p');
      w[k].kernel_scale = from_theta(t[o + 3], 'p');
      w[k].preprocess_ms = from_theta(t[o + 4], 'p');
      if (extras_) {
        w[k].kernel_cycles = from_theta(t[o + 5], 'p');
        w[k].overlap_host = from_theta(t[o + 6], 'e');
      }
    }
  }

  // Residuals of rows [begin, end) into r; with `terms`, each row's time terms are taken from
  // it (computed at parameters that differ from d and w in power parameters only).
  void residuals(const CrossModeDevice& d, const std::vector<CrossModeWorkload>& w,
                 std::size_t begin, std::size_t end, Eigen::VectorXd& r,
                 const std::vector<CrossModeTimeTerms>* terms = nullptr) const {
    for (std::size_t i = begin; i < end; ++i) {
      const Row& row = rows_[i];
      const ModeRow& m = *row.row;
      const CrossModeEstimate e =
          terms != nullptr
              ? cross_mode_estimate_from(device_, d, w[row.key], features_[row.feature], m.mode,
                                         m.batch_size, (*terms)[i])
              : cross_mode_estimate(device_, d, w[row.key], m.phase, features_[row.feature], m.mode,
                                    m.batch_size);
      const auto j = static_cast<Eigen::Index>(2 * i);
      r[j] = huber_residual(std::log(e.time_s / m.time_s), options_.huber);
      r[j + 1] = huber_residual((e.power_w - m.power_w) / m.power_w, options_.huber);
    }
  }
  void priors(const CrossModeDevice& d, const std::vector<CrossModeWorkload>& w,
              Eigen::VectorXd& r) const {
    for (std::size_t k = 0; k < keys_.size(); ++k) {
      const auto j = static_cast<Eigen::Index>(2 * rows_.size() + priors_per_key() * k);
      r[j] = options_.activity_prior * std::log(w[k].gpu_activity);
      r[j + 1] = options_.activity_prior * std::log(w[k].kernel_scale);
      if (extras_) {
        r[j + 2] = options_.extras_prior * std::log(w[k].kernel_cycles);
        r[j + 3] =
            options_.extras_prior * (to_theta(w[k].overlap_host.value_or(d.overlap_host), 'e') -
                                     to_theta(d.overlap_host, 'e'));
      }
      if (center_strength_ > 0) {
        const std::array<double, 5> t{
            to_theta(w[k].eff_compute, 'c'), to_theta(w[k].eff_memory, 's'),
            to_theta(w[k].gpu_activity, 'p'), to_theta(w[k].kernel_scale, 'p'),
            to_theta(w[k].preprocess_ms, 'p')};
        const auto c = j + static_cast<Eigen::Index>(extras_ ? 4 : 2);
        for (std::size_t i = 0; i < t.size(); ++i) {
          r[c + static_cast<Eigen::Index>(i)] = center_strength_ * (t[i] - center_[i]);
        }
      }
    }
  }

  Eigen::VectorXd residual_vector(const Eigen::VectorXd& t, CrossModeDevice d) const {
    std::vector<CrossModeWorkload> w(start_workloads_);
    decode(t, d, w);
    Eigen::VectorXd r(static_cast<Eigen::Index>(residual_count()));
    residuals(d, w, 0, rows_.size(), r);
    priors(d, w, r);
    return r;
  }

  Eigen::MatrixXd jacobian(const Eigen::VectorXd& t, const CrossModeDevice& base,
                           const Eigen::VectorXd& r0) const {
    const auto m = static_cast<Eigen::Index>(residual_count());
    const auto n = static_cast<Eigen::Index>(parameters_);
    Eigen::MatrixXd jac = Eigen::MatrixXd::Zero(m, n);
    constexpr double kStep = 1e-6;
    const unsigned threads = thread_count(options_.threads);
    // Every row's time terms at t, for the columns of the power parameters, which the time terms
    // do not read (cross_mode_time_terms): those columns compute the power alone, to the same
    // bits as the whole estimate. Worth a pass over the rows where the device's power fields are
    // free (a workload's gpu_activity alone saves only the pass over its own rows).
    const bool reuse =
        std::any_of(device_fields_.begin(), device_fields_.end(),
                    [](const CrossModeField* f) { return cross_mode_power_field(*f); });
    std::vector<CrossModeTimeTerms> terms(reuse ? rows_.size() : 0);
    if (reuse) {
      CrossModeDevice d = base;
      std::vector<CrossModeWorkload> w(start_workloads_);
      decode(t, d, w);
      constexpr std::size_t kChunk = 256;
      parallel_for(0, (rows_.size() + kChunk - 1) / kChunk, threads, [&](std::size_t c) {
        for (std::size_t i = c * kChunk; i < std::min(rows_.size(), (c + 1) * kChunk); ++i) {
          const Row& row = rows_[i];
          const ModeRow& m = *row.row;
          terms[i] = cross_mode_time_terms(device_, d, w[row.key], m.phase, features_[row.feature],
                                           m.mode, m.batch_size);
        }
      });
    }
    // Forward differences, one column per parameter; the columns are independent, so threads
    // take them in turn, each with its own residual vector, and write only their own columns.
    parallel_for(0, static_cast<std::size_t>(n), threads, [&](std::size_t column) {
      const auto p = static_cast<Eigen::Index>(column);
      Eigen::VectorXd tp = t;
      tp[p] += kStep;
      CrossModeDevice d = base;
      std::vector<CrossModeWorkload> w(start_workloads_);
      decode(tp, d, w);
      std::size_t begin = 0, end = rows_.size();
      if (column >= device_fields_.size()) {
        const std::size_t k = key_of_parameter(column);
        begin = ranges_[k].first;
        end = ranges_[k].second;
      }
      Eigen::VectorXd r = r0;
      residuals(d, w, begin, end, r, reuse && power_only(column) ? &terms : nullptr);
      priors(d, w, r);
      jac.col(p) = (r - r0) / kStep;
    });
    return jac;
  }

  void set_start(std::vector<CrossModeWorkload> w) { start_workloads_ = std::move(w); }

 private:
  struct Row {
    const ModeRow* row;
    std::size_t key;
    std::size_t feature;
  };
  // Whether parameter p is one of the power parameters (a device field cross_mode_power_field
  // names, or a workload's gpu_activity), which cross_mode_time_terms does not read.
  bool power_only(std::size_t p) const {
    if (p < device_fields_.size()) return cross_mode_power_field(*device_fields_[p]);
    return p - key_offset_[key_of_parameter(p)] == 2;  // gpu_activity (encode's layout)
  }
  std::size_t key_of_parameter(std::size_t p) const {
    std::size_t k = 0;
    while (k + 1 < key_offset_.size() && key_offset_[k + 1] <= p) ++k;
    return k;
  }

  const DeviceSpec& device_;
  CrossModeFitOptions options_;
  std::vector<Row> rows_;
  std::vector<WorkFeatures> features_;
  std::vector<WorkloadKey> keys_;
  std::map<WorkloadKey, std::size_t> key_index_;
  std::vector<std::pair<std::size_t, std::size_t>> ranges_;
  std::vector<const CrossModeField*> device_fields_;
  std::vector<std::size_t> key_offset_;
  std::size_t parameters_ = 0;
  bool extras_ = false;
  std::vector<CrossModeWorkload> start_workloads_;
  double center_strength_ = 0;
  std::array<double, 5> center_{};
};

// Levenberg-Marquardt with Marquardt's diagonal scaling; returns (theta, iterations, cost).
std::tuple<Eigen::VectorXd, int, double> levenberg_marquardt(const Problem& problem,
                                                             Eigen::VectorXd t,
                                                             const CrossModeDevice& base,
                                                             int max_iterations) {
  Eigen::VectorXd r = problem.residual_vector(t, base);
  double cost = 0.5 * r.squaredNorm();
  double lambda = 1e-3;
  int it = 0;
  int small_steps = 0;
  for (; it < max_iterations; ++it) {
    const Eigen::MatrixXd jac = problem.jacobian(t, base, r);
    const Eigen::MatrixXd a = jac.transpose() * jac;
    const Eigen::VectorXd g = jac.transpose() * r;
    bool accepted = false;
    for (int tries = 0; tries < 20; ++tries) {
      // Marquardt's scaling, floored so that a parameter the data hardly see is still damped,
      // and steps capped in the transformed space (a factor e^4 at most per iteration).
      Eigen::MatrixXd m = a;
      const double floor = 1e-6 * a.trace() / static_cast<double>(a.rows());
      for (Eigen::Index i = 0; i < m.rows(); ++i)
        m(i, i) += lambda * std::max(a(i, i), floor) + 1e-12;
      Eigen::VectorXd step = m.ldlt().solve(-g);
      const double largest = step.cwiseAbs().maxCoeff();
      if (largest > 4) step *= 4 / largest;
      const Eigen::VectorXd t_new = t + step;
      const Eigen::VectorXd r_new = problem.residual_vector(t_new, base);
      const double c_new = 0.5 * r_new.squaredNorm();
      if (std::isfinite(c_new) && c_new < cost) {
        small_steps = (cost - c_new) < 1e-9 * cost ? small_steps + 1 : 0;
        t = t_new;
        r = r_new;
        cost = c_new;
        lambda = std::max(lambda / 3, 1e-10);
        accepted = true;
        break;
      }
      lambda *= 4;
    }
    if (!accepted || small_steps >= 3) break;
  }
  return {t, it, cost};
}

CrossModeWorkload start_parameters(Phase phase) {
  CrossModeWorkload w;
  w.eff_compute = 0.3;
  w.eff_memory = 0.5;
  w.gpu_activity = 1;
  w.kernel_scale = 1;
  w.preprocess_ms = phase == Phase::training ? 5 : 0.5;
  return w;
}

std::string fmt(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string fmt_pct(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

// Position of f in a table as low/mid/high third.
const char* tercile(double f, const std::vector<double>& table) {
  if (table.empty()) return "mid";
  const auto it = std::lower_bound(table.begin(), table.end(), f * (1 - 1e-9));
  const double i = static_cast<double>(
      std::min<std::ptrdiff_t>(it - table.begin(), static_cast<std::ptrdiff_t>(table.size()) - 1));
  const double n = static_cast<double>(table.size());
  if (i < n / 3) return "low";
  if (i < 2 * n / 3) return "mid";
  return "high";
}

}  // namespace

std::vector<ModeRow> mode_rows(const ProfileTable& table, const DeviceSpec& device,
                               const std::string& workload) {
  std::vector<ModeRow> rows;
  for (const ProfileRow& p : table.rows) {
    if (p.phase == ProfilePhase::idle || !p.time_ms) continue;
    ModeRow r;
    if (p.workload) {
      r.workload = std::string(canonical_workload_name(*p.workload));
    } else if (!workload.empty()) {
      r.workload = std::string(canonical_workload_name(workload));
    } else {
      throw InputError(p.where, "workload", "the row names no workload; pass --workload");
    }
    if (!workload.empty() && r.workload != canonical_workload_name(workload)) continue;
    r.phase = p.phase == ProfilePhase::training ? Phase::training : Phase::inference;
    r.mode.cores = p.cores;
    r.mode.cpu_khz = p.cpu_khz;
    r.mode.gpu_hz = p.gpu_hz;
    r.mode.emc_hz = p.emc_hz;
    r.mode.gpu_tpcs = device.gpu_tpcs;
    r.batch_size = p.batch_size;
    r.time_s = *p.time_ms * 1e-3;
    r.power_w = p.power_w;
    rows.push_back(std::move(r));
  }
  return rows;
}

std::vector<ModeRow> select(const std::vector<ModeRow>& rows,
                            const std::vector<std::size_t>& indices) {
  std::vector<ModeRow> out;
  out.reserve(indices.size());
  for (std::size_t i : indices) out.push_back(rows.at(i));
  return out;
}

std::pair<std::vector<std::size_t>, std::vector<std::size_t>> split_modes(
    const std::vector<ModeRow>& rows, double holdout, std::uint64_t seed) {
  using Key = std::tuple<int, double, double, double>;
  std::set<Key> distinct;
  for (const ModeRow& r : rows) {
    distinct.insert({r.mode.cores, r.mode.cpu_khz, r.mode.gpu_hz, r.mode.emc_hz});
  }
  std::vector<Key> modes(distinct.begin(), distinct.end());
  Rng rng(seed);
  for (std::size_t i = modes.size(); i > 1; --i) {
    std::swap(modes[i - 1], modes[rng.uniform_below(i)]);
  }
  const auto held =
      static_cast<std::size_t>(std::llround(holdout * static_cast<double>(modes.size())));
  const std::set<Key> held_out(modes.begin(), modes.begin() + static_cast<std::ptrdiff_t>(held));
  std::pair<std::vector<std::size_t>, std::vector<std::size_t>> out;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ModeRow& r = rows[i];
    const bool h = held_out.count({r.mode.cores, r.mode.cpu_khz, r.mode.gpu_hz, r.mode.emc_hz}) > 0;
    (h ? out.second : out.first).push_back(i);
  }
  return out;
}

std::vector<std::size_t> sample_rows(const std::vector<ModeRow>& rows, std::size_t count,
                                     std::uint64_t seed,
                                     const std::function<bool(const ModeRow&)>& keep) {
  std::vector<std::size_t> pool;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (keep(rows[i])) pool.push_back(i);
  }
  Rng rng(seed);
  const std::size_t n = std::min(count, pool.size());
  for (std::size_t i = 0; i < n; ++i) {
    std::swap(pool[i], pool[i + rng.uniform_below(pool.size() - i)]);
  }
  pool.resize(n);
  std::sort(pool.begin(), pool.end());
  return pool;
}

CrossModeFit fit_cross_mode(const DeviceSpec& device, const std::vector<ModeRow>& rows,
                            const WorkloadCatalog& catalog, const CrossModeFitOptions& options,
                            const CrossModeDevice& start) {
  Problem problem(device, rows, catalog, options);
  std::vector<CrossModeWorkload> w;
  for (const WorkloadKey& k : problem.keys()) w.push_back(start_parameters(k.second));
  problem.set_start(w);
  CrossModeDevice d = start;
  d.device = device.name;
  // Stage 1: the workloads' parameters with the device at its start values, so that the joint
  // fit starts near the data; stage 2: everything together.
  problem.set_layout(false);
  {
    auto [t, it, cost] = levenberg_marquardt(problem, problem.encode(d, w), d, 60);
    problem.decode(t, d, w);
  }
  problem.set_start(w);
  problem.set_layout(true);
  auto [t, it, cost] =
      levenberg_marquardt(problem, problem.encode(d, w), d, options.max_iterations);
  // Restart with a fresh damping while that still helps: a run can stall in a narrow valley
  // with the damping grown large.
  for (int restart = 0; restart < 5 && it < options.max_iterations; ++restart) {
    auto [t2, it2, cost2] = levenberg_marquardt(problem, t, d, options.max_iterations - it);
    it += it2;
    if (!(cost2 < cost * (1 - 1e-6))) break;
    t = t2;
    cost = cost2;
  }
  problem.decode(t, d, w);
  CrossModeFit fit;
  fit.calibration.device = d;
  for (std::size_t k = 0; k < problem.keys().size(); ++k) {
    fit.calibration.workloads[problem.keys()[k]] = w[k];
  }
  fit.iterations = it;
  fit.cost = cost;
  fit.rows = rows.size();
  return fit;
}

namespace {

// fit_workload's physical parameters alone (no residual correction), at the given options.
CrossModeWorkload fit_physical(const DeviceSpec& device, const CrossModeDevice& coefficients,
                               const WorkloadKey& key, const std::vector<ModeRow>& rows,
                               const WorkloadCatalog& catalog, const CrossModeFitOptions& options,
                               const std::optional<CrossModeWorkload>& start) {
  Problem problem(device, rows, catalog, options);
  problem.set_extras(options.workload_extras);
  problem.set_layout(false);
  if (start && options.start_prior > 0) {
    CrossModeWorkload center = *start;
    center.preprocess_ms = std::max(center.preprocess_ms, 1e-6);
    problem.set_center(options.start_prior, center);
  }
  // A few rows leave flat regions (a kernel's work hidden under its fixed cycles hides
  // eff_compute), so the fit starts from a small grid of compute and memory efficiencies and
  // keeps the lowest cost (the first on ties: deterministic).
  CrossModeWorkload best;
  double best_cost = std::numeric_limits<double>::infinity();
  // A given start (the zero-shot parameters) is tried first and kept unless a grid start does
  // better.
  if (start) {
    std::vector<CrossModeWorkload> w{*start};
    w.front().time_correction.reset();
    w.front().power_correction.reset();
    w.front().preprocess_ms = std::max(w.front().preprocess_ms, 1e-6);
    // Fitted on its own rows, its kernel_scale carries the launches its libraries issue (unless
    // the start's form is kept).
    if (!options.keep_start_form) w.front().library_launches_apart = false;
    problem.set_start(w);
    auto [t, it, cost] =
        levenberg_marquardt(problem, problem.encode(coefficients, w), coefficients, 200);
    CrossModeDevice d = coefficients;
    problem.decode(t, d, w);
    best = w.front();
    best_cost = cost;
  }
  for (double eff_compute : {0.05, 0.3, 1.5}) {
    for (double eff_memory : {0.1, 0.5}) {
      std::vector<CrossModeWorkload> w{start_parameters(key.second)};
      w.front().eff_compute = eff_compute;
      w.front().eff_memory = eff_memory;
      if (options.keep_start_form && start) {
        w.front().library_launches_apart = start->library_launches_apart;
      }
      problem.set_start(w);
      auto [t, it, cost] =
          levenberg_marquardt(problem, problem.encode(coefficients, w), coefficients, 200);
      if (cost < best_cost) {
        CrossModeDevice d = coefficients;
        problem.decode(t, d, w);
        best = w.front();
        best_cost = cost;
      }
    }
  }
  return best;
}

// Kernel ridge regression of residuals y at positions z, its hyper-parameters (length scale,
// linear term, ridge, robust or not) chosen by the closed-form leave-one-out error (mean
// absolute), kept only when that error is below the residuals' own mean absolute value (no
// correction). Robust: a profiled row whose leave-one-out residual lies beyond kRobust times the
// residuals' robust scale (1.4826 x their median absolute value) is pulled to that bound and the
// weights solved again (twice), so that a glitched row (docs/MODEL.md: at 4 cores and EMC
// 2133 MHz some rows were measured as if at the top GPU clock) does not bend the correction
// around it; its leave-one-out error is still counted against the row's own value. Over every
// axis of z (mode, batch size and the physical model's regime).
std::optional<ResidualCorrection> fit_residual(
    const std::vector<std::array<double, kResidualDims>>& z, const Eigen::VectorXd& y) {
  constexpr double kRobust = 2.5;
  const auto n = static_cast<Eigen::Index>(z.size());
  double best = y.cwiseAbs().mean();
  std::optional<ResidualCorrection> out;
  ResidualCorrection c;
  c.points = z;
  c.regime = true;
  for (double length : {0.15, 0.25, 0.4, 0.6, 1.0}) {
    for (double linear : {0.0, 1.0}) {
      c.length_scale = length;
      c.linear = linear;
      Eigen::MatrixXd k(n, n);
      for (Eigen::Index i = 0; i < n; ++i) {
        for (Eigen::Index j = 0; j < n; ++j) {
          k(i, j) =
              residual_kernel(c, z[static_cast<std::size_t>(i)], z[static_cast<std::size_t>(j)]);
        }
      }
      for (int e = -8; e <= 2; ++e) {
        Eigen::MatrixXd a = k;
        a.diagonal().array() += std::pow(10.0, e / 2.0);
        const Eigen::MatrixXd inverse = a.ldlt().solve(Eigen::MatrixXd::Identity(n, n));
        for (bool robust : {false, true}) {
          // The values fitted: y, or y with outlying rows pulled to the bound.
          Eigen::VectorXd fitted = y;
          Eigen::VectorXd weights = inverse * fitted;
          for (int pass = 0; robust && pass < 2; ++pass) {
            // weights_i / inverse_ii is row i's leave-one-out residual of the values fitted.
            Eigen::VectorXd loo_residual(n);
            std::vector<double> size(static_cast<std::size_t>(n));
            for (Eigen::Index i = 0; i < n; ++i) {
              loo_residual[i] = weights[i] / inverse(i, i);
              size[static_cast<std::size_t>(i)] = std::abs(loo_residual[i]);
            }
            std::nth_element(size.begin(), size.begin() + n / 2, size.end());
            const double bound = kRobust * 1.4826 * size[static_cast<std::size_t>(n / 2)];
            for (Eigen::Index i = 0; i < n; ++i) {
              const double predicted = fitted[i] - loo_residual[i];
              fitted[i] = std::clamp(y[i], predicted - bound, predicted + bound);
            }
            weights = inverse * fitted;
          }
          // Row i's leave-one-out prediction is fitted_i - weights_i / inverse_ii; its error
          // against the row's own value y_i.
          double loo = 0;
          for (Eigen::Index i = 0; i < n; ++i) {
            loo += std::abs(y[i] - fitted[i] + weights[i] / inverse(i, i));
          }
          loo /= static_cast<double>(n);
          if (std::isfinite(loo) && loo < best) {
            best = loo;
            c.weights.assign(weights.data(), weights.data() + n);
            out = c;
          }
        }
      }
    }
  }
  return out;
}

}  // namespace

CrossModeWorkload fit_workload(const DeviceSpec& device, const CrossModeDevice& coefficients,
                               const WorkloadKey& key, const std::vector<ModeRow>& rows,
                               const WorkloadCatalog& catalog, const CrossModeFitOptions& options,
                               const std::optional<CrossModeWorkload>& start) {
  for (const ModeRow& r : rows) {
    if (r.workload != key.first || r.phase != key.second) {
      throw InputError("fit_workload: a row of " + r.workload + " " + to_string(r.phase) +
                       " among the rows of " + key.first + " " + to_string(key.second));
    }
  }
  if (rows.empty()) throw InputError("no measured rows to fit");
  CrossModeFitOptions o = options;
  if (!start) o.start_prior = 0;
  // The strengths of the priors, each chosen by 5-fold cross-validation inside the profiled rows
  // (never on the rows predicted later): the lowest sum of absolute log errors of time and power
  // on the left-out folds. First the prior toward the start (the zero-shot parameters), then,
  // with it, the one on the workload's own kernel cycles and launch overlap.
  constexpr std::size_t kFolds = 5;
  const auto cv_error = [&](const CrossModeFitOptions& trial) {
    double error = 0;
    for (std::size_t fold = 0; fold < kFolds; ++fold) {
      std::vector<ModeRow> train, test;
      for (std::size_t i = 0; i < rows.size(); ++i) {
        (i % kFolds == fold ? test : train).push_back(rows[i]);
      }
      CrossModeCalibration cal;
      cal.device = coefficients;
      cal.workloads[key] = fit_physical(device, coefficients, key, train, catalog, trial, start);
      const CrossModeModel model(device, cal, catalog);
      for (const ModeRow& r : test) {
        const CrossModeEstimate e = model.predict(r.workload, r.phase, r.mode, r.batch_size);
        error +=
            std::abs(std::log(e.time_s / r.time_s)) + std::abs(std::log(e.power_w / r.power_w));
      }
    }
    return error;
  };
  const auto choose = [&](double CrossModeFitOptions::*strength,
                          const std::vector<double>& choices) {
    double best = std::numeric_limits<double>::infinity();
    double chosen = o.*strength;
    for (double s : choices) {
      CrossModeFitOptions trial = o;
      trial.*strength = s;
      const double error = cv_error(trial);
      if (error < best) {
        best = error;
        chosen = s;
      }
    }
    o.*strength = chosen;
  };
  if (rows.size() >= 2 * kFolds) {
    if (start && o.start_prior > 0)
      choose(&CrossModeFitOptions::start_prior, o.start_prior_choices);
    if (o.workload_extras) choose(&CrossModeFitOptions::extras_prior, {3.0, 0.3, 0.03});
  }
  CrossModeWorkload w = fit_physical(device, coefficients, key, rows, catalog, o, start);
  if (o.residual_correction && rows.size() >= 5) {
    CrossModeCalibration cal;
    cal.device = coefficients;
    cal.workloads[key] = w;
    const CrossModeModel model(device, cal, catalog);
    std::vector<std::array<double, kResidualDims>> z;
    Eigen::VectorXd time(static_cast<Eigen::Index>(rows.size()));
    Eigen::VectorXd power(time.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const ModeRow& r = rows[i];
      const CrossModeEstimate e = model.predict(r.workload, r.phase, r.mode, r.batch_size);
      z.push_back(residual_position(device, r.mode, r.batch_size, e));
      time[static_cast<Eigen::Index>(i)] = std::log(e.time_s / r.time_s);
      power[static_cast<Eigen::Index>(i)] = std::log(e.power_w / r.power_w);
    }
    w.time_correction = fit_residual(z, time);
    w.power_correction = fit_residual(z, power);
  }
  return w;
}

std::optional<ResidualCorrection> fit_residual_correction(
    const std::vector<std::array<double, kResidualDims>>& z, const std::vector<double>& y) {
  if (z.size() != y.size() || z.empty()) {
    throw InputError("fit_residual_correction: expected one residual per position");
  }
  return fit_residual(
      z, Eigen::Map<const Eigen::VectorXd>(y.data(), static_cast<Eigen::Index>(y.size())));
}

ErrorStats error_stats(const std::vector<double>& time_error_pct,
                       const std::vector<double>& power_error_pct) {
  ErrorStats s;
  s.rows = time_error_pct.size();
  if (s.rows == 0) return s;
  for (std::size_t i = 0; i < s.rows; ++i) {
    s.time_mape_pct += std::abs(time_error_pct[i]);
    s.power_mape_pct += std::abs(power_error_pct[i]);
    s.time_bias_pct += time_error_pct[i];
    s.power_bias_pct += power_error_pct[i];
  }
  const double n = static_cast<double>(s.rows);
  s.time_mape_pct /= n;
  s.power_mape_pct /= n;
  s.time_bias_pct /= n;
  s.power_bias_pct /= n;
  return s;
}

ModeErrors evaluate_cross_mode(const DeviceSpec& device, const CrossModeCalibration& calibration,
                               const std::vector<ModeRow>& rows, const WorkloadCatalog& catalog) {
  const CrossModeModel model(device, calibration, catalog);
  ModeErrors e;
  std::map<std::tuple<std::string, int, int>, WorkFeatures> features;
  std::vector<std::pair<std::string, std::size_t>> groups;  // (group, row)
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ModeRow& r = rows[i];
    const auto fkey = std::make_tuple(r.workload, static_cast<int>(r.phase), r.batch_size);
    auto it = features.find(fkey);
    if (it == features.end()) {
      it = features
               .emplace(fkey, work_features(device, catalog.get(r.workload), r.phase, r.batch_size))
               .first;
    }
    const CrossModeWorkload w = model.parameters(r.workload, r.phase).first;
    const CrossModeEstimate est = cross_mode_estimate(device, calibration.device, w, r.phase,
                                                      it->second, r.mode, r.batch_size);
    e.time_error_pct.push_back((est.time_s - r.time_s) / r.time_s * 100);
    e.power_error_pct.push_back((est.power_w - r.power_w) / r.power_w * 100);
  }
  return grouped_errors(device, rows, std::move(e.time_error_pct), std::move(e.power_error_pct));
}

ModeErrors grouped_errors(const DeviceSpec& device, const std::vector<ModeRow>& rows,
                          std::vector<double> time_error_pct, std::vector<double> power_error_pct) {
  ModeErrors e;
  e.time_error_pct = std::move(time_error_pct);
  e.power_error_pct = std::move(power_error_pct);
  e.all = error_stats(e.time_error_pct, e.power_error_pct);
  auto collect = [&](const std::function<std::string(const ModeRow&)>& group_of) {
    std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> g;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const std::string name = group_of(rows[i]);
      if (name.empty()) continue;
      g[name].first.push_back(e.time_error_pct[i]);
      g[name].second.push_back(e.power_error_pct[i]);
    }
    std::vector<GroupErrors> out;
    out.reserve(g.size());
    for (const auto& [name, errs] : g) out.push_back({name, error_stats(errs.first, errs.second)});
    return out;
  };
  e.by_workload = collect([](const ModeRow& r) { return r.workload + " " + to_string(r.phase); });
  const auto add_regions = [&](const std::function<std::string(const ModeRow&)>& f) {
    for (GroupErrors& g : collect(f)) e.by_region.push_back(std::move(g));
  };
  add_regions([&](const ModeRow& r) {
    return std::string(to_string(r.phase)) + " gpu " + tercile(r.mode.gpu_hz, device.gpu_hz);
  });
  add_regions([&](const ModeRow& r) {
    return std::string(to_string(r.phase)) + " cpu " + tercile(r.mode.cpu_khz, device.cpu_khz);
  });
  add_regions([&](const ModeRow& r) {
    char buf[64];
    std::snprintf(buf, sizeof buf, " emc %06.1f", r.mode.emc_hz / 1e6);
    return std::string(to_string(r.phase)) + buf;
  });
  add_regions([&](const ModeRow& r) {
    char buf[64];
    std::snprintf(buf, sizeof buf, " cores %02d", r.mode.cores);
    return std::string(to_string(r.phase)) + buf;
  });
  add_regions([&](const ModeRow& r) {
    char buf[64];
    std::snprintf(buf, sizeof buf, " batch %02d", r.batch_size);
    return r.phase == Phase::inference ? r.workload + buf : std::string();
  });
  return e;
}

std::vector<bool> faster_than_gpu_clock_allows(const std::vector<ModeRow>& rows, double tolerance) {
  if (!(tolerance > 0 && tolerance <= 1)) {
    throw Error("faster_than_gpu_clock_allows: tolerance must be in (0, 1]");
  }
  using Sweep = std::tuple<std::string, Phase, int, int, double, double>;
  std::map<Sweep, std::vector<std::size_t>> sweeps;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ModeRow& r = rows[i];
    sweeps[{r.workload, r.phase, r.batch_size, r.mode.cores, r.mode.cpu_khz, r.mode.emc_hz}]
        .push_back(i);
  }
  std::vector<bool> flags(rows.size(), false);
  for (auto& [key, members] : sweeps) {
    std::sort(members.begin(), members.end(), [&](std::size_t a, std::size_t b) {
      return rows[a].mode.gpu_hz < rows[b].mode.gpu_hz;
    });
    for (std::size_t k = 1; k < members.size(); ++k) {
      const ModeRow& lower = rows[members[k - 1]];
      const ModeRow& r = rows[members[k]];
      if (!(r.mode.gpu_hz > lower.mode.gpu_hz)) continue;
      const double fastest = lower.time_s * lower.mode.gpu_hz / r.mode.gpu_hz;
      if (r.time_s < tolerance * fastest) flags[members[k]] = true;
    }
  }
  return flags;
}

ModeErrors errors_without(const DeviceSpec& device, const std::vector<ModeRow>& rows,
                          const ModeErrors& errors, const std::vector<bool>& drop) {
  if (drop.size() != rows.size() || errors.time_error_pct.size() != rows.size()) {
    throw Error("errors_without: a flag and an error per row");
  }
  std::vector<ModeRow> kept;
  std::vector<double> time_error, power_error;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (drop[i]) continue;
    kept.push_back(rows[i]);
    time_error.push_back(errors.time_error_pct[i]);
    power_error.push_back(errors.power_error_pct[i]);
  }
  return grouped_errors(device, kept, std::move(time_error), std::move(power_error));
}

ModeErrors nearest_neighbour_errors(const DeviceSpec& device, const std::vector<ModeRow>& fit,
                                    const std::vector<ModeRow>& rows, std::size_t k,
                                    bool local_linear) {
  using Key = std::tuple<std::string, int, int>;
  const auto key_of = [](const ModeRow& r) {
    return Key{r.workload, static_cast<int>(r.phase), r.batch_size};
  };
  // Each setting's rank among the distinct values the rows of its key take (cores, CPU, GPU,
  // EMC), so that one grid step is 1 in every dimension.
  struct Axes {
    std::array<std::vector<double>, 4> values;
  };
  const auto settings = [](const ModeRow& r) {
    return std::array<double, 4>{static_cast<double>(r.mode.cores), r.mode.cpu_khz, r.mode.gpu_hz,
                                 r.mode.emc_hz};
  };
  std::map<Key, Axes> axes;
  std::map<Key, std::vector<std::size_t>> by_key;
  for (const auto* set : {&fit, &rows}) {
    for (const ModeRow& r : *set) {
      const auto v = settings(r);
      Axes& a = axes[key_of(r)];
      for (std::size_t d = 0; d < 4; ++d) a.values[d].push_back(v[d]);
    }
  }
  for (auto& [key, a] : axes) {
    for (auto& v : a.values) {
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
    }
  }
  const auto coordinates = [&](const ModeRow& r) {
    const Axes& a = axes.at(key_of(r));
    const auto v = settings(r);
    std::array<double, 4> c{};
    for (std::size_t d = 0; d < 4; ++d) {
      c[d] = static_cast<double>(std::lower_bound(a.values[d].begin(), a.values[d].end(), v[d]) -
                                 a.values[d].begin());
    }
    return c;
  };
  for (std::size_t i = 0; i < fit.size(); ++i) by_key[key_of(fit[i])].push_back(i);
  std::vector<std::array<double, 4>> fit_coordinates;
  fit_coordinates.reserve(fit.size());
  for (const ModeRow& f : fit) fit_coordinates.push_back(coordinates(f));
  std::vector<double> time_err, power_err;
  time_err.reserve(rows.size());
  power_err.reserve(rows.size());
  std::vector<std::pair<double, std::size_t>> near;
  for (const ModeRow& r : rows) {
    const auto it = by_key.find(key_of(r));
    if (it == by_key.end() || it->second.empty()) {
      throw Error("nearest_neighbour_errors: no fitted rows of " + r.workload + " " +
                  to_string(r.phase) + " at batch " + std::to_string(r.batch_size));
    }
    const auto c = coordinates(r);
    near.clear();
    for (const std::size_t j : it->second) {
      const auto& cj = fit_coordinates[j];
      double d2 = 0;
      for (std::size_t d = 0; d < 4; ++d) d2 += (c[d] - cj[d]) * (c[d] - cj[d]);
      near.emplace_back(std::sqrt(d2), j);
    }
    const std::size_t n = std::min(std::max<std::size_t>(1, k), near.size());
    std::partial_sort(near.begin(), near.begin() + static_cast<std::ptrdiff_t>(n), near.end());
    if (local_linear) {
      // Weighted least squares of log time and log power on [1, cores, ln f_cpu, ln f_gpu,
      // ln f_emc] over the k nearest (weights 1 / (1 + distance)), a small ridge keeping a
      // setting the neighbours share from making it singular; evaluated at the row's mode.
      const auto x_of = [](const ModeRow& m) {
        Eigen::Matrix<double, 5, 1> x;
        x << 1.0, static_cast<double>(m.mode.cores), std::log(m.mode.cpu_khz),
            std::log(m.mode.gpu_hz), std::log(m.mode.emc_hz);
        return x;
      };
      const Eigen::Matrix<double, 5, 1> x0 = x_of(r);
      Eigen::Matrix<double, 5, 5> a = Eigen::Matrix<double, 5, 5>::Zero();
      Eigen::Matrix<double, 5, 2> b = Eigen::Matrix<double, 5, 2>::Zero();
      for (std::size_t m = 0; m < n; ++m) {
        const ModeRow& f = fit[near[m].second];
        const Eigen::Matrix<double, 5, 1> x = x_of(f) - x0;  // centred at the row: the intercept
        const double w = 1.0 / (1.0 + near[m].first);        // is the prediction
        Eigen::Matrix<double, 5, 1> xc = x;
        xc(0) = 1.0;
        a += w * xc * xc.transpose();
        b.col(0) += w * xc * std::log(f.time_s);
        b.col(1) += w * xc * std::log(f.power_w);
      }
      for (int d = 1; d < 5; ++d) a(d, d) += 1e-6 * (1.0 + a(d, d));
      const Eigen::Matrix<double, 5, 2> beta = a.ldlt().solve(b);
      const double t = std::exp(beta(0, 0)), p = std::exp(beta(0, 1));
      time_err.push_back((t - r.time_s) / r.time_s * 100);
      power_err.push_back((p - r.power_w) / r.power_w * 100);
      continue;
    }
    // Inverse-distance weights on log time and log power (a repeated mode: that row alone).
    double w_sum = 0, log_t = 0, log_p = 0;
    const bool exact = near.front().first == 0;
    for (std::size_t m = 0; m < n; ++m) {
      if (exact && near[m].first > 0) break;
      const double w = exact ? 1.0 : 1.0 / near[m].first;
      w_sum += w;
      log_t += w * std::log(fit[near[m].second].time_s);
      log_p += w * std::log(fit[near[m].second].power_w);
    }
    const double t = std::exp(log_t / w_sum), p = std::exp(log_p / w_sum);
    time_err.push_back((t - r.time_s) / r.time_s * 100);
    power_err.push_back((p - r.power_w) / r.power_w * 100);
  }
  return grouped_errors(device, rows, std::move(time_err), std::move(power_err));
}

namespace {

// A class no calibrated workload has stays at the prior, but for the grouped convolutions'
// compute: where none of the fitted workloads has a depthwise layer, their FLOPs take the rate of
// the kernels that run them (depthwise_flop_cost) instead of the calibrated workloads' mean.
GraphCoefficients with_depthwise_rate(const DeviceSpec& device,
                                      const std::map<WorkloadKey, OpClassShares>& shares,
                                      GraphCoefficients g) {
  for (const auto& [key, s] : shares) {
    if (s.flops[kGroupedConvClass] > 0) return g;
  }
  if (const auto cost = depthwise_flop_cost(device)) {
    g.inv_compute[kGroupedConvClass] = std::log(*cost);
  }
  return g;
}

}  // namespace

GraphCoefficients fit_graph_coefficients(const DeviceSpec& device,
                                         const CrossModeCalibration& calibration,
                                         const std::vector<ModeRow>& rows,
                                         const WorkloadCatalog& catalog, std::size_t per_workload) {
  // The rows used: evenly spaced ones of each calibrated (workload, phase).
  std::map<WorkloadKey, std::vector<std::size_t>> by_key;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const WorkloadKey key{rows[i].workload, rows[i].phase};
    if (calibration.workloads.count(key) != 0) by_key[key].push_back(i);
  }
  if (by_key.empty()) throw InputError("fit_graph_coefficients: no row of a calibrated workload");
  struct Point {
    const ModeRow* row;
    WorkFeatures features;
    const OpClassShares* shares;
    double preprocess_ms;
  };
  std::map<WorkloadKey, OpClassShares> shares;
  std::vector<Point> points;
  for (const auto& [key, idx] : by_key) {
    const OpClassShares& s =
        shares.emplace(key, op_class_shares(device, catalog.get(key.first), key.second))
            .first->second;
    const std::size_t n = std::min(per_workload, idx.size());
    std::map<int, WorkFeatures> features;
    for (std::size_t j = 0; j < n; ++j) {
      const ModeRow& r = rows[idx[j * idx.size() / n]];
      auto it = features.find(r.batch_size);
      if (it == features.end()) {
        it = features
                 .emplace(r.batch_size,
                          work_features(device, catalog.get(r.workload), r.phase, r.batch_size))
                 .first;
      }
      points.push_back({&r, it->second, &s, calibration.workloads.at(key).preprocess_ms});
    }
  }
  // Start: every class at the geometric mean of the calibrated parameters.
  double lc = 0, lm = 0, la = 0, lk = 0;
  for (const auto& [key, w] : calibration.workloads) {
    lc += std::log(1 / w.eff_compute);
    lm += std::log(1 / w.eff_memory);
    la += std::log(w.gpu_activity);
    lk += std::log(w.kernel_scale);
  }
  const double nw = static_cast<double>(calibration.workloads.size());
  constexpr Eigen::Index kParams = 4 * static_cast<Eigen::Index>(kOpClasses);
  Eigen::VectorXd start(kParams);
  for (std::size_t c = 0; c < kOpClasses; ++c) {
    start(static_cast<Eigen::Index>(c)) = lc / nw;
    start(static_cast<Eigen::Index>(kOpClasses + c)) = lm / nw;
    start(static_cast<Eigen::Index>(2 * kOpClasses + c)) = la / nw;
    start(static_cast<Eigen::Index>(3 * kOpClasses + c)) = lk / nw;
  }
  const auto decode = [](const Eigen::VectorXd& t) {
    GraphCoefficients g;
    for (std::size_t c = 0; c < kOpClasses; ++c) {
      g.inv_compute[c] = t(static_cast<Eigen::Index>(c));
      g.inv_memory[c] = t(static_cast<Eigen::Index>(kOpClasses + c));
      g.activity[c] = t(static_cast<Eigen::Index>(2 * kOpClasses + c));
      g.kernels[c] = t(static_cast<Eigen::Index>(3 * kOpClasses + c));
    }
    return g;
  };
  const double prior = std::sqrt(0.3);
  const CrossModeFitOptions options;
  const auto residuals = [&](const Eigen::VectorXd& t) {
    const GraphCoefficients g = decode(t);
    Eigen::VectorXd r(static_cast<Eigen::Index>(2 * points.size()) + kParams);
    std::map<const OpClassShares*, CrossModeWorkload> params;
    for (std::size_t i = 0; i < points.size(); ++i) {
      const Point& p = points[i];
      auto it = params.find(p.shares);
      if (it == params.end()) it = params.emplace(p.shares, graph_parameters(g, *p.shares)).first;
      CrossModeWorkload w = it->second;
      w.preprocess_ms = p.preprocess_ms;
      const CrossModeEstimate e = cross_mode_estimate(device, calibration.device, w, p.row->phase,
                                                      p.features, p.row->mode, p.row->batch_size);
      const auto k = static_cast<Eigen::Index>(2 * i);
      r(k) = huber_residual(std::log(e.time_s / p.row->time_s), options.huber);
      r(k + 1) = huber_residual((e.power_w - p.row->power_w) / p.row->power_w, options.huber);
    }
    const auto base = static_cast<Eigen::Index>(2 * points.size());
    for (Eigen::Index j = 0; j < kParams; ++j) r(base + j) = prior * (t(j) - start(j));
    return r;
  };
  Eigen::VectorXd t = start;
  Eigen::VectorXd r = residuals(t);
  double cost = 0.5 * r.squaredNorm();
  double lambda = 1e-3;
  for (int it = 0; it < 100; ++it) {
    Eigen::MatrixXd jac(r.size(), kParams);
    for (Eigen::Index j = 0; j < kParams; ++j) {
      Eigen::VectorXd tj = t;
      tj(j) += 1e-5;
      jac.col(j) = (residuals(tj) - r) / 1e-5;
    }
    const Eigen::MatrixXd a = jac.transpose() * jac;
    const Eigen::VectorXd g = jac.transpose() * r;
    bool accepted = false;
    for (int tries = 0; tries < 12 && !accepted; ++tries) {
      Eigen::MatrixXd m = a;
      for (Eigen::Index i = 0; i < kParams; ++i) m(i, i) += lambda * std::max(a(i, i), 1e-6);
      Eigen::VectorXd step = m.ldlt().solve(-g);
      const double largest = step.cwiseAbs().maxCoeff();
      if (largest > 2) step *= 2 / largest;
      const Eigen::VectorXd t_new = t + step;
      const Eigen::VectorXd r_new = residuals(t_new);
      const double c_new = 0.5 * r_new.squaredNorm();
      if (std::isfinite(c_new) && c_new < cost) {
        const bool small = cost - c_new < 1e-9 * cost;
        t = t_new;
        r = r_new;
        cost = c_new;
        lambda = std::max(lambda / 3, 1e-10);
        accepted = true;
        if (small) it = 100;
      } else {
        lambda *= 4;
      }
    }
    if (!accepted) break;
  }
  return with_depthwise_rate(device, shares, decode(t));
}

namespace {

// One workload left out: the device and graph coefficients fitted without it, its rows predicted
// from its layer graph, then the few-shot refits.
std::vector<ZeroShotResult> leave_out(const DeviceSpec& device, const std::vector<ModeRow>& rows,
                                      const std::vector<std::size_t>& device_side,
                                      const WorkloadCatalog& catalog, const std::string& left_out,
                                      const ZeroShotOptions& options, unsigned fit_threads) {
  std::vector<ModeRow> fit_rows, predicted;
  for (std::size_t i : device_side) {
    if (rows[i].workload != left_out) fit_rows.push_back(rows[i]);
  }
  for (const ModeRow& r : rows) {
    if (r.workload == left_out) predicted.push_back(r);
  }
  CrossModeFitOptions fit_options;
  fit_options.threads = fit_threads;
  CrossModeFit fit = fit_cross_mode(device, fit_rows, catalog, fit_options);
  fit.calibration.graph = fit_graph_coefficients(device, fit.calibration, fit_rows, catalog);
  std::set<Phase> phases;
  for (const ModeRow& r : predicted) phases.insert(r.phase);
  std::vector<ZeroShotResult> out;
  for (Phase phase : phases) {
    std::vector<ModeRow> of_phase;
    for (const ModeRow& r : predicted) {
      if (r.phase == phase) of_phase.push_back(r);
    }
    ZeroShotResult result{
        {left_out, phase}, evaluate_cross_mode(device, fit.calibration, of_phase, catalog), {}, {}};
    const CrossModeModel zero(device, fit.calibration, catalog);
    const WorkloadKey key{left_out, phase};
    const CrossModeWorkload start = zero.parameters(left_out, phase).first;
    for (int k : options.few_shot_k) {
      // The draws are independent fits: on the leave-out's threads, each into its own slot.
      const auto draws = static_cast<std::size_t>(std::max(0, options.draws));
      std::vector<double> time_pct(draws), power_pct(draws);
      parallel_for(0, draws, fit_threads, [&](std::size_t slot) {
        const auto profiled =
            sample_rows(of_phase, static_cast<std::size_t>(k), slot + 1,  // draws 1..draws
                        [](const ModeRow&) { return true; });
        CrossModeCalibration cal = fit.calibration;
        cal.workloads[key] =
            fit_workload(device, cal.device, key, select(of_phase, profiled), catalog, {}, start);
        std::vector<ModeRow> rest;
        for (std::size_t i = 0; i < of_phase.size(); ++i) {
          if (!std::binary_search(profiled.begin(), profiled.end(), i)) {
            rest.push_back(of_phase[i]);
          }
        }
        const ErrorStats e = evaluate_cross_mode(device, cal, rest, catalog).all;
        time_pct[slot] = e.time_mape_pct;
        power_pct[slot] = e.power_mape_pct;
      });
      result.few_shot.push_back({k, median_of(time_pct), median_of(power_pct)});
    }
    if (options.own_fit) {
      CrossModeFitOptions own;
      own.workload_extras = false;
      own.residual_correction = false;
      own.keep_start_form = true;
      own.start_prior = 0;  // the floor: W's rows alone
      own.threads = fit_threads;
      CrossModeCalibration cal = fit.calibration;
      cal.workloads[key] = fit_workload(device, cal.device, key, of_phase, catalog, own, start);
      result.own_fit = evaluate_cross_mode(device, cal, of_phase, catalog).all;
    }
    out.push_back(std::move(result));
  }
  return out;
}

}  // namespace

std::vector<ZeroShotResult> zero_shot_leave_one_out(const DeviceSpec& device,
                                                    const std::vector<ModeRow>& rows,
                                                    const WorkloadCatalog& catalog,
                                                    const ZeroShotOptions& options) {
  std::vector<std::size_t> device_side;
  if (options.device_modes < 1.0) {
    device_side = split_modes(rows, 1.0 - options.device_modes, options.seed).first;
  } else {
    for (std::size_t i = 0; i < rows.size(); ++i) device_side.push_back(i);
  }
  std::set<std::string> names;
  for (const ModeRow& r : rows) names.insert(r.workload);
  std::vector<std::string> left_out;
  for (const std::string& name : names) {
    if (options.only.empty() ||
        std::find(options.only.begin(), options.only.end(), name) != options.only.end()) {
      left_out.push_back(name);
    }
  }
  // Each leave-out reads the rows and the catalog (thread-safe) and fits its own copies: the
  // threads share nothing they write but their slot of `results`.
  const std::size_t available = thread_count(options.threads);
  const std::size_t threads =
      std::min<std::size_t>(std::max<std::size_t>(1, left_out.size()), available);
  // Threads beyond one per leave-out go to each one's device fit (its Jacobian's columns) and
  // few-shot draws.
  const auto fit_threads = static_cast<unsigned>(std::max<std::size_t>(1, available / threads));
  std::vector<std::vector<ZeroShotResult>> results(left_out.size());
  std::size_t done = 0;
  std::mutex mutex;
  parallel_for(0, left_out.size(), static_cast<unsigned>(threads), [&](std::size_t i) {
    results[i] = leave_out(device, rows, device_side, catalog, left_out[i], options, fit_threads);
    const std::lock_guard<std::mutex> lock(mutex);
    ++done;
    if (options.progress) options.progress(left_out[i], done, left_out.size());
  });
  std::vector<ZeroShotResult> out;
  for (auto& r : results) {
    for (auto& one : r) out.push_back(std::move(one));
  }
  return out;
}

std::vector<ZeroShotResult> zero_shot_leave_one_out(const DeviceSpec& device,
                                                    const std::vector<ModeRow>& rows,
                                                    const WorkloadCatalog& catalog,
                                                    double device_modes, std::uint64_t seed,
                                                    const std::string& only,
                                                    const std::vector<int>& few_shot_k, int draws) {
  ZeroShotOptions options;
  options.device_modes = device_modes;
  options.seed = seed;
  if (!only.empty()) options.only = {only};
  options.few_shot_k = few_shot_k;
  options.draws = draws;
  return zero_shot_leave_one_out(device, rows, catalog, options);
}

std::string cross_mode_yaml(const CrossModeCalibration& calibration,
                            const std::vector<std::string>& header) {
  std::ostringstream o;
  for (const std::string& line : header) o << "# " << line << "\n";
  o << "version: 1\n";
  o << "model: analytic-modes\n";
  o << "device: " << calibration.device.device << "\n";
  o << "coefficients:\n";
  for (const CrossModeField& f : cross_mode_fields()) {
    o << "  " << f.name << ": {value: " << fmt(calibration.device.*(f.member)) << ", unit: \""
      << f.unit << "\", source: \"" << f.origin << "\"}\n";
  }
  o << "workloads:\n";
  for (const auto& [key, w] : calibration.workloads) {
    o << "  - {workload: " << key.first << ", phase: " << to_string(key.second)
      << ", eff_compute: " << fmt(w.eff_compute) << ", eff_memory: " << fmt(w.eff_memory)
      << ", gpu_activity: " << fmt(w.gpu_activity) << ", kernel_scale: " << fmt(w.kernel_scale)
      << ", preprocess_ms: " << fmt(w.preprocess_ms);
    if (w.kernel_cycles != 1) o << ", kernel_cycles: " << fmt(w.kernel_cycles);
    if (w.overlap_host) o << ", overlap_host: " << fmt(*w.overlap_host);
    const auto correction = [&](const char* name, const ResidualCorrection& c) {
      o << ", " << name << ": {length_scale: " << fmt(c.length_scale)
        << ", linear: " << fmt(c.linear) << ", points: [";
      const std::size_t axes = c.regime ? kResidualDims : kResidualAxes;
      for (std::size_t i = 0; i < c.points.size(); ++i) {
        o << (i ? ", [" : "[");
        for (std::size_t j = 0; j < axes; ++j) o << (j ? ", " : "") << fmt(c.points[i][j]);
        o << "]";
      }
      o << "], weights: [";
      for (std::size_t i = 0; i < c.weights.size(); ++i) o << (i ? ", " : "") << fmt(c.weights[i]);
      o << "]}";
    };
    if (w.time_correction) correction("time_correction", *w.time_correction);
    if (w.power_correction) correction("power_correction", *w.power_correction);
    o << "}\n";
  }
  if (calibration.graph) {
    o << "graph_coefficients:  # log per op class: dense_conv, grouped_conv, gemm, other, "
         "recurrent\n";
    const auto list = [&](const char* key, const std::array<double, kOpClasses>& v) {
      o << "  " << key << ": [";
      for (std::size_t c = 0; c < kOpClasses; ++c) o << (c ? ", " : "") << fmt(v[c]);
      o << "]\n";
    };
    list("inv_compute", calibration.graph->inv_compute);
    list("inv_memory", calibration.graph->inv_memory);
    list("activity", calibration.graph->activity);
    list("kernels", calibration.graph->kernels);
  }
  if (calibration.zero_shot_check) {
    const ZeroShotCheck& z = *calibration.zero_shot_check;
    o << "zero_shot_check:  # each workload left out, predicted from its layer graph (MAPE and "
         "mean signed error, %); few-shot: k of its rows, median of the draws; own_fit: the same "
         "parameters fitted on all its rows\n";
    o << "  device_modes: " << fmt(z.device_modes) << "\n";
    o << "  seed: " << z.seed << "\n";
    o << "  results:\n";
    for (const ZeroShotCheck::Result& r : z.results) {
      o << "    - {workload: " << r.key.first << ", phase: " << to_string(r.key.second)
        << ", rows: " << r.rows << ", time_mape_pct: " << fmt(r.time_mape_pct)
        << ", time_bias_pct: " << fmt(r.time_bias_pct)
        << ", power_mape_pct: " << fmt(r.power_mape_pct)
        << ", power_bias_pct: " << fmt(r.power_bias_pct) << ", few_shot: [";
      for (std::size_t i = 0; i < r.few_shot.size(); ++i) {
        o << (i ? ", " : "") << "{k: " << r.few_shot[i].k
          << ", time_mape_pct: " << fmt(r.few_shot[i].time_mape_pct)
          << ", power_mape_pct: " << fmt(r.few_shot[i].power_mape_pct) << "}";
      }
      o << "]";
      if (r.own_fit_time_mape_pct && r.own_fit_power_mape_pct) {
        o << ", own_fit: {time_mape_pct: " << fmt(*r.own_fit_time_mape_pct)
          << ", power_mape_pct: " << fmt(*r.own_fit_power_mape_pct) << "}";
      }
      o << "}\n";
    }
  }
  return o.str();
}

ZeroShotCheck zero_shot_check_of(const std::vector<ZeroShotResult>& results,
                                 const ZeroShotOptions& options) {
  ZeroShotCheck check;
  check.device_modes = options.device_modes;
  check.seed = options.seed;
  for (const ZeroShotResult& r : results) {
    ZeroShotCheck::Result one;
    one.key = r.key;
    one.rows = r.errors.all.rows;
    one.time_mape_pct = r.errors.all.time_mape_pct;
    one.time_bias_pct = r.errors.all.time_bias_pct;
    one.power_mape_pct = r.errors.all.power_mape_pct;
    one.power_bias_pct = r.errors.all.power_bias_pct;
    for (const FewShotPoint& p : r.few_shot) {
      one.few_shot.push_back({p.k, p.time_mape_pct, p.power_mape_pct});
    }
    if (r.own_fit) {
      one.own_fit_time_mape_pct = r.own_fit->time_mape_pct;
      one.own_fit_power_mape_pct = r.own_fit->power_mape_pct;
    }
    check.results.push_back(std::move(one));
  }
  std::sort(
      check.results.begin(), check.results.end(),
      [](const ZeroShotCheck::Result& a, const ZeroShotCheck::Result& b) { return a.key < b.key; });
  return check;
}

std::string to_table(const ModeErrors& errors, const std::string& title) {
  std::ostringstream o;
  o << title << "\n";
  char line[256];
  std::snprintf(line, sizeof line, "  %-34s %7s %9s %9s %9s %9s\n", "group", "rows", "time %",
                "bias %", "power %", "bias %");
  o << line;
  const auto row = [&](const std::string& name, const ErrorStats& s) {
    std::snprintf(line, sizeof line, "  %-34s %7zu %9s %9s %9s %9s\n", name.c_str(), s.rows,
                  fmt_pct(s.time_mape_pct).c_str(), fmt_pct(s.time_bias_pct).c_str(),
                  fmt_pct(s.power_mape_pct).c_str(), fmt_pct(s.power_bias_pct).c_str());
    o << line;
  };
  for (const GroupErrors& g : errors.by_workload) row(g.group, g.stats);
  row("all", errors.all);
  if (!errors.by_region.empty()) {
    o << "  by region (GPU and CPU clock tercile of the table, EMC MHz, online cores):\n";
    for (const GroupErrors& g : errors.by_region) row(g.group, g.stats);
  }
  return o.str();
}

}  // namespace fulcrum::models
