// `fulcrum workloads`: the DNN workloads of the catalog and the datasets a training job can use;
// with --import, an ONNX model written as a workload file (sim/app/import_workload.hpp).
#include <boost/program_options.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "models/error.hpp"
#include "sim/app/catalogs.hpp"
#include "sim/app/import_workload.hpp"
#include "sim/cli/verb_support.hpp"
#include "sim/report/catalog_report.hpp"
#include "sim/report/number_format.hpp"

namespace fulcrum::sim {

namespace po = boost::program_options;

int cmd_workloads(const std::vector<std::string>& args, std::ostream& out, std::ostream& /*err*/) {
  po::options_description options("Options");
  options.add_options()("help,h", "this help")("json", "print the catalogs as JSON on stdout")(
      "file", po::value<std::vector<std::string>>()->composing(),
      "a workload file (YAML) to read and show instead of the whole catalog; repeatable, also "
      "as plain arguments")("import", po::value<std::string>(),
                            "an ONNX model to write as a workload file (needs --name and --out)")(
      "input-shape", po::value<std::vector<std::string>>()->composing(),
      "with --import: the data input's shape, NAME=1x3x224x224 or 3x224x224 (one sample); sets "
      "its dynamic dimensions")("name", po::value<std::string>(),
                                "with --import: the workload's name in the file")(
      "out", po::value<std::string>(), "with --import: the workload file to write (.yaml)");
  po::positional_options_description positional;
  positional.add("file", -1);
  const po::variables_map vm = parse_verb("workloads", args, options, positional);
  if (vm.count("help")) {
    out << verb_usage(
        "workloads [FILE.yaml ...] | workloads --import MODEL.onnx --name NAME --out FILE.yaml",
        "The DNN workloads of the catalog with their parameters, GFLOPs per sample\n"
        "(forward pass, and a training step: forward + backward + update), kernel\n"
        "launches per minibatch, where each comes from (built-in, or a workload file\n"
        "of the data folder's workloads/), and the datasets a training job can use.\n"
        "Given workload files (docs/SCENARIOS.md, \"The workload file\"), it reads\n"
        "them, says where one is wrong (file:line:col, exit 2) and shows only them.\n"
        "With --import, an ONNX model (weights optional) is mapped onto the layer\n"
        "graph through ONNX shape inference and written as a workload file that a\n"
        "scenario names as `workload: FILE.yaml` (docs/WORKLOADS.md).",
        options);
    return 0;
  }
  if (!vm.count("import")) {
    for (const char* key : {"input-shape", "name", "out"})
      if (vm.count(key))
        throw InputError(std::nullopt, std::string("--") + key, "only with --import");
    app::WorkloadsRequest request;
    if (vm.count("file")) request.files = vm["file"].as<std::vector<std::string>>();
    const WorkloadsReport report = app::workloads(request);
    out << (vm.count("json") ? workloads_json(report) : workloads_text(report));
    return 0;
  }
  for (const char* key : {"json", "file"})
    if (vm.count(key)) throw InputError(std::nullopt, std::string("--") + key, "not with --import");
  for (const char* key : {"name", "out"})
    if (!vm.count(key))
      throw InputError(std::nullopt, std::string("--") + key, "missing (needed with --import)");
  app::ImportRequest request;
  request.model = vm["import"].as<std::string>();
  if (vm.count("input-shape"))
    request.input_shapes = vm["input-shape"].as<std::vector<std::string>>();
  request.name = vm["name"].as<std::string>();
  request.out = vm["out"].as<std::string>();
  const app::ImportResult r = app::import_workload(request);
  out << "wrote " << r.out.string() << ": workload '" << r.name << "', " << r.layers << " layers, "
      << fixed(r.parameters / 1e6, 2) << " M parameters, " << fixed(r.macs_per_sample / 1e9, 3)
      << " GMACs per sample (input '" << r.input_name << "')\n";
  return 0;
}

}  // namespace fulcrum::sim
