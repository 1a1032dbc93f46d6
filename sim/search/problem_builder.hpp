// The one way a search Problem is built from what a user's file asks -- a scenario's training
// job, fixed-arrival streams, budgets and `search:` block for `fulcrum optimize`, a sweep
// configuration for `fulcrum sweep` -- against the ground truth that will answer it: workload
// names as the truth knows them (GroundTruth::name_for), candidate batch sizes the truth has, the
// grid the truth covers and the catalog's idle power where none is given. Budgets are in seconds
// and watts; an absent budget stays absent.
//
//   ProblemRequest r;
//   r.training = {"mobilenetv3-large", 16};
//   r.streams.push_back({.workload = "resnet50", .arrival_per_s = 100, .latency_budget_s = 0.5});
//   Problem p = problem_from(r, truth);   // InputError naming the key and what the truth lacks
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/search/ground_truth.hpp"
#include "sim/search/problem.hpp"

namespace fulcrum::sim::search {

struct ProblemRequest {
  struct Training {
    std::string workload;
    int batch_size = 16;
    std::string workload_key = "training.workload";  // key paths named in errors
    std::string batch_key = "training.batch_size";
  };
  struct Stream {
    std::string workload;
    double arrival_per_s = 0;
    std::optional<double> latency_budget_s = std::nullopt;
    // Wanted batch sizes; empty: every size the truth has. Those the truth lacks are dropped; an
    // InputError names them when none is left.
    std::vector<int> batch_sizes = {};
    std::string workload_key = "";
    std::string batch_key = "";
  };
  std::optional<Training> training;
  std::vector<Stream> streams;
  std::optional<double> power_budget_w;
  PowerConstraint power_kind = PowerConstraint::max_of_phases;
  Objective objective = Objective::per_window;
  std::optional<double> idle_power_w;  // absent: catalog_idle_power_w() of the truth's device
  std::optional<std::string> grid;     // absent: truth.default_grid()
};

// InputError (key path from the request) for a workload the truth has no data for, a training
// batch size it lacks, or stream batch sizes none of which it has -- each naming what it has.
Problem problem_from(const ProblemRequest& request, const GroundTruth& truth);

}  // namespace fulcrum::sim::search
