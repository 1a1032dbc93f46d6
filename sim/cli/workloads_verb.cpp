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
  options.add_options()("help,h", "this help")("json", "print the catalogs as JSON on stdout")(
      "file", po::value<std::vector<std::string>>()->composing(),
      "a workload file (YAML) to read and show instead of the whole catalog; repeatable, also "
      "as plain arguments");
  po::positional_options_description positional;
  positional.add("file", -1);
  const po::variables_map vm = parse_verb("workloads", args, options, positional);
  if (vm.count("help")) {
    out << verb_usage(
        "workloads [FILE.yaml ...]",
        "The DNN workloads of the catalog with their parameters, GFLOPs per sample\n"
        "(forward pass, and a training step: forward + backward + update), kernel\n"
        "launches per minibatch, where each comes from (built-in, or a workload file\n"
        "of the data folder's workloads/), and the datasets a training job can use.\n"
        "Given workload files (docs/SCENARIOS.md, \"The workload file\"), it reads\n"
        "them, says where one is wrong (file:line:col, exit 2) and shows only them.",
        options);
    return 0;
  }
  app::WorkloadsRequest request;
  if (vm.count("file")) request.files = vm["file"].as<std::vector<std::string>>();
  const WorkloadsReport report = app::workloads(request);
  out << (vm.count("json") ? workloads_json(report) : workloads_text(report));
  return 0;
}

}  // namespace fulcrum::sim
