/// \file
/// \brief The variant registry: one entry per algorithm variant.
///
/// A chapter's variants are listed once, in the chapter's own source file,
/// and that one list feeds the chapter's program, the generic GPU test suite,
/// the scoreboard and any grader. A new variant is one entry, not four edits.
///
/// A variant is written as a small struct (an *algorithm*):
/// \code
/// struct MyScan {
///   static scan::VariantInfo info();   // name, one-line summary, limits
///   template <class T, class Op>
///   static void run(const scan::ScanRequest<T>& request, Op op);
///   // optional: the scratch memory run() takes from request.workspace
///   template <class T, class Op>
///   static void reserve(scan::Workspace& workspace, std::int64_t n, int block_threads);
/// };
/// \endcode
/// and registered with `scan::gpu_variant<MyScan>()` (or host_variant), which
/// instantiates it for every (T, Op) pair of ScanCombos and keeps the
/// instantiations behind one run-time interface.
#pragma once

#include <scan/device_info.hpp>
#include <scan/trace.hpp>
#include <scan/types.hpp>

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace scan {

/// Where a variant's data lives and its code runs.
enum class Where { host, device };

/// A bump allocator over scratch memory.
///
/// A default-constructed Workspace has no memory and only *measures*: take()
/// returns null and counts the bytes. The registry runs an algorithm's
/// reserve() on a measuring Workspace to learn how much scratch it needs; the
/// runner allocates that much before timing; run() then takes the same
/// pieces, in the same order, from the real memory. One function describes
/// the layout, so size and use cannot disagree.
class Workspace {
 public:
  /// Every piece starts on this boundary (enough for any vector access).
  static constexpr std::size_t kAlignment = 256;

  /// A measuring workspace.
  Workspace() = default;
  /// A workspace over `capacity` bytes at `base`.
  Workspace(std::byte* base, std::size_t capacity) : base_(base), capacity_(capacity) {}

  /// Takes room for `count` objects of type U; null while measuring.
  /// Throws std::logic_error if the real memory is too small (a reserve()
  /// that does not match run()).
  template <class U>
  U* take(std::size_t count) {
    const std::size_t offset = (used_ + kAlignment - 1) / kAlignment * kAlignment;
    used_ = offset + count * sizeof(U);
    if (base_ == nullptr) return nullptr;
    if (used_ > capacity_) throw_overflow();
    return reinterpret_cast<U*>(base_ + offset);
  }

  /// Bytes taken so far, padding included.
  std::size_t used() const { return used_; }

 private:
  [[noreturn]] void throw_overflow() const;
  std::byte* base_ = nullptr;
  std::size_t capacity_ = 0;
  std::size_t used_ = 0;
};

/// Everything one scan call needs, typed.
///
/// Contract for run(): `n >= 1` (the registry answers n = 0 itself), `in` and
/// `out` hold n elements and do not overlap, and everything runs on `stream`
/// without synchronizing the host (so the runner can time a chain of calls),
/// except when `trace` is set.
template <class T>
struct ScanRequest {
  const T* in = nullptr;       ///< input, n elements (device memory for GPU variants)
  T* out = nullptr;            ///< output, n elements
  std::int64_t n = 0;          ///< number of elements, at least 1
  Kind kind = Kind::inclusive; ///< inclusive or exclusive
  Workspace workspace;         ///< scratch memory, as much as reserve() asked for
  cudaStream_t stream = nullptr;  ///< the stream to launch on
  int block_threads = 0;       ///< threads per block: always a valid size here (Variant::run resolves 0)
  Trace* trace = nullptr;      ///< non-null when the user asked for `--trace`
  /// Segmented scans (VariantInfo::segmented): n bytes, 1 where a segment
  /// starts (element 0 always does); the scan restarts there. Null otherwise.
  const std::uint8_t* heads = nullptr;
  /// Segmented scans: each element's segment number (equal within a
  /// segment, different between neighbours), for variants that find the
  /// segments by key. Null otherwise.
  const std::int32_t* keys = nullptr;
  /// Optional (VariantInfo::takes_seed): one element in device memory that
  /// goes on the left of every output, the combination of whatever came
  /// before this array (chapter 14 scans shards so). Null: nothing.
  const T* seed = nullptr;
};

/// The same request with the element type erased (what the registry stores).
struct ErasedRequest {
  const void* in = nullptr;       ///< input, n elements of the variant's type
  void* out = nullptr;            ///< output, n elements
  std::int64_t n = 0;             ///< number of elements
  Kind kind = Kind::inclusive;    ///< inclusive or exclusive
  Workspace workspace;            ///< scratch memory
  cudaStream_t stream = nullptr;  ///< the stream to launch on
  /// Threads per block, for variants that take `--block`; 0 (the default)
  /// means the variant's own default (see Variant::block_for).
  int block_threads = 0;
  Trace* trace = nullptr;         ///< non-null for `--trace`
  const std::uint8_t* heads = nullptr;  ///< segmented scans: 1 where a segment starts
  const std::int32_t* keys = nullptr;   ///< segmented scans: each element's segment number
  const void* seed = nullptr;           ///< VariantInfo::takes_seed: one element before the array
};

/// No limit on n.
inline constexpr std::int64_t kNoLimit = std::numeric_limits<std::int64_t>::max();

/// What a variant says about itself.
struct VariantInfo {
  std::string name;                  ///< command-line name, e.g. "kogge-stone"
  std::string summary;               ///< one line for `--list` and the docs
  std::int64_t max_n = kNoLimit;     ///< largest n it accepts
  std::string max_n_reason;          ///< why, when max_n is set
  /// 0 for a full scan. k > 0: the variant is a building block that scans
  /// independent segments of k elements (a tile-wise scan); it is verified
  /// against a tile-wise reference and never counted as a full scan.
  std::int64_t segment = 0;
  /// Threads per block: the default when the variant takes `--block`, the
  /// fixed shape otherwise (0 for CPU variants).
  int block = 0;
  bool takes_block = false;          ///< honours `--block`
  int block_min = 1;                 ///< smallest `--block` it accepts
  /// Elements each thread handles in a tile; a tile is block x
  /// items_per_thread elements. 0: the variant does not work in tiles.
  int items_per_thread = 0;
  /// Float sums may differ in their last bits from run to run (the order of
  /// combination depends on timing, as in a look-back scan); they still lie
  /// within the verification bound.
  bool float_order_varies = false;
  /// A point of a tuning sweep: built for SweepCombos only and run only when
  /// named, or with `--variant sweep`; never part of `--variant all`.
  bool tuning = false;
  /// A segmented scan: it scans each segment that ScanRequest::heads marks
  /// (or ScanRequest::keys numbers) on its own (chapter 12).
  bool segmented = false;
  /// Honours ScanRequest::seed (chapter 11's bulk recipes).
  bool takes_seed = false;
};

/// One registered variant: its info and its instantiations.
struct Variant {
  /// An instantiation for one (T, Op) pair.
  struct Implementation {
    /// Runs the scan.
    void (*run)(const ErasedRequest&) = nullptr;
    /// Scratch bytes for n elements at a block size.
    std::size_t (*workspace_bytes)(std::int64_t n, int block_threads) = nullptr;
  };

  VariantInfo info;            ///< what the variant says about itself
  Where where = Where::device; ///< host or device
  /// One entry per pair of ScanCombos; null where the variant was not built.
  std::array<Implementation, kComboCount> implementations{};

  /// True if the variant was built for this element type and operator.
  bool supports(DType dtype, OpId op) const;
  /// Runs the scan (n = 0 returns at once) with the block block_for(request.block_threads),
  /// so a default-constructed request's 0 means the variant's default.
  /// Throws std::logic_error if unsupported, std::invalid_argument for a block the variant cannot run.
  void run(DType dtype, OpId op, const ErasedRequest& request) const;
  /// Scratch bytes for n elements at block_for(block_threads) (0: the default block).
  std::size_t workspace_bytes(DType dtype, OpId op, std::int64_t n, int block_threads) const;
  /// The block size a run uses: `requested` (0 = the default) for variants
  /// that take `--block`, the fixed block otherwise.
  int block_for(int requested) const;
  /// The one rule for a block size, which every variant and the command
  /// line follow: a power of two from 1 to 1024 threads. Empty if `block`
  /// keeps it, otherwise why not.
  static std::string block_size_problem(int block);
  /// Empty if this variant runs with block_for(requested) threads: the rule
  /// above and, for a variant that takes `--block`, its smallest block.
  /// Otherwise why not, naming the variant.
  std::string block_problem(int requested) const;
  /// Elements per tile with `block` threads (0 when the variant has no tiles).
  std::int64_t tile_for(int block) const {
    return static_cast<std::int64_t>(block_for(block)) * info.items_per_thread;
  }
};

/// A chapter: its number, its program's name and its variants.
struct Chapter {
  std::string number;  ///< "02"
  std::string slug;    ///< "naive_global"
  std::string title;   ///< "Naive scans in global memory"
  Where where = Where::device;   ///< host (chapter 01) or device
  std::vector<Variant> variants; ///< in the order the chapter introduces them
  /// The oldest GPU its kernels run on (chapters 11 and 12: a Hopper); the
  /// default, sm = 0, is every GPU the build supports.
  ArchitectureNeed needs{};

  /// The program's name: "ch02_naive_global".
  std::string program() const { return "ch" + number + "_" + slug; }
  /// The variant called `name`, or null.
  const Variant* find(const std::string& name) const;
};

/// Every chapter that was built, in order (generated by CMake from the
/// scan_add_chapter() calls).
std::vector<const Chapter*> all_chapters();

namespace detail {

template <class Algorithm, class T, class Op>
void run_erased(const ErasedRequest& r) {
  if (r.n == 0) return;  // algorithms may assume n >= 1
  ScanRequest<T> typed;
  typed.in = static_cast<const T*>(r.in);
  typed.out = static_cast<T*>(r.out);
  typed.n = r.n;
  typed.kind = r.kind;
  typed.workspace = r.workspace;
  typed.stream = r.stream;
  typed.block_threads = r.block_threads;
  typed.trace = r.trace;
  typed.heads = r.heads;
  typed.keys = r.keys;
  typed.seed = static_cast<const T*>(r.seed);
  Algorithm::template run<T, Op>(typed, Op{});
}

template <class Algorithm, class T, class Op>
std::size_t workspace_erased(std::int64_t n, int block_threads) {
  if constexpr (requires(Workspace& w) { Algorithm::template reserve<T, Op>(w, n, block_threads); }) {
    if (n == 0) return 0;
    Workspace measuring;
    Algorithm::template reserve<T, Op>(measuring, n, block_threads);
    return measuring.used();
  } else {
    (void)n;
    (void)block_threads;
    return 0;
  }
}

template <class Algorithm, class Combos>
Variant make_variant(Where where) {
  Variant v;
  v.info = Algorithm::info();
  v.where = where;
  for_each_combo<Combos>([&]<class T, class Op>() {
    v.implementations[combo_index_of<T, Op>()] = {&run_erased<Algorithm, T, Op>,
                                                  &workspace_erased<Algorithm, T, Op>};
  });
  return v;
}

}  // namespace detail

/// Registers a GPU algorithm for every pair of `Combos`: ScanCombos for a
/// variant, SweepCombos for a point of a tuning sweep.
template <class Algorithm, class Combos = ScanCombos>
Variant gpu_variant() {
  return detail::make_variant<Algorithm, Combos>(Where::device);
}

/// Registers a CPU algorithm for every pair of `Combos`.
template <class Algorithm, class Combos = ScanCombos>
Variant host_variant() {
  return detail::make_variant<Algorithm, Combos>(Where::host);
}

}  // namespace scan
