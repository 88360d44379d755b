/// \file
/// \brief Host-side work split over the CPU's cores: the generators and the
///        verification of large outputs use it.
///
/// Checking a scan of 2^30 elements one element at a time takes minutes; the
/// check is itself a scan, so it splits the same way as chapter 01's blocked
/// two-pass scan: contiguous chunks, one per hardware thread.
#pragma once

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace scan {

/// [0, count) cut into pieces() contiguous chunks.
class Chunks {
 public:
  /// One chunk per hardware thread, none smaller than 2^18 elements
  /// (small inputs stay in one chunk).
  Chunks(std::int64_t count) : count_(count) {
    const std::int64_t threads = std::max(1u, std::thread::hardware_concurrency());
    const std::int64_t wanted = std::clamp<std::int64_t>(count / (std::int64_t{1} << 18), 1, threads);
    size_ = std::max<std::int64_t>((count + wanted - 1) / wanted, 1);
    pieces_ = static_cast<int>(std::max<std::int64_t>(1, (count + size_ - 1) / size_));
  }
  /// Number of chunks (at least 1, even for count = 0).
  int pieces() const { return pieces_; }
  /// First index of chunk k.
  std::int64_t begin(int k) const { return std::min(count_, k * size_); }
  /// One past the last index of chunk k.
  std::int64_t end(int k) const { return std::min(count_, (k + 1) * size_); }

 private:
  std::int64_t count_;
  std::int64_t size_ = 1;
  int pieces_ = 1;
};

/// Calls `work(k)` for every chunk k of `chunks`, each on its own thread
/// (the calling thread does the last one).
template <class Work>
void for_each_chunk(const Chunks& chunks, Work&& work) {
  std::vector<std::thread> pool;
  for (int k = 0; k + 1 < chunks.pieces(); ++k) pool.emplace_back([&work, k] { work(k); });
  work(chunks.pieces() - 1);
  for (auto& thread : pool) thread.join();
}

}  // namespace scan
