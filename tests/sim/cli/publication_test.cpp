// Runs the built `fulcrum` executable against one output folder the ways that used to corrupt
// it: several runs at once, a failure, a kill or a signal at every step of publishing, signals
// from outside during a long run, and folders that are not results. After each, the folder must
// hold one complete result (or the previous one, byte for byte) and nothing staged may be left.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "sim/report/folder_lock.hpp"
#include "tests/sim/report/json_check.hpp"
#include "tests/spawn_process.hpp"
#include "tests/temp_dir.hpp"

namespace fs = std::filesystem;
using fulcrum::sim::FolderLock;
using fulcrum::sim::testing::parse_json;

namespace {

using fulcrum::testing::slurp;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> cells;
  std::istringstream in(line);
  for (std::string cell; std::getline(in, cell, ',');) cells.push_back(cell);
  return cells;
}

std::set<std::string> names_in(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

// Every file of a folder with its bytes.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    files[e.path().filename().string()] = slurp(e.path());
  }
  return files;
}

// A scenario that serves 100 requests/s in full batches (no max_wait_ms), so that every
// inference row of minibatches.csv has the stream's batch size.
const char* kScenario = R"(version: 1
name: publication
duration_s: 30
device: {model: orin-agx-64gb, power_mode: MAXN}
training: {workload: mobilenetv3-large, dataset: gld23k, batch_size: 16}
inference:
  - workload: resnet50
    batch_size: 16
    arrivals: {process: fixed, rate_per_s: 100}
)";

struct Ended {
  int exit_code = -1;  // -1: killed by a signal
  int signal = 0;      // the signal that killed it
  std::string out;
  std::string err;
};

// One `fulcrum` process, started at once (not waited for) with stdout and stderr in files.
class Child {
 public:
  Child(const fs::path& box, const std::vector<std::string>& args,
        const std::vector<std::string>& env = {}, const fs::path& cwd = {}) {
    static int counter = 0;
    const std::string tag = std::to_string(counter++);
    out_ = box / ("stdout-" + tag + ".txt");
    err_ = box / ("stderr-" + tag + ".txt");
    std::vector<std::string> argv{FULCRUM_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<std::string> env_s;
    for (char** e = environ; *e != nullptr; ++e) {
      if (std::string(*e).rfind("FULCRUM_FAULT_AT=", 0) != 0) env_s.emplace_back(*e);
    }
    env_s.insert(env_s.end(), env.begin(), env.end());
    pid_ = fulcrum::testing::spawn_process(argv, err_, out_, env_s, cwd);
    REQUIRE(pid_ > 0);
  }
  ~Child() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const { return pid_; }
  std::string err_so_far() const { return slurp(err_); }
  bool has_ended() {
    if (pid_ <= 0) return true;
    int raw = 0;
    if (::waitpid(pid_, &raw, WNOHANG) != pid_) return false;
    record(raw);
    return true;
  }
  Ended wait() {
    if (pid_ > 0) {
      int raw = 0;
      REQUIRE(::waitpid(pid_, &raw, 0) == pid_);
      record(raw);
    }
    ended_.out = slurp(out_);
    ended_.err = slurp(err_);
    return ended_;
  }

 private:
  void record(int raw) {
    pid_ = -1;
    if (WIFEXITED(raw)) ended_.exit_code = WEXITSTATUS(raw);
    if (WIFSIGNALED(raw)) ended_.signal = WTERMSIG(raw);
  }

  pid_t pid_ = -1;
  fs::path out_;
  fs::path err_;
  Ended ended_;
};

// A scratch folder holding the scenario and, in `parent()`, the output folder `out()`.
struct Box {
  fs::path dir;
  Box() {
    static int counter = 0;
    dir = fs::temp_directory_path() / ("fulcrum-publication-test-" + std::to_string(::getpid()) +
                                       "-" + std::to_string(counter++));
    fs::create_directories(dir / "results");
    std::ofstream(dir / "scenario.yaml") << kScenario;
  }
  ~Box() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  fs::path parent() const { return dir / "results"; }
  fs::path out() const { return parent() / "run"; }
  std::string scenario() const { return (dir / "scenario.yaml").string(); }

  // `fulcrum run` into out() with batch size `batch` and `extra` arguments.
  std::vector<std::string> args(int batch, std::vector<std::string> extra = {}) const {
    std::vector<std::string> a{"run",   scenario(),
                               "--out", out().string(),
                               "--set", "inference[0].batch_size=" + std::to_string(batch)};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  Ended run(int batch, std::vector<std::string> extra = {}, std::vector<std::string> env = {}) {
    return Child(dir, args(batch, std::move(extra)), std::move(env)).wait();
  }
};

// What the tester found mixed up: checks that `dir` holds one complete, consistent result and
// returns its inference batch size.
int check_one_result(const fs::path& dir) {
  const std::set<std::string> expected{"summary.json",    "run.json",   "requests.csv",
                                       "minibatches.csv", "epochs.csv", "power.csv",
                                       "trace.json"};
  REQUIRE(names_in(dir) == expected);
  const auto summary = parse_json(slurp(dir / "summary.json"));
  const auto& stream = summary.at("inference").items.at(0);
  const int batch = static_cast<int>(stream.at("batch_size").number);
  // Every inference minibatch ran at that batch size (the scenario has no partial batches).
  const auto minibatches = lines_of(slurp(dir / "minibatches.csv"));
  REQUIRE(minibatches.size() > 1);
  std::size_t inference_rows = 0;
  for (std::size_t i = 1; i < minibatches.size(); ++i) {
    const auto cells = split(minibatches[i]);
    REQUIRE(cells.size() == 14);
    if (cells[1] == "inference") {
      ++inference_rows;
      CHECK(cells[3] == std::to_string(batch));
    }
  }
  CHECK(inference_rows == static_cast<std::size_t>(stream.at("batches").number));
  // One well-formed row per completed request.
  const auto requests = lines_of(slurp(dir / "requests.csv"));
  CHECK(requests.size() == static_cast<std::size_t>(stream.at("completed").number) + 1);
  for (const auto& row : requests) CHECK(split(row).size() == 8);
  CHECK_NOTHROW(parse_json(slurp(dir / "trace.json")));
  // run.json belongs to the same run.
  const auto run = parse_json(slurp(dir / "run.json"));
  bool same_run = false;
  for (const auto& arg : run.at("command_line").items) {
    same_run = same_run || arg.text == "inference[0].batch_size=" + std::to_string(batch);
  }
  CHECK(same_run);
  return batch;
}

// Nothing but the output folder beside it: no staging folder, no set-aside result, no lock.
void check_nothing_left(const Box& box) {
  const std::set<std::string> left = names_in(box.parent());
  CHECK(left == std::set<std::string>{"run"});
}

int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

template <typename Predicate>
void wait_until(Child& child, Predicate done) {
  while (!done()) {
    REQUIRE_FALSE(child.has_ended());
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace

TEST_CASE("runs started together into one folder: one result, the others refused with exit 2",
          "[cli][publication]") {
  Box box;
  const std::vector<int> batches{4, 8, 16, 32};
  std::vector<std::unique_ptr<Child>> children;
  for (int b : batches) {
    children.push_back(std::make_unique<Child>(box.dir, box.args(b, {"--set", "duration_s=600"})));
  }
  std::set<int> succeeded;
  for (std::size_t i = 0; i < children.size(); ++i) {
    const Ended e = children[i]->wait();
    INFO("batch " << batches[i] << ": " << e.err);
    if (e.exit_code == 0) {
      succeeded.insert(batches[i]);
    } else {
      // Refused while another run held the folder: nothing of its own was run or written.
      CHECK(e.exit_code == 2);
      CHECK(count_lines(e.err) == 1);
      CHECK(e.err.rfind("--out: " + box.out().string() + " is being written by another fulcrum run",
                        0) == 0);
      CHECK(e.out.empty());
    }
  }
  REQUIRE_FALSE(succeeded.empty());
  // The folder holds the result of a run that succeeded (the last to publish), consistent.
  CHECK(succeeded.count(check_one_result(box.out())) == 1);
  check_nothing_left(box);
}

TEST_CASE("with --wait, runs into a folder another run holds wait, then each publishes whole",
          "[cli][publication]") {
  Box box;
  // The test holds the folder's lock itself, so that every run must wait.
  auto lock = FolderLock::try_lock(box.parent() / ".run.lock");
  REQUIRE(lock);
  const std::vector<int> batches{4, 8, 16};
  std::vector<std::unique_ptr<Child>> children;
  for (int b : batches)
    children.push_back(std::make_unique<Child>(box.dir, box.args(b, {"--wait"})));
  const std::string waiting = "fulcrum: waiting for another run (pid " +
                              std::to_string(::getpid()) + ") to finish " + box.out().string() +
                              "\n";
  for (auto& c : children) wait_until(*c, [&] { return c->err_so_far() == waiting; });
  CHECK_FALSE(fs::exists(box.out()));
  lock.reset();
  std::set<int> succeeded;
  for (std::size_t i = 0; i < children.size(); ++i) {
    const Ended e = children[i]->wait();
    INFO(e.err);
    CHECK(e.exit_code == 0);
    CHECK(e.err.rfind(waiting, 0) == 0);
    succeeded.insert(batches[i]);
  }
  CHECK(succeeded.count(check_one_result(box.out())) == 1);
  check_nothing_left(box);
  // Without --wait the same situation is refused at once, naming the holder.
  lock = FolderLock::try_lock(box.parent() / ".run.lock");
  REQUIRE(lock);
  const Ended refused = box.run(4, {"--quiet"});
  CHECK(refused.exit_code == 2);
  CHECK(refused.err ==
        "--out: " + box.out().string() + " is being written by another fulcrum run (pid " +
            std::to_string(::getpid()) + "); wait for it to finish, or pass --wait\n");
}

TEST_CASE("a failure at any step of publishing leaves the previous result and nothing staged",
          "[cli][publication]") {
  Box box;
  REQUIRE(box.run(4, {"--quiet"}).exit_code == 0);
  const auto previous = snapshot(box.out());
  // Steps of a run writing F files besides run.json (F - 1 data files and summary.json): the lock
  // taken, the staging folder made, each file closed, each named, run.json written, all staged:
  // 2 + 2 F + 2. The step after those is the first after the commit, where a failure is ignored.
  const int files = static_cast<int>(previous.size()) - 1;
  const int steps_before_commit = 2 + 2 * files + 2;
  int k = 1;
  for (;; ++k) {
    INFO("fault at step " << k);
    REQUIRE(k <= steps_before_commit + 1);
    const Ended e = box.run(8, {"--quiet"}, {"FULCRUM_FAULT_AT=" + std::to_string(k)});
    INFO(e.err);
    if (e.exit_code == 0) break;
    CHECK(e.exit_code == 1);
    CHECK(count_lines(e.err) == 1);
    CHECK(e.err.rfind("fulcrum: internal error: injected fault at publication step " +
                          std::to_string(k) + " (",
                      0) == 0);
    CHECK(snapshot(box.out()) == previous);
    check_nothing_left(box);
  }
  CHECK(k == steps_before_commit + 1);
  CHECK(check_one_result(box.out()) == 8);
  check_nothing_left(box);
}

TEST_CASE("a signal at any step of publishing stops the run with 128 + signal and one line",
          "[cli][publication]") {
  Box box;
  REQUIRE(box.run(4, {"--quiet"}).exit_code == 0);
  const auto previous = snapshot(box.out());
  const std::vector<std::pair<std::string, int>> signals{
      {"SIGINT", 130}, {"SIGTERM", 143}, {"SIGHUP", 129}};
  int k = 1;
  for (;; ++k) {
    const auto& [name, status] = signals[static_cast<std::size_t>(k) % signals.size()];
    INFO(name << " at step " << k);
    REQUIRE(k <= 100);
    const Ended e = box.run(8, {"--quiet"}, {"FULCRUM_FAULT_AT=" + std::to_string(k) + ":" + name});
    INFO(e.err);
    if (e.exit_code == 0) break;  // after the commit point a signal no longer stops the run
    CHECK(e.exit_code == status);
    CHECK(e.err == "fulcrum: interrupted (" + name + "); nothing was written to " +
                       box.out().string() + "\n");
    CHECK(snapshot(box.out()) == previous);
    check_nothing_left(box);
  }
  CHECK(k > 10);
  CHECK(check_one_result(box.out()) == 8);
  check_nothing_left(box);
}

TEST_CASE("a kill at any step of publishing leaves one complete result, and the next run cleans up",
          "[cli][publication]") {
  Box box;
  REQUIRE(box.run(4, {"--quiet"}).exit_code == 0);
  int killed_before_commit = 0;
  int killed_after_commit = 0;
  for (int k = 1;; ++k) {
    INFO("SIGKILL at step " << k);
    REQUIRE(k <= 100);
    const auto previous = snapshot(box.out());
    const Ended e = box.run(8, {"--quiet"}, {"FULCRUM_FAULT_AT=" + std::to_string(k) + ":kill"});
    if (e.exit_code == 0) break;
    REQUIRE(e.signal == SIGKILL);
    // Either the previous result, byte for byte, or the whole new one: never a mix.
    if (snapshot(box.out()) == previous) {
      ++killed_before_commit;
      CHECK(killed_after_commit == 0);
    } else {
      ++killed_after_commit;
      CHECK(check_one_result(box.out()) == 8);
    }
    // The kernel released the lock; the next run removes what the killed one staged.
    const Ended next = box.run(4, {"--quiet"});
    INFO(next.err);
    REQUIRE(next.exit_code == 0);
    CHECK(check_one_result(box.out()) == 4);
    check_nothing_left(box);
  }
  CHECK(killed_before_commit > 10);
  CHECK(killed_after_commit == 2);  // the result in place, the previous one not yet removed
}

TEST_CASE("SIGINT, SIGTERM and SIGHUP sent to a long run stop it, leaving the previous result",
          "[cli][publication]") {
  Box box;
  REQUIRE(box.run(4, {"--quiet"}).exit_code == 0);
  const auto previous = snapshot(box.out());
  for (const auto& [signal, name, status] :
       {std::tuple{SIGINT, "SIGINT", 130}, std::tuple{SIGTERM, "SIGTERM", 143},
        std::tuple{SIGHUP, "SIGHUP", 129}}) {
    INFO(name);
    // Days of simulated time: it is still running when its staging folder appears (requests.csv
    // off: a billion rows would be above outputs.max_rows, refused before the run).
    Child child(box.dir, box.args(8, {"--quiet", "--set", "duration_s=10000000", "--set",
                                      "outputs.requests=false"}));
    wait_until(child, [&] { return names_in(box.parent()).size() > 1; });
    REQUIRE(::kill(child.pid(), signal) == 0);
    const Ended e = child.wait();
    CHECK(e.exit_code == status);
    CHECK(e.err == std::string("fulcrum: interrupted (") + name + "); nothing was written to " +
                       box.out().string() + "\n");
    CHECK(e.out.empty());
    CHECK(snapshot(box.out()) == previous);
    check_nothing_left(box);
  }
}

TEST_CASE("a run interrupted after its progress line ends with one line saying what it left",
          "[cli][publication]") {
  Box box;
  // Long enough to show progress (after a second of wall time), with the big files off.
  Child child(box.dir, box.args(8, {"--progress", "--set", "duration_s=10000000", "--set",
                                    "outputs.requests=false", "--set", "outputs.trace=false"}));
  wait_until(child, [&] { return child.err_so_far().find(" s simulated (") != std::string::npos; });
  REQUIRE(::kill(child.pid(), SIGINT) == 0);
  const Ended e = child.wait();
  CHECK(e.exit_code == 130);
  const auto lines = lines_of(e.err);
  REQUIRE(lines.size() >= 3);  // running, progress..., interrupted
  CHECK(lines.front().rfind("fulcrum: running publication", 0) == 0);
  CHECK(lines.back() ==
        "fulcrum: interrupted (SIGINT); nothing was written to " + box.out().string());
  CHECK(e.out.empty());
  CHECK(names_in(box.parent()).empty());  // no result before, none now; nothing staged
}

TEST_CASE("a folder that is not a Fulcrum result is refused before running and left as it was",
          "[cli][publication]") {
  Box box;
  fs::create_directories(box.out() / "summary.json");
  std::ofstream(box.out() / "summary.json" / "mine.txt") << "keep me\n";
  std::ofstream(box.out() / "notes.txt") << "my notes\n";
  const Ended e = box.run(8);
  CHECK(e.exit_code == 2);
  CHECK(count_lines(e.err) == 1);
  CHECK(e.err.rfind("--out: " + box.out().string() + " is not a Fulcrum result folder: ", 0) == 0);
  CHECK(e.out.empty());
  CHECK(names_in(box.out()) == std::set<std::string>{"notes.txt", "summary.json"});
  CHECK(slurp(box.out() / "summary.json" / "mine.txt") == "keep me\n");
  CHECK(slurp(box.out() / "notes.txt") == "my notes\n");
  check_nothing_left(box);
  // The current folder, named ".", is never replaced either (here it even holds the scenario).
  const Ended dot = Child(box.dir, {"run", box.scenario(), "--out", "."}, {}, box.dir).wait();
  CHECK(dot.exit_code == 2);
  CHECK(dot.err.rfind("--out: . is the root folder or holds the current folder", 0) == 0);
}

TEST_CASE("a run replaces an earlier result whole, its figures and files it no longer writes too",
          "[cli][publication]") {
  Box box;
  REQUIRE(box.run(4, {"--quiet"}).exit_code == 0);
  std::ofstream(box.out() / "latency.png") << "a figure of the earlier result\n";
  const Ended e = box.run(8, {"--quiet", "--set", "outputs.trace=false"});
  REQUIRE(e.exit_code == 0);
  CHECK(names_in(box.out()) == std::set<std::string>{"summary.json", "run.json", "requests.csv",
                                                     "minibatches.csv", "epochs.csv", "power.csv"});
  check_nothing_left(box);
}
