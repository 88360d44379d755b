#include <scan/generate.hpp>
#include <scan/host_parallel.hpp>
#include <scan/segments.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace scan {

std::vector<std::uint8_t> generate_heads(std::int64_t n, double mean, Lengths lengths, std::uint64_t seed) {
  std::vector<std::uint8_t> heads(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)));
  const auto every = static_cast<std::int64_t>(std::max(1.0, mean));
  // A head with probability p = 1/mean: 64 random bits below p * 2^64.
  const double p = 1.0 / std::max(1.0, mean);
  const auto threshold = p >= 1.0 ? ~std::uint64_t{0} : static_cast<std::uint64_t>(std::ldexp(p, 64));
  const Chunks chunks(static_cast<std::int64_t>(heads.size()));
  for_each_chunk(chunks, [&](int k) {
    for (std::int64_t i = chunks.begin(k); i < chunks.end(k); ++i) {
      const bool head = lengths == Lengths::fixed ? i % every == 0
                                                  : p >= 1.0 || random_bits(seed ^ 0x5EC7u, static_cast<std::uint64_t>(i)) < threshold;
      heads[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(i == 0 || head);
    }
  });
  return heads;
}

std::vector<std::int32_t> keys_from_heads(const std::vector<std::uint8_t>& heads) {
  std::vector<std::int32_t> keys(heads.size());
  std::uint32_t segment = 0;
  for (std::size_t i = 0; i < heads.size(); ++i) {
    if (i > 0 && heads[i]) ++segment;
    keys[i] = static_cast<std::int32_t>(segment & 0x7FFFFFFFu);
  }
  return keys;
}

}  // namespace scan
