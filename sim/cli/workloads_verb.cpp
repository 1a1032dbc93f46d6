// `fulcrum workloads`: the DNN workloads of the catalog and the datasets a training job can use.
#include <boost/program_options.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "sim/app/catalogs.hpp"
#include "sim/cli/verb_support.hpp"
#include "sim/report/catalog_report.hpp"

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
  const WorkloadsReport report = app::workloads();
  out << (vm.count("json") ? workloads_json(report) : workloads_text(report));
  return 0;
}

}  // namespace fulcrum::sim
