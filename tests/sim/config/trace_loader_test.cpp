#include "sim/config/trace_loader.hpp"

#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "models/error.hpp"

using namespace fulcrum;
using namespace fulcrum::sim;

namespace {

InputError trace_error(const std::string& text) {
  try {
    parse_arrival_trace(text, "t.csv");
  } catch (const InputError& e) {
    return e;
  }
  FAIL("expected an InputError for: " << text);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("a trace is read from its arrival_s column, other columns ignored", "[trace]") {
  const auto t = parse_arrival_trace(
      "# comment\nid,arrival_s,size\n0,0.0,3\n1, 0.25 ,9\n\n2,0.25,1\r\n3,7,x\n", "t.csv");
  CHECK(t == std::vector<double>{0.0, 0.25, 0.25, 7.0});
}

TEST_CASE("a trace with only an arrival_s column and no final newline is read", "[trace]") {
  CHECK(parse_arrival_trace("arrival_s\n1e-3\n2", "t.csv") == std::vector<double>{0.001, 2.0});
}

TEST_CASE("a trace saved with a UTF-8 byte-order mark is read like one without", "[trace]") {
  CHECK(parse_arrival_trace("\xEF\xBB\xBF"
                            "arrival_s\r\n0.5\r\n1.5\r\n",
                            "t.csv") == std::vector<double>{0.5, 1.5});
}

TEST_CASE("trace errors name the file, line, column and the column name", "[trace]") {
  {
    const InputError e = trace_error("arrival_s\n0.5\n0.25\n");
    REQUIRE(e.where());
    CHECK(e.where()->file == "t.csv");
    CHECK(e.where()->line == 3);
    CHECK(e.where()->column == 1);
    CHECK(e.key_path() == "arrival_s");
    CHECK(e.problem().find("non-decreasing") != std::string::npos);
  }
  {
    const InputError e = trace_error("id,arrival_s\n1,abc\n");
    REQUIRE(e.where());
    CHECK(e.where()->line == 2);
    CHECK(e.where()->column == 3);
    CHECK(e.key_path() == "arrival_s");
    CHECK(std::string(e.what()) == "t.csv:2:3: arrival_s: not a number: 'abc'");
  }
  CHECK(trace_error("arrival_s\nnan\n").problem().find("finite") != std::string::npos);
  CHECK(trace_error("arrival_s\ninf\n").problem().find("finite") != std::string::npos);
  CHECK(trace_error("arrival_s\n-1\n").problem().find(">= 0") != std::string::npos);
  CHECK(trace_error("arrival_s\n\n").problem().find("empty") != std::string::npos);
  CHECK(trace_error("").problem().find("empty") != std::string::npos);
  CHECK(trace_error("time_s\n1\n").problem().find("arrival_s") != std::string::npos);
  CHECK(trace_error("a,arrival_s\n1\n").problem().find("fields") != std::string::npos);
  CHECK(trace_error("arrival_s,arrival_s\n1,1\n").problem().find("twice") != std::string::npos);
  CHECK(trace_error("arrival_s\n1 2\n").key_path() == "arrival_s");
}

TEST_CASE("arrival times are at most 1e7 s, the longest run", "[trace]") {
  CHECK(parse_arrival_trace("arrival_s\n0\n1e7\n", "t.csv") == std::vector<double>{0, 1e7});
  // Just past 1e7 s, and far past it (1e300 s is no longer a number of nanoseconds).
  for (const std::string t : {"10000000.000000002", "1e300"}) {
    const InputError e = trace_error("arrival_s\n0\n" + t + "\n");
    CHECK(e.problem() == "must be <= 1e7 s (the longest run), got " + t);
    CHECK(e.key_path() == "arrival_s");
    REQUIRE(e.where());
    CHECK(e.where()->line == 3);
  }
}

TEST_CASE("a missing trace file is an input error naming it", "[trace]") {
  try {
    load_arrival_trace("/nonexistent/fulcrum/trace.csv");
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    REQUIRE(e.where());
    CHECK(e.where()->file == "/nonexistent/fulcrum/trace.csv");
  }
}

TEST_CASE("a trace path naming a device or a folder is refused before anything is read",
          "[trace]") {
  for (const std::string path : {"/dev/zero", "/tmp"}) {
    try {
      load_arrival_trace(path);
      FAIL("expected an InputError for " + path);
    } catch (const InputError& e) {
      CHECK(e.problem() == "trace is not a regular file");
      REQUIRE(e.where());
      CHECK(e.where()->file == path);
    }
  }
}

TEST_CASE("the trace parser survives random and mutated input", "[trace][fuzz]") {
  std::mt19937_64 rng(99);
  const std::string seed = "id,arrival_s,note\n0,0.0,a\n1,0.5,b\n2,1.25,c\n3,1e1,d\n";
  const std::string alphabet("0123456789.,eE+-\n\r# anixf\"\x00\xff", 28);
  int parsed = 0;
  int rejected = 0;
  for (int iter = 0; iter < 5000; ++iter) {
    std::string text;
    if (iter % 4 == 0) {
      const std::size_t n = rng() % 120;
      for (std::size_t i = 0; i < n; ++i) text += alphabet[rng() % alphabet.size()];
    } else {
      text = seed;
      const int edits = 1 + static_cast<int>(rng() % 4);
      for (int k = 0; k < edits && !text.empty(); ++k) {
        const std::size_t at = rng() % text.size();
        switch (rng() % 3) {
          case 0:
            text[at] = static_cast<char>(rng() % 256);
            break;
          case 1:
            text.erase(at, 1 + rng() % 4);
            break;
          case 2:
            text.insert(at, 1, alphabet[rng() % alphabet.size()]);
            break;
        }
      }
    }
    try {
      const std::vector<double> t = parse_arrival_trace(text, "fuzz.csv");
      ++parsed;
      REQUIRE_FALSE(t.empty());
      for (std::size_t i = 1; i < t.size(); ++i) REQUIRE(t[i] >= t[i - 1]);
    } catch (const InputError&) {
      ++rejected;
    }
  }
  CHECK(parsed > 0);
  CHECK(rejected > 0);
}
