// ProfileTable: the rows of a measured profile CSV (one minibatch time and power per power mode,
// phase and batch size), read with every row's location kept so later errors can point at it.
//
//   ProfileTable t = read_profile_csv("my-orin-resnet50.csv");
//   for (const ProfileRow& r : t.rows) use(r.gpu_hz, r.time_ms, r.power_w);
//
// Formats (see models/data/profiles/README.md), told apart by the header's column names:
// - profile: cores,cpu_khz,gpu_hz,emc_hz,phase,batch_size,time_ms,power_w in any order, plus
//   optional `workload` and per-rail `<RAIL>_w` columns; phases training, inference, idle.
// - measurement (the published Orin AGX files, reference/measurements/*-modes.csv):
//   model,dataset,phase,minibatch_size,cores,cpu_freq_khz,gpu_freq_hz,mem_freq_hz,
//   minibatch_time_ms,power_w[,in_grid441]; phases train and infer; `model` is the workload
//   column, `dataset` and `in_grid441` are accepted and ignored.
// Both: `#` lines are comments, read by models/io/csv_reader.hpp.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "models/error.hpp"

namespace fulcrum::models {

// What ran while a row was measured; `idle` rows (batch_size 0) give the baseload of a mode.
enum class ProfilePhase { inference, training, idle };

const char* to_string(ProfilePhase p);

struct ProfileRow {
  std::optional<std::string> workload;  // absent when the file has no workload (`model`) column
  int cores = 0;
  double cpu_khz = 0;
  double gpu_hz = 0;
  double emc_hz = 0;
  ProfilePhase phase = ProfilePhase::inference;
  int batch_size = 0;             // 0 exactly for idle rows
  std::optional<double> time_ms;  // absent only for idle rows
  double power_w = 0;             // module power while the phase runs
  // One entry per ProfileTable::rail_names; an empty cell is an unknown rail.
  std::vector<std::optional<double>> rail_power_w;
  SourceLocation where;  // file and line of the row, column 1
};

struct ProfileTable {
  std::string source;                   // file name (or the name given to parse_profile_csv)
  std::vector<std::string> rail_names;  // from `<RAIL>_w` columns, in column order
  std::vector<ProfileRow> rows;         // in file order
};

// The physical range of a profile column: a value outside it is refused with a located line.
// The ranges keep every derived quantity finite and above zero in the simulator's integer
// nanoseconds: time_ms >= 0.001 is at least 1,000 ns, and an hour at 10 kW is a finite energy.
struct ProfileRange {
  double min = 0;
  double max = 0;
  const char* unit = "";
  bool contains(double v) const { return v >= min && v <= max; }
  std::string bounds() const;    // "0.001..3.6e+06 ms"
  std::string describe() const;  // "a number in 0.001..3.6e+06 ms"
};
inline constexpr ProfileRange kProfileCores{1, 1024, ""};
inline constexpr ProfileRange kProfileCpuKhz{1e3, 1e8, "kHz"};  // 1 MHz .. 100 GHz
inline constexpr ProfileRange kProfileGpuHz{1e6, 1e11, "Hz"};
inline constexpr ProfileRange kProfileEmcHz{1e6, 1e11, "Hz"};
inline constexpr ProfileRange kProfileBatchSize{1, 65536, ""};     // a scenario's batch_size
inline constexpr ProfileRange kProfileTimeMs{0.001, 3.6e6, "ms"};  // 1 us .. 1 h
inline constexpr ProfileRange kProfilePowerW{0.001, 1e4, "W"};
inline constexpr ProfileRange kProfileRailW{0, 1e4, "W"};

// Parses CSV text in either format into the same rows (the workload as the file spells it, e.g.
// "mobilenet_v3"; TableModel maps aliases to catalog names). `source` names the text in error
// messages. Throws InputError ("source:line:col: column: problem", the column as the header names
// it) for an empty file, a missing or unknown column, a row with the wrong number of fields, an
// unparsable, non-finite or non-positive number, an unknown phase, or two rows with the same
// (workload, mode, phase, batch_size).
ProfileTable parse_profile_csv(std::istream& in, const std::string& source);

// Reads and parses a file. A file that cannot be read, is not a regular file (a device, a
// FIFO), is larger than kMaxCsvFileBytes or has a line longer than kMaxCsvLineBytes
// (models/io/csv_reader.hpp) is an InputError too.
ProfileTable read_profile_csv(const std::string& path);

// Why `text` cannot be one cell of a profile CSV (a comma or line break, a byte that is not
// printable ASCII, a leading or trailing space, a leading '#'); nullopt when it can. Check values
// such as `profile --dataset` with it before measuring.
std::optional<std::string> profile_cell_problem(const std::string& text);

// The one writer of the format, in the measurement layout (model,dataset,phase,minibatch_size,
// cores,cpu_freq_khz,gpu_freq_hz,mem_freq_hz,minibatch_time_ms,power_w, then `<RAIL>_w` per
// table.rail_names; idle rows with an empty model and time): `comments` as leading "# " lines,
// the header, then table.rows in order; numbers with 12 significant digits. A table its own
// reader would refuse (a dataset or workload that is not one clean cell, a value outside its
// column's range, a duplicate row) is an InputError, and nothing is returned.
std::string profile_csv_text(const ProfileTable& table, const std::string& dataset,
                             const std::vector<std::string>& comments);

}  // namespace fulcrum::models
