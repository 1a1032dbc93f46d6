// Runs the built `fulcrum` executable and checks exit statuses and the one-line error messages of
// every class of bad input (DESIGN.md section 7).
#include "sim/cli/cli.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "sim/app/version.hpp"
#include "tests/run_shell.hpp"
#include "tests/sim/report/json_check.hpp"
#include "tests/temp_dir.hpp"

namespace fs = std::filesystem;

using fulcrum::sim::testing::parse_json;

namespace {

using Outcome = fulcrum::testing::ShellOutcome;

using fulcrum::testing::slurp;

std::string quote(const std::string& s) { return fulcrum::testing::shell_quote(s); }

// A scratch folder with scenario files; removed at the end of the test.
struct Sandbox {
  fs::path dir;
  Sandbox() {
    static int counter = 0;
    dir = fs::temp_directory_path() /
          ("fulcrum-cli-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::create_directories(dir);
  }
  ~Sandbox() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name, std::ios::binary) << text;
    return (dir / name).string();
  }
  // `env` is prepended to the command line ("NAME=VALUE ...").
  Outcome fulcrum(const std::string& args, const std::string& env = "") const {
    return fulcrum::testing::run_shell(
        (env.empty() ? "" : env + " ") + quote(FULCRUM_BINARY) + " " + args, dir);
  }
};

const char* kGood = R"(version: 1
name: cli-good
duration_s: 20
device: {model: orin-agx-64gb, power_mode: MAXN}
training: {workload: mobilenetv3-large, dataset: gld23k, batch_size: 16}
inference:
  - workload: resnet50
    batch_size: 16
    arrivals: {process: fixed, rate_per_s: 100}
)";

std::string replace(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

}  // namespace

TEST_CASE("every class of bad input exits 2 with one located line and writes no results", "[cli]") {
  Sandbox box;
  box.write("traces-empty.csv", "arrival_s\n");
  box.write("traces-unsorted.csv", "arrival_s\n0.5\n0.25\n");
  box.write("resnet50.csv",
            "workload,cores,cpu_khz,gpu_hz,emc_hz,phase,batch_size,time_ms,power_w\n"
            "resnet50,12,2201600,1300500000,3199000000,inference,16,50,40\n");
  struct Case {
    std::string what;
    std::string scenario_text;  // written as case.yaml; empty: use `args` as given
    std::string extra_args;
    std::string expect;  // regex the single stderr line must match
  };
  const std::string f = "[^:]*case\\.yaml";
  const std::vector<Case> cases = {
      {"malformed YAML", "version: 1\ntraining: {workload: [resnet50\n", "",
       "^" + f + ":\\d+:\\d+: malformed YAML"},
      {"unknown key", std::string(kGood) + "colour: blue\n", "",
       "^" + f + ":10:1: colour: unknown key"},
      {"wrong type", replace(kGood, "duration_s: 20", "duration_s: [20]"), "",
       "^" + f + ":3:13: duration_s: "},
      {"negative rate", replace(kGood, "rate_per_s: 100", "rate_per_s: -100"), "",
       "^" + f + ":9:\\d+: inference\\[0\\]\\.arrivals\\.rate_per_s: must be >= 1e-6"},
      {"zero rate", replace(kGood, "rate_per_s: 100", "rate_per_s: 0"), "",
       "^" + f + ":9:\\d+: inference\\[0\\]\\.arrivals\\.rate_per_s: must be >= 1e-6"},
      {"NaN", replace(kGood, "rate_per_s: 100", "rate_per_s: .nan"), "",
       "^" + f + ":9:\\d+: inference\\[0\\]\\.arrivals\\.rate_per_s: "},
      {"unknown device", replace(kGood, "model: orin-agx-64gb", "model: jetson-tx9"), "",
       "^" + f + ":4:\\d+: device\\.model: unknown device 'jetson-tx9'"},
      {"unknown workload", replace(kGood, "workload: resnet50", "workload: resnet51"), "",
       "^" + f + ":7:\\d+: inference\\[0\\]\\.workload: unknown workload 'resnet51'"},
      {"99 cores", replace(kGood, "power_mode: MAXN", "cores: 99"), "",
       "^" + f + ":4:\\d+: device\\.cores: "},
      {"5 GHz CPU", replace(kGood, "power_mode: MAXN", "cpu_mhz: 5000"), "",
       "^" + f + ":4:\\d+: device\\.cpu_mhz: "},
      {"empty trace",
       replace(kGood, "{process: fixed, rate_per_s: 100}",
               "{process: trace, path: traces-empty.csv}"),
       "", "traces-empty\\.csv: empty trace"},
      {"unsorted trace",
       replace(kGood, "{process: fixed, rate_per_s: 100}",
               "{process: trace, path: traces-unsorted.csv}"),
       "", "traces-unsorted\\.csv:3:1: arrival_s: arrival times must be non-decreasing"},
      {"version 2", replace(kGood, "version: 1", "version: 2"), "",
       "^" + f + ":1:10: version: unsupported version 2"},
      {"bad --set value", kGood, "--set inference[0].batch_size=0",
       "^--set: inference\\[0\\]\\.batch_size: "},
      {"bad --set path", kGood, "--set 'inference[x]=1'", "^--set: "},
      {"--set of an unknown key", kGood, "--set colour=blue", "^--set: colour: unknown key"},
      {"bad --seed", kGood, "--seed -3", "^--seed: "},
      {"unknown option", kGood, "--frobnicate", "^fulcrum run: "},
      {"a duration shorter than a nanosecond",
       replace(kGood, "duration_s: 20", "duration_s: 1e-12"), "",
       "^" + f + ":3:13: duration_s: must be >= 1e-9"},
      {"a power sampling period shorter than a nanosecond", kGood,
       "--set outputs.power_sample_s=1e-10", "^--set: outputs\\.power_sample_s: must be >= 1e-9"},
      {"an unknown backend", kGood, "--backend tpu",
       "^--backend: 'tpu' is not a backend \\(backends: sim, cuda(; available in this build: "
       "sim)?\\)\n$"},
      {"an unknown clock", kGood, "--clock sundial",
       "^--clock: expected virtual or wall, got 'sundial'"},
      {"an unknown performance model",
       replace(kGood, "power_mode: MAXN", "power_mode: MAXN, perf_model: roofline"), "",
       "^" + f + ":4:\\d+: device\\.perf_model: unknown perf_model 'roofline'"},
      {"a missing profile table",
       replace(kGood, "power_mode: MAXN", "power_mode: MAXN, perf_model: {table: none.csv}"), "",
       "^" + f + ":4:\\d+: device\\.perf_model\\.table: cannot open profile CSV"},
      {"a profile table without rows for a workload of the scenario",
       replace(kGood, "power_mode: MAXN", "power_mode: MAXN, perf_model: {table: resnet50.csv}"),
       "", "^" + f + ":5:\\d+: training\\.workload: workload 'mobilenetv3-large' has no profile"},
      {"an unknown data pipeline", kGood, "--set training.data_pipeline=magic",
       "^--set: training\\.data_pipeline: unknown data_pipeline 'magic'"},
      // Strict YAML.
      {"a key given twice (the first value used to win)", std::string(kGood) + "duration_s: 600\n",
       "",
       "^" + f +
           ":10:1: duration_s: duplicate key 'duration_s' \\(first at line 3, column 1\\); "
           "give each key once\n$"},
      {"a second YAML document", std::string(kGood) + "---\nduration_s: 600\n", "",
       "^" + f + ":10:1: a second YAML document starts here"},
      {"a quoted number", replace(kGood, "duration_s: 20", "duration_s: \"20\""), "",
       "^" + f +
           ":3:13: duration_s: expected a number, got the string '20' \\(write it without "
           "quotes\\)\n$"},
      {"a tagged number", replace(kGood, "duration_s: 20", "duration_s: !!str 20"), "",
       "^" + f + ":3:13: duration_s: YAML tags are not supported, got '!!str'\n$"},
      {"a NUL byte", replace(kGood, "name: cli-good", std::string("name: cli\0good", 14)), "",
       "^" + f + ":2:10: the text contains a control character \\(U\\+0000\\)"},
      {"a name that is not UTF-8", replace(kGood, "name: cli-good", "name: cli\xff"), "",
       "^" + f + ":2:10: the text is not valid UTF-8 \\(byte 0xff\\)\n$"},
      {"an escaped control character in a name",
       replace(kGood, "name: cli-good", "name: \"cli\\u0007\""), "",
       "^" + f + ":2:7: name: contains a control character \\(U\\+0007 at byte 4\\)"},
      {"an empty file", "", "", "^" + f + ":1:1: empty scenario"},
      // Values that overflowed int64 nanoseconds or spun for ever.
      {"a native context switch of 2e14 us",
       replace(kGood, "power_mode: MAXN}",
               "power_mode: MAXN}\ngpu_sharing: {policy: native, context_switch_us: 2e14}"),
       "",
       "^" + f +
           ":5:50: gpu_sharing\\.context_switch_us: must be <= 1e6 us \\(a switch of at "
           "most 1 s\\), got 2e14\n$"},
      {"a native time slice of 1e-300 us", kGood,
       "--set 'gpu_sharing={policy: native, timeslice_us: 1e-300}'",
       "^--set: gpu_sharing\\.timeslice_us: must be >= 0\\.001 us"},
      {"a power window of 9.3e9 s", kGood, "--set budgets.power_window_s=9.3e9",
       "^--set: budgets\\.power_window_s: must be <= 1e7 s \\(the longest run\\), got 9\\.3e9\n$"},
      {"a max_wait_ms of 9.3e12", kGood, "--set inference[0].max_wait_ms=9.3e12",
       "^--set: inference\\[0\\]\\.max_wait_ms: must be <= 1e10 ms \\(the longest run\\)"},
      {"a power sampling period of 1e10 s", kGood, "--set outputs.power_sample_s=1e10",
       "^--set: outputs\\.power_sample_s: must be <= 1e7 s \\(the longest run\\), got 1e10\n$"},
      {"a seed past 64 bits", kGood, "--seed 18446744073709551616",
       "^--seed: must be an integer in 0\\.\\.18446744073709551615, got "
       "'18446744073709551616'\n$"},
      {"a negative seed in the file", std::string(kGood) + "seed: -3\n", "",
       "^" + f + ":10:7: seed: must be an integer in 0\\.\\.18446744073709551615, got '-3'\n$"},
      {"an unknown option with a line break", kGood, quote("--fro\nbnicate"),
       "^fulcrum run: unrecognised option '--fro\\\\nbnicate'"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    const std::string scenario = box.write("case.yaml", c.scenario_text);
    const fs::path out = box.dir / ("out-" + std::to_string(&c - cases.data()));
    const Outcome o = box.fulcrum("run " + quote(scenario) + " --out " + quote(out.string()) + " " +
                                  c.extra_args);
    INFO("stderr: " << o.err);
    CHECK(o.status == 2);
    CHECK(count_lines(o.err) == 1);
    CHECK(std::regex_search(o.err, std::regex(c.expect)));
    CHECK(o.out.empty());
    CHECK_FALSE(fs::exists(out / "summary.json"));
    CHECK((!fs::exists(out) || fs::is_empty(out)));
  }
}

TEST_CASE(
    "run prints one located warning for a dataloader block that data_pipeline: none leaves "
    "inert",
    "[cli]") {
  Sandbox box;
  const std::string path = box.write(
      "inert.yaml",
      replace(kGood, "training: {workload: mobilenetv3-large, dataset: gld23k, batch_size: 16}",
              "training:\n  workload: mobilenetv3-large\n  dataset: gld23k\n  data_pipeline: "
              "none\n  dataloader: {workers: 2}"));
  const Outcome o = box.fulcrum("run " + quote(path) + " --out " + quote((box.dir / "o").string()));
  CHECK(o.status == 0);
  // Line 9 of the file: "  dataloader: {workers: 2}", the value at column 25.
  CHECK(o.err.rfind("fulcrum: warning: " + path +
                        ":9:25: training.dataloader.workers: ignored: data_pipeline is none",
                    0) == 0);
  CHECK(o.out.find("\"dataloader\": null") != std::string::npos);
  // Without data_pipeline the same block runs the dataloader, and nothing is printed about it.
  const std::string implied = box.write(
      "implied.yaml",
      replace(kGood, "training: {workload: mobilenetv3-large, dataset: gld23k, batch_size: 16}",
              "training:\n  workload: mobilenetv3-large\n  dataset: gld23k\n  dataloader: "
              "{workers: 2}"));
  const Outcome i =
      box.fulcrum("run " + quote(implied) + " --quiet --out " + quote((box.dir / "i").string()));
  CHECK(i.status == 0);
  CHECK(i.err.find("warning") == std::string::npos);
  CHECK(slurp(box.dir / "i" / "summary.json").find("\"workers\": 2") != std::string::npos);
}

TEST_CASE("a scenario that is not a regular file or is over 1 MiB exits 2 before it is read",
          "[cli]") {
  Sandbox box;
  std::string big = kGood;
  big += '#';
  big.append((1 << 20) - big.size(), 'x');  // with the line break, one byte over the limit
  big += '\n';
  const std::string over = box.write("big.yaml", big);
  const struct {
    std::string path;
    std::string expect;
  } cases[] = {
      {"/dev/zero",
       "/dev/zero: is not a regular file (a device, FIFO or socket is not read as "
       "YAML)\n"},
      {over, over + ": is " + std::to_string(big.size()) +
                 " bytes, larger than the 1048576 bytes a YAML file may have\n"},
  };
  for (const auto& c : cases) {
    const Outcome o =
        box.fulcrum("run " + quote(c.path) + " --out " + quote((box.dir / "out").string()));
    CHECK(o.status == 2);
    CHECK(o.err == c.expect);
    CHECK_FALSE(fs::exists(box.dir / "out"));
  }
}

TEST_CASE("seed: and --seed take the same values and say the same about bad ones", "[cli]") {
  Sandbox box;
  const std::string max = "18446744073709551615";
  const Outcome flag = box.fulcrum("run " + quote(box.write("a.yaml", kGood)) + " -q --seed " +
                                   max + " --out " + quote((box.dir / "a").string()));
  CHECK(flag.status == 0);
  CHECK(parse_json(slurp(box.dir / "a" / "summary.json")).at("seed").text == max);
  const Outcome file =
      box.fulcrum("run " + quote(box.write("b.yaml", std::string(kGood) + "seed: " + max + "\n")) +
                  " -q --out " + quote((box.dir / "b").string()));
  CHECK(file.status == 0);
  CHECK(slurp(box.dir / "b" / "summary.json") == slurp(box.dir / "a" / "summary.json"));
  for (const std::string bad : {"-3", "1.5", "+-1", "18446744073709551616"}) {
    INFO(bad);
    const Outcome f = box.fulcrum("run " + quote(box.write("c.yaml", kGood)) + " --seed " +
                                  quote(bad) + " --out " + quote((box.dir / "c").string()));
    const Outcome y = box.fulcrum(
        "run " + quote(box.write("d.yaml", std::string(kGood) + "seed: " + bad + "\n")) +
        " --out " + quote((box.dir / "d").string()));
    CHECK(f.status == 2);
    CHECK(y.status == 2);
    const std::string problem =
        "must be an integer in 0..18446744073709551615, got '" + bad + "'\n";
    CHECK(f.err == "--seed: " + problem);
    CHECK(y.err == (box.dir / "d.yaml").string() + ":10:7: seed: " + problem);
  }
}

TEST_CASE("the longest run with every time at its edge runs, and just past an edge is refused",
          "[cli]") {
  Sandbox box;
  // 1e7 s, a request every 1e6 s, a partial batch sent after 1e10 ms, one power window and one
  // sample for the whole run, and a trace stream whose last request comes 1 ns before the end.
  box.write("late.csv", "arrival_s\n0\n9999999.999999999\n");
  const std::string edges = R"(version: 1
name: edges
duration_s: 1e7
inference:
  - workload: resnet50
    batch_size: 16
    max_wait_ms: 1e10
    arrivals: {process: fixed, rate_per_s: 1e-6}
  - workload: resnet18
    batch_size: 2
    max_wait_ms: 1e10
    arrivals: {process: trace, path: late.csv}
budgets: {latency_ms: 1e10, power_w: 30, power_kind: max_window, power_window_s: 1e7}
outputs: {power_sample_s: 1e7}
)";
  const fs::path out = box.dir / "edges";
  const Outcome o = box.fulcrum("run " + quote(box.write("edges.yaml", edges)) + " -q --out " +
                                quote(out.string()));
  INFO(o.err);
  REQUIRE(o.status == 0);
  const fulcrum::sim::testing::JsonValue summary = parse_json(slurp(out / "summary.json"));
  const auto& streams = summary.at("inference").items;
  REQUIRE(streams.size() == 2);
  // The first stream's ten requests wait for the timer, which fires at the end: none completes.
  CHECK(streams[0].at("arrived").number == 10);
  CHECK(streams[0].at("queued").number == 10);
  CHECK(streams[1].at("arrived").number == 2);
  // One window spans the run: its average is the run's average.
  CHECK(summary.path("power.max_window_w").text == summary.path("power.avg_w").text);

  const std::vector<std::string> past = {
      "duration_s=10000000.000000002",
      "inference[0].max_wait_ms=10000000000.000002",
      "inference[0].arrivals.rate_per_s=9.9999999999999974e-07",
      "budgets.power_window_s=10000000.000000002",
      "outputs.power_sample_s=10000000.000000002",
      "budgets.latency_ms=10000000000.000002",
  };
  for (const std::string& set : past) {
    INFO(set);
    const fs::path no = box.dir / "past";
    const Outcome p = box.fulcrum("run " + quote((box.dir / "edges.yaml").string()) + " --set " +
                                  quote(set) + " --out " + quote(no.string()));
    CHECK(p.status == 2);
    CHECK(p.err.rfind("--set: " + set.substr(0, set.find('=')) + ": must be ", 0) == 0);
    CHECK_FALSE(fs::exists(no));
  }
}

TEST_CASE("native sharing at its narrowest share runs to completion", "[cli]") {
  Sandbox box;
  // A 1 ns slice and a 1000 ns switch: every context gets 1/1001 of its time.
  const fs::path out = box.dir / "narrow";
  const Outcome o = box.fulcrum(
      "run " + quote(box.write("narrow.yaml", kGood)) +
      " -q --set 'gpu_sharing={policy: native, timeslice_us: 0.001, context_switch_us: 1}'" +
      " --set duration_s=2 --out " + quote(out.string()));
  INFO(o.err);
  REQUIRE(o.status == 0);
  CHECK(fs::exists(out / "summary.json"));
  const Outcome p =
      box.fulcrum("run " + quote((box.dir / "narrow.yaml").string()) +
                  " --set 'gpu_sharing={policy: native, timeslice_us: 0.001, context_switch_us: "
                  "1.0000000000000002}' --out " +
                  quote((box.dir / "no").string()));
  CHECK(p.status == 2);
  CHECK_THAT(p.err, Catch::StartsWith("--set: gpu_sharing.context_switch_us: context_switch_us "
                                      "must be <= 1000 x timeslice_us"));
}

TEST_CASE("an --out path that cannot be a folder exits 2 with one line before running", "[cli]") {
  Sandbox box;
  const std::string scenario = box.write("good.yaml", kGood);
  const std::string file = box.write("a-file", "not a folder\n");
  const Outcome o = box.fulcrum("run " + quote(scenario) + " --out " + quote(file + "/out"));
  INFO("stderr: " << o.err);
  CHECK(o.status == 2);
  CHECK(count_lines(o.err) == 1);
  CHECK(o.err.rfind("--out: cannot create output directory ", 0) == 0);
  CHECK(o.out.empty());
}

TEST_CASE("a missing scenario file exits 2 naming the file", "[cli]") {
  Sandbox box;
  const Outcome o = box.fulcrum("run " + quote((box.dir / "nope.yaml").string()) + " --out " +
                                quote((box.dir / "out").string()));
  CHECK(o.status == 2);
  CHECK(o.err.find("nope.yaml: cannot open file") != std::string::npos);
  CHECK(count_lines(o.err) == 1);
  CHECK_FALSE(fs::exists(box.dir / "out"));
}

TEST_CASE("calibrate without its reference folder exits 2 with one line naming it", "[cli]") {
  Sandbox box;
  const std::string missing = (box.dir / "no-reference").string();
  const std::string out = (box.dir / "cal.yaml").string();
  const Outcome o = box.fulcrum("calibrate --reference " + quote(missing) + " --out " + quote(out));
  CHECK(o.status == 2);
  CHECK(count_lines(o.err) == 1);
  CHECK(o.err.rfind("fulcrum calibrate: reference folder '" + missing + "' not found", 0) == 0);
  CHECK(o.err.find("pass --reference DIR") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
  // The environment variable names the folder when --reference is not given.
  const Outcome env = box.fulcrum("calibrate", "FULCRUM_REFERENCE_DIR=" + quote(missing));
  CHECK(env.status == 2);
  CHECK(env.err.find("'" + missing + "' not found (from $FULCRUM_REFERENCE_DIR)") !=
        std::string::npos);
}

TEST_CASE("calibrate --modes refuses bad options before any work, writing nothing", "[cli]") {
  Sandbox box;
  const std::string out = (box.dir / "modes.yaml").string();
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {"--holdout 1.5", "--holdout must be in (0, 1)"},
           {"--fit-sample 50", "--fit and --fit-sample need --workload W"},
           {"--workload lstm --fit-sample 50 --phase idle",
            "--phase must be training or inference"},
           {"--zero-shot 1 --workload lstm",
            "with --zero-shot the calibration records the check of every workload"},
       }) {
    INFO(args);
    const Outcome o = box.fulcrum("calibrate --modes --reference " + quote(box.dir.string()) + " " +
                                  args + " --out " + quote(out));
    CHECK(o.status == 2);
    CHECK(count_lines(o.err) == 1);
    CHECK(o.err.find(message) != std::string::npos);
    CHECK_FALSE(fs::exists(out));
  }
}

TEST_CASE("perf_model analytic-modes on a device without its calibration exits 2 at the key",
          "[cli]") {
  Sandbox box;
  const std::string scenario =
      box.write("x.yaml",
                "version: 1\nname: x\nduration_s: 1\nseed: 1\n"
                "device: {model: xavier-agx-32gb, power_mode: MAXN, perf_model: analytic-modes}\n"
                "training: {workload: resnet18, dataset: imagenet, batch_size: 16}\n");
  const std::string out = (box.dir / "out").string();
  const Outcome o = box.fulcrum("run " + quote(scenario) + " --out " + quote(out));
  CHECK(o.status == 2);
  CHECK(count_lines(o.err) == 1);
  CHECK(o.err.find("x.yaml:5:") != std::string::npos);
  CHECK(o.err.find("device.perf_model: device xavier-agx-32gb has no cross-mode calibration") !=
        std::string::npos);
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("an unknown verb exits 2 and lists the verbs", "[cli]") {
  Sandbox box;
  const Outcome o = box.fulcrum("optimise x.yaml");
  CHECK(o.status == 2);
  CHECK(count_lines(o.err) == 1);
  for (const std::string& verb : fulcrum::sim::cli_verbs())
    CHECK(o.err.find(verb) != std::string::npos);
  CHECK(box.fulcrum("").status == 2);
}

TEST_CASE("a verb given the wrong number of operands exits 2 with one line saying what it takes",
          "[cli]") {
  Sandbox box;
  const struct {
    std::string args;
    std::string expect;
  } cases[] = {
      {"run", "fulcrum run: missing the SCENARIO file\n"},
      {"run a.yaml b.yaml", "fulcrum run: expected one SCENARIO file, got 2\n"},
      {"run --scenario a.yaml --scenario b.yaml",
       "fulcrum run: expected one SCENARIO file, got 2\n"},
      {"optimize", "fulcrum optimize: expected one SCENARIO\n"},
      {"optimize a.yaml b.yaml", "fulcrum optimize: expected one SCENARIO\n"},
      {"validate", "fulcrum validate: expected one SCENARIO file\n"},
      {"validate a.yaml b.yaml", "fulcrum validate: expected one SCENARIO file\n"},
      {"sweep", "fulcrum sweep: expected one SWEEP.yaml (or --merge)\n"},
      {"sweep a.yaml b.yaml", "fulcrum sweep: expected one SWEEP.yaml (or --merge)\n"},
      {"devices orin-agx-64gb orin-nano-8gb", "fulcrum devices: expected at most one NAME\n"},
      {"workloads resnet18",
       "fulcrum workloads: expected workload files (.yaml or .yml), got 'resnet18' (the "
       "catalog's workloads are listed without arguments)\n"},
  };
  for (const auto& c : cases) {
    INFO(c.args);
    const Outcome o = box.fulcrum(c.args);
    CHECK(o.status == 2);
    CHECK(o.out.empty());
    if (c.expect.front() == '^') {
      CHECK(count_lines(o.err) == 1);
      CHECK(std::regex_search(o.err, std::regex(c.expect)));
    } else {
      CHECK(o.err == c.expect);
    }
  }
}

TEST_CASE("help works on the top level and on every verb, and lists only verbs that exist",
          "[cli]") {
  Sandbox box;
  const Outcome top = box.fulcrum("--help");
  CHECK(top.status == 0);
  for (const std::string& verb : fulcrum::sim::cli_verbs()) {
    INFO(verb);
    CHECK(top.out.find("  " + verb) != std::string::npos);
    const Outcome o = box.fulcrum(verb + " --help");
    CHECK(o.status == 0);
    CHECK(o.out.find("Usage: fulcrum " + verb) != std::string::npos);
  }
  for (const char* absent : {"optimise", "powertrain"}) {  // not verbs
    CHECK(top.out.find(std::string("  ") + absent + " ") == std::string::npos);
  }
}

TEST_CASE("the version flag prints the project version", "[cli]") {
  Sandbox box;
  const Outcome o = box.fulcrum("--version");
  CHECK(o.status == 0);
  CHECK(o.out == std::string("fulcrum ") + fulcrum::sim::kFulcrumVersion + "\n");
  const std::string cmake = slurp(fs::path(FULCRUM_SOURCE_DIR) / "CMakeLists.txt");
  CHECK(cmake.find(std::string("VERSION ") + fulcrum::sim::kFulcrumVersion) != std::string::npos);
}

TEST_CASE("devices lists the catalog and shows one device's tables with units", "[cli]") {
  Sandbox box;
  const Outcome all = box.fulcrum("devices");
  CHECK(all.status == 0);
  CHECK(all.out.find("orin-agx-64gb") != std::string::npos);
  CHECK(all.out.find("GPU max MHz") != std::string::npos);
  const Outcome one = box.fulcrum("devices orin-agx-64gb");
  CHECK(one.status == 0);
  CHECK(one.out.find("MODE_30W") != std::string::npos);
  CHECK(one.out.find("GPU frequencies (MHz") != std::string::npos);
  CHECK(one.out.find("1300.5") != std::string::npos);
  const Outcome bad = box.fulcrum("devices jetson-tx9");
  CHECK(bad.status == 2);
  CHECK(bad.err.find("unknown device 'jetson-tx9'") != std::string::npos);
}

TEST_CASE(
    "devices NAME says which perf model a scenario naming none gets, why, and for which workloads "
    "it is fitted",
    "[cli]") {
  Sandbox box;
  const Outcome orin = box.fulcrum("devices orin-agx-64gb");
  CHECK(orin.status == 0);
  CHECK(orin.out.find("perf model of a scenario that names none: analytic-modes") !=
        std::string::npos);
  CHECK(orin.out.find("orin-agx-64gb-modes.yaml") != std::string::npos);
  // Which workloads it was fitted to, from the calibration itself; the others are zero-shot.
  CHECK(orin.out.find("fitted to measured modes: bert-base training, bert-large inference, lstm "
                      "inference, lstm training, mobilenetv3-large inference, mobilenetv3-large "
                      "training, resnet18 training, resnet50 inference, yolov8n inference\n") !=
        std::string::npos);
  CHECK(orin.out.find("zero-shot parameters from its layer graph") != std::string::npos);
  // And how zero-shot parameters did on the device's own measurements, per phase, from the
  // calibration's recorded leave-one-workload-out check.
  CHECK(orin.out.find("zero-shot check: this device's measured training workloads (4), each left "
                      "out in turn and predicted from its layer graph: time MAPE ") !=
        std::string::npos);
  CHECK(orin.out.find("zero-shot check: this device's measured inference workloads (5)") !=
        std::string::npos);
  // And how far a few profiled modes take the same workloads (the check's few-shot medians).
  CHECK(orin.out.find("few-shot check: this device's measured training workloads (4), each "
                      "refined from k of its profiled modes: time MAPE median ") !=
        std::string::npos);
  CHECK(orin.out.find("fulcrum calibrate --modes --workload W --fit PROFILE.csv") !=
        std::string::npos);
  const Outcome xavier = box.fulcrum("devices xavier-agx-32gb");
  CHECK(xavier.out.find("fitted to measured modes") == std::string::npos);
  CHECK(xavier.status == 0);
  CHECK(xavier.out.find("perf model of a scenario that names none: analytic\n") !=
        std::string::npos);
  CHECK(xavier.out.find("no calibration of its own") != std::string::npos);
}

TEST_CASE("devices --probe describes the GPU as a device file, or says why it cannot", "[cli]") {
  Sandbox box;
  const Outcome o = box.fulcrum("devices --probe --name lent-gpu");
  if (o.status == 0) {  // a build with the cuda backend, on a machine with a GPU
    CHECK(o.out.find("name: lent-gpu\n") != std::string::npos);
    CHECK(o.out.find("rails: [GPU]") != std::string::npos);
    CHECK(o.out.find("default_preset: CURRENT") != std::string::npos);
  } else {  // no cuda backend in this build, no plugin, or no GPU: the machine's answer, one line
    CHECK(o.status == 2);
    CHECK(o.out.empty());
    CHECK(count_lines(o.err) == 1);
    CHECK(o.err.rfind("--probe: ", 0) == 0);
  }
}

TEST_CASE("workloads lists models with parameters, GFLOPs and kernels, and datasets", "[cli]") {
  Sandbox box;
  const Outcome o = box.fulcrum("workloads");
  CHECK(o.status == 0);
  for (const char* s :
       {"resnet50", "mobilenetv3-large", "GFLOP/sample", "kernels", "gld23k", "samples"}) {
    CHECK(o.out.find(s) != std::string::npos);
  }
}

TEST_CASE("run writes summary.json to stdout and the result files to --out", "[cli]") {
  Sandbox box;
  const std::string scenario = box.write("good.yaml", kGood);
  const fs::path out = box.dir / "out";
  const Outcome o =
      box.fulcrum("run " + quote(scenario) + " --out " + quote(out.string()) + " --seed 3");
  INFO(o.err);
  REQUIRE(o.status == 0);
  CHECK(o.out == slurp(out / "summary.json"));
  CHECK(parse_json(o.out).at("seed").number == 3);
  for (const char* f :
       {"summary.json", "run.json", "requests.csv", "minibatches.csv", "power.csv", "trace.json"}) {
    CHECK(fs::exists(out / f));
  }
  const Outcome quiet =
      box.fulcrum("run " + quote(scenario) + " --out " + quote((box.dir / "q").string()) + " -q");
  CHECK(quiet.status == 0);
  CHECK(quiet.out.empty());
  CHECK(quiet.err.empty());
  CHECK(fs::exists(box.dir / "q" / "summary.json"));
}

TEST_CASE("a verb whose standard output cannot be written says so and does not exit 0", "[cli]") {
  if (!fs::exists("/dev/full")) return;  // Linux's always-full device
  Sandbox box;
  const fs::path err = box.dir / "stderr.txt";
  for (const std::string args : {"workloads", "--version", "devices"}) {
    const std::string cmd =
        quote(FULCRUM_BINARY) + " " + args + " >/dev/full 2>" + quote(err.string());
    const int raw = std::system(cmd.c_str());
    INFO(args);
    REQUIRE(WIFEXITED(raw));
    CHECK(WEXITSTATUS(raw) == 2);
    CHECK_THAT(slurp(err), Catch::Contains("cannot write to standard output"));
  }
}

namespace {

// A small convnet as a workload file (docs/SCENARIOS.md, "The workload file").
const char* kNetFile = R"(version: 1
name: cli-net
task: classification
dataset: cifar10
input: {shape: [3, 32, 32]}
layers:
  - {name: conv, op: conv2d, out_channels: 16, kernel: 3, padding: 1}
  - {name: bn, op: batchnorm}
  - {name: relu, op: activation, function: relu}
  - {name: pool, op: global_avg_pool}
  - {name: flat, op: flatten}
  - {name: fc, op: linear, out_features: 10}
)";

// Training the file's workload (by path, relative to the scenario) at MAXN, batch 16.
const char* kFileScenario = R"(version: 1
name: cli-file
duration_s: 20
device: {model: orin-agx-64gb, power_mode: MAXN}
training: {workload: net.yaml, dataset: cifar10, batch_size: 16}
)";

// A data folder like the shipped one (the same sub-folders, linked) with its own workloads/.
fs::path data_folder_with(const Sandbox& box, const std::string& folder) {
  const fs::path data = box.dir / folder;
  fs::create_directories(data / "workloads");
  for (const auto& entry : fs::directory_iterator(FULCRUM_DATA_DIR)) {
    if (entry.path().filename() != "workloads")
      fs::create_directory_symlink(entry.path(), data / entry.path().filename());
  }
  return data;
}

}  // namespace

TEST_CASE("a scenario names a workload file by path and runs it as any workload", "[cli][wfile]") {
  Sandbox box;
  box.write("net.yaml", kNetFile);
  const std::string scenario = box.write("s.yaml", kFileScenario);
  const Outcome o =
      box.fulcrum("run " + quote(scenario) + " -q --out " + quote((box.dir / "out").string()));
  INFO(o.err);
  REQUIRE(o.status == 0);
  const auto summary = parse_json(slurp(box.dir / "out" / "summary.json"));
  const auto& training = summary.at("training");
  CHECK(training.at("workload").text == "cli-net");
  const double minibatches = training.at("minibatches").number;
  CHECK(minibatches > 0);
  // No fitted parameters for it: the device's model derives them from its layer graph and says
  // the figures are extrapolated, as for a catalog workload without a fit.
  CHECK(summary.at("perf_model").text == "analytic-modes");
  CHECK(training.at("provenance").at("extrapolated").number == minibatches);

  // Profiled (here on the sim backend), the workload runs on its own measurement.
  const std::string profile = (box.dir / "net.csv").string();
  const Outcome p = box.fulcrum("profile --workloads " + quote((box.dir / "net.yaml").string()) +
                                " --phases training --batch-sizes 16 --modes MAXN --backend sim"
                                " --out " +
                                quote(profile));
  INFO(p.err);
  REQUIRE(p.status == 0);
  CHECK(slurp(profile).find("\ncli-net,random,train,16,") != std::string::npos);
  const Outcome t =
      box.fulcrum("run " + quote(scenario) + " -q --out " + quote((box.dir / "out2").string()) +
                  " --set 'device.perf_model={table: net.csv}'");
  INFO(t.err);
  REQUIRE(t.status == 0);
  const auto measured = parse_json(slurp(box.dir / "out2" / "summary.json")).at("training");
  CHECK(measured.at("minibatches").number > 0);
  CHECK(measured.at("provenance").at("measured").number == measured.at("minibatches").number);

  // optimize searches it like any workload (here on the analytic ground truth).
  const Outcome opt = box.fulcrum(
      "optimize " + quote(scenario) + " --out " + quote((box.dir / "opt").string()) +
      " --set 'inference=[{workload: net.yaml, batch_size: 4, arrivals: {process: fixed, "
      "rate_per_s: 20}}]' --set 'search={strategy: prior, max_modes: 5, modes: pagoda-441, "
      "ground_truth: analytic, batch_sizes: [4]}'");
  INFO(opt.err);
  CHECK(opt.status == 0);
  CHECK(opt.out.find("cli-net-0 p99") != std::string::npos);
  CHECK(fs::exists(box.dir / "opt" / "optimize.json"));

  // A file for inference only cannot be trained.
  box.write("infer.yaml", std::string(kNetFile) + "phases: [inference]\n");
  const Outcome i =
      box.fulcrum("run " + quote(scenario) + " -q --set training.workload=infer.yaml");
  CHECK(i.status == 2);
  CHECK(i.err ==
        "--set: training.workload: workload 'cli-net' is not for training (its file says phases: "
        "[inference])\n");
}

TEST_CASE("each bad workload file is one located line and exit 2, from workloads and from run",
          "[cli][wfile]") {
  Sandbox box;
  const std::string scenario = box.write("s.yaml", kFileScenario);
  const std::string head = "version: 1\nname: bad\ninput: {shape: [3, 32, 32]}\nlayers:\n";
  const std::string conv = "  - {name: c, op: conv2d, out_channels: 8, kernel: 3}\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"  - {name: c, op: conv3d}\n", ":5:19: layers[0].op: unknown op 'conv3d'"},
      {conv + "  - {name: a, op: add, inputs: [c, nothere]}\n",
       ":6:36: layers[1].inputs[1]: unknown layer 'nothere'"},
      {conv + "  - {name: a, op: add, inputs: [c]}\n",
       ":6:5: layers[1]: add takes 2 inputs, got 1"},
      {conv + "  - {name: a, op: add, inputs: [c, input]}\n",
       ":6:5: layers[1]: layer 'a': add of mismatched shapes [8, 30, 30] and [3, 32, 32]"},
      {"  - {name: c, op: conv2d, out_channels: -8, kernel: 3}\n",
       ":5:41: layers[0].out_channels: must be an integer in 1..1073741824, got -8"},
      {"  - {name: c, op: conv2d, inputs: d, out_channels: 8, kernel: 3}\n"
       "  - {name: d, op: conv2d, inputs: c, out_channels: 8, kernel: 3}\n",
       ":5:35: layers[0].inputs: layer 'd' comes later in the file"},
      {conv + "  - {name: c, op: batchnorm}\n",
       ":6:12: layers[1].name: layer name 'c' is used twice"},
  };
  int n = 0;
  for (const auto& [layers, expected] : cases) {
    const std::string file = "bad" + std::to_string(n++) + ".yaml";
    const std::string path = box.write(file, head + layers);
    INFO(layers);
    const Outcome w = box.fulcrum("workloads " + quote(path));
    CHECK(w.status == 2);
    CHECK(w.out.empty());
    CHECK(count_lines(w.err) == 1);
    CHECK(w.err.rfind(path + expected, 0) == 0);
    const Outcome r = box.fulcrum("run " + quote(scenario) + " -q --set training.workload=" + file);
    CHECK(r.status == 2);
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.rfind(path + expected, 0) == 0);
  }
  // A file that is not there is named at the scenario's key.
  const Outcome missing = box.fulcrum("run " + quote(scenario) + " -q");
  CHECK(missing.status == 2);
  CHECK(missing.err == scenario + ":5:22: training.workload: cannot open workload file '" +
                           (box.dir / "net.yaml").string() + "': no such file\n");
}

TEST_CASE("workloads FILE shows only the file's workload, without the catalog's datasets",
          "[cli][wfile]") {
  Sandbox box;
  box.write("net.yaml", kNetFile);
  const Outcome shown = box.fulcrum("workloads " + quote((box.dir / "net.yaml").string()));
  INFO(shown.err);
  REQUIRE(shown.status == 0);
  CHECK(shown.out.find("\ncli-net ") != std::string::npos);
  CHECK(shown.out.find("resnet50") == std::string::npos);
  CHECK(shown.out.find("dataset") == std::string::npos);
  const auto json =
      parse_json(box.fulcrum("workloads --json " + quote((box.dir / "net.yaml").string())).out);
  CHECK(json.at("workloads").items.size() == 1);
  CHECK(json.at("datasets").items.empty());
  // Without files the datasets are listed.
  CHECK(box.fulcrum("workloads").out.find("\ndataset ") != std::string::npos);
}

TEST_CASE("the data folder's workload files join the catalog under their names", "[cli][wfile]") {
  Sandbox box;
  const fs::path data = data_folder_with(box, "data");
  std::ofstream(data / "workloads" / "cli-net.yaml") << kNetFile;
  const std::string env = "FULCRUM_DATA_DIR=" + quote(data.string());
  const Outcome list = box.fulcrum("workloads", env);
  INFO(list.err);
  REQUIRE(list.status == 0);
  CHECK(list.out.find("\ncli-net ") != std::string::npos);
  CHECK(list.out.find("\nresnet50 ") != std::string::npos);
  CHECK(list.out.find("cli-net: read from ") != std::string::npos);
  const auto json = parse_json(box.fulcrum("workloads --json", env).out);
  bool seen = false;
  for (const auto& w : json.at("workloads").items) {
    if (w.at("name").text == "cli-net") {
      seen = true;
      CHECK(w.at("source").text ==
            fs::weakly_canonical(data / "workloads" / "cli-net.yaml").string());
    } else {
      CHECK(w.at("source").text == "built-in");
    }
  }
  CHECK(seen);
  // A scenario names it like a built-in one.
  const std::string scenario =
      box.write("s.yaml", std::string(kFileScenario)
                              .replace(std::string(kFileScenario).find("net.yaml"), 8, "cli-net"));
  const Outcome run =
      box.fulcrum("run " + quote(scenario) + " -q --out " + quote((box.dir / "out").string()), env);
  INFO(run.err);
  REQUIRE(run.status == 0);
  CHECK(
      parse_json(slurp(box.dir / "out" / "summary.json")).at("training").at("minibatches").number >
      0);

  // A file in the data folder is named after its workload; a built-in name is refused.
  const fs::path other = data_folder_with(box, "other");
  std::ofstream(other / "workloads" / "renamed.yaml") << kNetFile;
  const std::string other_env = "FULCRUM_DATA_DIR=" + quote(other.string());
  const Outcome wrong = box.fulcrum("workloads", other_env);
  CHECK(wrong.status == 2);
  CHECK(wrong.err == (other / "workloads" / "renamed.yaml").string() +
                         ":2:7: name: is 'cli-net', but a workload file in the data folder is "
                         "named after its workload: rename the file or the workload to "
                         "'renamed'\n");
  fs::remove(other / "workloads" / "renamed.yaml");
  std::ofstream(other / "workloads" / "resnet18.yaml") << kNetFile;
  const Outcome builtin = box.fulcrum("workloads", other_env);
  CHECK(builtin.status == 2);
  CHECK_THAT(builtin.err, Catch::Contains("has the name of a built-in workload"));
}
