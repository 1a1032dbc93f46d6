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

// Parses CSV text in either format into the same rows (the workload as the file spells it, e.g.
// "mobilenet_v3"; TableModel maps aliases to catalog names). `source` names the text in error
// messages. Throws InputError ("source:line:col: column: problem", the column as the header names
// it) for an empty file, a missing or unknown column, a row with the wrong number of fields, an
// unparsable, non-finite or non-positive number, an unknown phase, or two rows with the same
// (workload, mode, phase, batch_size).
ProfileTable parse_profile_csv(std::istream& in, const std::string& source);

// Reads and parses a file; an unreadable file is an InputError too.
ProfileTable read_profile_csv(const std::string& path);

}  // namespace fulcrum::models
