#include <scan/generate.hpp>
#include <scan/host_parallel.hpp>

#include <cmath>
#include <cstdint>
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

/// The telescoping sequence's f_i, in [-2, 2], as a W; f_{-1} = 0.
template <class W>
W telescope_point(std::uint64_t seed, std::int64_t i, Distribution dist) {
  if (i < 0) return W(0);
  const std::uint64_t bits = random_bits(seed, static_cast<std::uint64_t>(i));
  if (dist == Distribution::typical) {
    // A multiple of 1/256: every range sum stays a multiple of 1/256 below 4.
    return static_cast<W>(in_range(bits, -512, 512)) / W(256);
  }
  return W(4) * std::ldexp(static_cast<W>(bits), -64) - W(2);  // 64 random bits
}

template <class T>
T value_at(std::uint64_t seed, std::int64_t i, Distribution dist) {
  if constexpr (std::is_floating_point_v<T>) {
    // x_i = f_i - f_{i-1}, so the prefix sum of x_0..x_i is f_i: exactly
    // for the typical values. Real-valued f_i have more bits than T (they
    // are taken in a wider type), so each x_i is rounded once to T and the
    // sums of x no longer fall on numbers T can hold: additions round.
    using Wide = std::conditional_t<std::is_same_v<T, float>, double, long double>;
    return static_cast<T>(telescope_point<Wide>(seed, i, dist) - telescope_point<Wide>(seed, i - 1, dist));
  } else {
    const std::uint64_t bits = random_bits(seed, static_cast<std::uint64_t>(i));
    if constexpr (std::is_same_v<T, std::int32_t>) {
      return static_cast<T>(in_range(bits, -1000, 1000));
    } else if constexpr (std::is_same_v<T, std::uint32_t>) {
      return static_cast<T>(bits >> 32);
    } else {
      static_assert(std::is_same_v<T, std::int64_t>, "unsupported element type");
      return in_range(bits, -(std::int64_t{1} << 40), std::int64_t{1} << 40);
    }
  }
}

}  // namespace

template <class T>
std::vector<T> generate_input(std::int64_t n, std::uint64_t seed, Distribution dist) {
  std::vector<T> values(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)));
  // Each element depends only on (seed, i), so threads give the same array.
  const Chunks chunks(static_cast<std::int64_t>(values.size()));
  for_each_chunk(chunks, [&](int k) {
    for (std::int64_t i = chunks.begin(k); i < chunks.end(k); ++i) values[i] = value_at<T>(seed, i, dist);
  });
  return values;
}

template std::vector<std::int32_t> generate_input(std::int64_t, std::uint64_t, Distribution);
template std::vector<std::uint32_t> generate_input(std::int64_t, std::uint64_t, Distribution);
template std::vector<std::int64_t> generate_input(std::int64_t, std::uint64_t, Distribution);
template std::vector<float> generate_input(std::int64_t, std::uint64_t, Distribution);
template std::vector<double> generate_input(std::int64_t, std::uint64_t, Distribution);

}  // namespace scan
