// DataloaderModel: the CPU side of the training data pipeline as data (the coefficients in
// models/data/pipeline/dataloader.yaml, read by sim/config): what pre-processing one sample
// costs per sample format, how that scales with CPU frequency, CPU architecture and memory
// bandwidth, what RAM the page cache is left, and what a busy worker core draws.
//
//   double ms = preprocess_ms_per_sample(model, model.format_of("gld23k"), device, mode);
//   CacheEstimate c = cache_capacity(model, device.memory_gb, workload.parameters(), {});
//
// The shipped coefficients are priors (each says its basis); a calibration may replace them.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "models/device/device_spec.hpp"
#include "models/device/power_mode.hpp"
#include "models/pipeline/page_cache.hpp"
#include "models/pipeline/storage_medium.hpp"

namespace fulcrum::models {

// Pre-processing cost of one sample of a format (decode, resize/crop, augment, to tensor).
struct SampleFormat {
  std::string name;              // "jpeg"
  double cpu_ms_at_ref = 0;      // core-time per sample at ref_cpu_khz on the reference arch
  double memory_mb_touched = 0;  // bytes read + written in DRAM per sample, MB (1e6 B)
  std::string basis;             // where the figures come from
};

struct DataloaderModel {
  double ref_cpu_khz = 2201600;  // CPU frequency at which cpu_ms_at_ref holds
  std::string ref_arch = "cortex-a78ae";
  std::map<std::string, double, std::less<>> arch_speed;  // per-clock speed vs ref_arch (1.0)
  std::string arch_basis;
  double memory_efficiency = 0.5;  // share of peak DRAM bandwidth a worker's copies reach
  std::vector<SampleFormat> formats;
  std::map<std::string, std::string, std::less<>> dataset_formats;  // dataset -> format
  // Datasets whose per-sample CPU cost is their own (a fitted figure): the format's entry with
  // cpu_ms_at_ref and basis replaced; format_of returns it instead of the format's.
  std::map<std::string, SampleFormat, std::less<>> dataset_overrides;
  // RAM kept from the page cache, GB.
  double os_gb = 1.0;
  double training_process_gb = 2.0;
  double inference_process_gb = 1.0;
  double gpu_bytes_per_parameter = 16;  // weights, gradients, optimiser state, allocator slack
  std::string memory_basis;
  // Power of one core busy pre-processing at the table's maximum CPU frequency, W (scaled
  // by f x V(f)^2 with V linear in f from cpu_v_min_ratio at f_min to 1 at f_max).
  double core_active_w = 1.0;
  double cpu_v_min_ratio = 0.6;
  std::string power_basis;
  // Copying a cached file out of the page cache: GB/s of one core.
  double cache_copy_gb_s = 2.0;
  std::string cache_copy_basis;
  // CPU contention (docs/PIPELINE.md "CPU contention"): cores' worth of CPU time the OS and
  // background services keep busy (taken from the online cores before the workers and host
  // threads share them), and a worker's fixed core-ms per minibatch at ref_cpu_khz on ref_arch
  // (the DataLoader's fetch loop, collating the samples, handing the batch to the training
  // process through shared memory), beside the per-sample cost of its format.
  double os_cores = 0;
  double worker_batch_ms_at_ref = 0;
  // The training process's own intake of each minibatch (rebuilding the batch from the worker's
  // shared memory and the pageable host-to-device copy of its input tensor): GB/s of one core at
  // ref_cpu_khz on ref_arch over the minibatch's input bytes; 0: not modelled.
  double host_copy_gb_s = 0;
  // MHz of each online core's clock lost per runnable thread beyond one per core (the busy workers
  // and the host threads): the workers pre-process at f - this x excess threads per core, at
  // least f / 4 (docs/PIPELINE.md "CPU contention"); 0: not modelled.
  double oversubscription_mhz = 0;
  std::string contention_basis;

  // The format of a dataset's samples (its override where it has one); InputError "no sample
  // format for dataset 'x'".
  const SampleFormat& format_of(std::string_view dataset) const;
};

// Core-milliseconds of pre-processing one sample in the given mode, on one core alone:
//   cpu_ms_at_ref x (ref_cpu_khz / f_cpu) / arch_speed  +  MB touched / (bandwidth(f_emc) x eff).
double preprocess_ms_per_sample(const DataloaderModel& model, const SampleFormat& format,
                                const DeviceSpec& device, const PowerMode& mode);

// The page cache's capacity (CacheEstimate, page_cache.hpp) for a device with `ram_gb` of RAM
// training a model of `training_parameters` while serving models of `inference_parameters`.
CacheEstimate cache_capacity(const DataloaderModel& model, double ram_gb,
                             double training_parameters,
                             const std::vector<double>& inference_parameters);

// Core-milliseconds a worker spends on one minibatch beyond its samples' pre-processing, in the
// given mode: worker_batch_ms_at_ref x (ref_cpu_khz / f_cpu) / arch_speed.
double worker_batch_ms(const DataloaderModel& model, const DeviceSpec& device,
                       const PowerMode& mode);

// Core-milliseconds the training process's host thread spends taking in `input_bytes` of a
// minibatch in the given mode: input_bytes / host_copy_gb_s x (ref_cpu_khz / f_cpu) /
// arch_speed; 0 when host_copy_gb_s is 0 (not modelled).
double host_intake_ms(const DataloaderModel& model, double input_bytes, const DeviceSpec& device,
                      const PowerMode& mode);

// Power of one core busy at the mode's CPU frequency, W (core_active_w scaled by f V^2).
double busy_core_power_w(const DataloaderModel& model, const DeviceSpec& device,
                         const PowerMode& mode);

// What the pipeline model needs for one run: the chosen medium, the coefficients, and the
// training dataset's file size and sample format (resolved against the dataset catalog).
struct PipelineData {
  StorageMedium storage;
  DataloaderModel dataloader;
  double bytes_per_sample = 0;  // dataset bytes / samples
  SampleFormat format;          // dataloader.format_of(dataset)
};

}  // namespace fulcrum::models
