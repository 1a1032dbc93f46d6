// `fulcrum predict`: fits a time and power predictor to the profiled modes of one workload
// (--fit) and predicts every row of another profile (--at), printing the MAPE and bias on the
// held-out rows and writing the predictions as a profile CSV (docs/PREDICT.md; sim/app/predict).
#include <boost/program_options.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "models/error.hpp"
#include "sim/app/predict.hpp"
#include "sim/cli/verb_support.hpp"
#include "sim/report/predict_report.hpp"

namespace fulcrum::sim {

namespace po = boost::program_options;

int cmd_predict(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description options("Options");
  options.add_options()("help,h", "this help")(
      "predictor", po::value<std::string>()->default_value("powertrain"),
      "analytic (the calibrated analytic model; ignores the fitted rows), analytic-modes (the "
      "cross-mode model; fits the workload's own parameters to the fit rows), nn (PowerTrain's "
      "MLPs "
      "trained from scratch on the fit rows) or powertrain (transfer from the reference weights)")(
      "fit", po::value<std::string>(), "profile CSV of the workload's measured modes (required)")(
      "at", po::value<std::string>(), "profile CSV whose every row is predicted (required)")(
      "out", po::value<std::string>(), "write the predictions here, as a profile CSV")(
      "workload", po::value<std::string>(),
      "the workload (a catalog name or alias); default: the one the --fit file names")(
      "sample", po::value<int>(), "K: fit on K rows drawn at random (by --seed) from --fit")(
      "seed", po::value<std::string>()->default_value("1"), "seed of the sample and the training")(
      "weights", po::value<std::string>(),
      "powertrain: the reference weights (default: the committed resnet18 reference)")(
      "save-weights", po::value<std::string>(), "nn: write the trained networks here")(
      "min-steps", po::value<int>(),
      "nn, powertrain: at least N optimiser steps per network, adding epochs beyond the 100 "
      "when the fit rows are few (default 0: exactly 100 epochs; docs/PREDICT.md)")(
      "device", po::value<std::string>()->default_value("orin-agx-64gb"),
      "analytic: the catalog device the rows were measured on")(
      "phase", po::value<std::string>(), "keep only the rows of this phase (training, inference)")(
      "batch-size", po::value<int>(), "keep only the rows of this batch size")(
      "json", "print the report as JSON on stdout (every row's prediction and residual)");
  const po::variables_map vm = parse_verb("predict", args, options);
  if (vm.count("help")) {
    out << verb_usage(
        "predict --fit PROFILE.csv --at PROFILE.csv [--predictor "
        "analytic|analytic-modes|nn|powertrain]\n"
        "                [--workload NAME] [--phase P] [--batch-size B] [--sample K] [--seed N]\n"
        "                [--out FILE] [--json]",
        "Fits a predictor of minibatch time and power to the measured modes of one workload\n"
        "(--fit, profile or measurement layout, models/data/profiles/README.md), predicts every\n"
        "row of --at and prints the time and power MAPE and bias over the rows whose mode was\n"
        "not fitted (held out); --json prints every row's prediction and residual too.\n"
        "--out must be absent or an earlier predictions file, never an input. See\n"
        "docs/PREDICT.md.",
        options);
    return 0;
  }
  for (const char* required : {"fit", "at"}) {
    if (!vm.count(required)) {
      throw InputError(std::nullopt, std::string("--") + required,
                       "missing (see fulcrum predict --help)");
    }
  }
  app::PredictRequest request;
  request.predictor = vm["predictor"].as<std::string>();
  request.fit_csv = vm["fit"].as<std::string>();
  request.at_csv = vm["at"].as<std::string>();
  if (vm.count("out")) request.out_csv = vm["out"].as<std::string>();
  if (vm.count("save-weights")) request.save_weights = vm["save-weights"].as<std::string>();
  if (vm.count("weights")) request.weights = vm["weights"].as<std::string>();
  if (vm.count("workload")) request.workload = vm["workload"].as<std::string>();
  if (vm.count("phase")) request.phase = vm["phase"].as<std::string>();
  if (vm.count("batch-size")) request.batch_size = vm["batch-size"].as<int>();
  if (vm.count("sample")) request.sample = vm["sample"].as<int>();
  if (vm.count("min-steps")) request.min_steps = vm["min-steps"].as<int>();
  request.seed = parse_seed(vm["seed"].as<std::string>());
  request.device = vm["device"].as<std::string>();
  request.command_line = "fulcrum predict";
  for (const std::string& a : args) request.command_line += " " + a;
  const PredictReport report = app::predict(request);
  out << (vm.count("json") ? predict_json(report) : predict_text(report));
  if (request.save_weights) err << "fulcrum: wrote " << request.save_weights->string() << "\n";
  return 0;
}

}  // namespace fulcrum::sim
