#include "models/perf/profile_csv.hpp"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "models/io/csv_reader.hpp"
#include "tests/temp_dir.hpp"

using fulcrum::InputError;
using fulcrum::models::parse_profile_csv;
using fulcrum::models::profile_csv_text;
using fulcrum::models::ProfilePhase;
using fulcrum::models::ProfileRow;
using fulcrum::models::ProfileTable;
using fulcrum::models::read_profile_csv;
using fulcrum::testing::TempDir;

namespace {

const std::string kHeader = "cores,cpu_khz,gpu_hz,emc_hz,phase,batch_size,time_ms,power_w\n";

ProfileTable parse(const std::string& text) {
  std::istringstream in(text);
  return parse_profile_csv(in, "mem.csv");
}

// The one-line message a bad profile produces.
std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("a profile with comments, rails and a workload column reads into typed rows") {
  const ProfileTable t = parse(
      "# measured on the bench device\n"
      "\n"
      "workload, "
      "cores,cpu_khz,gpu_hz,emc_hz,phase,batch_size,time_ms,power_w,VDD_GPU_SOC_w,VDD_CPU_CV_w\r\n"
      "resnet50,12,2201600,1300500000,3199000000,inference,16,48.25,50.5,30.5,\r\n"
      "# a comment between rows\n"
      "mobilenet,8,1728000,612000000,3199000000,training,32,80,25,12,4.5\n");
  REQUIRE(t.source == "mem.csv");
  REQUIRE(t.rail_names == std::vector<std::string>{"VDD_GPU_SOC", "VDD_CPU_CV"});
  REQUIRE(t.rows.size() == 2);
  const auto& a = t.rows[0];
  CHECK(a.workload == std::optional<std::string>("resnet50"));
  CHECK(a.cores == 12);
  CHECK(a.cpu_khz == 2201600.0);
  CHECK(a.gpu_hz == 1300500000.0);
  CHECK(a.emc_hz == 3199000000.0);
  CHECK(a.phase == ProfilePhase::inference);
  CHECK(a.batch_size == 16);
  CHECK(a.time_ms == std::optional<double>(48.25));
  CHECK(a.power_w == 50.5);
  REQUIRE(a.rail_power_w.size() == 2);
  CHECK(a.rail_power_w[0] == std::optional<double>(30.5));
  CHECK_FALSE(a.rail_power_w[1].has_value());
  CHECK(a.where.line == 4);
  const auto& b = t.rows[1];
  CHECK(b.phase == ProfilePhase::training);
  CHECK(b.rail_power_w[1] == std::optional<double>(4.5));
  CHECK(b.where.line == 6);
}

TEST_CASE("columns may come in any order and the workload column is optional") {
  const ProfileTable t = parse(
      "power_w,time_ms,batch_size,phase,emc_hz,gpu_hz,cpu_khz,cores\n"
      "20,10,4,inference,3199000000,612000000,1728000,8\n");
  REQUIRE(t.rows.size() == 1);
  CHECK_FALSE(t.rows[0].workload.has_value());
  CHECK(t.rows[0].cores == 8);
  CHECK(t.rows[0].power_w == 20.0);
  CHECK(t.rows[0].time_ms == std::optional<double>(10.0));
  CHECK(t.rail_names.empty());
}

TEST_CASE("idle rows have batch size zero and no time") {
  const ProfileTable t = parse(kHeader + "12,2201600,1300500000,3199000000,idle,0,,9.5\n");
  REQUIRE(t.rows.size() == 1);
  CHECK(t.rows[0].phase == ProfilePhase::idle);
  CHECK(t.rows[0].batch_size == 0);
  CHECK_FALSE(t.rows[0].time_ms.has_value());
  CHECK(t.rows[0].power_w == 9.5);
  const ProfileTable multi =
      parse("workload," + kHeader + ",12,2201600,1300500000,3199000000,idle,0,,9.5\n");
  CHECK_FALSE(multi.rows[0].workload.has_value());
  CHECK(error_of("workload," + kHeader + ",12,2201600,1300500000,3199000000,inference,1,15,27\n") ==
        "mem.csv:2:1: workload: missing value");
  CHECK(error_of(kHeader + "12,2201600,1300500000,3199000000,idle,4,,9.5\n") ==
        "mem.csv:2:39: batch_size: idle rows must have batch_size 0");
  CHECK(error_of(kHeader + "12,2201600,1300500000,3199000000,idle,0,3,9.5\n") ==
        "mem.csv:2:41: time_ms: idle rows must leave time_ms empty");
}

TEST_CASE("an empty profile is an error naming the file") {
  CHECK(error_of("") == "mem.csv:1:1: empty profile: no header line");
  CHECK(error_of("# only a comment\n\n") == "mem.csv:1:1: empty profile: no header line");
  CHECK(error_of("# c\n" + kHeader) == "mem.csv:3:1: empty profile: no data rows after the header");
}

TEST_CASE("a missing required column is named with the header's line") {
  CHECK(error_of("# c\ncores,cpu_khz,emc_hz,phase,batch_size,time_ms,power_w\n"
                 "12,2201600,3199000000,inference,1,15,27\n") ==
        "mem.csv:2:1: gpu_hz: missing required column");
}

TEST_CASE("unknown and repeated columns are errors at their column") {
  CHECK(error_of("cores,cpu_khz,gpu_mhz,emc_hz,phase,batch_size,time_ms,power_w\n") ==
        "mem.csv:1:15: gpu_mhz: unknown column (expected cores, cpu_khz, gpu_hz, emc_hz, phase, "
        "batch_size, time_ms, power_w, optional workload and <RAIL>_w columns)");
  CHECK(error_of("cores,cores,cpu_khz,gpu_hz,emc_hz,phase,batch_size,time_ms,power_w\n") ==
        "mem.csv:1:7: cores: column appears twice in the header");
}

TEST_CASE("an unparsable number is named with line, column and column name") {
  CHECK(error_of(kHeader + "12,2201600,1300500000,3199000000,inference,1,fast,27\n") ==
        "mem.csv:2:46: time_ms: expected a number, found 'fast'");
  CHECK(error_of(kHeader + "12,2201600,1300500000,3199000000,inference,1,15,27W\n") ==
        "mem.csv:2:49: power_w: expected a number, found '27W'");
  CHECK(error_of(kHeader + "12,2201600,1300500000,3199000000,inference,1,15,\n") ==
        "mem.csv:2:49: power_w: missing value");
  CHECK(error_of(kHeader + "12.5,2201600,1300500000,3199000000,inference,1,15,27\n") ==
        "mem.csv:2:1: cores: expected an integer in 1..1024, found '12.5'");
}

TEST_CASE("non-finite numbers are rejected") {
  CHECK(error_of(kHeader + "12,2201600,1300500000,3199000000,inference,1,nan,27\n") ==
        "mem.csv:2:46: time_ms: expected a finite number, found 'nan'");
  CHECK(error_of(kHeader + "12,2201600,inf,3199000000,inference,1,15,27\n") ==
        "mem.csv:2:12: gpu_hz: expected a finite number, found 'inf'");
}

TEST_CASE("zero and negative numbers are rejected") {
  CHECK(error_of(kHeader + "12,2201600,1300500000,3199000000,inference,1,0,27\n") ==
        "mem.csv:2:46: time_ms: expected a number in 0.001..3.6e+06 ms, found '0'");
  CHECK(error_of(kHeader + "12,-2201600,1300500000,3199000000,inference,1,15,27\n") ==
        "mem.csv:2:4: cpu_khz: expected a number in 1000..1e+08 kHz, found '-2201600'");
  CHECK(error_of(kHeader + "12,2201600,1300500000,3199000000,inference,0,15,27\n") ==
        "mem.csv:2:44: batch_size: expected an integer in 1..65536, found '0'");
  CHECK(error_of("cores,cpu_khz,gpu_hz,emc_hz,phase,batch_size,time_ms,power_w,VDD_IN_w\n"
                 "12,2201600,1300500000,3199000000,inference,1,15,27,-1\n") ==
        "mem.csv:2:52: VDD_IN_w: expected a number in 0..10000 W, found '-1'");
}

TEST_CASE("an unknown phase is an error at the phase column") {
  CHECK(error_of(kHeader + "12,2201600,1300500000,3199000000,train,1,15,27\n") ==
        "mem.csv:2:34: phase: unknown phase 'train' (expected training, inference or idle)");
}

TEST_CASE("a row with the wrong number of fields is an error") {
  CHECK(error_of(kHeader + "12,2201600,1300500000,3199000000,inference,1,15\n") ==
        "mem.csv:2:1: expected 8 fields as in the header, found 7");
}

TEST_CASE("duplicate rows for the same key name the first occurrence") {
  const std::string row = "12,2201600,1300500000,3199000000,inference,1,15,27\n";
  CHECK(error_of(kHeader + row + "# again\n" + row) ==
        "mem.csv:4:1: row: duplicate of the row on line 2 (same workload, mode, phase and "
        "batch_size)");
  // Written in other units, the same frequency is still the same key.
  CHECK(error_of(kHeader + row + "12,2.2016e6,1.3005e9,3199000000,inference,1,16,28\n") ==
        "mem.csv:3:1: row: duplicate of the row on line 2 (same workload, mode, phase and "
        "batch_size)");
  // A different workload or batch size is not a duplicate.
  CHECK(parse("workload," + kHeader + "a," + row + "b," + row).rows.size() == 2);
  CHECK(parse(kHeader + row + "12,2201600,1300500000,3199000000,inference,4,15,27\n").rows.size() ==
        2);
}

TEST_CASE("an unreadable file is an input error naming it") {
  CHECK_THROWS_AS(read_profile_csv("/nonexistent/profile.csv"), InputError);
}

TEST_CASE("a profile saved with a UTF-8 byte-order mark is read like one without") {
  // The shared CSV reader drops the mark; before it, the header's first column was unknown.
  const ProfileTable t =
      parse("\xEF\xBB\xBF" + kHeader + "12,2201600,1300500000,3199000000,inference,1,15,27\r\n");
  REQUIRE(t.rows.size() == 1);
  CHECK(t.rows[0].cores == 12);
  CHECK(t.rows[0].power_w == 27.0);
}

// The column layout of the published measurement files (reference/measurements/*-modes.csv).
namespace {
const std::string kMeasured =
    "model,dataset,phase,minibatch_size,cores,cpu_freq_khz,gpu_freq_hz,mem_freq_hz,"
    "minibatch_time_ms,power_w,in_grid441\n";
}  // namespace

TEST_CASE("a file in the measurement layout reads into the same rows") {
  const ProfileTable t =
      parse("# measured somewhere\n" + kMeasured +
            "mobilenet_v3,gld23k,train,16,12,2201600,1300500000,3199000000,90.5,40.25,1\n"
            "resnet50,imagenet_val50k,infer,4,8,1344000,726750000,2133000000,30,20,0\n");
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rail_names.empty());
  const auto& a = t.rows[0];
  CHECK(a.workload == std::optional<std::string>("mobilenet_v3"));  // as the file spells it
  CHECK(a.phase == ProfilePhase::training);
  CHECK(a.batch_size == 16);
  CHECK(a.cores == 12);
  CHECK(a.cpu_khz == 2201600.0);
  CHECK(a.gpu_hz == 1300500000.0);
  CHECK(a.emc_hz == 3199000000.0);
  CHECK(a.time_ms == std::optional<double>(90.5));
  CHECK(a.power_w == 40.25);
  CHECK(a.where.line == 3);
  const auto& b = t.rows[1];
  CHECK(b.workload == std::optional<std::string>("resnet50"));
  CHECK(b.phase == ProfilePhase::inference);
  CHECK(b.batch_size == 4);
  CHECK(b.cores == 8);
  CHECK(b.cpu_khz == 1344000.0);
  CHECK(b.gpu_hz == 726750000.0);
  CHECK(b.emc_hz == 2133000000.0);
}

TEST_CASE("the measurement layout needs neither dataset nor in_grid441 nor its column order") {
  const ProfileTable t = parse(
      "power_w,minibatch_time_ms,mem_freq_hz,gpu_freq_hz,cpu_freq_khz,cores,minibatch_size,phase,"
      "VDD_GPU_SOC_w\n"
      "20,10,3199000000,612000000,1728000,8,4,infer,12\n");
  REQUIRE(t.rows.size() == 1);
  CHECK_FALSE(t.rows[0].workload.has_value());
  CHECK(t.rows[0].cores == 8);
  CHECK(t.rows[0].batch_size == 4);
  CHECK(t.rows[0].time_ms == std::optional<double>(10.0));
  CHECK(t.rail_names == std::vector<std::string>{"VDD_GPU_SOC"});
}

TEST_CASE("the measurement layout's values are checked like a profile's, named by its columns") {
  const std::string row = "lstm,wikitext,infer,1,12,2201600,1300500000,3199000000,";
  // lstm,wikitext,infer,1,12,2201600,1300500000,3199000000, is 55 bytes: time_ms at column 56.
  CHECK(error_of(kMeasured + row + "fast,27,1\n") ==
        "mem.csv:2:56: minibatch_time_ms: expected a number, found 'fast'");
  CHECK(error_of(kMeasured + row + "0,27,1\n") ==
        "mem.csv:2:56: minibatch_time_ms: expected a number in 0.001..3.6e+06 ms, found '0'");
  CHECK(error_of(kMeasured + "lstm,wikitext,infer,0,12,2201600,1300500000,3199000000,2,27,1\n") ==
        "mem.csv:2:21: minibatch_size: expected an integer in 1..65536, found '0'");
  CHECK(error_of(kMeasured + "lstm,wikitext,infer,1,12,-1,1300500000,3199000000,2,27,1\n") ==
        "mem.csv:2:26: cpu_freq_khz: expected a number in 1000..1e+08 kHz, found '-1'");
  CHECK(error_of(kMeasured + ",wikitext,infer,1,12,2201600,1300500000,3199000000,2,27,1\n") ==
        "mem.csv:2:1: model: missing value");
  CHECK(error_of(kMeasured + row + "2,27\n") ==
        "mem.csv:2:1: expected 11 fields as in the header, found 10");
}

TEST_CASE("the measurement layout's phases are train, infer and idle") {
  CHECK(
      error_of(kMeasured + "lstm,wikitext,training,1,12,2201600,1300500000,3199000000,2,27,1\n") ==
      "mem.csv:2:15: phase: unknown phase 'training' (expected train, infer or idle)");
  // An idle row (what `fulcrum profile` measures on hardware) has batch size 0 and no time.
  CHECK(error_of(kMeasured + ",wikitext,idle,4,12,2201600,1300500000,3199000000,,27,1\n") ==
        "mem.csv:2:16: batch_size: idle rows must have batch_size 0");
  // And the profile layout's stay training, inference and idle.
  CHECK(error_of(kHeader + "12,2201600,1300500000,3199000000,infer,1,15,27\n") ==
        "mem.csv:2:34: phase: unknown phase 'infer' (expected training, inference or idle)");
}

TEST_CASE("a header mixing the two layouts is an error that says which layout it was read in") {
  CHECK(error_of("model,phase,minibatch_size,cores,cpu_khz,gpu_freq_hz,mem_freq_hz,"
                 "minibatch_time_ms,power_w\n") ==
        "mem.csv:1:34: cpu_khz: unknown column (expected model, phase, minibatch_size, cores, "
        "cpu_freq_khz, gpu_freq_hz, mem_freq_hz, minibatch_time_ms, power_w, optional dataset, "
        "in_grid441 and <RAIL>_w columns; the header is in the measurement layout, recognised by "
        "'model')");
  CHECK(
      error_of("workload,dataset,cores,cpu_khz,gpu_hz,emc_hz,phase,batch_size,time_ms,power_w\n") ==
      "mem.csv:1:1: workload: unknown column (expected model, phase, minibatch_size, cores, "
      "cpu_freq_khz, gpu_freq_hz, mem_freq_hz, minibatch_time_ms, power_w, optional dataset, "
      "in_grid441 and <RAIL>_w columns; the header is in the measurement layout, recognised by "
      "'dataset')");
  CHECK(error_of("model,phase,minibatch_size,cores,cpu_freq_khz,gpu_freq_hz,minibatch_time_ms,"
                 "power_w\n") == "mem.csv:1:1: mem_freq_hz: missing required column");
}

TEST_CASE("measured rows of two datasets at the same key are duplicates") {
  CHECK(error_of(kMeasured + "lstm,wikitext,infer,1,12,2201600,1300500000,3199000000,2,27,1\n"
                             "lstm,ptb,infer,1,12,2201600,1300500000,3199000000,3,28,1\n") ==
        "mem.csv:3:1: row: duplicate of the row on line 2 (same workload, mode, phase and "
        "batch_size)");
}

TEST_CASE("hostile numbers outside a column's physical range are refused at their cell") {
  const std::string mode = "12,2201600,1300500000,3199000000,inference,";
  // 1e-7 ms is 0.1 ns: it would round to a zero-length minibatch and loop at t = 0 forever.
  CHECK(error_of(kHeader + mode + "1,1e-7,27\n") ==
        "mem.csv:2:46: time_ms: expected a number in 0.001..3.6e+06 ms, found '1e-7'");
  // 1e308 ms overflows the integer nanoseconds; 1e308 W makes every energy infinite.
  CHECK(error_of(kHeader + mode + "1,1e308,27\n") ==
        "mem.csv:2:46: time_ms: expected a number in 0.001..3.6e+06 ms, found '1e308'");
  CHECK(error_of(kHeader + mode + "1,15,1e308\n") ==
        "mem.csv:2:49: power_w: expected a number in 0.001..10000 W, found '1e308'");
  CHECK(error_of(kHeader + mode + "100000,15,27\n") ==
        "mem.csv:2:44: batch_size: expected an integer in 1..65536, found '100000'");
  CHECK(error_of(kHeader + "99999999999,2201600,1300500000,3199000000,inference,1,15,27\n") ==
        "mem.csv:2:1: cores: expected an integer in 1..1024, found '99999999999'");
  CHECK(error_of(kHeader + "12,2201600,1e300,3199000000,inference,1,15,27\n") ==
        "mem.csv:2:12: gpu_hz: expected a number in 1e+06..1e+11 Hz, found '1e300'");
  // The edges of each range are accepted.
  const ProfileTable t = parse(kHeader + "1,1000,1e6,1e6,inference,1,0.001,0.001\n" +
                               "1024,1e8,1e11,1e11,inference,65536,3.6e6,1e4\n");
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[1].batch_size == 65536);
  CHECK(t.rows[1].time_ms == std::optional<double>(3.6e6));
}

TEST_CASE("binary text in a profile is never echoed raw in its one-line error") {
  const std::string message = error_of(std::string("\x01\x02\xff\x1b[2J,cores\n"));
  CHECK(message == "mem.csv:1:1: column name '\\x01\\x02\\xff\\x1b[2J' is not printable text");
  for (char c : message) CHECK((static_cast<unsigned char>(c) >= 0x20 && c != 0x7f));
  CHECK(error_of(kHeader + "12,2201600,1300500000,3199000000,\x1b[31mred,1,15,27\n") ==
        "mem.csv:2:34: phase: unknown phase '\\x1b[31mred' (expected training, inference or "
        "idle)");
}

TEST_CASE("profile files that are not regular, too large or have endless lines are refused") {
  TempDir dir;
  // A device would be read without end (/dev/zero), a FIFO would block: neither is opened.
  CHECK_THROWS_WITH(read_profile_csv("/dev/zero"),
                    "/dev/zero: profile is not a regular file (a folder, device, FIFO or socket "
                    "is not read as CSV)");
  const std::string fifo = (dir.path() / "fifo.csv").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_WITH(read_profile_csv(fifo), Catch::Contains("is not a regular file"));
  CHECK_THROWS_WITH(read_profile_csv(dir.path().string()),
                    Catch::Contains("is not a regular file"));
  // A line longer than 64 KiB is refused at that line, before it is read whole.
  const std::string long_line = (dir.path() / "long.csv").string();
  {
    std::ofstream out(long_line);
    out << kHeader << std::string(100000, '1') << "\n";
  }
  CHECK_THROWS_WITH(read_profile_csv(long_line), long_line + ":2:1: line longer than 65536 bytes");
  // A file over the size limit is refused before reading (a sparse file: no disk is used).
  const std::string huge = (dir.path() / "huge.csv").string();
  {
    std::ofstream out(huge);
    out << kHeader;
  }
  std::filesystem::resize_file(huge, fulcrum::models::kMaxCsvFileBytes + 1);
  CHECK_THROWS_WITH(read_profile_csv(huge), Catch::Contains("bytes, more than the limit of"));
}

namespace {

ProfileRow row(std::string workload, double time_ms, double power_w) {
  ProfileRow r;
  r.workload = std::move(workload);
  r.cores = 12;
  r.cpu_khz = 2201600;
  r.gpu_hz = 1300500000;
  r.emc_hz = 3199000000;
  r.phase = ProfilePhase::inference;
  r.batch_size = 16;
  r.time_ms = time_ms;
  r.power_w = power_w;
  return r;
}

}  // namespace

TEST_CASE("the profile writer writes what its reader reads back, in the measurement layout") {
  ProfileTable t;
  t.rail_names = {"VDD_GPU_SOC"};
  t.rows.push_back(row("resnet50", 48.25, 50.5));
  t.rows.back().rail_power_w = {30.5};
  ProfileRow idle;
  idle.cores = 12;
  idle.cpu_khz = 2201600;
  idle.gpu_hz = 1300500000;
  idle.emc_hz = 3199000000;
  idle.phase = ProfilePhase::idle;
  idle.power_w = 9.75;
  idle.rail_power_w = {std::nullopt};
  t.rows.push_back(idle);
  const std::string text = profile_csv_text(t, "random", {"measured on the bench"});
  CHECK(text ==
        "# measured on the bench\n"
        "model,dataset,phase,minibatch_size,cores,cpu_freq_khz,gpu_freq_hz,mem_freq_hz,"
        "minibatch_time_ms,power_w,VDD_GPU_SOC_w\n"
        "resnet50,random,infer,16,12,2201600,1300500000,3199000000,48.25,50.5,30.5\n"
        ",random,idle,0,12,2201600,1300500000,3199000000,,9.75,\n");
  const ProfileTable back = parse(text);
  REQUIRE(back.rows.size() == 2);
  CHECK(back.rows[0].time_ms == std::optional<double>(48.25));
  CHECK(back.rows[1].phase == ProfilePhase::idle);
}

TEST_CASE("the profile writer refuses a table its own reader would refuse, writing nothing") {
  const auto refusal = [](const ProfileTable& t, const std::string& dataset) -> std::string {
    try {
      profile_csv_text(t, dataset, {});
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  };
  ProfileTable t;
  t.rows.push_back(row("resnet50", 48.25, 50.5));
  CHECK(refusal(t, "gld,23k") ==
        "dataset: 'gld,23k' holds a comma or a line break, which no CSV cell can");
  CHECK(refusal(t, "a\nb") ==
        "dataset: 'a\\x0ab' holds a comma or a line break, which no CSV cell can");
  // The same workload twice (profile --workloads resnet50,resnet50): duplicate rows.
  t.rows.push_back(row("resnet50", 49, 51));
  CHECK_THAT(refusal(t, "random"),
             Catch::StartsWith("refusing to write a profile its own reader refuses: profile to "
                               "write:3:1: row: duplicate of the row on line 2"));
  // A measurement that is not finite (a prediction's NaN) is never written as "nan".
  t.rows.pop_back();
  t.rows.push_back(row("yolov8n", std::nan(""), 20));
  CHECK_THAT(refusal(t, "random"),
             Catch::Contains("minibatch_time_ms: expected a finite number, found 'nan'"));
  t.rows.back() = row("yolov8n", 1e-7, 20);
  CHECK_THAT(refusal(t, "random"), Catch::Contains("minibatch_time_ms: expected a number in"));
}
