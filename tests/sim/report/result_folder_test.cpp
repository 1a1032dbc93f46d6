#include "sim/report/result_folder.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include "models/error.hpp"
#include "sim/report/folder_lock.hpp"
#include "sim/report/interrupt.hpp"
#include "tests/sim/report/report_fixtures.hpp"

namespace fs = std::filesystem;
using namespace fulcrum::sim;
using fulcrum::sim::testing::files_in;
using fulcrum::sim::testing::read_file;
using fulcrum::sim::testing::TempDir;

namespace {

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

// Every regular file under `dir` (recursively) with its contents, by path relative to `dir`.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) files[fs::relative(e.path(), dir).string()] = read_file(e.path());
  }
  return files;
}

// An earlier result in `dir`: what a run would have left.
void earlier_result(const fs::path& dir) {
  fs::create_directories(dir);
  write(dir / "summary.json", "{\"old\": true}\n");
  write(dir / "requests.csv", "old requests\n");
  write(dir / "trace.json", "old trace\n");
  write(dir / "latency.png", "old figure\n");
}

void stage_new_result(const ResultFolder& folder) {
  write(folder.staging_dir() / "summary.json", "{\"new\": true}\n");
  write(folder.staging_dir() / "requests.csv", "new requests\n");
  write(folder.staging_dir() / "run.json", "{}\n");
}

}  // namespace

TEST_CASE(
    "the output folder keeps its previous result until publish, then holds only the new one") {
  TempDir dir;
  const fs::path target = dir.path() / "out" / "study";
  earlier_result(target);
  const auto before = snapshot(target);
  {
    ResultFolder folder(target);
    CHECK(folder.staging_dir().parent_path() == fs::canonical(dir.path() / "out"));
    CHECK(folder.staging_dir().filename().string().rfind(".study.staging-", 0) == 0);
    CHECK(fs::exists(dir.path() / "out" / ".study.lock"));
    stage_new_result(folder);
    CHECK(snapshot(target) == before);
    folder.publish();
    CHECK(folder.is_published());
    // Exactly the staged files: the old trace and figure went with the old result.
    CHECK(snapshot(target) ==
          std::map<std::string, std::string>{{"summary.json", "{\"new\": true}\n"},
                                             {"requests.csv", "new requests\n"},
                                             {"run.json", "{}\n"}});
  }
  // No staging folder, no old result, no lock file left beside it.
  CHECK(files_in(dir.path() / "out") == std::vector<std::string>{"study"});
}

TEST_CASE("a result folder that is never published removes what it staged") {
  TempDir dir;
  const fs::path target = dir.path() / "study";
  earlier_result(target);
  const auto before = snapshot(target);
  {
    ResultFolder folder(target);
    stage_new_result(folder);
    write(folder.staging_dir() / "trace.json.partial", "half a trace");
  }
  CHECK(snapshot(target) == before);
  CHECK(files_in(dir.path()) == std::vector<std::string>{"study"});
}

TEST_CASE("a folder that does not exist yet is created by publishing, with its parents") {
  TempDir dir;
  const fs::path target = dir.path() / "a" / "b" / "study";
  {
    ResultFolder folder(target);
    CHECK_FALSE(fs::exists(target));
    stage_new_result(folder);
    folder.publish();
  }
  CHECK(files_in(target) == std::vector<std::string>{"requests.csv", "run.json", "summary.json"});
  CHECK(files_in(dir.path() / "a" / "b") == std::vector<std::string>{"study"});
}

TEST_CASE("an empty folder is replaced and keeps its permissions") {
  TempDir dir;
  const fs::path target = dir.path() / "study";
  fs::create_directories(target);
  fs::permissions(target, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
  {
    ResultFolder folder(target);
    stage_new_result(folder);
    folder.publish();
  }
  CHECK(files_in(target).size() == 3);
  CHECK((fs::status(target).permissions() & fs::perms::all) ==
        (fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec));
}

TEST_CASE("a result reached through a symbolic link is replaced where the link points") {
  TempDir dir;
  const fs::path real = dir.path() / "real";
  earlier_result(real);
  fs::create_directory_symlink(real, dir.path() / "link");
  {
    ResultFolder folder(dir.path() / "link" / "");  // a trailing slash names the same folder
    stage_new_result(folder);
    folder.publish();
  }
  CHECK(fs::is_symlink(dir.path() / "link"));
  CHECK(read_file(real / "summary.json") == "{\"new\": true}\n");
  CHECK(files_in(dir.path()) == std::vector<std::string>{"link", "real"});
}

TEST_CASE("without an atomic exchange the result is published by two renames, just as whole") {
  TempDir dir;
  const fs::path target = dir.path() / "study";
  earlier_result(target);
  {
    ResultFolder::Options options;
    options.exchange = false;
    ResultFolder folder(target, options);
    stage_new_result(folder);
    folder.publish();
  }
  CHECK(files_in(target) == std::vector<std::string>{"requests.csv", "run.json", "summary.json"});
  CHECK(files_in(dir.path()) == std::vector<std::string>{"study"});
}

TEST_CASE("the names a run may replace are its own files and the plot script's figures") {
  for (const char* name :
       {"summary.json", "run.json", "requests.csv", "minibatches.csv", "power.csv", "trace.json",
        "epochs.csv", "latency.png", "latency_cdf.pdf", "power.svg", "timeline.png",
        "requests.csv.partial", "trace.json.partial"}) {
    INFO(name);
    CHECK(ResultFolder::is_result_file_name(name));
  }
  for (const char* name : {"notes.txt", "summary.json.bak", "latency2.png", "timeline.jpg",
                           ".summary.json", "partial", ".partial", "notes.txt.partial", ""}) {
    INFO(name);
    CHECK_FALSE(ResultFolder::is_result_file_name(name));
  }
}

TEST_CASE("a folder holding anything a run does not write is refused and left untouched") {
  TempDir dir;
  struct Case {
    std::string what;
    std::function<void(const fs::path&)> make;
    std::string reason;
  };
  const std::vector<Case> cases = {
      {"a file of the user's",
       [](const fs::path& d) {
         earlier_result(d);
         write(d / "notes.txt", "mine\n");
       },
       "it holds 'notes.txt', which a run does not write"},
      {"a sub-folder",
       [](const fs::path& d) {
         fs::create_directories(d / "keep");
         write(d / "keep" / "data.bin", "mine\n");
       },
       "it holds 'keep', which a run does not write"},
      {"a result file's name on a folder",
       [](const fs::path& d) {
         fs::create_directories(d / "summary.json");
         write(d / "summary.json" / "inside.txt", "mine\n");
       },
       "its 'summary.json' is not a regular file"},
      {"a result file's name on a symbolic link",
       [](const fs::path& d) {
         fs::create_directories(d);
         fs::create_symlink("/etc/hostname", d / "trace.json");
       },
       "its 'trace.json' is not a regular file"},
      {"a file, not a folder", [](const fs::path& d) { write(d, "a file\n"); },
       "it is not a folder"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    const fs::path parent = dir.path() / ("case-" + std::to_string(&c - cases.data()));
    fs::create_directories(parent);
    const fs::path target = parent / "study";
    c.make(target);
    const auto before = fs::is_directory(target) ? snapshot(target) : snapshot(parent);
    try {
      ResultFolder folder(target);
      FAIL("claimed");
    } catch (const fulcrum::InputError& e) {
      const std::string message = e.what();
      CHECK(message.rfind(
                "--out: " + target.string() + " is not a Fulcrum result folder: " + c.reason + "; ",
                0) == 0);
      CHECK(message.find('\n') == std::string::npos);
    }
    CHECK((fs::is_directory(target) ? snapshot(target) : snapshot(parent)) == before);
    CHECK(files_in(parent) == std::vector<std::string>{"study"});  // no lock, no staging
  }
}

TEST_CASE("the root folder and the current folder are refused as output folders") {
  CHECK_THROWS_WITH(ResultFolder("/"),
                    Catch::Contains("is the root folder or holds the current folder"));
  TempDir dir;
  const fs::path cwd = fs::current_path();
  fs::current_path(dir.path());
  CHECK_THROWS_WITH(ResultFolder("."),
                    Catch::Contains("is the root folder or holds the current folder"));
  fs::create_directories(dir.path() / "inner");
  fs::current_path(dir.path() / "inner");
  CHECK_THROWS_WITH(ResultFolder(".."),
                    Catch::Contains("is the root folder or holds the current folder"));
  fs::current_path(cwd);
  CHECK(files_in(dir.path()) == std::vector<std::string>{"inner"});
}

TEST_CASE("a folder another run holds is refused with that run's pid") {
  TempDir dir;
  const fs::path target = dir.path() / "study";
  ResultFolder first(target);
  try {
    ResultFolder second(target);
    FAIL("claimed twice");
  } catch (const fulcrum::InputError& e) {
    CHECK(std::string(e.what()) ==
          "--out: " + target.string() + " is being written by another fulcrum run (pid " +
              std::to_string(::getpid()) + "); wait for it to finish, or pass --wait");
  }
  CHECK(fs::exists(first.staging_dir()));  // the holder's work is untouched
}

TEST_CASE("a waiting claim takes the folder once its holder is done") {
  TempDir dir;
  const fs::path target = dir.path() / "study";
  auto first = std::make_unique<ResultFolder>(target);
  stage_new_result(*first);
  std::optional<long> told;
  ResultFolder::Options options;
  options.wait = true;
  // Told before it waits; the holder finishes then (here, on the same thread, in the callback).
  options.on_wait = [&](std::optional<long> holder) {
    told = holder;
    first->publish();
    first.reset();
  };
  ResultFolder second(target, options);
  CHECK(told == std::optional<long>(::getpid()));
  CHECK(read_file(target / "summary.json") == "{\"new\": true}\n");
  write(second.staging_dir() / "summary.json", "{\"second\": true}\n");
  second.publish();
  CHECK(files_in(target) == std::vector<std::string>{"summary.json"});
}

TEST_CASE("a signal while waiting for the folder stops the wait, naming the folder") {
  TempDir dir;
  const fs::path target = dir.path() / "study";
  ResultFolder first(target);
  const InterruptHandlers handlers;
  ResultFolder::Options options;
  options.wait = true;
  options.on_wait = [](std::optional<long>) { std::raise(SIGTERM); };
  try {
    ResultFolder second(target, options);
    FAIL("claimed a held folder");
  } catch (const Interrupted& e) {
    CHECK(e.exit_status() == 143);
    CHECK(std::string(e.what()) ==
          "fulcrum: interrupted (SIGTERM); nothing was written to " + target.string());
  }
}

TEST_CASE("what killed runs left beside the folder is removed by the next claim, and only that") {
  TempDir dir;
  const fs::path target = dir.path() / "study";
  earlier_result(target);
  const fs::path staged = dir.path() / ".study.staging-4242-0badf00d";
  fs::create_directories(staged);
  write(staged / "summary.json", "staged\n");
  write(staged / "requests.csv.partial", "half\n");
  const fs::path foreign = dir.path() / ".study.staging-4243-0badf00d";  // someone's file inside
  fs::create_directories(foreign);
  write(foreign / "notes.txt", "mine\n");
  const fs::path other_name = dir.path() / ".study.staging-mine";  // not a name runs make
  fs::create_directories(other_name);
  write(other_name / "summary.json", "mine\n");
  const fs::path other_target = dir.path() / ".study2.staging-4244-0badf00d";
  fs::create_directories(other_target);
  {
    ResultFolder folder(target);
    CHECK_FALSE(fs::exists(staged));
  }
  CHECK(files_in(foreign) == std::vector<std::string>{"notes.txt"});
  CHECK(files_in(other_name) == std::vector<std::string>{"summary.json"});
  CHECK(fs::exists(other_target));
  CHECK(read_file(target / "summary.json") == "{\"old\": true}\n");
}

TEST_CASE("a previous result moved aside by a killed two-rename publication is put back") {
  TempDir dir;
  const fs::path aside = dir.path() / ".study.previous-4242-0badf00d";
  earlier_result(aside);
  const auto before = snapshot(aside);
  { ResultFolder folder(dir.path() / "study"); }
  CHECK(snapshot(dir.path() / "study") == before);
  CHECK(files_in(dir.path()) == std::vector<std::string>{"study"});
}

TEST_CASE("publishing refuses a folder that gained a foreign file during the run") {
  TempDir dir;
  const fs::path target = dir.path() / "study";
  earlier_result(target);
  {
    ResultFolder folder(target);
    stage_new_result(folder);
    write(target / "notes.txt", "written meanwhile\n");
    CHECK_THROWS_AS(folder.publish(), fulcrum::InputError);
  }
  CHECK(read_file(target / "notes.txt") == "written meanwhile\n");
  CHECK(read_file(target / "summary.json") == "{\"old\": true}\n");
  CHECK(files_in(dir.path()) == std::vector<std::string>{"study"});
}

TEST_CASE("a lock is taken by one holder at a time and records its pid") {
  TempDir dir;
  const fs::path path = dir.path() / ".x.lock";
  {
    std::optional<FolderLock> a = FolderLock::try_lock(path);
    REQUIRE(a);
    CHECK(FolderLock::holder_pid(path) == std::optional<long>(::getpid()));
    CHECK_FALSE(FolderLock::try_lock(path));
  }
  CHECK_FALSE(fs::exists(path));  // released: the file is gone
  CHECK_FALSE(FolderLock::holder_pid(path));
  CHECK(FolderLock::try_lock(path));
}

TEST_CASE("a result folder with sub-folders is replaced whole, and only with its own layout") {
  const TempDir dir;
  const std::filesystem::path bundle = dir.path() / "bundle";
  const auto publish = [&](const std::string& text) {
    ResultFolder::Options options;
    options.layout = &ResultLayout::validation_bundle();
    ResultFolder folder(bundle, std::move(options));
    std::filesystem::create_directories(folder.staging_dir() / "inputs");
    std::filesystem::create_directories(folder.staging_dir() / "simulated");
    std::ofstream(folder.staging_dir() / "inputs" / "scenario.yaml") << text;
    std::ofstream(folder.staging_dir() / "simulated" / "summary.json") << "{}";
    std::ofstream(folder.staging_dir() / "comparison.md") << text;
    folder.publish();
  };
  publish("first");
  publish("second");  // an earlier bundle is replaced
  CHECK(read_file(bundle / "comparison.md") == "second");
  CHECK(read_file(bundle / "inputs" / "scenario.yaml") == "second");
  CHECK(files_in(dir.path()) == std::vector<std::string>{"bundle"});  // no lock, no staging left
  // A file of the user's inside a sub-folder makes it someone else's folder: refused, untouched.
  std::ofstream(bundle / "inputs" / "notes.txt") << "mine";
  ResultFolder::Options options;
  options.layout = &ResultLayout::validation_bundle();
  CHECK_THROWS_AS(ResultFolder(bundle, std::move(options)), fulcrum::InputError);
  CHECK(read_file(bundle / "inputs" / "notes.txt") == "mine");
  // A run's folder layout does not accept a bundle (its sub-folders).
  CHECK(ResultFolder::why_not_replaceable(bundle).has_value());
}
