#include "sim/report/output_writer.hpp"

#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "models/error.hpp"
#include "sim/report/atomic_file.hpp"
#include "sim/report/epochs_csv.hpp"
#include "sim/report/minibatches_csv.hpp"
#include "sim/report/power_csv.hpp"
#include "sim/report/requests_csv.hpp"
#include "sim/report/run_json.hpp"
#include "sim/report/summary.hpp"
#include "sim/report/trace_json.hpp"
#include "tests/sim/report/json_check.hpp"
#include "tests/sim/report/report_fixtures.hpp"
#include "tests/sim/runtime/runtime_fakes.hpp"

using namespace fulcrum::sim;
using fulcrum::sim::testing::JsonValue;
using fulcrum::sim::testing::lines_of;
using fulcrum::sim::testing::parse_json;
using fulcrum::sim::testing::read_file;
using fulcrum::sim::testing::TempDir;

namespace {

constexpr Time kMs = kMillisecond;

// A short managed run, as the runtime would report it: power changes, two inference batches of
// two requests, one training minibatch, queue lengths.
void replay_small_run(RunObserver& o) {
  const std::vector<double> idle{5, 4, 3};
  const std::vector<double> train{20, 6, 4};
  const std::vector<double> infer{15, 5, 4};
  o.on_power(0, idle);
  o.on_queue_length(0, 0, 1);
  o.on_power(10 * kMs, train);
  o.on_queue_length(0, 10 * kMs, 2);
  o.on_queue_length(0, 90 * kMs, 0);
  ItemRecord t;
  t.context = 0;
  t.phase = fulcrum::models::Phase::training;
  t.item_id = 0;
  t.batch_size = 16;
  t.start = 10 * kMs;
  t.end = 90 * kMs;
  t.standalone = 80 * kMs;
  t.fetch_stall = 2'500'000;
  t.rail_energy_j = {1.6, 0.48, 0.32};
  o.on_item(t);
  o.on_power(90 * kMs, infer);
  ItemRecord b;
  b.context = 1;
  b.phase = fulcrum::models::Phase::inference;
  b.item_id = 0;
  b.batch_size = 2;
  b.start = 90 * kMs;
  b.end = 140 * kMs;
  b.standalone = 50 * kMs;
  b.rail_energy_j = {0.75, 0.25, 0.2};
  b.provenance = fulcrum::models::Provenance::extrapolated;
  o.on_item(b);
  for (std::uint64_t id = 0; id < 2; ++id) {
    o.on_request(
        RequestRecord{0, id, 0, static_cast<Time>(id) * 10 * kMs, 20 * kMs, 90 * kMs, 140 * kMs});
  }
  o.on_power(140 * kMs, idle);
  b.item_id = 1;
  b.start = 140 * kMs;
  b.end = 190 * kMs;
  o.on_item(b);
  for (std::uint64_t id = 2; id < 4; ++id) {
    o.on_request(
        RequestRecord{0, id, 1, static_cast<Time>(id) * 10 * kMs, 40 * kMs, 140 * kMs, 190 * kMs});
  }
  o.on_power(2 * kSecond, train);
  o.on_end(3 * kSecond);
}

bool has_unit_suffix(const std::string& column) {
  for (const char* unit : {"_s", "_ms", "_w", "_j", "_bytes"}) {
    const std::string u(unit);
    if (column.size() > u.size() && column.compare(column.size() - u.size(), u.size(), u) == 0) {
      return true;
    }
  }
  return false;
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> cells;
  std::size_t begin = 0;
  for (;;) {
    const auto comma = line.find(',', begin);
    cells.push_back(line.substr(begin, comma - begin));
    if (comma == std::string::npos) return cells;
    begin = comma + 1;
  }
}

}  // namespace

TEST_CASE("CSV headers are exact and every measured column names its unit") {
  CHECK(RequestsCsv::kHeader ==
        "stream,request_id,batch_id,arrival_s,dispatch_s,start_s,completion_s,latency_ms\n");
  CHECK(MinibatchesCsv::kHeader ==
        "context,kind,item_id,batch_size,start_s,end_s,duration_ms,standalone_ms,"
        "fetch_stall_ms,energy_j,provenance,fetch_ms,preprocess_ms,cache_hit_samples\n");
  CHECK(PowerCsv::header(testing::orin_rails()) ==
        "time_s,VDD_GPU_SOC_w,VDD_CPU_CV_w,VIN_SYS_5V0_w,module_w,VDD_GPU_SOC_avg_w,"
        "VDD_CPU_CV_avg_w,VIN_SYS_5V0_avg_w,module_avg_w\n");
  CHECK(EpochsCsv::kHeader ==
        "epoch,end_s,time_s,minibatches,samples,fetch_stall_s,cache_hit_ratio,storage_bytes,"
        "cache_bytes\n");

  // Identifiers, counts and labels are unitless; everything else carries a unit suffix.
  const std::set<std::string> unitless{"stream", "request_id", "batch_id", "context", "kind",
                                       "item_id", "batch_size", "provenance", "epoch",
                                       "minibatches", "samples",
                                       // counts and a ratio of the data pipeline
                                       "cache_hit_samples", "cache_hit_ratio"};
  for (std::string header :
       {std::string(RequestsCsv::kHeader), std::string(MinibatchesCsv::kHeader),
        PowerCsv::header(testing::orin_rails()), std::string(EpochsCsv::kHeader)}) {
    header.pop_back();
    for (const auto& column : split(header)) {
      INFO(column);
      CHECK((unitless.count(column) == 1 || has_unit_suffix(column)));
    }
  }
}

TEST_CASE("the output writer streams the rows it is given") {
  TempDir dir;
  const Scenario scenario = testing::small_scenario();
  {
    OutputWriter writer(dir.path(), scenario, testing::orin_rails());
    replay_small_run(writer);
    writer.finish(testing::small_result());
  }
  const auto requests = lines_of(read_file(dir.path() / "requests.csv"));
  REQUIRE(requests.size() == 5);
  CHECK(requests[1] == "0,0,0,0,0.02,0.09,0.14,140");
  CHECK(requests[2] == "0,1,0,0.01,0.02,0.09,0.14,130");
  CHECK(requests[4] == "0,3,1,0.03,0.04,0.14,0.19,160");

  const auto items = lines_of(read_file(dir.path() / "minibatches.csv"));
  REQUIRE(items.size() == 4);
  // Without a dataloader the data pipeline's columns are 0.
  CHECK(items[1] == "0,training,0,16,0.01,0.09,80,80,2.5,2.4,modelled,0,0,0");
  CHECK(items[2] == "1,inference,0,2,0.09,0.14,50,50,0,1.2,extrapolated,0,0,0");
  CHECK(items[3] == "1,inference,1,2,0.14,0.19,50,50,0,1.2,extrapolated,0,0,0");
}

TEST_CASE("a file that reaches outputs.max_rows stops the run with one line and leaves nothing") {
  TempDir dir;
  Scenario scenario = testing::small_scenario();
  scenario.outputs.max_rows = 2;  // the small run writes 3 minibatches and 4 requests
  scenario.outputs.requests = false;
  scenario.outputs.trace = false;
  try {
    OutputWriter writer(dir.path(), scenario, testing::orin_rails());
    replay_small_run(writer);
    FAIL("the third minibatch row should have been refused");
  } catch (const fulcrum::InputError& e) {
    CHECK(e.key_path() == "outputs.max_rows");
    CHECK_THAT(e.what(), Catch::Contains("minibatches.csv reached 2 rows, the limit"));
    CHECK(std::string(e.what()).find('\n') == std::string::npos);
  }
  // The writer's destructor discarded what it had staged.
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    INFO(entry.path().string());
    CHECK(entry.path().extension() != ".partial");
    CHECK(entry.path().filename() != "minibatches.csv");
  }
  // power.csv is bounded by its sampling period instead: two rows are not a limit for it.
  scenario.outputs.minibatches = false;
  scenario.outputs.epochs = false;
  OutputWriter writer(dir.path(), scenario, testing::orin_rails());
  replay_small_run(writer);
  writer.finish(testing::small_result());
  CHECK(lines_of(read_file(dir.path() / "power.csv")).size() > 2);
}

TEST_CASE("power samples take the piecewise-constant value at each sample time") {
  TempDir dir;
  {
    // Period 50 ms over 200 ms: samples at 0, 50, 100, 150, 200 ms.
    PowerCsv power(dir.path() / "power.csv", {"A", "B"}, 50 * kMs, 200 * kMs);
    power.on_power(0, {1, 2});
    power.on_power(30 * kMs, {3, 4});    // between samples: 50 ms sees it
    power.on_power(100 * kMs, {5, 6});   // exactly at a sample: the new value wins
    power.on_power(100 * kMs, {7, 8});   // ...and the last change at that time
    power.on_power(120 * kMs, {9, 10});  // short-lived: no sample sees it
    power.on_power(140 * kMs, {0.5, 0.25});
    power.on_power(200 * kMs, {11, 12});  // a change at the end is sampled too
    power.on_end(200 * kMs);
    power.close(200 * kMs);
    power.publish();
  }
  const auto rows = lines_of(read_file(dir.path() / "power.csv"));
  REQUIRE(rows.size() == 6);
  CHECK(rows[0] == "time_s,A_w,B_w,module_w,A_avg_w,B_avg_w,module_avg_w");
  // The window averages, by hand: (0, 50 ms] holds A = 1 W for 30 ms and 3 W for 20 ms, 90 mJ,
  // 1.8 W; (100, 150] holds 7 W, 9 W for 20 ms each and 0.5 W for 10 ms: 325 mJ, 6.5 W.
  CHECK(rows[1] == "0,1,2,3,,,");  // no window ends at 0
  CHECK(rows[2] == "0.05,3,4,7,1.8,2.8,4.6");
  CHECK(rows[3] == "0.1,7,8,15,3,4,7");
  CHECK(rows[4] == "0.15,0.5,0.25,0.75,6.5,7.25,13.75");
  CHECK(rows[5] == "0.2,11,12,23,0.5,0.25,0.75");
}

TEST_CASE("power samples are written as the run advances, not all at its end") {
  TempDir dir;
  const auto partial = dir.path() / "power.csv.partial";
  PowerCsv power(dir.path() / "power.csv", {"A"}, kMicrosecond, 2 * kSecond);
  power.on_power(0, {2});
  // Constant power for a second: a million samples settled, tens of MB on disk already.
  power.on_advance(kSecond);
  CHECK(std::filesystem::file_size(partial) > 10'000'000);
  power.on_end(2 * kSecond);
  power.close(2 * kSecond);
  power.publish();
  const auto rows = lines_of(read_file(dir.path() / "power.csv"));
  REQUIRE(rows.size() == 2'000'002);  // header, then 0, 1 us, ..., 2 s
  CHECK(rows[1] == "0,2,2,,");
  CHECK(rows[1'000'001] == "1,2,2,2,2");
  CHECK(rows.back() == "2,2,2,2,2");
}

TEST_CASE("power.csv is the same whether or not the run reported its advances") {
  TempDir dir;
  for (const bool advances : {false, true}) {
    PowerCsv power(dir.path() / (advances ? "b.csv" : "a.csv"), {"A"}, 50 * kMs, 1 * kSecond);
    power.on_power(0, {1});
    if (advances) power.on_advance(100 * kMs);  // a sample exactly at an advance waits
    power.on_power(100 * kMs, {3});
    if (advances) power.on_advance(420 * kMs);
    power.on_power(430 * kMs, {5});
    if (advances) power.on_advance(900 * kMs);
    power.on_end(kSecond);
    power.close(kSecond);
    power.publish();
  }
  const std::string a = read_file(dir.path() / "a.csv");
  CHECK(lines_of(a).size() == 22);
  CHECK(lines_of(a)[3] == "0.1,3,3,1,1");  // (50, 100 ms] still at 1 W; 3 W from 100 ms on
  CHECK(a == read_file(dir.path() / "b.csv"));
}

TEST_CASE("each window average is the energy of its sampling period, where samples alias") {
  // 30 W for the first 250 ms of every 400 ms, 10 W for the rest, sampled every second for 4 s.
  // Every sample time falls into a 30 W stretch (0, 1, 2, 3, 4 s are 0 or 200 ms into a
  // cycle), so the instantaneous samples all read 30 W; the true average is
  // (30 x 0.25 + 10 x 0.15) / 0.4 = 22.5 W.
  TempDir dir;
  {
    PowerCsv power(dir.path() / "power.csv", {"A"}, kSecond, 4 * kSecond);
    for (Time cycle = 0; cycle < 4 * kSecond; cycle += 400 * kMs) {
      power.on_power(cycle, {30});
      power.on_power(cycle + 250 * kMs, {10});
    }
    power.on_power(4 * kSecond, {30});  // the next cycle starts at the end: its sample sees it
    power.on_end(4 * kSecond);
    power.close(4 * kSecond);
    power.publish();
  }
  const auto rows = lines_of(read_file(dir.path() / "power.csv"));
  REQUIRE(rows.size() == 6);
  // (0, 1]: two whole cycles (9 J each) and 200 ms at 30 W: 24 J. (1, 2]: 50 ms at 30 W, 150 ms
  // at 10 W, two cycles: 21 J. Then 24 J and 21 J again.
  CHECK(rows[1] == "0,30,30,,");
  CHECK(rows[2] == "1,30,30,24,24");
  CHECK(rows[3] == "2,30,30,21,21");
  CHECK(rows[4] == "3,30,30,24,24");
  CHECK(rows[5] == "4,30,30,21,21");
  // Their mean, (24 + 21 + 24 + 21) / 4, is the true 22.5 W; the samples' is 30 W.
}

TEST_CASE("power sampling stops at the last sample time not after the end") {
  TempDir dir;
  {
    PowerCsv power(dir.path() / "power.csv", {"A"}, 400 * kMs, 1000 * kMs);
    power.on_power(0, {2});
    power.on_end(1000 * kMs);
    power.close(1000 * kMs);
    power.publish();
  }
  const auto rows = lines_of(read_file(dir.path() / "power.csv"));
  REQUIRE(rows.size() == 4);        // 0, 0.4, 0.8 s; 1.2 s is past the end
  CHECK(rows[3] == "0.8,2,2,2,2");  // (0.8 - 1.0 s] belongs to no row: no window ends there
}

TEST_CASE("trace.json is valid JSON with GPU context, power and stream tracks") {
  TempDir dir;
  {
    OutputWriter writer(dir.path(), testing::small_scenario(), testing::orin_rails());
    replay_small_run(writer);
    writer.finish(testing::small_result());
  }
  const auto doc = parse_json(read_file(dir.path() / "trace.json"));
  const JsonValue& events = doc.at("traceEvents");
  REQUIRE(events.kind == JsonValue::Kind::array);

  std::set<std::string> thread_names;
  std::set<std::string> process_names;
  std::set<std::string> counters;
  int gpu_slices = 0;
  int stream_slices = 0;
  for (const JsonValue& e : events.items) {
    const std::string ph = e.at("ph").text;
    const std::string name = e.at("name").text;
    const int pid = static_cast<int>(e.at("pid").number);
    if (ph == "M" && name == "thread_name") thread_names.insert(e.path("args.name").text);
    if (ph == "M" && name == "process_name") process_names.insert(e.path("args.name").text);
    if (ph == "C") counters.insert(name);
    if (ph == "X") {
      CHECK(e.at("dur").number >= 0);
      if (pid == TraceJson::kGpuPid) ++gpu_slices;
      if (pid == TraceJson::kFirstStreamPid) ++stream_slices;
    }
  }
  CHECK(process_names == std::set<std::string>{"GPU", "Power", "Stream resnet50-0"});
  CHECK(thread_names.count("training") == 1);
  CHECK(thread_names.count("inference resnet50-0") == 1);
  CHECK(thread_names.count("batches") == 1);
  CHECK(counters == std::set<std::string>{"power_w", "queued_requests"});
  CHECK(gpu_slices == 3);
  CHECK(stream_slices == 2);

  // The training minibatch: 10 ms -> 90 ms, in microseconds.
  bool found_training = false;
  for (const JsonValue& e : events.items) {
    if (e.at("ph").text == "X" && e.has("cat") && e.at("cat").text == "training") {
      found_training = true;
      CHECK(e.at("ts").number == 10000);
      CHECK(e.at("dur").number == 80000);
      CHECK(e.path("args.fetch_stall_ms").number == 2.5);
    }
  }
  CHECK(found_training);
}

TEST_CASE("trace counters carry one value per rail and merge changes at one instant") {
  TempDir dir;
  {
    TraceJson trace(dir.path() / "trace.json", {"A", "B"}, {"s"}, true);
    trace.on_power(0, {1, 2});
    trace.on_power(5 * kMs, {3, 4});
    trace.on_power(5 * kMs, {5, 6});  // same instant: only this one is real
    trace.on_queue_length(0, 1 * kMs, 1);
    trace.on_queue_length(0, 2 * kMs, 2);
    trace.on_queue_length(0, 2 * kMs, 0);  // same instant: merged
    trace.on_queue_length(0, 3 * kMs, 0);  // unchanged: not repeated
    trace.on_end(10 * kMs);
    trace.close(10 * kMs);
    trace.publish();
  }
  const auto doc = parse_json(read_file(dir.path() / "trace.json"));
  std::vector<std::string> power;
  std::vector<std::string> queue;
  for (const JsonValue& e : doc.at("traceEvents").items) {
    if (e.at("ph").text != "C") continue;
    if (e.at("name").text == "power_w") {
      power.push_back(e.at("ts").text + ":" + e.path("args.A").text + "," + e.path("args.B").text);
    } else {
      queue.push_back(e.at("ts").text + ":" + e.path("args.requests").text);
    }
  }
  CHECK(power == std::vector<std::string>{"0:1,2", "5000:5,6"});
  CHECK(queue == std::vector<std::string>{"1000:1", "2000:0"});
}

namespace {

// The counter events of a trace file: "ts:value" of the queue counter and "ts:A" of the power
// counter's first rail.
struct Counters {
  std::vector<std::string> power;
  std::vector<std::string> queue;
};

Counters counters_of(const std::filesystem::path& trace) {
  Counters c;
  const JsonValue doc = parse_json(read_file(trace));
  for (const JsonValue& e : doc.at("traceEvents").items) {
    if (e.at("ph").text != "C") continue;
    if (e.at("name").text == "power_w") {
      c.power.push_back(e.at("ts").text + ":" + e.path("args.A").text);
    } else {
      c.queue.push_back(e.at("ts").text + ":" + e.path("args.requests").text);
    }
  }
  return c;
}

}  // namespace

TEST_CASE("trace counters keep the last change of each millisecond, at its own time") {
  TempDir dir;
  {
    TraceJson trace(dir.path() / "trace.json", {"A"}, {"s"}, false);
    // Ten changes 0.1 ms apart in [0, 1 ms), then ten in [1, 2 ms): one event for each ms.
    for (int k = 0; k < 20; ++k) {
      const Time at = k * 100'000;
      trace.on_queue_length(0, at, static_cast<std::size_t>(k + 1));
      trace.on_power(at, {static_cast<double>(k)});
    }
    // Changes a millisecond or more apart are all written, as in the quickstart (10 ms apart).
    trace.on_queue_length(0, 5 * kMs, 0);
    trace.on_queue_length(0, 6 * kMs, 3);
    trace.on_queue_length(0, 7 * kMs - 1, 4);  // 7 ms - 1 ns: still the 6th millisecond
    trace.on_power(5 * kMs, {100});
    trace.on_power(6 * kMs, {200});
    trace.on_end(10 * kMs);
    trace.close(10 * kMs);
    trace.publish();
  }
  const Counters c = counters_of(dir.path() / "trace.json");
  CHECK(c.queue == std::vector<std::string>{"900:10", "1900:20", "5000:0", "6999.999:4"});
  CHECK(c.power == std::vector<std::string>{"900:9", "1900:19", "5000:100", "6000:200"});
}

TEST_CASE("trace counters stay at most one event per millisecond however fast they change") {
  TempDir dir;
  {
    TraceJson trace(dir.path() / "trace.json", {"A"}, {"s"}, false);
    // One second of a queue that changes every microsecond (a million changes), and power that
    // changes every 10 microseconds.
    for (Time at = 0; at < kSecond; at += 1000) {
      trace.on_queue_length(0, at, static_cast<std::size_t>(at / 1000 % 7));
      if (at % 10'000 == 0) trace.on_power(at, {static_cast<double>(at / 10'000 % 5)});
    }
    trace.on_end(kSecond);
    trace.close(kSecond);
    trace.publish();
  }
  const Counters c = counters_of(dir.path() / "trace.json");
  CHECK(c.queue.size() <= 1000);
  CHECK(c.power.size() <= 1000);
  CHECK(c.queue.size() >= 900);  // the values at the ends of the milliseconds differ mostly
  CHECK(c.power.size() >= 900);
  CHECK(std::filesystem::file_size(dir.path() / "trace.json") < 200'000);
}

TEST_CASE("overlapping batches of one stream go to separate lanes") {
  TempDir dir;
  {
    TraceJson trace(dir.path() / "trace.json", {"A"}, {"s"}, false);
    trace.on_request(RequestRecord{0, 0, 0, 0, 10 * kMs, 20 * kMs, 50 * kMs});
    trace.on_request(RequestRecord{0, 1, 1, 5 * kMs, 15 * kMs, 50 * kMs, 80 * kMs});  // overlaps
    trace.on_request(RequestRecord{0, 2, 2, 60 * kMs, 90 * kMs, 90 * kMs, 100 * kMs});
    trace.on_end(100 * kMs);
    trace.close(100 * kMs);
    trace.publish();
  }
  const auto doc = parse_json(read_file(dir.path() / "trace.json"));
  std::vector<int> lanes;
  for (const JsonValue& e : doc.at("traceEvents").items) {
    if (e.at("ph").text == "X") lanes.push_back(static_cast<int>(e.at("tid").number));
  }
  CHECK(lanes == std::vector<int>{0, 1, 0});
}

TEST_CASE("files appear only after finish") {
  TempDir dir;
  OutputWriter writer(dir.path(), testing::small_scenario(), testing::orin_rails());
  replay_small_run(writer);
  for (const auto& name : testing::files_in(dir.path())) {
    INFO(name);
    CHECK(name.size() > 8);
    CHECK(name.substr(name.size() - 8) == ".partial");
  }
  writer.finish(testing::small_result());
  CHECK(testing::files_in(dir.path()) == std::vector<std::string>{"epochs.csv", "minibatches.csv",
                                                                  "power.csv", "requests.csv",
                                                                  "summary.json", "trace.json"});
  CHECK(writer.outputs().size() == 6);
}

TEST_CASE("abort leaves no files behind") {
  TempDir dir;
  {
    OutputWriter writer(dir.path(), testing::small_scenario(), testing::orin_rails());
    replay_small_run(writer);
    writer.abort();
    CHECK(testing::files_in(dir.path()).empty());
  }
  {
    // A run that throws never reaches finish(): the destructor cleans up.
    OutputWriter writer(dir.path(), testing::small_scenario(), testing::orin_rails());
    replay_small_run(writer);
  }
  CHECK(testing::files_in(dir.path()).empty());
}

TEST_CASE("finish after abort is an error, not silent success") {
  TempDir dir;
  OutputWriter writer(dir.path(), testing::small_scenario(), testing::orin_rails());
  writer.abort();
  CHECK_THROWS_AS(writer.finish(testing::small_result()), fulcrum::Error);
  CHECK(testing::files_in(dir.path()).empty());
}

TEST_CASE("only the outputs the scenario enables are written") {
  TempDir dir;
  Scenario scenario = testing::small_scenario();
  scenario.outputs.requests = false;
  scenario.outputs.trace = false;
  OutputWriter writer(dir.path(), scenario, testing::orin_rails());
  replay_small_run(writer);
  writer.finish(testing::small_result());
  CHECK(testing::files_in(dir.path()) ==
        std::vector<std::string>{"epochs.csv", "minibatches.csv", "power.csv", "summary.json"});
}

TEST_CASE("every completed epoch is a row of epochs.csv, written as it completes") {
  TempDir dir;
  {
    OutputWriter writer(dir.path(), testing::small_scenario(), testing::orin_rails());
    replay_small_run(writer);
    writer.on_epoch(
        EpochRecord{0, 1'250'000'000, 1'250'000'000, 79, 1250, 2'500'000, std::nullopt});
    writer.on_epoch(EpochRecord{1, 2'500'000'001, 1'250'000'001, 79, 1250, 0, std::nullopt});
    // With a dataloader: 1000 of 1250 samples from the cache, 1 MB each.
    writer.on_epoch(EpochRecord{2, 3'750'000'001, 1'250'000'000, 79, 1250, 0,
                                EpochData{1000, 250, 1e9, 2.5e8}});
    writer.finish(testing::small_result());
  }
  const auto rows = lines_of(read_file(dir.path() / "epochs.csv"));
  REQUIRE(rows.size() == 4);
  CHECK(rows[0] ==
        "epoch,end_s,time_s,minibatches,samples,fetch_stall_s,cache_hit_ratio,storage_bytes,"
        "cache_bytes");
  CHECK(rows[1] == "0,1.25,1.25,79,1250,0.0025,,,");
  CHECK(rows[2] == "1,2.500000001,1.250000001,79,1250,0,,,");
  CHECK(rows[3] == "2,3.750000001,1.25,79,1250,0,0.8,250000000,1000000000");
}

TEST_CASE("a scenario without a training job writes no epochs.csv") {
  TempDir dir;
  Scenario scenario = testing::small_scenario();
  scenario.training.reset();
  OutputWriter writer(dir.path(), scenario, testing::orin_rails());
  replay_small_run(writer);
  writer.finish(testing::small_result());
  CHECK(testing::files_in(dir.path()) == std::vector<std::string>{"minibatches.csv", "power.csv",
                                                                  "requests.csv", "summary.json",
                                                                  "trace.json"});
}

TEST_CASE("summary.json stays small however many epochs a run completes") {
  // 100 s of 1 ms minibatches over a dataset of one minibatch: 100,000 epochs.
  testing::Harness h;
  h.scenario = testing::base_scenario(100.0);
  h.scenario.training = testing::training_spec(16);
  h.dataset_samples = 16;
  h.backend.set(h.train, fulcrum::models::Phase::training, {1, 0});
  TempDir dir;
  OutputWriter writer(dir.path(), h.scenario, h.device.rails);
  const RunResult result = h.run(&writer);
  writer.finish(result);
  const std::string summary = read_file(dir.path() / "summary.json");
  CHECK(summary.size() < 4000);
  const auto doc = parse_json(summary);
  CHECK(doc.path("training.epochs_completed").number == 100'000);
  CHECK(doc.path("training.epoch_time_s.first").number == 0.001);
  CHECK(doc.path("training.epoch_time_s.max").number == 0.001);
  const auto rows = lines_of(read_file(dir.path() / "epochs.csv"));
  REQUIRE(rows.size() == 100'001);
  CHECK(rows[1] == "0,0.001,0.001,1,16,0,,,");
  CHECK(rows.back() == "99999,100,0.001,1,16,0,,,");
}

TEST_CASE("identical inputs give byte-identical files") {
  TempDir a;
  TempDir b;
  for (const TempDir* dir : {&a, &b}) {
    OutputWriter writer(dir->path(), testing::small_scenario(), testing::orin_rails());
    replay_small_run(writer);
    writer.finish(testing::small_result());
  }
  for (const char* name :
       {"requests.csv", "minibatches.csv", "power.csv", "trace.json", "summary.json"}) {
    INFO(name);
    CHECK(read_file(a.path() / name) == read_file(b.path() / name));
  }
}

TEST_CASE("large outputs stream to disk in chunks") {
  TempDir dir;
  const std::uint64_t n = 60'000;
  {
    RequestsCsv csv(dir.path() / "requests.csv");
    for (std::uint64_t i = 0; i < n; ++i) {
      const Time arrival = static_cast<Time>(i) * 10 * kMs;
      csv.on_request(RequestRecord{0, i, i / 16, arrival, arrival, arrival, arrival + 5 * kMs});
    }
    // Rows already on disk, only the last partial chunk still buffered.
    CHECK(std::filesystem::file_size(dir.path() / "requests.csv.partial") > 0);
    csv.close(0);
    csv.publish();
  }
  const auto rows = lines_of(read_file(dir.path() / "requests.csv"));
  REQUIRE(rows.size() == n + 1);
  CHECK(rows.back() == "0,59999,3749,599.99,599.99,599.99,599.995,5");
}

TEST_CASE("an output directory that cannot be created is an input error") {
  TempDir dir;
  const auto blocker = dir.path() / "file";
  {
    AtomicFile f(blocker);
    f.publish();
  }
  CHECK_THROWS_AS(OutputWriter(blocker / "out", testing::small_scenario(), testing::orin_rails()),
                  fulcrum::InputError);
}

TEST_CASE("run.json records the non-deterministic facts") {
  TempDir dir;
  RunInfo info;
  info.wall_s = 0.5;
  info.events_processed = 1000;
  info.fulcrum_version = "0.1.0";
  info.command_line = {"fulcrum", "run", "scenarios/quickstart.yaml"};
  info.host = "bench-host";
  write_run_json(dir.path(), info);
  const auto doc = parse_json(read_file(dir.path() / "run.json"));
  CHECK(doc.at("events_per_s").number == 2000);
  CHECK(doc.at("host").text == "bench-host");
  CHECK(doc.at("fulcrum_version").text == "0.1.0");
  CHECK(doc.at("command_line").items.size() == 3);
  CHECK(doc.at("wall_s").number == 0.5);
  info.host.clear();
  info.wall_s = 0;
  const auto doc2 = parse_json(run_json(info));
  CHECK_FALSE(doc2.at("host").text.empty());
  CHECK(doc2.at("events_per_s").kind == JsonValue::Kind::null);
  CHECK(doc2.at("clock").text == "virtual");
}

TEST_CASE("run.json of a wall-clock run says how late its events ran") {
  RunInfo info;
  info.events_processed = 4;
  info.lateness = Lateness{};
  info.lateness->events = 4;
  info.lateness->late_events = 1;
  info.lateness->max = 2'500'000;    // 2.5 ms
  info.lateness->total = 3'000'000;  // 0.75 ms a event
  const auto doc = parse_json(run_json(info));
  CHECK(doc.at("clock").text == "wall");
  CHECK(doc.path("lateness.events").number == 4);
  CHECK(doc.path("lateness.late_events").number == 1);
  CHECK(doc.path("lateness.late_threshold_ms").number == 1);
  CHECK(doc.path("lateness.max_ms").number == 2.5);
  CHECK(doc.path("lateness.mean_ms").number == 0.75);
}
