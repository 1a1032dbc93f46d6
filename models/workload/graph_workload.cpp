#include "models/workload/graph_workload.hpp"

#include <algorithm>
#include <boost/graph/topological_sort.hpp>
#include <boost/range/iterator_range.hpp>
#include <cassert>
#include <iterator>
#include <utility>

#include "models/error.hpp"

namespace fulcrum::models {

GraphWorkload::GraphWorkload(std::string name, std::string task, LayerGraph graph,
                             double input_bytes_per_sample, std::string note, WorkloadUse use)
    : name_(std::move(name)),
      task_(std::move(task)),
      graph_(std::move(graph)),
      input_bytes_per_sample_(input_bytes_per_sample),
      note_(std::move(note)),
      use_(std::move(use)) {
  const Graph& g = graph_.graph();
  order_.reserve(boost::num_vertices(g));
  // topological_sort emits in reverse; it throws boost::not_a_dag on a cycle, which the builder
  // API cannot create.
  boost::topological_sort(g, std::back_inserter(order_));
  std::reverse(order_.begin(), order_.end());
  parameters_ = graph_.parameters();
  macs_per_sample_ = graph_.macs_per_sample();
  forward_flops_per_sample_ = CostRules::flops_per_mac * macs_per_sample_;
}

bool GraphWorkload::supports(Phase phase) const {
  return std::find(use_.phases.begin(), use_.phases.end(), phase) != use_.phases.end();
}

std::vector<LayerWork> GraphWorkload::layer_work(Phase phase, int batch_size) const {
  if (batch_size < 1)
    throw InputError("workload '" + name_ + "': batch size must be >= 1, got " +
                     std::to_string(batch_size));
  const double b = batch_size;
  const Graph& g = graph_.graph();
  std::vector<LayerWork> out;
  out.reserve(order_.size());
  for (LayerId v : order_) {
    const Layer& l = g[v];
    if (l.kind == OpKind::input || l.kind == OpKind::view) continue;

    double in_elements = 0;
    for (auto e : boost::make_iterator_range(boost::in_edges(v, g))) in_elements += g[e].elements;
    const double activation_bytes =
        b * (CostRules::bytes_per_value * (in_elements + l.out.elements()) + l.gathered_bytes);
    const double product_flops = b * CostRules::flops_per_mac * l.macs;
    const double elementwise_flops = b * l.elementwise_ops;

    LayerWork w;
    w.name = l.name;
    w.kind = l.kind;
    w.grouped = l.grouped;
    w.flops = product_flops + elementwise_flops;
    w.bytes = l.weight_read_bytes + activation_bytes;
    w.kernels = l.kernels;
    w.reread_bytes = l.reread_bytes;
    w.reread_footprint_bytes = l.reread_footprint_bytes;
    if (phase == Phase::training) {
      const double grad_write_bytes = CostRules::bytes_per_value * l.params;
      w.flops += CostRules::backward_mac_factor * product_flops +
                 CostRules::backward_elementwise_factor * elementwise_flops +
                 CostRules::update_flops_per_param * l.params;
      w.bytes += 2 * activation_bytes + l.weight_read_bytes + grad_write_bytes +
                 CostRules::update_bytes_per_param * l.params;
      w.kernels += CostRules::backward_kernel_factor * l.kernels + l.param_tensors;
      w.reread_bytes += l.reread_bytes;  // the backward recurrence walks the steps again
    }
    assert(w.flops >= 0 && w.bytes >= 0 && w.kernels >= 0 && w.reread_bytes >= 0);
    out.push_back(std::move(w));
  }
  return out;
}

}  // namespace fulcrum::models
