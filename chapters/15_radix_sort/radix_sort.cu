// Chapter 15's sort: the host side of the passes (scratch layout, portions,
// the order of launches) and the instances the program and the tests use.
#include "radix_sort.cuh"
#include "radix_sort.hpp"

#include <scan/device.cuh>
#include <scan/error.hpp>

#include <algorithm>
#include <atomic>
#include <string>

namespace scan::ch15 {
namespace {

/// The block of a pass, measured on an H100 (the lab book's shapes). Pairs
/// take 384 threads of 24 keys (80 registers a thread, two blocks an SM),
/// keys alone 512 threads of 16 keys (64 registers). Keys alone and pairs
/// of 8-byte keys also have a wide tile, 448 threads of 32 keys (72
/// registers; ptxas spills about 100 bytes a thread of the uint32 key sort,
/// and the tile is still the faster one), which spreads the per-tile work
/// (the block scan over 256 digits, the look-back) over 14,336 keys
/// instead of 8,192. The wide tile wins once a sort has a few waves of
/// tiles to run and loses below (wide_tiles_pay() decides). 8-byte keys
/// take half the keys a thread, so that a tile's keys take as many bytes.
/// The narrow shapes need about 50 KiB of shared memory a block (every GPU
/// from Turing on holds one), the wide one about 72 KiB.
template <class Key, class Value, bool kWide = false>
struct PassShape {
  static constexpr bool kPairs = !std::is_void_v<Value>;  ///< keys with values
  /// Whether these keys and values have a wide tile: pairs of 4-byte keys
  /// have one shape (384 x 24 was the fastest pair shape in the sweep).
  static constexpr bool kHasWide = !kPairs || sizeof(Key) == 8;
  static_assert(kHasWide || !kWide, "pairs of 4-byte keys have one shape");
  static constexpr int kThreads = kWide ? 448 : kPairs ? 384 : 512;        ///< threads of a block
  static constexpr int kItemsOf4Bytes = kWide ? 32 : kPairs ? 24 : 16;     ///< keys a thread, for 4-byte keys
  static constexpr int kItems = kItemsOf4Bytes / (sizeof(Key) == 8 ? 2 : 1);  ///< keys a thread
  static constexpr int kMinBlocks = 2;                                    ///< blocks an SM that the registers must allow
  static constexpr int kTile = kThreads * kItems;                         ///< keys of a tile
  /// The digit pass of this shape.
  template <int kDigitBits>
  static constexpr auto kPass = onesweep_pass<kDigitBits, Key, Value, kThreads, kItems, kMinBlocks>;
  /// Its shared memory.
  template <int kDigitBits>
  using Storage = PassStorage<kDigitBits, typename KeyBits<Key>::Bits, Value, kThreads, kItems>;
};

/// Whether a sort of n keys (alone, or 8-byte keys with values) takes the
/// wide tile on the current device: where the device holds two wide
/// blocks an SM (Hopper and the A100 do; a T4, with 64 KiB of shared
/// memory a block, or an RTX card, with 100 KiB an SM, does not) and n
/// fills at least two waves of them. With fewer tiles than that the last
/// wave leaves SMs idle for longer, and the narrow tile was the faster one
/// on the H100 (the lab book: 2^22 keys and below). Asked once per device
/// and remembered, like persistent_blocks(), so that a sort makes no
/// runtime query on its timed path.
template <int kDigitBits, class Key, class Value>
bool wide_tiles_pay(std::int64_t n) {
  using Wide = PassShape<Key, Value, true>;
  constexpr std::size_t kBytes = sizeof(typename Wide::template Storage<kDigitBits>);
  if (n < 4 * std::int64_t{Wide::kTile}) return false;  // under two waves on any GPU: nothing to ask
  constexpr int kDevices = 64;
  // Per device: the fewest keys that take the wide tile, plus 1; 0 until asked.
  static std::atomic<std::int64_t> remembered[kDevices];
  int device = 0;
  SCAN_CUDA(cudaGetDevice(&device));
  const bool kept = device >= 0 && device < kDevices;
  std::int64_t fewest = kept ? remembered[device].load(std::memory_order_acquire) - 1 : -1;
  if (fewest < 0) {
    int optin = 0, sms = 0;
    SCAN_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    SCAN_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    fewest = kMaxKeys + 1;  // never
    if (kBytes <= static_cast<std::size_t>(optin)) {
      const int resident = persistent_blocks<Wide::template kPass<kDigitBits>>(Wide::kThreads, kBytes);
      if (resident >= 2 * sms) fewest = 2 * std::int64_t{resident} * Wide::kTile;
    }
    if (kept) remembered[device].store(fewest + 1, std::memory_order_release);
  }
  return n >= fewest;
}

/// Threads of a histogram block.
inline constexpr int kHistogramThreads = 512;

std::size_t round_up(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

/// The scratch memory, carved in order; each piece aligned to 256 bytes.
template <class Key, class Value, int kDigitBits>
struct Layout {
  using Bits = typename KeyBits<Key>::Bits;
  static constexpr int kBins = 1 << kDigitBits;
  static constexpr int kPlaces = int(sizeof(Bits) * 8 / kDigitBits);
  /// Keys of a tile: the smallest tile these keys and values take, so the
  /// state array has room for the most tiles.
  static constexpr int kTile = PassShape<Key, Value>::kTile;
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

template <int kDigitBits, class Key, class Value, class Shape>
void sort_with(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out, std::int64_t n,
               void* scratch, std::size_t scratch_bytes, cudaStream_t stream) {
  using L = Layout<Key, Value, kDigitBits>;
  using Storage = typename Shape::template Storage<kDigitBits>;
  constexpr auto pass = Shape::template kPass<kDigitBits>;
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
      const std::int64_t tiles = (m + Shape::kTile - 1) / Shape::kTile;
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
std::int64_t sort_tile_keys(std::int64_t n) {
  if constexpr (PassShape<Key, Value>::kHasWide) {
    if (wide_tiles_pay<8, Key, Value>(n)) return PassShape<Key, Value, true>::kTile;
  }
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
    if constexpr (PassShape<Key, Value>::kHasWide) {
      if (wide_tiles_pay<kDigitBits, Key, Value>(n)) {
        return sort_with<kDigitBits, Key, Value, PassShape<Key, Value, true>>(keys_in, keys_out, values_in, values_out,
                                                                              n, scratch, scratch_bytes, stream);
      }
    }
    sort_with<kDigitBits, Key, Value, PassShape<Key, Value>>(keys_in, keys_out, values_in, values_out, n, scratch,
                                                             scratch_bytes, stream);
  });
}

#define SCAN_CH15_INSTANCE(Key, Value)                                                                           \
  template std::int64_t sort_tile_keys<Key, Value>(std::int64_t);                                               \
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
