#include "sim/report/run_json.hpp"

#include <unistd.h>

#include <array>
#include <system_error>

#include "models/error.hpp"
#include "sim/report/atomic_file.hpp"
#include "sim/report/json_writer.hpp"

namespace fulcrum::sim {

namespace {

std::string host_name() {
  std::array<char, 256> buf{};
  if (gethostname(buf.data(), buf.size() - 1) != 0) return "";
  return std::string(buf.data());
}

}  // namespace

std::string run_json(const RunInfo& info) {
  JsonWriter w;
  w.begin_object();
  w.key("fulcrum_version").value(info.fulcrum_version);
  w.key("backend").value(info.backend);
  w.key("host").value(info.host.empty() ? host_name() : info.host);
  w.key("command_line").begin_array();
  for (const auto& arg : info.command_line) w.value(arg);
  w.end_array();
  w.key("wall_s").value(info.wall_s);
  w.key("events_processed").value(info.events_processed);
  w.key("events_per_s");
  if (info.wall_s > 0) {
    w.value(static_cast<double>(info.events_processed) / info.wall_s);
  } else {
    w.null();
  }
  w.key("clock").value(info.lateness ? "wall" : "virtual");
  if (info.lateness) {
    const Lateness& l = *info.lateness;
    w.key("lateness").begin_object();
    w.key("events").value(l.events);
    w.key("late_events").value(l.late_events);
    w.key("late_threshold_ms").value(to_milliseconds(Lateness::kTolerance));
    w.key("max_ms").value(to_milliseconds(l.max));
    w.key("mean_ms").value(l.events > 0 ? to_milliseconds(l.total) / static_cast<double>(l.events)
                                        : 0.0);
    w.end_object();
  }
  w.end_object();
  return w.take();
}

void write_run_json(const std::filesystem::path& out_dir, const RunInfo& info) {
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) {
    throw InputError("cannot create output directory " + out_dir.string() + ": " + ec.message());
  }
  AtomicFile f(out_dir / "run.json");
  f.write(run_json(info));
  f.publish();
}

}  // namespace fulcrum::sim
