#include <scan/generate.hpp>

#include <algorithm>
#include <cstdint>
#include <thread>
#include <type_traits>
#include <vector>

namespace scan {
namespace {

/// An integer in [lo, hi] from 64 random bits. Small spans use the top 32
/// bits times the span (multiply-shift), larger ones a remainder; the bias of
/// either is far too small to matter for test data.
std::int64_t in_range(std::uint64_t bits, std::int64_t lo, std::int64_t hi) {
  const auto span = static_cast<std::uint64_t>(hi - lo) + 1;
  const std::uint64_t offset = span <= (std::uint64_t{1} << 32) ? ((bits >> 32) * span) >> 32
                                                                : bits % span;
  return lo + static_cast<std::int64_t>(offset);
}

template <class T>
T value_at(std::uint64_t seed, std::uint64_t i, Distribution dist) {
  const std::uint64_t bits = random_bits(seed, i);
  if (dist == Distribution::small_integers) return static_cast<T>(in_range(bits, -8, 8));
  if constexpr (std::is_same_v<T, std::int32_t>) {
    return static_cast<T>(in_range(bits, -1000, 1000));
  } else if constexpr (std::is_same_v<T, std::uint32_t>) {
    return static_cast<T>(bits >> 32);
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    return in_range(bits, -(std::int64_t{1} << 40), std::int64_t{1} << 40);
  } else {
    // Multiples of 1/256 in [-4, 4]: 8 fraction bits.
    return static_cast<T>(in_range(bits, -1024, 1024)) / static_cast<T>(256);
  }
}

}  // namespace

template <class T>
std::vector<T> generate_input(std::int64_t n, std::uint64_t seed, Distribution dist) {
  std::vector<T> values(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)));
  const auto fill = [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) values[i] = value_at<T>(seed, i, dist);
  };
  // Each element depends only on (seed, i), so threads give the same array.
  const std::size_t count = values.size();
  const unsigned threads = count < (1u << 20) ? 1u : std::max(1u, std::thread::hardware_concurrency());
  if (threads == 1) {
    fill(0, count);
    return values;
  }
  std::vector<std::thread> pool;
  const std::size_t chunk = (count + threads - 1) / threads;
  for (unsigned t = 0; t < threads; ++t) {
    const std::size_t begin = std::min(count, t * chunk);
    const std::size_t end = std::min(count, begin + chunk);
    pool.emplace_back(fill, begin, end);
  }
  for (auto& thread : pool) thread.join();
  return values;
}

template std::vector<std::int32_t> generate_input(std::int64_t, std::uint64_t, Distribution);
template std::vector<std::uint32_t> generate_input(std::int64_t, std::uint64_t, Distribution);
template std::vector<std::int64_t> generate_input(std::int64_t, std::uint64_t, Distribution);
template std::vector<float> generate_input(std::int64_t, std::uint64_t, Distribution);
template std::vector<double> generate_input(std::int64_t, std::uint64_t, Distribution);

}  // namespace scan
