/// \file
/// \brief Chapter 11: every step as a variant, every knob a sweep point.
#pragma once

#include "ring.cuh"

namespace scan::ch11 {

// ---------------------------------------------------------------------------
// The registry: every step as a variant, every knob a sweep point.

/// Which kernel a recipe runs.
enum class Kernel {
  per_tile,     ///< chapter 10's kernel: one block per tile
  bulk,         ///< bulk_look_back_scan(): persistent blocks, bulk copies
  specialized,  ///< bulk_specialized_scan(): the same with a look-back warp
};

/// How a per-tile kernel moves its tile.
enum class Io { block, warp };

/// Which of the chapter's variants a recipe is (a sweep point is named by its knobs).
enum class Role { sweep, warp_io, tuned, bulk, lookback_warp, deterministic, one_wave, overlapped };

/// Everything that tells this chapter's variants and sweep points apart.
struct Recipe {
  Kernel kernel = Kernel::per_tile;  ///< which kernel
  int threads = 128;                 ///< threads per block (specialized: scan threads, plus one warp)
  int items = 32;                    ///< items per thread (a multiple of 4)
  Io io = Io::warp;                  ///< per_tile: how the tile moves
  int stages = 4;                    ///< bulk kernels: tiles in the ring
  int min_blocks = 1;                ///< per_tile: blocks per SM the compiler must allow (caps registers)
  int max_blocks = 0;                ///< blocks per SM the launch allows (0: as many as fit)
  Walk walk = Walk::any_prefix;      ///< how the look-back combines (per_tile: chapter 10's walk, or grouped)
  int windows = 1;                   ///< windows of 32 tiles a look-back reads per trip
  StateKind state = StateKind::packed;  ///< how status and value are kept
  BackOff wait = ch10::kSettle;      ///< how a tile waits
  std::size_t ahead = 0;             ///< bytes of input between a tile taken and the one prefetched into L2 (0: none)
  bool refill_in_look_back = false;  ///< bulk: refills the ring during the look-back (a thread of warp 1)
  bool early_launch = false;         ///< clears the states with a kernel and launches the scan behind it early
  bool even_rounds = false;          ///< bulk: launches only as many blocks as deal the tiles in full rounds
  Role role = Role::sweep;           ///< a variant, or a sweep point
};

/// Recipe builders, so that a list of sweep points reads as a table.
/// A per-tile recipe (chapter 10's kernel).
constexpr Recipe per_tile(int threads, int items, Io io, BackOff wait, int min_blocks = 1, int max_blocks = 0,
                          StateKind state = StateKind::packed) {
  return {.kernel = Kernel::per_tile, .threads = threads, .items = items, .io = io, .min_blocks = min_blocks,
          .max_blocks = max_blocks, .state = state, .wait = wait};
}
/// A bulk recipe.
constexpr Recipe bulk(int threads, int items, int stages, BackOff wait, Walk walk = Walk::any_prefix,
                      StateKind state = StateKind::packed) {
  return {.kernel = Kernel::bulk, .threads = threads, .items = items, .stages = stages, .walk = walk,
          .state = state, .wait = wait};
}
/// A recipe with a look-back warp (`threads` scan threads, one more warp).
constexpr Recipe lookback_warp(int threads, int items, int stages, BackOff wait, Walk walk = Walk::any_prefix,
                               StateKind state = StateKind::packed) {
  Recipe r = bulk(threads, items, stages, wait, walk, state);
  r.kernel = Kernel::specialized;
  return r;
}
/// The same recipe with a look-back that reads `windows` windows per trip.
constexpr Recipe wide(int windows, Recipe r) {
  r.windows = windows;
  return r;
}
/// The same recipe with the grouped look-back (reproducible float sums).
constexpr Recipe grouped(Recipe r) {
  r.walk = Walk::grouped;
  return r;
}
/// The same recipe, prefetching the input `bytes` ahead of each tile taken into L2.
constexpr Recipe ahead(std::size_t bytes, Recipe r) {
  r.ahead = bytes;
  return r;
}
/// The same bulk recipe, refilling its ring during the look-back.
constexpr Recipe refill_in_look_back(Recipe r) {
  r.refill_in_look_back = true;
  return r;
}
/// The same recipe, its states cleared by a kernel that lets the scan
/// launch before that kernel has finished (launch_scan()).
constexpr Recipe early_launch(Recipe r) {
  r.early_launch = true;
  return r;
}
/// The same bulk recipe, launching no more blocks than share its tiles in
/// rounds that are all full (even_round_blocks()).
constexpr Recipe even_rounds(Recipe r) {
  r.even_rounds = true;
  return r;
}
/// A recipe as one of the chapter's variants.
constexpr Recipe as(Role role, Recipe r) {
  r.role = role;
  return r;
}

/// A variant's name, or the name a sweep point gets from its knobs, e.g.
/// "bulk-128x32-s4-settle3000".
std::string recipe_name(const Recipe& r);
/// The one-line summary of a recipe.
std::string recipe_summary(const Recipe& r);

/// Dynamic shared memory, in bytes, that limits a launch of `kernel` to
/// `blocks_per_sm` blocks per SM (on top of `dynamic_bytes` it uses itself).
/// 0 when no limit is asked for.
std::size_t shared_bytes_to_limit(const void* kernel, int threads, std::size_t dynamic_bytes, int blocks_per_sm);

// [early launch]
/// Clears `bytes` (a multiple of 4) from `ticket`, a launch's ticket and
/// tile states, on `stream` with a small kernel instead of a memset. The
/// kernel's first instruction lets the grid launched behind it with
/// launch_scan<true>() start, so that grid's blocks are on the SMs, and
/// waiting, by the time the states are clear.
void clear_for_early_launch(unsigned* ticket, std::size_t bytes, cudaStream_t stream);

/// Launches `kernel` on `stream`. `Early`: with programmatic stream
/// serialization, so that its blocks may be scheduled while the grid before
/// it in the stream (clear_for_early_launch()'s) still runs. A kernel
/// launched this way must call tma::wait_for_prerequisite_grid() before it
/// takes a ticket or reads a tile state; the three kernels of this chapter
/// that the recipes launch early do.
template <bool Early, class... Params, class... Args>
void launch_scan(void (*kernel)(Params...), unsigned blocks, int threads, std::size_t shared_bytes,
                 cudaStream_t stream, Args... args) {
  if constexpr (!Early) {
    kernel<<<blocks, threads, shared_bytes, stream>>>(args...);
  } else {
    cudaLaunchAttribute early{};
    early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    early.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(blocks);
    config.blockDim = dim3(static_cast<unsigned>(threads));
    config.dynamicSmemBytes = shared_bytes;
    config.stream = stream;
    config.attrs = &early;
    config.numAttrs = 1;
    SCAN_CUDA(cudaLaunchKernelEx(&config, kernel, args...));
  }
}
// [early launch]

// [even rounds]
/// Blocks for a persistent ring that deals `tiles` tiles in the fewest
/// rounds `held` resident blocks need, every round full (the last one
/// short by less than a tile per round). 1,081 tiles on 528 blocks take
/// three rounds either way, but 361 blocks deal them as 361, 361 and 359,
/// where 528 would leave a last round of 25 tiles, 5% full.
inline unsigned even_round_blocks(unsigned tiles, unsigned held) {
  const unsigned rounds = ceil_div(tiles, held);
  return ceil_div(tiles, rounds);
}
// [even rounds]

/// Registry entry for a Recipe.
template <Recipe R>
struct CopyCeiling {
  /// Elements per tile.
  static constexpr int kTile = R.threads * R.items;
  /// The tile state for T.
  template <class T>
  using State = TileState<R.state, T>;
  /// How a per-tile kernel moves its tile: warp-private or block-wide
  /// transposes.
  using Moves = std::conditional_t<R.io == Io::warp, WarpTileIo, ch10::BlockTileIo>;
  /// The same, with the input prefetched into L2 R.ahead bytes ahead if
  /// the recipe asks for it.
  using Mover = std::conditional_t<R.ahead == 0, Moves, PrefetchingIo<Moves, R.ahead>>;
  /// A bulk kernel's threads: a specialized one has a look-back warp more.
  static constexpr int kBulkThreads = R.kernel == Kernel::specialized ? R.threads + kWarpSize : R.threads;
  /// A bulk kernel's ring of stages, in dynamic shared memory.
  template <class T>
  static constexpr std::size_t kBulkBytes = sizeof(BulkStorage<T, R.threads, R.items, R.stages>);
  /// The kernel of a bulk recipe, or of the grouped walk per tile, for T and Op.
  template <class T, class Op>
  static constexpr auto kernel() {
    if constexpr (R.kernel == Kernel::per_tile) {
      static_assert(R.walk == Walk::grouped, "chapter 10's kernel is launched in run()");
      return grouped_per_tile_scan<R.threads, R.items, R.min_blocks, R.windows, Mover, State<T>, T, Op>;
    } else if constexpr (R.kernel == Kernel::specialized) {
      return bulk_specialized_scan<R.threads, R.items, R.stages, WalkOf<R.walk, R.windows>, State<T>, T, Op>;
    } else {
      return bulk_look_back_scan<R.threads, R.items, R.stages, WalkOf<R.walk, R.windows>, State<T>, T, Op,
                                 R.refill_in_look_back>;
    }
  }
  /// Blocks of kernel<T, Op>() the current device holds at once (asked
  /// once per device): a bulk recipe's persistent grid, or one wave of the
  /// grouped walk's tiles.
  template <class T, class Op>
  static int resident() {
    if constexpr (R.kernel == Kernel::per_tile) {
      return persistent_blocks<kernel<T, Op>()>(R.threads, 0);
    } else {
      return persistent_blocks<kernel<T, Op>()>(kBulkThreads, kBulkBytes<T>);
    }
  }

  /// Name, summary and limits, for the registry.
  static VariantInfo info() {
    VariantInfo v;
    v.name = recipe_name(R);
    v.summary = recipe_summary(R);
    v.block = R.threads;
    v.items_per_thread = R.items;
    v.float_order_varies = R.walk == Walk::any_prefix;
    if (R.walk == Walk::none) v.segment = kTile;  // a building block: each tile on its own
    v.takes_seed = (R.kernel != Kernel::per_tile || R.walk == Walk::grouped) && R.walk != Walk::none;
    v.tuning = R.role == Role::sweep;
    return v;
  }
  /// The scratch memory run() takes: the ticket and the tile states.
  template <class T, class Op>
  static void reserve(Workspace& workspace, std::int64_t n, int) {
    (void)take_states<State<T>, T>(workspace, tile_count(n, kTile));
  }
  /// Scans r.in into r.out on r.stream.
  template <class T, class Op>
  static void run(const ScanRequest<T>& r, Op op) {
    Workspace workspace = r.workspace;
    const unsigned tiles = tile_count(r.n, kTile);
    const auto launch = take_states<State<T>, T>(workspace, tiles);
    // Chapter 10's kernel does not wait for the clearing grid.
    static_assert(!R.early_launch || R.kernel != Kernel::per_tile || R.walk == Walk::grouped,
                  "only the grouped per-tile kernel and the bulk kernels may be launched early");
    if constexpr (R.early_launch) {
      clear_for_early_launch(launch.ticket, launch.reset_bytes, r.stream);
    } else {
      SCAN_CUDA(cudaMemsetAsync(launch.ticket, 0, launch.reset_bytes, r.stream));
    }
    BackOff wait = R.wait;
    if constexpr (R.kernel == Kernel::per_tile) {
      if constexpr (R.walk == Walk::grouped) {
        wait.first_settling_tile = static_cast<unsigned>(resident<T, Op>());  // once per device
        launch_scan<R.early_launch>(kernel<T, Op>(), tiles, R.threads, 0, r.stream, r.in, r.out, r.n, r.kind,
                                    launch.ticket, launch.state, wait, op, r.seed);
      } else {
        if (r.seed != nullptr) throw std::logic_error("a seeded scan needs a bulk recipe or the grouped walk");
        using Walker = std::conditional_t<R.windows == 1, ch10::WarpLookBack, WideLookBack<R.windows>>;
        const auto kernel =
            ch10::decoupled_look_back_scan<R.threads, R.items, R.min_blocks, Walker, Mover, State<T>, T, Op>;
        static const std::size_t padding =
            shared_bytes_to_limit(reinterpret_cast<const void*>(kernel), R.threads, 0, R.max_blocks);
        static const int resident = resident_blocks(kernel, R.threads, padding);
        wait.first_settling_tile = static_cast<unsigned>(resident);
        kernel<<<tiles, R.threads, padding, r.stream>>>(r.in, r.out, r.n, r.kind, launch.ticket, launch.state,
                                                        wait, op);
      }
    } else {
      // More than 48 KiB of dynamic shared memory allowed, and the occupancy
      // asked, once per device: both off the timed path.
      const int held = resident<T, Op>();
      // Persistent blocks: as many as the device holds at once, no more
      // than there are tiles (even_rounds: fewer, so that no round is
      // thin). The tiles of the first wave skip the settle.
      const unsigned blocks = R.even_rounds ? even_round_blocks(tiles, static_cast<unsigned>(held))
                                            : std::min<unsigned>(tiles, static_cast<unsigned>(held));
      wait.first_settling_tile = blocks;
      launch_scan<R.early_launch>(kernel<T, Op>(), blocks, kBulkThreads, kBulkBytes<T>, r.stream, r.in, r.out, r.n,
                                  r.kind, launch.ticket, launch.state, wait, op, r.seed,
                                  tiles_ahead<T>(R.ahead, kTile));
    }
    SCAN_CUDA_LAUNCH();
  }
};

/// Registers one variant per recipe, built for every type and operator.
template <Recipe... Points>
void add_variants(std::vector<Variant>& variants) {
  (variants.push_back(gpu_variant<CopyCeiling<Points>>()), ...);
}

/// Registers one sweep point per recipe, built for the pairs of `Combos`.
template <class Combos, Recipe... Points>
void add_sweep(std::vector<Variant>& variants) {
  (variants.push_back(gpu_variant<CopyCeiling<Points>, Combos>()), ...);
}

/// Every sweep point (sweep.cu), appended after the chapter's variants.
void add_sweep_points(std::vector<Variant>& variants);

/// A settle of 500 ns before looking back (chapter 10's settle with a
/// longer wait): a sweep point's.
inline constexpr BackOff kSettle500{500, 640, 640, 0};
/// A settle of 1000 ns: `bulk` and `lookback-warp` take it, and sweep points.
inline constexpr BackOff kSettle1000{1000, 640, 640, 0};
/// No settle, and naps of 100 ns (doubling up to 800) after a look that
/// found a tile empty, instead of looking again at once: sweep points'.
inline constexpr BackOff kNap100{0, 100, 800, 0};

// [recipes]
/// Bytes of input a per-tile block prefetches ahead of its tile: 4 MiB, the
/// fastest of 1, 2, 4 and 8 MiB on both GPUs measured (16 MiB, on the
/// H200: far slower).
inline constexpr std::size_t kTileAhead = std::size_t{4} << 20;
/// Bytes of input the bulk kernel's ring prefetches ahead: 2 MiB (1 and 2
/// MiB alike on the H100, 4 MiB a little slower, 8 MiB far slower; on the
/// H200 the ring is faster without).
inline constexpr std::size_t kRingAhead = std::size_t{2} << 20;
/// The per-tile kernel at its measured best for 4-byte sums of a few waves
/// and for 8-byte types: warp-private transposes, 128 x 32 tiles, a 3 µs
/// settle, the input 4 MiB ahead prefetched into L2.
inline constexpr Recipe kTuned = as(Role::tuned, ahead(kTileAhead, per_tile(128, 32, Io::warp, ch10::kSettle)));
/// One wave of large tiles, spinning: for inputs of about 2^21 to 2^22 elements.
inline constexpr Recipe kOneWave = as(Role::one_wave, per_tile(256, 32, Io::warp, ch10::kSpin));
/// The bulk kernel with the grouped look-back, four groups per trip, the
/// input 2 MiB ahead prefetched into L2: the fastest measured on the H100
/// for large inputs, and bitwise reproducible.
inline constexpr Recipe kDeterministic =
    as(Role::deterministic, ahead(kRingAhead, wide(4, bulk(256, 16, 4, ch10::kSpin, Walk::grouped))));
/// The bulk kernel with the grouped look-back, four groups per trip, over
/// tiles of 128 x 36 (nine vectors per thread: no bank conflicts and no
/// selects), three stages refilled while warp 0 looks back, four blocks
/// per SM: the fastest measured on the H200 for large inputs, and on the
/// H100 below 2^24 4-byte elements (and for the affine maps at every
/// size) where the walk per tile has stopped and the last round is not
/// thin (kThinLastRound); bitwise reproducible.
inline constexpr Recipe kOverlapped =
    as(Role::overlapped, refill_in_look_back(wide(4, bulk(128, 36, 3, ch10::kSpin, Walk::grouped))));
/// Overlapped in smaller tiles, 128 x 20 (five 16-byte vectors per thread,
/// stages of 10 KiB), for 4-byte inputs below kLastRoundBelowBytes where
/// overlapped's last round would be thin (last_round_fill()): the few
/// blocks left working in such a round finish smaller tiles sooner (our
/// reading; not profiled).
inline constexpr Recipe kOverlappedSmall =
    refill_in_look_back(wide(4, bulk(128, 20, 3, ch10::kSpin, Walk::grouped)));
/// Overlapped with deterministic's prefetch, the input 2 MiB ahead into L2
/// (a sweep point: for 8-byte types on the H200, 86% of the copy).
inline constexpr Recipe kOverlappedAhead =
    ahead(kRingAhead, refill_in_look_back(wide(4, bulk(128, 36, 3, ch10::kSpin, Walk::grouped))));
/// Overlapped for 8-byte types on the H100: tiles of 128 x 18 (nine
/// 16-byte vectors per thread again, and 18 KiB stages like overlapped's
/// 128 x 36 of 4-byte types), the input 2 MiB ahead into L2.
inline constexpr Recipe kWideDeterministic =
    ahead(kRingAhead, refill_in_look_back(wide(4, bulk(128, 18, 3, ch10::kSpin, Walk::grouped))));
/// The same for 8-byte types on the H200, loading two groups per trip
/// instead of four: 92% of the copy there at 2^28 elements, against 84-85%
/// with four (and 91% for `tuned`, which is not reproducible).
inline constexpr Recipe kWideDeterministicH200 =
    ahead(kRingAhead, refill_in_look_back(wide(2, bulk(128, 18, 3, ch10::kSpin, Walk::grouped))));
/// The grouped look-back in chapter 10's kernel, one block per tile, for
/// inputs of a few waves of tiles: a persistent block would hold only a
/// tile or two, and its ring never fills. One-wave's shape, 256 x 32, with
/// the registers capped at 64 a thread so that four blocks fit an SM, as
/// one-wave's do, and two groups per trip: on the H100 at 2^22 elements,
/// 1.01x CUB against 0.99x with four (the lab book has the sweep; launched
/// early, the two were within the spread: 14.98 and 14.90 µs).
/// Deterministic runs it while its tiles fit one wave (fits_one_wave():
/// up to 4.125 * 2^20 elements on 132 SMs); past that, a second wave of a
/// few tiles costs more than a ring.
inline constexpr Recipe kGroupedPerTile = grouped(wide(2, per_tile(256, 32, Io::warp, ch10::kSpin, 4)));
/// The same with four groups per trip, the H200's: 1.02x CUB there at
/// 2^22 elements, against 1.015x with two.
inline constexpr Recipe kGroupedPerTileH200 = grouped(wide(4, per_tile(256, 32, Io::warp, ch10::kSpin, 4)));
/// The same for 8-byte types, in tiles of the same bytes (128 x 32: a
/// tile of 256 x 32 would need 64 KiB of static shared memory, 48 KiB is
/// the limit).
inline constexpr Recipe kGroupedPerTileWide = grouped(wide(4, per_tile(128, 32, Io::warp, ch10::kSpin)));
/// Deterministic runs the grouped walk per tile for 8-byte types
/// (kGroupedPerTileWide) below this many bytes: 32 MiB, 2^22 elements.
/// (4-byte types run it as long as its tiles fit one wave: fits_one_wave().)
inline constexpr std::int64_t kGroupedPerTileWideBelowBytes = std::int64_t{32} << 20;
/// Deterministic's 4-byte scans below this many bytes of input (64 MiB,
/// 2^24 elements) take kOverlappedSmall instead of overlapped where
/// overlapped's last round of tiles would be less than kThinLastRound
/// full. Measured (sums, launched early, five runs) from 2^22 to 2^24
/// elements in steps of 2^18 and 2^20: overlapped's worst sizes were those
/// just past a whole number of rounds, 4.75, 5 and 7 * 2^20 elements (last
/// rounds 5%, 16% and 2% full), where it ran (float) at 0.91-0.99x CUB
/// on the H200 and 0.96-1.04x on the H100, the smaller tiles at
/// 1.01-1.11x and 1.09-1.16x.
inline constexpr std::int64_t kLastRoundBelowBytes = std::int64_t{64} << 20;
/// ... a third. Below 64 MiB, with a last round up to 31% full, the
/// smaller tiles were the faster in every case of the 2^18 grid (int32
/// and float, both GPUs); from 34% on, overlapped in 53 of 60, and the
/// smaller tiles by at most 2.9% in the others. (On a 2^16 grid around
/// 4.75 * 2^20, overlapped was the faster at 8% and 10% full.)
inline constexpr double kThinLastRound = 1.0 / 3.0;
/// The H200's walk per tile for where both rings' last rounds are thin:
/// 128 x 32 tiles in blocks of 128 threads, the registers capped at 64 a
/// thread (eight blocks an SM at least; the sums take 56, and nine fit),
/// four groups per trip. The rings of 128 x 36 and 128 x 20 tiles deal
/// about the same elements per round, 2.43 and 2.37 million on 132 SMs
/// (their stages fill an SM's shared memory either way), so just past two
/// rounds both are thin. There this walk won: at 4.75 * 2^20 elements
/// (float, five runs) 1.10x CUB, against 1.03x for the ring of 128 x 20
/// tiles and 0.92x for overlapped.
inline constexpr Recipe kGroupedPerTileSmallH200 =
    grouped(wide(4, per_tile(128, 32, Io::warp, ch10::kSpin, 8)));
/// On the H200, deterministic takes kGroupedPerTileSmallH200 instead of
/// the ring of 128 x 20 tiles where overlapped's last round is thin and
/// the walk's tiles make at most this many waves (waves()). For sums on
/// 132 SMs that is the whole thin stretch after two of overlapped's
/// rounds, 4.64 to 5.41 * 2^20 elements (one wave of the walk, 1,188
/// blocks of 4,096 elements, is exactly two of those rounds). The walk
/// led the ring from 4.6875 to 5 * 2^20 (float, five runs); at 5.25 *
/// 2^20, inside the stretch, the ring led (1.06x against 1.04x), and
/// after three rounds, at 7 * 2^20 (1.5 waves), by far (1.12x against
/// 0.95x).
inline constexpr double kSmallWalkWavesUpTo = 1.2;
/// Deterministic launches its 4-byte per-tile walk early (early_launch())
/// from this many bytes of input on: 16 MiB, 2^22 elements, where (float)
/// it took 14.9-15.0 µs launched this way against 16.5-16.6 with the
/// memset on the H100, and 13.8-13.9 against 15.2-15.5 on the H200. Below,
/// it paid on at most one GPU: at 2^21 0.6 µs faster on the H100 but even
/// on the H200, at 2^20 and 2^16 slower on the H100 (9.3 µs against 8.7,
/// 9.1 against 7.1). The 8-byte walk per tile was not timed launched early
/// and keeps the memset. The rings, which take over where the walk per
/// tile stops, are always launched early.
inline constexpr std::int64_t kEarlyLaunchFromBytes = std::int64_t{16} << 20;
/// On the H100, deterministic's 4-byte sums, max and min take the rings of
/// overlapped's kernel below this many bytes of input:
/// 64 MiB, 2^24 elements of 4 bytes. At 2^23 elements it took 32.6 µs
/// against 36.1-36.6 for kDeterministic; from 2^24 to 2^26 the two were
/// within 2% either way, and at 2^28 and 2^30 kDeterministic was 0.8% and
/// 1.4% faster.
inline constexpr std::int64_t kOverlappedBelowBytes = std::int64_t{64} << 20;
// [recipes]

}  // namespace scan::ch11
