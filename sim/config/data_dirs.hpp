// Where Fulcrum's data lives: the shipped data folder (device files, calibrations) and the
// reference folder (public measurements, read in place, never copied into the project).
//
//   std::string devices = default_data_dir() + "/devices";
//   DataDir ref = default_reference_dir();   // ref.path, and how it was chosen for messages
#pragma once

#include <string>

namespace fulcrum::sim {

// $FULCRUM_DATA_DIR when set, otherwise the models/data folder of the source tree this was
// built from.
std::string default_data_dir();

struct DataDir {
  std::string path;
  std::string chosen_by;  // "from $FULCRUM_REFERENCE_DIR", or the build's default
};

// $FULCRUM_REFERENCE_DIR when set, otherwise the build's -DFULCRUM_REFERENCE_DIR (default: the
// shared/reference folder beside the checkout). Not checked for existence.
DataDir default_reference_dir();

// The build's reference folder, -DFULCRUM_REFERENCE_DIR (for help texts).
std::string build_reference_dir();

// In a path written in a scenario: this prefix stands for default_reference_dir(), so that a
// scenario can name a reference file wherever the reference folder is.
inline constexpr const char* kReferenceDirVariable = "${FULCRUM_REFERENCE_DIR}";

// `path` with a leading kReferenceDirVariable replaced by default_reference_dir().path.
std::string expand_reference_dir(const std::string& path);

// default_reference_dir() as seen from an input file (a scenario, a sweep file): a relative
// folder is taken from that file's folder, as a scenario's ${FULCRUM_REFERENCE_DIR} paths are.
std::string reference_dir_for(const std::string& input_file);

}  // namespace fulcrum::sim
