/// \file
/// \brief Chapter 15: an LSD radix sort whose every digit pass is one sweep
///        over the keys with a decoupled look-back over the tiles' digit
///        counts (the Onesweep idea of Adinets and Merrill, 2022), for
///        digits of 1, 4 or 8 bits.
#pragma once

#include <cuda/atomic>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace scan::ch15 {

inline constexpr int kWarp = 32;  ///< threads of a warp

// ---------------------------------------------------------------------------
// Keys as unsigned bits whose order is the keys' order.

// [key bits]
/// The unsigned integer of the same width as `Key`, and the two maps between
/// them: `to_bits` preserves order (a < b exactly when to_bits(a) <
/// to_bits(b) as unsigned numbers), `from_bits` undoes it.
template <class Key>
struct KeyBits;

/// Unsigned keys are their own bits.
template <>
struct KeyBits<std::uint32_t> {
  using Bits = std::uint32_t;  ///< the bits the sort orders
  /// The key's bits.
  __host__ __device__ static Bits to_bits(std::uint32_t k) { return k; }
  /// The key of these bits.
  __host__ __device__ static std::uint32_t from_bits(Bits b) { return b; }
};

/// Unsigned keys are their own bits.
template <>
struct KeyBits<std::uint64_t> {
  using Bits = std::uint64_t;  ///< the bits the sort orders
  /// The key's bits.
  __host__ __device__ static Bits to_bits(std::uint64_t k) { return k; }
  /// The key of these bits.
  __host__ __device__ static std::uint64_t from_bits(Bits b) { return b; }
};

/// Two's complement: flipping the sign bit puts the negatives first.
template <>
struct KeyBits<std::int32_t> {
  using Bits = std::uint32_t;  ///< the bits the sort orders
  /// The key's bits, sign bit flipped.
  __host__ __device__ static Bits to_bits(std::int32_t k) { return static_cast<Bits>(k) ^ 0x80000000u; }
  /// The key of these bits: the sign bit flipped back.
  __host__ __device__ static std::int32_t from_bits(Bits b) { return static_cast<std::int32_t>(b ^ 0x80000000u); }
};

/// IEEE 754: a positive float's bits already sort; setting its sign bit puts
/// it after every negative. A negative's bits sort backwards: flip them all.
/// The order is IEEE 754's totalOrder: -NaN, -inf, ..., -0, +0, ..., +inf,
/// +NaN. Written without a branch: with one, the float sort ran about a
/// third slower (the lab book).
template <>
struct KeyBits<float> {
  using Bits = std::uint32_t;  ///< the bits the sort orders
  /// The key's bits: a negative's all flipped, a positive's sign bit set.
  __host__ __device__ static Bits to_bits(float k) {
    Bits b;
    std::memcpy(&b, &k, sizeof b);
    const Bits negative = 0u - (b >> 31);  // all ones for a negative, else zero
    return b ^ (negative | 0x80000000u);
  }
  /// The key of these bits: the flips undone.
  __host__ __device__ static float from_bits(Bits b) {
    const Bits was_negative = (b >> 31) - 1u;  // all ones where the sign bit is now clear
    b ^= was_negative | 0x80000000u;
    float k;
    std::memcpy(&k, &b, sizeof k);
    return k;
  }
};
// [key bits]

/// The digit of `bits` that starts at bit `shift`, kDigitBits wide.
template <int kDigitBits, class Bits>
__host__ __device__ inline int digit_of(Bits bits, int shift) {
  return static_cast<int>((bits >> shift) & ((Bits{1} << kDigitBits) - 1));
}

// [one digit]
/// Whether every key of a warp's slice (kItems keys a lane) holds one digit.
/// A lane's keys share a digit exactly when the AND and the OR of their bits
/// have the same digit; the warp's do when every lane's AND and OR give lane
/// 0's. Skewed inputs are made of such slices: all equal keys in every pass,
/// and after its first pass any input with few distinct keys.
template <int kDigitBits, class Bits, int kItems>
__device__ inline bool warp_keys_share_digit(const Bits (&bits)[kItems], int shift) {
  Bits all = bits[0], any = bits[0];
#pragma unroll
  for (int r = 1; r < kItems; ++r) {
    all &= bits[r];
    any |= bits[r];
  }
  const int low = digit_of<kDigitBits>(all, shift), high = digit_of<kDigitBits>(any, shift);
  const int first = __shfl_sync(0xffffffffu, low, 0);
  return __all_sync(0xffffffffu, low == first && high == first);
}
// [one digit]

// ---------------------------------------------------------------------------
// Before the passes: every digit place's histogram in one read of the keys.

// [histograms]
/// Counts, for every digit place, how many keys hold each digit:
/// counts[place * kBins + d]. Each block counts a strided share of the keys
/// in shared memory (one atomic per key and place) and adds its counts to the
/// global ones once.
template <int kDigitBits, class Key, int kThreads>
__global__ void __launch_bounds__(kThreads) digit_histograms(const Key* keys, std::int64_t n,
                                                             unsigned long long* counts) {
  using Bits = typename KeyBits<Key>::Bits;
  constexpr int kBins = 1 << kDigitBits;
  constexpr int kPlaces = int(sizeof(Bits) * 8 / kDigitBits);
  constexpr int kPerVector = 16 / int(sizeof(Key));  // keys per 16-byte load
  __shared__ unsigned int local[kPlaces][kBins];
  for (int k = threadIdx.x; k < kPlaces * kBins; k += kThreads) (&local[0][0])[k] = 0;
  __syncthreads();
  auto count = [&](Key key) {
    const Bits bits = KeyBits<Key>::to_bits(key);
#pragma unroll
    for (int place = 0; place < kPlaces; ++place) atomicAdd(&local[place][digit_of<kDigitBits>(bits, place * kDigitBits)], 1u);
  };
  // 16-byte loads over the whole vectors, then the last few keys one by
  // one; keys that do not start on 16 bytes (a pointer into an array) are
  // all read one by one.
  const bool aligned = reinterpret_cast<std::uintptr_t>(keys) % 16 == 0;
  const std::int64_t vectors = aligned ? n / kPerVector : 0;
  const uint4* vec = reinterpret_cast<const uint4*>(keys);
  const std::int64_t stride = std::int64_t{gridDim.x} * kThreads;
  for (std::int64_t v = std::int64_t{blockIdx.x} * kThreads + threadIdx.x; v < vectors; v += stride) {
    const uint4 raw = vec[v];
    Key k[kPerVector];
    std::memcpy(k, &raw, sizeof raw);
#pragma unroll
    for (int j = 0; j < kPerVector; ++j) count(k[j]);
  }
  for (std::int64_t i = vectors * kPerVector + std::int64_t{blockIdx.x} * kThreads + threadIdx.x; i < n; i += stride)
    count(keys[i]);
  __syncthreads();
  for (int k = threadIdx.x; k < kPlaces * kBins; k += kThreads) {
    const unsigned int c = (&local[0][0])[k];
    if (c != 0) atomicAdd(&counts[k], static_cast<unsigned long long>(c));
  }
}

/// Threads of digit_starts(): a whole warp at least.
template <int kDigitBits>
inline constexpr int kStartThreads = (1 << kDigitBits) < kWarp ? kWarp : (1 << kDigitBits);

/// Turns each place's counts into exclusive starts: where the keys with
/// digit d begin in that pass's output. One block per place, a thread per
/// digit (chapter 08's two-level scan: warps, then the warps' totals).
template <int kDigitBits>
__global__ void __launch_bounds__(kStartThreads<kDigitBits>) digit_starts(const unsigned long long* counts,
                                                                          std::int64_t* starts) {
  constexpr int kBins = 1 << kDigitBits;
  __shared__ unsigned long long warp_sums[kStartThreads<kDigitBits> / kWarp];
  const int d = threadIdx.x, lane = d % kWarp, warp = d / kWarp;
  const unsigned long long c = d < kBins ? counts[blockIdx.x * kBins + d] : 0;
  unsigned long long inclusive = c;
  for (int offset = 1; offset < kWarp; offset *= 2) {
    const unsigned long long up = __shfl_up_sync(0xffffffffu, inclusive, offset);
    if (lane >= offset) inclusive += up;
  }
  if (lane == kWarp - 1) warp_sums[warp] = inclusive;
  __syncthreads();
  unsigned long long before = 0;
  for (int w = 0; w < warp; ++w) before += warp_sums[w];
  if (d < kBins) starts[blockIdx.x * kBins + d] = static_cast<std::int64_t>(before + inclusive - c);
}
// [histograms]

// ---------------------------------------------------------------------------
// One pass: rank, look back over digit counts, scatter.

/// A tile's count of one digit as the look-back sees it: 2 bits of status
/// and 30 of count in one 32-bit word, so that one load reads both (chapter
/// 10's packed state). A launch sorts at most kPortion keys, so a count
/// always fits in 30 bits.
namespace state {
inline constexpr std::uint32_t kAggregate = 1u << 30;  ///< the tile's own count
inline constexpr std::uint32_t kPrefix = 2u << 30;     ///< the count over this tile and all before it
inline constexpr std::uint32_t kStatusMask = 3u << 30;  ///< the status bits: 0 while the tile has published nothing
inline constexpr std::uint32_t kCountMask = (1u << 30) - 1;  ///< the count bits
}  // namespace state

/// Keys per launch of a pass: counts stay below 2^30, and the state array
/// (tiles x bins words) stays small enough to clear quickly.
inline constexpr std::int64_t kPortion = std::int64_t{1} << 28;

/// What a pass's kernel needs. Output positions are 32-bit: the sort takes
/// fewer than 2^32 keys.
template <class Key, class Value>
struct PassArgs {
  const Key* keys_in;          ///< this portion's keys
  Key* keys_out;               ///< the whole output
  const Value* values_in;      ///< this portion's values (pairs), else nullptr
  Value* values_out;           ///< the whole output of values (pairs)
  std::int64_t n;              ///< keys in this portion
  int shift;                   ///< the digit's lowest bit
  const std::int64_t* base;    ///< per digit: where this portion's keys with that digit start
  std::int64_t* next_base;     ///< written by the portion's last tile: base plus this portion's counts
  std::uint32_t* states;       ///< tiles x bins packed counts, zero before the launch
  unsigned int* ticket;        ///< zero before the launch
};

/// The shared memory of a pass.
template <int kDigitBits, class Bits, class Value, int kThreads, int kItems>
struct PassStorage {
  static constexpr int kBins = 1 << kDigitBits;    ///< digits of a pass
  static constexpr int kWarps = kThreads / kWarp;  ///< warps of a block
  static constexpr int kTile = kThreads * kItems;  ///< keys of a tile
  /// Per warp and digit: the warp's count, then where the warp's keys with
  /// that digit start in the tile's digit order. The spare word a row is
  /// for the registers: with rows of kBins words ptxas (CUDA 13.0, sm_90)
  /// spilled 164 bytes a thread in the int32 pair sort, against 28.
  unsigned int warp_digit[kWarps][kBins + 1];
  unsigned int warp_totals[kWarps];   ///< the block scan over digits: each warp's total
  std::uint32_t global_shift[kBins];  ///< output index minus position in the tile's digit order
  unsigned int tile_id;               ///< the tile this block took from the ticket
  /// During the ranking, the lane masks; then the tile in digit order: the
  /// keys, then (pairs) the values. The masks (for 8-bit digits 2 x 1 KiB a
  /// warp) take no more room than the keys (the static_assert below).
  union {
    /// Per warp and digit, the lanes whose key in this round holds the
    /// digit; two sets, taken in turn by consecutive rounds. Zero between uses.
    unsigned int lane_masks[2][kWarps][kBins];
    Bits keys[kTile];  ///< the tile's keys (as bits) in digit order
    std::conditional_t<std::is_void_v<Value>, Bits, Value> values[kTile];  ///< then its values, in the same order
  };
  static_assert(sizeof(lane_masks) <= sizeof(keys), "the lane masks fit in the keys' room");
};

// [packed places]
/// The places of a thread's kCount keys in the tile's digit order, two to a
/// 32-bit register. A place is below the tile's size (at most 2^16), so 16
/// bits hold it. Halving the registers the places take is what keeps a pass
/// within 64 registers a thread without spilling to local memory (ptxas on
/// sm_90: 108 bytes a thread spilled for 32-bit keys with a place a
/// register, none with two).
template <int kCount>
struct PackedPlaces {
  unsigned int words[(kCount + 1) / 2] = {};  ///< place r: the low half of words[r / 2] for even r, the high for odd
  /// The shift of place r's half. After unrolling r is a constant, and so is this.
  static __device__ __forceinline__ int half_shift(int r) { return 16 * (r % 2); }
  /// Place r.
  __device__ __forceinline__ unsigned int get(int r) const { return (words[r / 2] >> half_shift(r)) & 0xffffu; }
  /// Sets place r to `place` (below 2^16).
  __device__ __forceinline__ void set(int r, unsigned int place) {
    words[r / 2] = (words[r / 2] & ~(0xffffu << half_shift(r))) | (place << half_shift(r));
  }
};
// [packed places]

// kit: region digit-walk from "std::int64_t exclusive = 0;"
// kit: to "if (tile_begin + tile_size == a.n) a.next_base[d] = base + exclusive + count;  // the portion's last tile"
// kit: todo Step 4 of sort_tile() for digit d, by thread d: how many keys with digit d the tiles
// kit: todo before this one hold (chapter 10's serial walk, over counts). Tile j's word for digit d is
// kit: todo a.states[j * kBins + d]: status bits state::kAggregate (tile j's own count) or state::kPrefix
// kit: todo (the count over tiles 0 to j), 0 while tile j has published nothing; the count is
// kit: todo word & state::kCountMask. Walk back from tile - 1: wait while the status is 0, add the count,
// kit: todo stop after the first kPrefix. Read and write the words through cuda::atomic_ref<std::uint32_t,
// kit: todo cuda::thread_scope_device> (relaxed is enough: only counts pass, no keys). Then every tile but
// kit: todo tile 0 (its prefix went out in step 2) publishes kPrefix | (the sum + count);
// kit: todo s.global_shift[d] = a.base[d] + the sum - digit_start (a key's output index minus its place in
// kit: todo the tile's digit order, as a 32-bit unsigned number); and the portion's last tile
// kit: todo (tile_begin + tile_size == a.n) sets a.next_base[d] = a.base[d] + the sum + count.
// kit: stub s.global_shift[d] = static_cast<std::uint32_t>(a.base[d] - digit_start);
// [pass tile]
/// The work of one tile of a pass; kWhole: the tile is full, so no key
/// needs a bounds check (every tile but a portion's last).
///
/// 1. Load the tile warp by warp (warp w owns a contiguous slice, so within a
///    warp's round lane order is input order) and rank each key among the
///    warp's keys with the same digit. In each round every lane sets its bit
///    in its digit's lane mask and reads the mask back: the lanes with its
///    digit; the lowest of them reads and bumps the warp's counter for the
///    digit. A warp whose keys all hold one digit skips this (keys alone;
///    pairs test each round instead: see the loop).
/// 2. Per digit (thread d owns digit d): the tile's count, published at once
///    as the tile's aggregate; a block scan of the counts gives where each
///    digit starts in the tile's digit order, and each warp's start in it.
/// 3. Every key to its place in the tile's digit order, in shared memory.
/// 4. Thread d looks back over earlier tiles' counts of digit d (chapter
///    10's serial walk, one walk per digit, all at once) and publishes the
///    inclusive count: where the digit's keys of this tile start in the output.
/// 5. Consecutive threads write consecutive keys of the digit order, so keys
///    with the same digit go to consecutive output slots. Values (pairs)
///    follow the same way, loaded only now.
template <bool kWhole, int kDigitBits, class Key, class Value, int kThreads, int kItems>
__device__ __forceinline__ void sort_tile(const PassArgs<Key, Value>& a,
                                          PassStorage<kDigitBits, typename KeyBits<Key>::Bits, Value, kThreads, kItems>& s,
                                          unsigned int tile, std::int64_t tile_begin, int tile_size) {
  using Bits = typename KeyBits<Key>::Bits;
  constexpr int kBins = 1 << kDigitBits;
  constexpr int kWarps = kThreads / kWarp;
  constexpr bool kPairs = !std::is_void_v<Value>;
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  auto in_tile = [&](int at) { return kWhole || at < tile_size; };
  auto digit = [&](Bits b) { return digit_of<kDigitBits>(b, a.shift); };
  const Key* tile_keys = a.keys_in + tile_begin;
  const int warp_first = warp * kWarp * kItems;  // this warp's slice of the tile

  // 1. Load and rank. All loads first, so that they are all in flight at once.
  Bits bits[kItems];
#pragma unroll
  for (int r = 0; r < kItems; ++r) {
    const int at = warp_first + r * kWarp + lane;
    bits[r] = in_tile(at) ? KeyBits<Key>::to_bits(tile_keys[at]) : Bits{0};
  }
  static_assert(kThreads * kItems <= (1 << 16), "a place must fit in 16 bits");
  PackedPlaces<kItems> place;  // first the rank among the warp's keys with the same digit, then the place in the tile
  // A warp whose keys all hold one digit needs no ranking: its key of round
  // r in lane l is the (32 r + l)-th with that digit (step 3 says so). With
  // values, the test's two paths cost more registers than a pass has, so
  // the pair sort tests each round instead, in the loop.
  bool one_digit_warp = false;
  if constexpr (kWhole && !kPairs) one_digit_warp = warp_keys_share_digit<kDigitBits>(bits, a.shift);
  if (one_digit_warp) {
    if (lane == 0) s.warp_digit[warp][digit(bits[0])] = kItems * kWarp;
  } else {
    const unsigned int lane_bit = 1u << lane, lanes_before = lane_bit - 1;
    int led = -1;  // the digit this lane led last round: it clears that digit's mask
#pragma unroll
    for (int r = 0; r < kItems; ++r) {
      const bool valid = in_tile(warp_first + r * kWarp + lane);
      const int d = digit(bits[r]);
      unsigned int* masks = s.lane_masks[r % 2][warp];
      // Pairs in a whole tile: a round whose lanes all hold one digit sets
      // no bit (32 lanes on one word would wait on each other).
      const bool one_digit = kPairs && kWhole && __all_sync(0xffffffffu, d == __shfl_sync(0xffffffffu, d, 0));
      if (valid && !one_digit) atomicOr(&masks[d], lane_bit);
      // Last round's masks: every lane read them before last round's closing
      // __syncwarp(), and the round after this one sets bits in them again.
      if (led >= 0) s.lane_masks[(r + 1) % 2][warp][led] = 0;
      __syncwarp();  // every bit of this round is set
      const unsigned int peers = one_digit ? 0xffffffffu : valid ? masks[d] : lane_bit;
      const int leader = __ffs(peers) - 1;
      unsigned int before = 0;
      led = -1;
      if (lane == leader && valid) {
        before = s.warp_digit[warp][d];
        s.warp_digit[warp][d] = before + __popc(peers);
        if (!one_digit) led = d;
      }
      before = __shfl_sync(0xffffffffu, before, leader);
      place.set(r, before + __popc(peers & lanes_before));
      __syncwarp();  // the next round's leader for this digit may be another lane: it reads this write
    }
  }
  __syncthreads();

  // 2. Per digit: the tile's count (published), the digit's start in the
  // tile (a scan over the digits by the whole block; threads past the last
  // digit add zeros), each warp's start.
  const int d = threadIdx.x;  // thread d < kBins owns digit d
  unsigned int count = 0;
  if (d < kBins) {
#pragma unroll
    for (int w = 0; w < kWarps; ++w) count += s.warp_digit[w][d];
    const std::uint32_t word = (tile == 0 ? state::kPrefix : state::kAggregate) | count;
    cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device>(a.states[std::int64_t{tile} * kBins + d])
        .store(word, cuda::memory_order_relaxed);
  }
  unsigned int inclusive = count;
#pragma unroll
  for (int offset = 1; offset < kWarp; offset *= 2) {
    const unsigned int up = __shfl_up_sync(0xffffffffu, inclusive, offset);
    if (lane >= offset) inclusive += up;
  }
  if (lane == kWarp - 1) s.warp_totals[warp] = inclusive;
  __syncthreads();
  unsigned int digit_start = inclusive - count;
  if (d < kBins) {
    for (int w = 0; w < warp; ++w) digit_start += s.warp_totals[w];
    unsigned int running = digit_start;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      const unsigned int c = s.warp_digit[w][d];
      s.warp_digit[w][d] = running;
      running += c;
    }
  }
  __syncthreads();

  // 3. Into the tile's digit order.
#pragma unroll
  for (int r = 0; r < kItems; ++r) {
    if (in_tile(warp_first + r * kWarp + lane)) {
      const unsigned int rank = one_digit_warp ? r * kWarp + lane : place.get(r);
      place.set(r, rank + s.warp_digit[warp][digit(bits[r])]);
      s.keys[place.get(r)] = bits[r];
    }
  }

  // 4. Look back, digit d by thread d. The counts are relaxed atomics: the
  // keys of earlier tiles are not read here, only their counts.
  if (d < kBins) {
    std::int64_t exclusive = 0;
    for (long long j = static_cast<long long>(tile) - 1; j >= 0; --j) {
      cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device> slot(a.states[j * kBins + d]);
      std::uint32_t word;
      while (((word = slot.load(cuda::memory_order_relaxed)) & state::kStatusMask) == 0) {
      }
      exclusive += word & state::kCountMask;
      if (word & state::kPrefix) break;
    }
    if (tile != 0) {
      cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device>(a.states[std::int64_t{tile} * kBins + d])
          .store(state::kPrefix | static_cast<std::uint32_t>(exclusive + count), cuda::memory_order_relaxed);
    }
    const std::int64_t base = a.base[d];
    s.global_shift[d] = static_cast<std::uint32_t>(base + exclusive - digit_start);
    if (tile_begin + tile_size == a.n) a.next_base[d] = base + exclusive + count;  // the portion's last tile
  }
  __syncthreads();

  // 5. Out: keys, then values. Unsigned arithmetic wraps, so the shift of a
  // digit that starts before its place in the tile still lands right.
  int out_digit[kPairs ? kItems : 1];
#pragma unroll
  for (int r = 0; r < kItems; ++r) {
    const int pos = r * kThreads + threadIdx.x;
    if (in_tile(pos)) {
      const Bits b = s.keys[pos];
      if constexpr (kPairs) out_digit[r] = digit(b);
      a.keys_out[s.global_shift[digit(b)] + static_cast<std::uint32_t>(pos)] = KeyBits<Key>::from_bits(b);
    }
  }
  if constexpr (kPairs) {
    Value values[kItems];
#pragma unroll
    for (int r = 0; r < kItems; ++r) {
      const int at = warp_first + r * kWarp + lane;
      if (in_tile(at)) values[r] = a.values_in[tile_begin + at];
    }
    __syncthreads();  // every key is read out of the union before values overwrite it
#pragma unroll
    for (int r = 0; r < kItems; ++r) {
      if (in_tile(warp_first + r * kWarp + lane)) s.values[place.get(r)] = values[r];
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < kItems; ++r) {
      const int pos = r * kThreads + threadIdx.x;
      if (in_tile(pos)) a.values_out[s.global_shift[out_digit[r]] + static_cast<std::uint32_t>(pos)] = s.values[pos];
    }
  }
}
// [pass tile]

/// One digit pass: a block per tile, tiles taken in launch order from a
/// ticket (chapter 09), so every tile a block waits on is already running.
/// Stable: keys with equal digits keep their order. kMinBlocks: the blocks
/// an SM must hold, which caps the registers a thread (two blocks: 64 for
/// 512 threads, 72 for 448, 80 for 384).
template <int kDigitBits, class Key, class Value, int kThreads, int kItems, int kMinBlocks>
__global__ void __launch_bounds__(kThreads, kMinBlocks) onesweep_pass(PassArgs<Key, Value> a) {
  using Storage = PassStorage<kDigitBits, typename KeyBits<Key>::Bits, Value, kThreads, kItems>;
  static_assert(kThreads >= Storage::kBins, "a thread per digit");
  extern __shared__ __align__(16) unsigned char raw[];
  Storage& s = *reinterpret_cast<Storage*>(raw);

  for (int k = threadIdx.x; k < Storage::kWarps * (Storage::kBins + 1); k += kThreads) (&s.warp_digit[0][0])[k] = 0;
  for (int k = threadIdx.x; k < 2 * Storage::kWarps * Storage::kBins; k += kThreads) (&s.lane_masks[0][0][0])[k] = 0;
  if (threadIdx.x == 0) s.tile_id = atomicAdd(a.ticket, 1u);
  __syncthreads();
  const unsigned int tile = s.tile_id;
  const std::int64_t tile_begin = std::int64_t{tile} * Storage::kTile;
  const int tile_size = static_cast<int>(a.n - tile_begin < Storage::kTile ? a.n - tile_begin : std::int64_t{Storage::kTile});
  if (tile_size == Storage::kTile) {
    sort_tile<true, kDigitBits, Key, Value, kThreads, kItems>(a, s, tile, tile_begin, tile_size);
  } else {
    sort_tile<false, kDigitBits, Key, Value, kThreads, kItems>(a, s, tile, tile_begin, tile_size);
  }
}

}  // namespace scan::ch15
