// StorageMedium: where a training dataset's files sit (SD card, eMMC, USB disk, NVMe SSD), as
// data: models/data/storage/<name>.yaml, one file per medium, each figure with its source. A
// user adds a medium by adding a file; sim/config reads them.
//
//   const StorageMedium& sd = ...;                          // loaded by sim/config
//   double s = sd.read_time_s(16 * 121e3, 16);              // 16 sample files, random order
#pragma once

#include <cstdint>
#include <string>

namespace fulcrum::models {

// A figure and where it comes from (a published specification, or an estimate and its basis).
struct SourcedValue {
  double value = 0;
  std::string source;
};

struct StorageMedium {
  std::string name;  // file stem: "sd-card"
  std::string description;
  SourcedValue sequential_read_mb_s;  // large sequential reads, MB/s (1e6 B/s)
  SourcedValue random_read_mb_s;      // transfer rate of one file read in random order, MB/s
  SourcedValue request_latency_ms;    // per read request (seek, command, flash read), ms

  // Reading `requests` whole files of `bytes` in total in random order, one after another:
  // requests x latency + bytes / random-read bandwidth, in seconds.
  double read_time_s(double bytes, std::uint64_t requests) const;
};

}  // namespace fulcrum::models
