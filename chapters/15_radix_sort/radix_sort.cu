// Chapter 15's sort: the host side of the passes (scratch layout, portions,
// the order of launches) and the instances the program and the tests use.
#include "radix_sort.cuh"
#include "radix_sort.hpp"

#include <scan/device.cuh>
#include <scan/error.hpp>

#include <algorithm>
#include <string>

namespace scan::ch15 {
namespace {

/// The block of a pass, measured on an H100 (the lab book's shapes): keys
/// alone take 512 threads of 16 keys, two blocks an SM at 64 registers a
/// thread; pairs take 384 threads of 24 keys (80 registers), a tile of
/// 9,216 keys against 8,192, so that the per-tile work (the block scan over
/// 256 digits, the look-back) is spread over more keys while each key also
/// carries a value. 8-byte keys take half the keys a thread, so a tile's
/// keys stay at 32 KiB (keys) or 36 KiB (pairs) and the shared memory of a
/// block at most about 50 KiB: every GPU from Turing on holds one.
template <class Key, class Value>
struct PassShape {
  static constexpr bool kPairs = !std::is_void_v<Value>;                  ///< keys with values
  static constexpr int kThreads = kPairs ? 384 : 512;                     ///< threads of a block
  static constexpr int kItemsOf4Bytes = kPairs ? 24 : 16;                 ///< keys a thread, for 4-byte keys
  static constexpr int kItems = kItemsOf4Bytes / (sizeof(Key) == 8 ? 2 : 1);  ///< keys a thread
  static constexpr int kMinBlocks = 2;                                    ///< blocks an SM that the registers must allow
  static constexpr int kTile = kThreads * kItems;                         ///< keys of a tile
};

/// Threads of a histogram block.
inline constexpr int kHistogramThreads = 512;

std::size_t round_up(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

/// The scratch memory, carved in order; each piece aligned to 256 bytes.
template <class Key, class Value, int kDigitBits>
struct Layout {
  using Bits = typename KeyBits<Key>::Bits;
  static constexpr int kBins = 1 << kDigitBits;
  static constexpr int kPlaces = int(sizeof(Bits) * 8 / kDigitBits);
  static constexpr int kTile = PassShape<Key, Value>::kTile;  ///< keys of a tile
  std::int64_t portion_tiles = 0;
  std::size_t alt_keys = 0, alt_values = 0, counts = 0, starts = 0, bases = 0, states = 0, total = 0;

  explicit Layout(std::int64_t n) {
    portion_tiles = (std::min(n, kPortion) + kTile - 1) / kTile;
    std::size_t at = 0;
    auto take = [&](std::size_t bytes) {
      const std::size_t here = at;
      at += round_up(bytes);
      return here;
    };
    alt_keys = take(static_cast<std::size_t>(n) * sizeof(Key));
    if constexpr (!std::is_void_v<Value>) alt_values = take(static_cast<std::size_t>(n) * sizeof(Value));
    counts = take(kPlaces * kBins * sizeof(unsigned long long));
    starts = take(kPlaces * kBins * sizeof(std::int64_t));
    bases = take(2 * kBins * sizeof(std::int64_t));
    states = take((static_cast<std::size_t>(portion_tiles) * kBins + 1) * sizeof(std::uint32_t));  // + the ticket
    total = at;
  }
};

template <int kDigitBits, class Key, class Value>
void sort_with(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out, std::int64_t n,
               void* scratch, std::size_t scratch_bytes, cudaStream_t stream) {
  using L = Layout<Key, Value, kDigitBits>;
  using Shape = PassShape<Key, Value>;
  using Storage = PassStorage<kDigitBits, typename KeyBits<Key>::Bits, Value, Shape::kThreads, Shape::kItems>;
  constexpr auto pass = onesweep_pass<kDigitBits, Key, Value, Shape::kThreads, Shape::kItems, Shape::kMinBlocks>;
  constexpr bool kPairs = !std::is_void_v<Value>;
  constexpr int kBins = L::kBins;
  const L layout(n);
  if (scratch_bytes < layout.total) {
    throw UsageError("onesweep_sort: scratch of " + std::to_string(scratch_bytes) + " bytes, needs " +
                     std::to_string(layout.total));
  }
  if (n <= 1) {  // nothing to order
    if (n == 1) {
      SCAN_CUDA(cudaMemcpyAsync(keys_out, keys_in, sizeof(Key), cudaMemcpyDeviceToDevice, stream));
      if constexpr (kPairs) {
        SCAN_CUDA(cudaMemcpyAsync(values_out, values_in, sizeof(Value), cudaMemcpyDeviceToDevice, stream));
      }
    }
    return;
  }
  auto* base = static_cast<unsigned char*>(scratch);
  Key* alt_keys = reinterpret_cast<Key*>(base + layout.alt_keys);
  Value* alt_values = kPairs ? reinterpret_cast<Value*>(base + layout.alt_values) : nullptr;
  auto* counts = reinterpret_cast<unsigned long long*>(base + layout.counts);
  auto* starts = reinterpret_cast<std::int64_t*>(base + layout.starts);
  auto* bases = reinterpret_cast<std::int64_t*>(base + layout.bases);
  auto* states = reinterpret_cast<std::uint32_t*>(base + layout.states);

  // Done once per device and remembered (chapter 11's persistent_blocks()),
  // so that a sort makes no runtime queries on the timed path: the pass's
  // opt-in to more than 48 KiB of shared memory, and a histogram grid of
  // as many blocks as the GPU holds at once.
  persistent_blocks<pass>(Shape::kThreads, sizeof(Storage));
  constexpr auto histograms = digit_histograms<kDigitBits, Key, kHistogramThreads>;
  const int histogram_blocks = persistent_blocks<histograms>(kHistogramThreads, 0);

  // Every place's histogram in one read, then where each digit starts.
  SCAN_CUDA(cudaMemsetAsync(counts, 0, L::kPlaces * kBins * sizeof(unsigned long long), stream));
  histograms<<<histogram_blocks, kHistogramThreads, 0, stream>>>(keys_in, n, counts);
  SCAN_CUDA_LAUNCH();
  digit_starts<kDigitBits><<<L::kPlaces, kStartThreads<kDigitBits>, 0, stream>>>(counts, starts);
  SCAN_CUDA_LAUNCH();

  const Key* from = keys_in;
  const Value* values_from = values_in;
  for (int place = 0; place < L::kPlaces; ++place) {
    // The last pass writes keys_out; the passes before it alternate so that it does.
    const bool to_out = (L::kPlaces - 1 - place) % 2 == 0;
    Key* to = to_out ? keys_out : alt_keys;
    Value* values_to = to_out ? values_out : alt_values;
    const std::int64_t* digit_base = starts + place * kBins;
    int next = 0;
    // Portions of at most 2^28 keys: each one's last tile hands the next
    // portion where its digits start (next_base).
    for (std::int64_t begin = 0; begin < n; begin += kPortion) {
      const std::int64_t m = std::min(kPortion, n - begin);
      const std::int64_t tiles = (m + L::kTile - 1) / L::kTile;
      SCAN_CUDA(cudaMemsetAsync(states, 0, (static_cast<std::size_t>(tiles) * kBins + 1) * sizeof(std::uint32_t), stream));
      PassArgs<Key, Value> a{};
      a.keys_in = from + begin;
      a.keys_out = to;
      if constexpr (kPairs) {
        a.values_in = values_from + begin;
        a.values_out = values_to;
      }
      a.n = m;
      a.shift = place * kDigitBits;
      a.base = digit_base;
      a.next_base = bases + next * kBins;
      a.states = states;
      a.ticket = states + tiles * kBins;
      pass<<<static_cast<unsigned>(tiles), Shape::kThreads, sizeof(Storage), stream>>>(a);
      SCAN_CUDA_LAUNCH();
      digit_base = bases + next * kBins;
      next ^= 1;
    }
    from = to;
    values_from = values_to;
  }
}

template <class Key, class Value, class F>
void with_digit_bits(int digit_bits, F&& f) {
  if (!digit_bits_supported<Key, Value>(digit_bits)) {
    throw UsageError("onesweep_sort: digits of " + std::to_string(digit_bits) +
                     " bits are built for 32-bit unsigned keys alone (8 bits for every key)");
  }
  if constexpr (std::is_same_v<Key, std::uint32_t> && std::is_void_v<Value>) {
    if (digit_bits == 1) return f.template operator()<1>();
    if (digit_bits == 4) return f.template operator()<4>();
  }
  f.template operator()<8>();
}

}  // namespace

template <class Key, class Value>
std::int64_t sort_tile_keys() {
  return PassShape<Key, Value>::kTile;
}

template <class Key, class Value>
std::size_t sort_scratch_bytes(std::int64_t n, int digit_bits) {
  std::size_t bytes = 0;
  with_digit_bits<Key, Value>(digit_bits, [&]<int kDigitBits>() {
    bytes = Layout<Key, Value, kDigitBits>(std::max<std::int64_t>(n, 0)).total;
  });
  return bytes;
}

template <class Key, class Value>
void onesweep_sort(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out, std::int64_t n,
                   int digit_bits, void* scratch, std::size_t scratch_bytes, cudaStream_t stream) {
  if (n < 0 || n > kMaxKeys) {
    throw UsageError("onesweep_sort: n = " + std::to_string(n) + " is outside 0 to 2^32 - 1");
  }
  with_digit_bits<Key, Value>(digit_bits, [&]<int kDigitBits>() {
    sort_with<kDigitBits, Key, Value>(keys_in, keys_out, values_in, values_out, n, scratch, scratch_bytes, stream);
  });
}

#define SCAN_CH15_INSTANCE(Key, Value)                                                                           \
  template std::int64_t sort_tile_keys<Key, Value>();                                                            \
  template std::size_t sort_scratch_bytes<Key, Value>(std::int64_t, int);                                       \
  template void onesweep_sort<Key, Value>(const Key*, Key*, const Value*, Value*, std::int64_t, int, void*,     \
                                          std::size_t, cudaStream_t);
SCAN_CH15_INSTANCE(std::uint32_t, void)
SCAN_CH15_INSTANCE(std::int32_t, void)
SCAN_CH15_INSTANCE(float, void)
SCAN_CH15_INSTANCE(std::uint64_t, void)
SCAN_CH15_INSTANCE(std::uint32_t, std::uint32_t)
SCAN_CH15_INSTANCE(std::int32_t, std::uint32_t)
SCAN_CH15_INSTANCE(float, std::uint32_t)
SCAN_CH15_INSTANCE(std::uint64_t, std::uint32_t)
#undef SCAN_CH15_INSTANCE

}  // namespace scan::ch15
