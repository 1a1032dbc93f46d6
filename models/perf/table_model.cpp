#include "models/perf/table_model.hpp"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <cmath>
#include <limits>
#include <set>

#include "models/workload/workload_catalog.hpp"

namespace fulcrum::models {

namespace {

constexpr int kBatchAxis = 0;

// Profile values are written by hand or by tools in different units (1300.5e6 vs 1300500000);
// a relative tolerance makes them meet the device table's values.
bool same_value(double a, double b) {
  return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
}

Provenance worse(Provenance a, Provenance b) {
  auto rank = [](Provenance p) {
    switch (p) {
      case Provenance::measured:
        return 0;
      case Provenance::interpolated:
        return 1;
      case Provenance::extrapolated:
        return 2;
      case Provenance::modelled:
        return 3;
    }
    return 3;
  };
  return rank(a) >= rank(b) ? a : b;
}

bool names_gpu(const std::string& rail) {
  std::string upper = rail;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return upper.find("GPU") != std::string::npos;
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

double clamp_between(double v, double a, double b) {
  return std::clamp(v, std::min(a, b), std::max(a, b));
}

}  // namespace

std::optional<std::size_t> TableModel::insert(Tree& tree, std::size_t index) {
  const Point& p = points_[index];
  AxisNode* node = &tree.root;
  for (int axis = 0; axis < kAxes; ++axis) {
    const double x = p.axis[axis];
    auto& values = node->values;
    auto it = std::lower_bound(values.begin(), values.end(), x,
                               [](double v, double q) { return v < q && !same_value(v, q); });
    const auto i = static_cast<std::size_t>(it - values.begin());
    const bool found = it != values.end() && same_value(*it, x);
    if (axis == kAxes - 1) {
      if (found) return node->points[i];
      values.insert(it, x);
      node->points.insert(node->points.begin() + static_cast<std::ptrdiff_t>(i), index);
      ++tree.size;
      return std::nullopt;
    }
    if (!found) {
      values.insert(it, x);
      node->children.insert(node->children.begin() + static_cast<std::ptrdiff_t>(i), AxisNode{});
    }
    node = &node->children[i];
  }
  assert(false && "unreachable: the last axis returns");
  return std::nullopt;
}

void TableModel::add_profile(const std::string& workload_name, const ProfileTable& table) {
  // A rejected profile leaves the model as it was.
  auto busy_before = busy_;
  auto idle_before = idle_;
  const std::size_t points_before = points_.size();
  try {
    add_rows(workload_name, table);
  } catch (...) {
    busy_ = std::move(busy_before);
    idle_ = std::move(idle_before);
    points_.resize(points_before);
    throw;
  }
}

void TableModel::add_rows(const std::string& workload_name, const ProfileTable& table) {
  // Rows are kept under the catalog's name, whichever spelling the file or the caller used.
  const std::string name(canonical_workload_name(workload_name));
  std::size_t taken = 0;
  std::set<std::string> others;
  for (const ProfileRow& row : table.rows) {
    const bool idle = row.phase == ProfilePhase::idle;
    if (!idle && row.workload && canonical_workload_name(*row.workload) != name) {
      others.insert(*row.workload);
      continue;
    }
    Point p;
    p.axis[0] = row.batch_size;
    p.axis[1] = row.cores;
    p.axis[2] = row.cpu_khz;
    p.axis[3] = row.gpu_hz;
    p.axis[4] = row.emc_hz;
    p.time_ms = row.time_ms.value_or(0.0);
    p.power_w = row.power_w;
    for (std::size_t r = 0; r < table.rail_names.size(); ++r) {
      if (row.rail_power_w[r]) p.rails_w.emplace_back(table.rail_names[r], *row.rail_power_w[r]);
    }
    p.where = row.where;
    points_.push_back(std::move(p));
    const std::size_t index = points_.size() - 1;
    if (idle) {
      // The same baseload file may be registered for several workloads: the first row wins.
      if (insert(idle_, index)) points_.pop_back();
      continue;
    }
    ++taken;
    const Phase phase = row.phase == ProfilePhase::training ? Phase::training : Phase::inference;
    if (auto earlier = insert(busy_[name][phase], index)) {
      const SourceLocation& first = points_[*earlier].where;
      points_.pop_back();
      throw InputError(row.where, "row",
                       "duplicate of the row at " + first.file + ":" + std::to_string(first.line) +
                           " (same workload, mode, phase and batch_size)");
    }
  }
  if (taken == 0) {
    throw InputError(
        SourceLocation{table.source, 0, 0}, "workload",
        "no training or inference rows for workload '" + workload_name + "'" +
            (others.empty()
                 ? std::string()
                 : " (the profile holds: " + join({others.begin(), others.end()}) + ")"));
  }
}

void TableModel::add_profiles(const ProfileTable& table) {
  std::set<std::string> names;
  for (const ProfileRow& row : table.rows) {
    if (row.phase == ProfilePhase::idle) continue;
    if (!row.workload) {
      throw InputError(SourceLocation{table.source, 0, 0}, "workload",
                       "the profile has no workload column; register it for one workload");
    }
    names.insert(std::string(canonical_workload_name(*row.workload)));
  }
  for (const auto& n : names) add_profile(n, table);
}

std::vector<std::string> TableModel::workloads() const {
  std::vector<std::string> out;
  for (const auto& [name, phases] : busy_) out.push_back(name);
  return out;
}

std::vector<double> TableModel::rails_of(const Point& p, const DeviceSpec& device) const {
  const auto& rails = device.rails;
  std::vector<double> out(rails.size(), 0.0);
  std::vector<bool> known(rails.size(), false);
  double known_w = 0;
  for (const auto& [name, watts] : p.rails_w) {
    auto it = std::find(rails.begin(), rails.end(), name);
    if (it == rails.end()) {
      throw InputError(
          p.where, name + "_w",
          "not a rail of device '" + device.name + "' (its rails: " + join(rails) + ")");
    }
    const auto i = static_cast<std::size_t>(it - rails.begin());
    out[i] = watts;
    known[i] = true;
    known_w += watts;
  }
  std::optional<std::size_t> target;
  for (std::size_t i = 0; i < rails.size() && !target; ++i) {
    if (!known[i] && names_gpu(rails[i])) target = i;
  }
  for (std::size_t i = 0; i < rails.size() && !target; ++i) {
    if (!known[i]) target = i;
  }
  if (target) out[*target] += std::max(p.power_w - known_w, 0.0);
  return out;
}

TableModel::Estimate TableModel::estimate(const AxisNode& node, int axis,
                                          const double (&query)[kAxes],
                                          const DeviceSpec& device) const {
  const auto& values = node.values;
  assert(!values.empty());
  auto below = [&](std::size_t i) -> Estimate {
    if (axis == kAxes - 1) {
      const Point& p = points_[node.points[i]];
      return Estimate{p.time_ms, rails_of(p, device), Provenance::measured};
    }
    return estimate(node.children[i], axis + 1, query, device);
  };

  const double x = query[axis];
  auto it = std::lower_bound(values.begin(), values.end(), x,
                             [](double v, double q) { return v < q && !same_value(v, q); });
  const auto i = static_cast<std::size_t>(it - values.begin());
  if (it != values.end() && same_value(*it, x)) return below(i);

  const bool batch = axis == kBatchAxis;
  if (i > 0 && i < values.size()) {
    const double lo = values[i - 1];
    const double hi = values[i];
    Estimate a = below(i - 1);
    const Estimate b = below(i);
    // Time ~ a + b/f along a resource, so it is linear in 1/x there; power and all of batch: in x.
    const double w_power = (x - lo) / (hi - lo);
    const double w_time = batch ? w_power : (1 / x - 1 / lo) / (1 / hi - 1 / lo);
    a.time_ms += w_time * (b.time_ms - a.time_ms);
    for (std::size_t r = 0; r < a.rails_w.size(); ++r) {
      a.rails_w[r] += w_power * (b.rails_w[r] - a.rails_w[r]);
    }
    a.provenance = worse(worse(a.provenance, b.provenance), Provenance::interpolated);
    return a;
  }

  const std::size_t edge_i = i == 0 ? 0 : values.size() - 1;
  const double edge = values[edge_i];
  Estimate e = below(edge_i);
  std::optional<Estimate> next;
  double next_x = 0;
  if (values.size() >= 2) {
    const std::size_t next_i = i == 0 ? 1 : values.size() - 2;
    next_x = values[next_i];
    next = below(next_i);
  }
  // ratio > 1 means the query has more of this axis than the edge.
  const double ratio = x / edge;

  double time_ms = e.time_ms;
  if (batch) {
    // Per-sample time neither rises with batch size nor falls below the edge's throughput.
    const double proportional = e.time_ms * ratio;
    time_ms =
        next ? clamp_between(e.time_ms + (next->time_ms - e.time_ms) * (x - edge) / (next_x - edge),
                             e.time_ms, proportional)
             : proportional;
  } else if (next) {
    const double line =
        e.time_ms + (next->time_ms - e.time_ms) * (1 / x - 1 / edge) / (1 / next_x - 1 / edge);
    time_ms = clamp_between(line, e.time_ms, e.time_ms / ratio);
  }
  std::vector<double> rails_w = e.rails_w;
  if (!batch && next) {
    for (std::size_t r = 0; r < rails_w.size(); ++r) {
      const double line =
          e.rails_w[r] + (next->rails_w[r] - e.rails_w[r]) * (x - edge) / (next_x - edge);
      rails_w[r] = clamp_between(line, e.rails_w[r], e.rails_w[r] * ratio);
    }
  }
  Provenance prov = worse(e.provenance, Provenance::extrapolated);
  if (next) prov = worse(prov, next->provenance);
  return Estimate{time_ms, std::move(rails_w), prov};
}

namespace {

void check_device_and_mode(const DeviceSpec& device, const PowerMode& mode) {
  if (device.rails.empty()) {
    throw InputError("device '" + device.name +
                     "' lists no power rails; the table model needs them");
  }
  if (mode.cores <= 0 || !(mode.cpu_khz > 0) || !(mode.gpu_hz > 0) || !(mode.emc_hz > 0)) {
    throw InputError("power mode (cores " + std::to_string(mode.cores) + ", cpu_khz " +
                     std::to_string(mode.cpu_khz) + ", gpu_hz " + std::to_string(mode.gpu_hz) +
                     ", emc_hz " + std::to_string(mode.emc_hz) +
                     ") has a non-positive core count or frequency");
  }
}

}  // namespace

Prediction TableModel::predict(const PerfQuery& q) const {
  check_device_and_mode(q.device, q.mode);
  if (q.batch_size < 1) {
    throw InputError("batch_size must be at least 1, got " + std::to_string(q.batch_size));
  }
  const std::string& name = q.workload.name();
  auto w = busy_.find(name);
  if (w == busy_.end()) {
    throw InputError("workload '" + name + "' has no profile in the table model (profiled: " +
                     (busy_.empty() ? std::string("none") : join(workloads())) + ")");
  }
  auto t = w->second.find(q.phase);
  if (t == w->second.end()) {
    throw InputError("workload '" + name + "' has no " + to_string(q.phase) +
                     " rows in its profile");
  }
  const double query[kAxes] = {static_cast<double>(q.batch_size), static_cast<double>(q.mode.cores),
                               q.mode.cpu_khz, q.mode.gpu_hz, q.mode.emc_hz};
  Estimate e = estimate(t->second.root, 0, query, q.device);
  assert(e.time_ms > 0);
  Prediction p;
  p.time_ms = e.time_ms;
  p.power.power_w = std::move(e.rails_w);
  p.provenance = e.provenance;
  return p;
}

RailPower TableModel::idle_power(const DeviceSpec& device, const PowerMode& mode) const {
  check_device_and_mode(device, mode);
  if (idle_.size > 0) {
    const double query[kAxes] = {0.0, static_cast<double>(mode.cores), mode.cpu_khz, mode.gpu_hz,
                                 mode.emc_hz};
    return RailPower{estimate(idle_.root, 0, query, device).rails_w};
  }
  // No baseload rows: take the least loaded row at the nearest profiled mode, distance measured
  // in ratios (log space) so that no axis dominates by its unit.
  const Point* best = nullptr;
  double best_distance = std::numeric_limits<double>::infinity();
  const double query[kAxes] = {0.0, static_cast<double>(mode.cores), mode.cpu_khz, mode.gpu_hz,
                               mode.emc_hz};
  for (const Point& p : points_) {
    if (p.axis[kBatchAxis] == 0) continue;  // an idle point (none exist on this path)
    double d = 0;
    for (int a = 1; a < kAxes; ++a) d += std::abs(std::log(query[a] / p.axis[a]));
    const bool nearer = !best || (d < best_distance && !same_value(d, best_distance));
    const bool tie_lower = best && same_value(d, best_distance) && p.power_w < best->power_w;
    if (nearer || tie_lower) {
      best = &p;
      best_distance = d;
    }
  }
  if (!best) throw InputError("the table model has no profile rows to estimate idle power from");
  std::vector<double> rails = rails_of(*best, device);
  for (double& r : rails) r *= options_.idle_share_of_busy;
  return RailPower{std::move(rails)};
}

}  // namespace fulcrum::models
