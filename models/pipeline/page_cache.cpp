#include "models/pipeline/page_cache.hpp"

#include <cmath>
#include <numeric>

#include "models/error.hpp"
#include "models/random/rng_streams.hpp"

namespace fulcrum::models {

PageCache::PageCache(double capacity_bytes, std::uint64_t samples, double bytes_per_sample)
    : bytes_per_sample_(bytes_per_sample) {
  if (!(bytes_per_sample > 0) || !std::isfinite(bytes_per_sample)) {
    throw InputError("page cache: bytes per sample must be > 0");
  }
  if (!(capacity_bytes >= 0)) throw InputError("page cache: capacity must be >= 0");
  if (samples >= kNone) throw InputError("page cache: at most 2^32 - 2 files");
  prev_.assign(samples, kNone);
  next_.assign(samples, kNone);
  in_cache_.assign(samples, 0);
  const double files = std::floor(capacity_bytes / bytes_per_sample);
  capacity_files_ =
      files >= static_cast<double>(samples) ? samples : static_cast<std::uint64_t>(files);
}

void PageCache::unlink(Index s) {
  if (prev_[s] != kNone)
    next_[prev_[s]] = next_[s];
  else
    head_ = next_[s];
  if (next_[s] != kNone)
    prev_[next_[s]] = prev_[s];
  else
    tail_ = prev_[s];
  prev_[s] = next_[s] = kNone;
}

void PageCache::push_front(Index s) {
  prev_[s] = kNone;
  next_[s] = head_;
  if (head_ != kNone) prev_[head_] = s;
  head_ = s;
  if (tail_ == kNone) tail_ = s;
}

bool PageCache::access(std::uint64_t sample) {
  const auto s = static_cast<Index>(sample);
  if (in_cache_[s] != 0) {
    unlink(s);
    push_front(s);
    return true;
  }
  if (capacity_files_ == 0) return false;
  if (cached_ == capacity_files_) {
    const Index victim = tail_;
    unlink(victim);
    in_cache_[victim] = 0;
    --cached_;
  }
  push_front(s);
  in_cache_[s] = 1;
  ++cached_;
  return false;
}

std::vector<std::uint32_t> epoch_order(std::uint64_t seed, std::uint64_t epoch, std::uint32_t n) {
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  Rng rng = RngStreams(seed).stream("dataloader/epoch-" + std::to_string(epoch));
  for (std::uint32_t i = n; i > 1; --i) {
    const auto j = static_cast<std::uint32_t>(rng.uniform_below(i));
    std::swap(order[i - 1], order[j]);
  }
  return order;
}

}  // namespace fulcrum::models
