// PageCache: the Linux page cache over a dataset's sample files, as the data-pipeline model sees
// it -- a least-recently-used set of whole files within a byte capacity (the RAM left after the
// OS, the training process and its GPU allocations: cache_capacity()). Every file of a dataset
// has the same size (dataset bytes / samples). Starts empty: the studies drop caches before each
// run.
//
//   PageCache cache(capacity_bytes, samples, bytes_per_sample);
//   bool hit = cache.access(sample);    // a miss reads the file and caches it, evicting the LRU
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fulcrum::models {

class PageCache {
 public:
  // Throws InputError when bytes_per_sample <= 0, capacity < 0 or samples >= 2^32 - 1.
  PageCache(double capacity_bytes, std::uint64_t samples, double bytes_per_sample);

  // Reads sample `sample` (< samples): true when it was cached (it becomes the most recently
  // used); on a miss it is cached, evicting least recently used files to make room. A file
  // larger than the whole cache is never cached.
  bool access(std::uint64_t sample);

  bool contains(std::uint64_t sample) const { return in_cache_[sample] != 0; }
  std::uint64_t cached_files() const { return cached_; }
  std::uint64_t capacity_files() const { return capacity_files_; }
  double bytes_per_sample() const { return bytes_per_sample_; }

 private:
  // Sample indices in the list: 32 bits (a dataset of at most 2^32 - 1 files) halve its memory.
  using Index = std::uint32_t;
  static constexpr Index kNone = ~Index{0};
  void unlink(Index s);
  void push_front(Index s);

  std::uint64_t capacity_files_ = 0;
  double bytes_per_sample_ = 0;
  std::vector<Index> prev_, next_;  // intrusive LRU list, most recent at head_
  std::vector<unsigned char> in_cache_;
  Index head_ = kNone, tail_ = kNone;
  std::uint64_t cached_ = 0;
};

// What the page cache can hold: device RAM minus what the OS, the training process (framework,
// CUDA context) and the GPU allocations (model state) keep resident. RAM is shared by CPU and
// GPU on a Jetson, so a bigger model leaves less cache.
struct CacheEstimate {
  double ram_gb = 0;
  double os_gb = 0;
  double processes_gb = 0;    // training process, plus one per inference stream
  double gpu_gb = 0;          // model state on the GPU: parameters x bytes per parameter
  double capacity_bytes = 0;  // max(0, ram - os - processes - gpu), in bytes (1 GB = 1e9 B)
};

// A random order of the samples 0..n-1 for epoch `epoch`: Fisher-Yates with the run's seeded
// stream "dataloader/epoch-<epoch>" (models/random), fresh every epoch, the same for a seed.
std::vector<std::uint32_t> epoch_order(std::uint64_t seed, std::uint64_t epoch, std::uint32_t n);

}  // namespace fulcrum::models
