// `fulcrum workloads`: the DNN workloads of the catalog and the datasets a training job can use.
#include <boost/program_options.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "models/workload/dataset_catalog.hpp"
#include "models/workload/workload_catalog.hpp"
#include "sim/cli/text_table.hpp"
#include "sim/cli/verb_support.hpp"
#include "sim/report/catalog_json.hpp"

namespace fulcrum::sim {

namespace po = boost::program_options;

int cmd_workloads(const std::vector<std::string>& args, std::ostream& out, std::ostream& /*err*/) {
  po::options_description options("Options");
  options.add_options()("help,h", "this help")("json", "print the catalogs as JSON on stdout");
  const po::variables_map vm = parse_verb("workloads", args, options);
  if (vm.count("help")) {
    out << verb_usage("workloads",
                      "The DNN workloads of the catalog with their parameters, GFLOPs per sample\n"
                      "(forward pass, and a training step: forward + backward + update), kernel\n"
                      "launches per minibatch, and the datasets a training job can use.",
                      options);
    return 0;
  }
  if (vm.count("json")) {
    out << workloads_json();
    return 0;
  }
  const models::WorkloadCatalog& catalog = models::workload_catalog();
  TextTable t({"workload", "task", "params (M)", "GFLOP/sample fwd", "GFLOP/sample train",
               "kernels/minibatch fwd", "kernels/minibatch train"});
  for (const std::string& name : catalog.names()) {
    const models::Workload& w = catalog.get(name);
    const models::PhaseCost inf = w.cost(models::Phase::inference, 1);
    const models::PhaseCost train = w.cost(models::Phase::training, 1);
    t.add({name, w.task(), fixed(w.parameters() / 1e6, 2),
           fixed(w.forward_flops_per_sample() / 1e9, 3), fixed(train.flops / 1e9, 3),
           fixed(inf.kernels, 0), fixed(train.kernels, 0)});
  }
  out << t.str() << "\n";
  TextTable d({"dataset", "samples", "size (GB)", "note"});
  for (const std::string& name : models::dataset_names()) {
    const models::DatasetSpec& s = models::dataset(name);
    d.add({name, fixed(s.samples, 0), s.bytes ? fixed(*s.bytes / 1e9, 3) : "-", s.note});
  }
  out << d.str();
  return 0;
}

}  // namespace fulcrum::sim
