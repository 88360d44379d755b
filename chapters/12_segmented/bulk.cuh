/// \file
/// \brief Chapter 12: the bulk kernel, chapter 11's ring of bulk copies with head flags.
#pragma once

#include "per_tile.cuh"

namespace scan::ch12 {

// ---------------------------------------------------------------------------
// The segmented scan at the copy's speed: chapter 11's bulk kernel with
// (value, flag) pairs.
//
// The per-tile kernel above moves its 9 bytes per element at the copy's
// rate when segments are short, and slows down with long ones: no head
// stops its look-back, so a tile walks window after window of predecessors
// that are still looking back themselves. The kernel below tries chapter
// 11's answer. Persistent blocks load their tiles, values and head flags,
// with bulk copies into a ring of shared-memory stages; each block
// publishes its next tile's aggregate before it looks back for the current
// one; and the look-back is chapter 11's grouped walk, which a head only
// ever shortens. Its defaults (the head flags through L2, two groups of
// 32 tiles per look-back trip) were chosen by the sweep in segmented.cu:
// on the H100 they keep it within a few percent of the copy's rate from
// one-element segments to one segment spanning the array (the chapter's
// table; the sweep and its history are in docs/lab/ch12-h100.md).

/// How the bulk kernel's head flags reach the threads.
enum class FlagPath {
  /// A bulk copy into a flag stage beside the values, on the same barrier:
  /// 1 KiB of shared memory per 4 KiB of int32 values.
  stage,
  /// A bulk prefetch into L2 when the tile's ticket is taken, then 16-byte
  /// loads by the threads: no shared memory, so as many blocks fit an SM as
  /// in chapter 11, but a trip to L2 while the tile is reduced.
  l2,
};

// [bulk segmented storage]
/// Shared memory of the bulk segmented kernel: chapter 11's ring (the value
/// stages, their barriers and tile numbers), a stage of head flags beside
/// each value stage (one byte per element, filled on the same barrier; only
/// when `StagedFlags`), the block scan's storage and the tile's prefix. A
/// scan by key reads its keys from global memory, so it keeps no flag stages.
template <class T, int Threads, int Items, int Stages, bool StagedFlags>
struct BulkSegmentedStorage {
  static constexpr int kTile = Threads * Items;                 ///< elements per tile
  static constexpr int kFlagStages = StagedFlags ? Stages : 1;  ///< flag stages (else a placeholder)
  static constexpr int kFlagBytes = StagedFlags ? kTile : 16;   ///< bytes per flag stage
  static_assert(kFlagBytes % 16 == 0, "a bulk copy moves whole 16-byte units");
  ch11::BulkStorage<T, Threads, Items, Stages> ring;     ///< chapter 11's ring of value stages
  alignas(16) std::uint8_t heads[kFlagStages][kFlagBytes];  ///< each stage's head flags
  SegmentedScanStorage<T> scan;                          ///< the block scan of thread totals
  Flagged<T> tile_prefix;                                ///< the look-back's result, for the whole block
};
// [bulk segmented storage]

/// The segmented combination across the calling warp of each lane's pair
/// (lane 0 leftmost), returned to every lane.
template <Construction C, class T, class Op>
__device__ __forceinline__ Flagged<T> warp_total(Flagged<T> x, Op op) {
  const Flagged<T> scanned = warp_scan<C>(x, op);
  return {__shfl_sync(kFullMask, scanned.value, kWarpSize - 1),
          __shfl_sync(kFullMask, static_cast<int>(scanned.head), kWarpSize - 1) != 0};
}

/// Lane `source`'s pair, in every lane of the calling warp.
template <class T>
__device__ __forceinline__ Flagged<T> shuffle(const Flagged<T>& x, int source) {
  return {__shfl_sync(kFullMask, x.value, source),
          __shfl_sync(kFullMask, static_cast<int>(x.head), source) != 0};
}

// [segmented grouped look-back]
/// Chapter 11's grouped look-back over (value, flag) pairs.
///
/// Tiles form groups of 32. A tile gathers the aggregates of the tiles
/// before it in its group (one window; they went out early, so it rarely
/// waits) and, unless one of them holds a head, the combination of
/// everything before the group, \f$ G_{g-1} \f$. Only the last tile of a
/// group publishes an inclusive prefix, its \f$ G_g \f$. To find
/// \f$ G_{g-1} \f$ a tile walks back whole groups, `Batch` of them per trip
/// to memory, and stops at the first group whose last tile has published,
/// *or whose total holds a head*: nothing before a head matters.
///
/// So the walk's length does not grow with the segments: with one segment
/// over the whole array it is as long as chapter 11's walk for a plain
/// scan; with short segments it ends in the tile's own group. (Chapter
/// 11 chains the group totals forwards, so that float sums come out the same
/// on every run; here they are gathered backwards as chapter 10 does, which
/// is simpler, and float sums may vary in their last bits.)
template <int Batch, Construction C>
struct SegmentedGroupedWalk {
  /// \f$ G_{g-1} \f$ for the group that starts at tile `first` (a multiple
  /// of 32): the combination of everything before it, back to the last
  /// head. By a whole warp; every lane gets it.
  template <class T, class Op, class State>
  __device__ static Flagged<T> before_group(const State& state, unsigned first, Op op, BackOff wait) {
    const int lane = threadIdx.x % kWarpSize;
    Flagged<T> gathered = Segmented<Op>::template identity<T>();  // the groups walked so far, in array order
    for (long long end = first; end > 0; end -= Batch * kWarpSize) {
      // One trip: the states of Batch whole groups, loaded together.
      Flagged<T> values[Batch];
      Status statuses[Batch];
#pragma unroll
      for (int b = 0; b < Batch; ++b) {
        const long long group = end - (b + 1) * kWarpSize;  // its first tile
        values[b] = Segmented<Op>::template identity<T>();
        statuses[b] = group >= 0 ? state.load(static_cast<unsigned>(group + lane), values[b]) : Status::prefix;
      }
#pragma unroll
      for (int b = 0; b < Batch; ++b) {
        const long long group = end - (b + 1) * kWarpSize;
        if (group < 0) return gathered;  // walked past tile 0 (the same in every lane)
        // The group's last tile may have published its G_h: nothing
        // further back is needed, and the others' states need not be waited for.
        bool published = __shfl_sync(kFullMask, static_cast<int>(statuses[b] == Status::prefix), 31) != 0;
        if (!published) {
          unsigned nap_ns = wait.first_nap_ns;
          while (statuses[b] == Status::empty) {
            wait.nap(nap_ns);
            statuses[b] = state.load(static_cast<unsigned>(group + lane), values[b]);
          }
          published = __shfl_sync(kFullMask, static_cast<int>(statuses[b] == Status::prefix), 31) != 0;
        }
        if (published) return Segmented<Op>{}(shuffle(values[b], 31), gathered);
        // Otherwise the group's 32 aggregates: their segmented total.
        const Flagged<T> total = warp_total<C>(values[b], op);
        gathered = Segmented<Op>{}(total, gathered);
        if (total.head) return gathered;  // a head in this group cuts off everything before it
      }
    }
    return gathered;
  }

  /// The look-back for tile `tile`, by a whole warp: its exclusive prefix
  /// (the combination since the last head before it), its inclusive prefix,
  /// and whether it publishes that (the last tile of each group does).
  /// `aggregate` is the tile's own; `starts_with_head`: its first element is a head.
  template <class T, class Op, class State>
  __device__ static ch11::Resolved<Flagged<T>> resolve(const State& state, unsigned tile, Flagged<T> aggregate,
                                                       bool starts_with_head, Op op, BackOff wait) {
    const int lane = threadIdx.x % kWarpSize;
    const unsigned first = tile - tile % kWarpSize;
    const int position = static_cast<int>(tile - first);
    const bool last = position == kWarpSize - 1;
    // A tile that starts with a head needs nothing from before it, and its
    // inclusive prefix is its aggregate: no walk at all.
    if (starts_with_head) return {Segmented<Op>::template identity<T>(), aggregate, last};
    // The aggregates before this tile in its group, then its own.
    Flagged<T> mine = Segmented<Op>::template identity<T>();
    if (lane < position) {
      unsigned nap_ns = wait.first_nap_ns;
      while (state.load(first + lane, mine) == Status::empty) wait.nap(nap_ns);
    }
    if (lane == position) mine = aggregate;
    const Flagged<T> within = warp_scan<C>(mine, op);
    Flagged<T> before_me = shuffle(within, position > 0 ? position - 1 : 0);
    if (position == 0) before_me = Segmented<Op>::template identity<T>();
    Flagged<T> through_me = shuffle(within, position);
    if (!before_me.head) {
      // No head between the group's start and this tile: what came before
      // the group reaches in.
      const Flagged<T> base = before_group<T>(state, first, op, wait);
      before_me = Segmented<Op>{}(base, before_me);
      through_me = Segmented<Op>{}(base, through_me);
    }
    return {before_me, through_me, last};
  }
};
// [segmented grouped look-back]

/// The head flags of a thread's Items consecutive elements as bits (bit j:
/// item j), from a flag stage in shared memory (`stage`, the tile's first
/// flag). 16 flags or more travel as 16-byte vectors in chapter 11's
/// conflict-free order (StageAccess, on 4-byte words of four flags).
template <int Items>
__device__ __forceinline__ unsigned stage_head_bits(const std::uint8_t* stage) {
  static_assert(Items <= 32, "one bit per item in a 32-bit word");
  unsigned bits = 0;
  if constexpr (Items % 16 == 0) {
    std::uint32_t words[Items / 4];
    ch11::StageAccess<Items / 4, std::uint32_t>::read(reinterpret_cast<const std::uint32_t*>(stage), words);
#pragma unroll
    for (int j = 0; j < Items; ++j) bits |= (((words[j / 4] >> (8 * (j % 4))) & 0xFFu) != 0 ? 1u : 0u) << j;
  } else {
    const std::uint8_t* mine = stage + threadIdx.x * Items;
#pragma unroll
    for (int j = 0; j < Items; ++j) bits |= (mine[j] != 0 ? 1u : 0u) << j;
  }
  return bits;
}

/// The head bits of a thread's Items consecutive elements (from `start` +
/// threadIdx.x * Items, all inside the array) made from 4-byte keys: a
/// head where the key differs from the one before. For a whole tile with
/// 16-byte aligned keys: Items / 4 vector loads and one more for the key
/// before the thread's first (load_heads() does one load per key).
template <int Items>
__device__ __forceinline__ unsigned key_head_bits(const std::int32_t* keys, std::int64_t start) {
  static_assert(Items % 4 == 0 && Items <= 32, "whole vectors of keys, one bit per item");
  const std::int64_t at = start + static_cast<std::int64_t>(threadIdx.x) * Items;
  std::int32_t previous = at > 0 ? keys[at - 1] : 0;
  unsigned bits = 0;
#pragma unroll
  for (int v = 0; v < Items / 4; ++v) {
    const int4 four = reinterpret_cast<const int4*>(keys + at)[v];
    const std::int32_t k[4] = {four.x, four.y, four.z, four.w};
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      const int j = 4 * v + c;
      bits |= ((at + j == 0 || k[c] != previous) ? 1u : 0u) << j;
      previous = k[c];
    }
  }
  return bits;
}

/// Blocks of `threads` threads with `Storage` in shared memory that an sm_90
/// SM holds at once (228 KiB of shared memory, 1 KiB of it reserved per
/// block; 2048 threads): the register budget the kernel is compiled for
/// (its MinBlocks, through `__launch_bounds__`), so that registers never
/// allow fewer blocks than shared memory does. `__launch_bounds__` needs a
/// constant, so these are sm_90's figures, written in (the kernel was tuned
/// on the H100, docs/lab/ch12-h100.md); the grid itself comes from the
/// device, through persistent_blocks(), so a GPU with less shared memory
/// per SM gets fewer blocks, each with registers to spare.
template <class Storage>
constexpr int bulk_blocks_per_sm(int threads) {
  const int by_shared = static_cast<int>((228 * 1024) / (sizeof(Storage) + 1024));
  const int by_threads = 2048 / threads;
  return std::max(1, std::min(by_shared, by_threads));
}

// [bulk kernel setup]
/// The head flags' part of a refill (BulkTiles::refill's `extra`): with
/// FlagPath::stage a second bulk copy into the stage's flag stage, on the
/// same barrier, which then expects both byte counts; with FlagPath::l2 a
/// bulk prefetch into L2, from where each thread loads its own; nothing
/// for a scan by key.
template <bool Staged, bool Prefetch, int Tile>
struct HeadFlagLoads {
  static constexpr unsigned kBytes = Staged ? Tile : 0;  ///< bytes the flag stage adds to the barrier
  const std::uint8_t* heads;  ///< the head flags in global memory
  std::uint8_t* stages;       ///< the flag stages, `Tile` bytes each (Staged only)
  /// Starts the flags' load for the tile at `start` into `stage`.
  __device__ void operator()(int stage, std::int64_t start, std::uint64_t* landed) const {
    if constexpr (Staged) {
      ch11::tma::load(stages + static_cast<std::size_t>(stage) * Tile, heads + start, Tile, landed);
    } else if constexpr (Prefetch) {
      ch11::tma::prefetch_l2(heads + start, Tile);
    }
  }
};

/// The bulk kernel's tile job for chapter 11's run_ring(): a tile of
/// (value, flag) pairs. The ring thread starts a bulk copy of the values
/// (4 bytes an element for int32) and the flags' load (HeadFlagLoads) for
/// each tile; step 1 publishes the tile's aggregate and its flag; step 2
/// is SegmentedGroupedWalk; each thread keeps its items' head flags as
/// bits in a register from step 1 to step 3. A tile that cannot travel in
/// bulk (the last, partial one, or any pointer off a 16-byte boundary) is
/// read and written by the threads directly; a scan by key (M = keys)
/// reads its keys directly too.
template <int Threads, int Items, int Stages, int Batch, Construction C, Marks M, FlagPath P, class T, class Op>
struct SegmentedTileJob {
  static constexpr bool kStagedFlags = M == Marks::heads && P == FlagPath::stage;  ///< flags in flag stages
  using Tiles = ch11::BulkTiles<Threads, Items, Stages, T>;                       ///< chapter 11's ring
  using Storage = BulkSegmentedStorage<T, Threads, Items, Stages, kStagedFlags>;  ///< the block's shared memory
  using Walk = SegmentedGroupedWalk<Batch, C>;                                    ///< step 2
  /// The head flags' part of each refill.
  using Flags = HeadFlagLoads<kStagedFlags, M == Marks::heads && P == FlagPath::l2, Tiles::kTile>;
  static constexpr int kTile = Tiles::kTile;  ///< elements per tile
  /// What a thread keeps of a tile from its reduction to its finish.
  struct Carry {
    unsigned bits;         ///< this thread's head flags, bit j for item j
    Flagged<T> before;     ///< the combination of this thread's items' predecessors within the tile
    Flagged<T> aggregate;  ///< the tile's aggregate and flag
  };
  struct Held {};  ///< nothing to hold while warp 0 looks back
  static constexpr bool kStoresInBulk = true;  ///< finish() leaves the tile in its stage

  Tiles ring;                         ///< chapter 11's ring, in shared.ring
  Storage& shared;                    ///< the block's shared memory
  const std::uint8_t* heads;          ///< head flags (M = heads)
  const std::int32_t* keys;           ///< keys (M = keys)
  bool keys_aligned;                  ///< keys on a 16-byte boundary (vector loads)
  unsigned* ticket;                   ///< the tile counter
  FlaggedTileState<T> state;          ///< the tiles' states
  BackOff wait;                       ///< how a look-back waits
  Op op;                              ///< the operator
  Kind kind;                          ///< inclusive or exclusive

  /// The ring thread: the next ticket's values and flags into `stage`.
  __device__ void refill(int stage) const { ring.refill(stage, ticket, Flags{heads, &shared.heads[0][0]}); }
  // [bulk kernel setup]
  // [bulk kernel reduce]
  /// This thread's head flags of `tile`, as bits (bit j: item j).
  __device__ unsigned head_bits(unsigned tile, int stage) const {
    if constexpr (kStagedFlags) {
      if (ring.bulk(tile)) return stage_head_bits<Items>(shared.heads[stage]);
    } else if constexpr (M == Marks::keys && Items % 4 == 0) {
      if (keys_aligned && ring.bulk(tile)) return key_head_bits<Items>(keys, static_cast<std::int64_t>(tile) * kTile);
    }
    const TileSpan span = tile_span(tile, kTile, ring.n);
    bool flags[Items];
    load_heads<M>(heads, keys, span.start, span.valid, flags);
    unsigned bits = 0;
#pragma unroll
    for (int j = 0; j < Items; ++j) bits |= (flags[j] ? 1u : 0u) << j;
    return bits;
  }
  /// Step 1: the tile's head bits, its aggregate (published), and each
  /// thread's exclusive prefix within the tile.
  __device__ Carry reduce(unsigned tile, int stage) const {
    T items[Items];
    bool flags[Items];
    ring.template read<Op>(tile, stage, items);
    Carry c;
    c.bits = head_bits(tile, stage);
#pragma unroll
    for (int j = 0; j < Items; ++j) flags[j] = (c.bits >> j) & 1u;
    const Flagged<T> thread_total = thread_scan(items, flags, op);
    c.before = block_exclusive_scan<C>(thread_total, op, shared.scan, c.aggregate);
    if (threadIdx.x == 0) state.publish(tile, Status::aggregate, c.aggregate);
    return c;
  }
  // [bulk kernel reduce]
  // [bulk kernel finish]
  /// Step 2 (warp 0): the walk; a tile whose first element is a head skips it.
  __device__ void look_back(unsigned tile, const Carry& c) const {
    const bool starts_with_head = __shfl_sync(kFullMask, c.bits & 1u, 0) != 0;  // thread 0's first item
    wait.settle(tile);
    const ch11::Resolved<Flagged<T>> r =
        Walk::template resolve<T>(state, tile, c.aggregate, starts_with_head, op, wait);
    if (threadIdx.x == 0) {
      if (r.publish) state.publish(tile, Status::prefix, r.inclusive);
      shared.tile_prefix = r.exclusive;
    }
  }
  /// Step 2 for the other warps: nothing.
  __device__ Held hold(unsigned, int, const Carry&) const { return {}; }
  /// Step 3: the tile's own scan again, then the prefix up to each
  /// thread's first head, in its stage.
  __device__ void finish(unsigned tile, int stage, const Carry& c, Held) const {
    T items[Items];
    bool flags[Items];
    ring.template read<Op>(tile, stage, items);
#pragma unroll
    for (int j = 0; j < Items; ++j) flags[j] = (c.bits >> j) & 1u;
    (void)thread_scan(items, flags, op);
    add_prefix(items, flags, Segmented<Op>{}(shared.tile_prefix, c.before).value, kind, op);
    ring.write(tile, stage, items);
  }
};

/// Chapter 11's bulk kernel with (value, flag) pairs: run_ring() with
/// SegmentedTileJob. `ticket` and the tile states must be zero at launch.
template <int Threads, int MinBlocks, int Items, int Stages, int Batch, Construction C, Marks M, FlagPath P,
          bool RefillInLookBack, class T, class Op>
__global__ void __launch_bounds__(Threads, MinBlocks)
    bulk_segmented_scan(const T* in, const std::uint8_t* heads, const std::int32_t* keys, T* out, std::int64_t n,
                        Kind kind, unsigned* ticket, FlaggedTileState<T> state, BackOff wait, Op op) {
  static_assert((Threads * Items) % 16 == 0, "a tile of flags is whole 16-byte units");
  using Job = SegmentedTileJob<Threads, Items, Stages, Batch, C, M, P, T, Op>;
  using Tiles = typename Job::Tiles;
  auto& shared = *dynamic_shared<typename Job::Storage>();
  const auto address = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p); };
  const bool aligned = (address(in) | address(out) | (M == Marks::heads ? address(heads) : 0)) % 16 == 0;
  Job job{Tiles{shared.ring, in, out, n, static_cast<unsigned>(ceil_div<std::int64_t>(n, Job::kTile)), aligned,
                0},  // no prefetch of values ahead
          shared, heads, keys, M == Marks::keys && address(keys) % 16 == 0, ticket, state, wait, op, kind};
  ch11::run_ring<Stages, RefillInLookBack>(job);
}
// [bulk kernel finish]

/// Tile shape and ring depth of the `bulk` variants: chapter 11's
/// `overlapped` recipe as near as 32 head bits per thread allow. Tiles of
/// 128 x 28 (seven 16-byte vectors of int32 per thread: an odd number, so
/// the stages are read without bank conflicts and without selects), three
/// stages of 14 KiB refilled while warp 0 looks back, five blocks per SM.
/// It replaced chapter 11's `deterministic` shape (256 x 16, four stages
/// refilled after the store, three blocks per SM), which ran at 92-99% of
/// the copy on the H100 but at 73% with one segment on the H200; this one
/// keeps both GPUs at 90% of the copy or more at every segment length
/// (docs/lab/ch12-h100.md). The head flags go through L2
/// (FlagPath::l2), not through flag stages that would take more shared
/// memory per block; the tuning points in segmented.cu measure that
/// choice, the groups per trip and the other shapes.
inline constexpr int kBulkThreads = 128;
/// Items per thread of the `bulk` variants.
inline constexpr int kBulkItems = 28;
/// Stages in the ring of the `bulk` variants.
inline constexpr int kBulkStages = 3;
/// Whether the `bulk` variants refill the ring while warp 0 looks back.
inline constexpr bool kBulkRefill = true;
/// The scan by key keeps chapter 11's `deterministic` shape, 256 x 16 in
/// four stages refilled after the store: its threads load their own keys
/// (4 bytes an element, not in bulk), and with 128 x 28 tiles (fewer
/// threads per SM, each reading a longer run) it ran 20 to 30% slower on
/// both GPUs, behind CUB's scan by key.
inline constexpr int kByKeyThreads = 256;
/// Items per thread of `bulk-by-key`.
inline constexpr int kByKeyItems = 16;
/// Stages in the ring of `bulk-by-key`.
inline constexpr int kByKeyStages = 4;
/// Whether `bulk-by-key` refills the ring during the look-back.
inline constexpr bool kByKeyRefill = false;
/// Groups of 32 tiles a look-back loads per trip: two, not chapter 11's
/// four. With one long segment a walk usually ends at the nearest group,
/// so the states of a third and fourth group are loaded for nothing.
inline constexpr int kBulkGroups = 2;

/// Everything that tells the bulk variants apart, by name (chapter 11's
/// Recipe style): `BulkSegmentedScan<BulkRecipe{.flags = FlagPath::stage}>`
/// stages the head flags, every other field at its default (`bulk`).
struct BulkRecipe {
  Construction construction = Construction::direct;  ///< how (value, flag) pairs are combined
  Marks marks = Marks::heads;                         ///< head flags, or keys that change
  FlagPath flags = FlagPath::l2;                      ///< heads: the way the flags reach the threads
  int threads = kBulkThreads;                         ///< threads per block
  int items = kBulkItems;                             ///< items per thread (a multiple of 4)
  int stages = kBulkStages;                           ///< tiles in the ring
  int groups = kBulkGroups;                            ///< groups of 32 tiles a look-back loads per trip
  BackOff wait = ch10::kSpin;                         ///< how a tile waits before looking back
  bool refill_in_look_back = kBulkRefill;             ///< a thread of warp 1 refills the ring during the look-back
};

/// Registry entry: the persistent bulk-copy segmented scan of recipe R.
template <BulkRecipe R>
struct BulkSegmentedScan {
  /// Elements per tile.
  static constexpr int kTile = R.threads * R.items;
  /// Whether the flags travel into shared memory beside the values.
  static constexpr bool kStagedFlags = R.marks == Marks::heads && R.flags == FlagPath::stage;
  /// The kernel's shared memory layout.
  template <class T>
  using Storage = BulkSegmentedStorage<T, R.threads, R.items, R.stages, kStagedFlags>;
  /// Dynamic shared memory per block, in bytes.
  template <class T>
  static constexpr std::size_t kBytes = sizeof(Storage<T>);

  /// Name, summary and limits, for the registry.
  static VariantInfo info() {
    constexpr bool kKeys = R.marks == Marks::keys;
    constexpr bool kTransformed = R.construction == Construction::transformed;
    constexpr bool kFlagsInL2 = !kKeys && R.flags == FlagPath::l2;
    // Names and the tuning flag count from the variant's default: the scan
    // by key has its own shape.
    constexpr bool kShape = R.threads != (kKeys ? kByKeyThreads : kBulkThreads) ||
                            R.items != (kKeys ? kByKeyItems : kBulkItems) ||
                            R.stages != (kKeys ? kByKeyStages : kBulkStages);
    constexpr bool kRefill = R.refill_in_look_back;
    constexpr bool kOtherRefill = kRefill != (kKeys ? kByKeyRefill : kBulkRefill);
    const std::string tiles = ch07::shape_name(R.threads, R.items);
    VariantInfo v;
    v.name = kKeys ? "bulk-by-key" : kTransformed ? "bulk-transformed" : "bulk";
    // (append, not operator+: GCC 12 warns falsely on "-" + std::string)
    if (kShape) v.name.append("-").append(tiles).append("-s").append(std::to_string(R.stages));
    if (R.groups != kBulkGroups) v.name.append("-wide").append(std::to_string(R.groups));
    if (kStagedFlags) v.name.append("-stageflags");
    if (kOtherRefill) v.name.append(kRefill ? "-refill-in-look-back" : "-refill-after-store");
    if (R.wait.settle_ns != 0) v.name.append("-settle").append(std::to_string(R.wait.settle_ns));
    v.summary = std::string(kTransformed ? "operator transformation" : "direct (conditional indexing)") +
                ", persistent blocks, values" + (kStagedFlags ? " and head flags" : "") +
                " by bulk copy (TMA) through " + std::to_string(R.stages) + " shared-memory stages" +
                (kRefill ? " refilled during the look-back" : " refilled after each store") +
                (kFlagsInL2 ? ", head flags prefetched to L2 in bulk, read by the threads" : "") +
                (kKeys ? ", segments where a 4-byte key changes (keys read directly)" : "") +
                ", next aggregate published before the look-back, grouped look-back (" +
                std::to_string(R.groups) + (R.groups == 1 ? " group" : " groups") +
                " per trip) that stops at a head, tiles of " + tiles +
                (R.wait.settle_ns != 0 ? ", settles before looking back" : "");
    v.block = R.threads;
    v.items_per_thread = R.items;
    v.float_order_varies = true;  // the walk gathers groups back to where it stops
    v.segmented = true;
    v.tuning = kShape || kOtherRefill || R.groups != kBulkGroups || R.wait.settle_ns != 0 || kTransformed ||
               (!kKeys && !kFlagsInL2);
    return v;
  }
  /// The scratch memory run() takes: the ticket and the tile states.
  template <class T, class Op>
  static void reserve(Workspace& workspace, std::int64_t n, int) {
    (void)take_ticket_and_states<T>(workspace, n, kTile);
  }
  /// Scans r.in into r.out on r.stream, restarting at r.heads (or where r.keys changes).
  template <class T, class Op>
  static void run(const ScanRequest<T>& r, Op op) {
    require_marks<R.marks>(r);
    constexpr std::size_t kShared = kBytes<T>;
    constexpr int kMinBlocks = bulk_blocks_per_sm<Storage<T>>(R.threads);
    constexpr auto kernel = bulk_segmented_scan<R.threads, kMinBlocks, R.items, R.stages, R.groups, R.construction,
                                                R.marks, R.flags, R.refill_in_look_back, T, Op>;
    // Shared memory allowed and occupancy asked, once per device.
    const int resident = persistent_blocks<kernel>(R.threads, kShared);
    Workspace workspace = r.workspace;
    const unsigned tiles = tile_count(r.n, kTile);
    const auto scratch = take_ticket_and_states<T>(workspace, r.n, kTile);
    SCAN_CUDA(cudaMemsetAsync(scratch.ticket, 0, scratch.reset_bytes, r.stream));
    BackOff wait = R.wait;
    wait.first_settling_tile = static_cast<unsigned>(resident);
    // Persistent blocks: as many as the device holds at once, no more than there are tiles.
    const unsigned blocks = std::min<unsigned>(tiles, static_cast<unsigned>(resident));
    kernel<<<blocks, R.threads, kShared, r.stream>>>(r.in, r.heads, r.keys, r.out, r.n, r.kind, scratch.ticket,
                                                   FlaggedTileState<T>{scratch.words}, wait, op);
    SCAN_CUDA_LAUNCH();
  }
};

}  // namespace scan::ch12
