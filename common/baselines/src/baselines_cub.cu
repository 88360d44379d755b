#include <scan/baselines.hpp>
#include <scan/error.hpp>

#include <cub/device/device_scan.cuh>
#include <cuda/functional>
#include <cuda/std/functional>

#include <cstdint>
#include <limits>
#include <stdexcept>

namespace scan {
namespace {

/// The functor a CUB user would pass for each of our operators. CUB's tuned
/// policies for sm_90 apply to its own functors only (cuda::std::plus,
/// cuda::maximum, cuda::minimum); passing ours would slow CUB down and
/// flatter every chapter's "x CUB" column.
template <class Op>
auto cub_operator() {
  if constexpr (std::is_same_v<Op, Add>) return ::cuda::std::plus<>{};
  else if constexpr (std::is_same_v<Op, Max>) return ::cuda::maximum<>{};
  else if constexpr (std::is_same_v<Op, Min>) return ::cuda::minimum<>{};
  else return Op{};
}

/// Calls CUB with 32-bit counts when n fits (as most users do, and CUB's
/// fastest path) and 64-bit counts otherwise.
template <class T, class Op>
cudaError_t cub_scan(void* temp, std::size_t& temp_bytes, const T* in, T* out, std::int64_t n,
                     Kind kind, cudaStream_t stream) {
  const auto op = cub_operator<Op>();
  const auto call = [&](auto count) {
    if (kind == Kind::inclusive) {
      return cub::DeviceScan::InclusiveScan(temp, temp_bytes, in, out, op, count, stream);
    }
    return cub::DeviceScan::ExclusiveScan(temp, temp_bytes, in, out, op,
                                          Op::template identity<T>(), count, stream);
  };
  if (n <= std::numeric_limits<std::uint32_t>::max()) return call(static_cast<std::uint32_t>(n));
  return call(static_cast<std::uint64_t>(n));
}

struct CubScan {
  static VariantInfo info() {
    return {.name = "cub::DeviceScan",
            .summary = "CUB's single-pass decoupled look-back scan, as shipped with the toolkit",
            .float_order_varies = true};
  }

  template <class T, class Op>
  static void reserve(Workspace& workspace, std::int64_t n, int /*block_threads*/) {
    std::size_t inclusive = 0, exclusive = 0;
    SCAN_CUDA((cub_scan<T, Op>(nullptr, inclusive, nullptr, nullptr, n, Kind::inclusive, nullptr)));
    SCAN_CUDA((cub_scan<T, Op>(nullptr, exclusive, nullptr, nullptr, n, Kind::exclusive, nullptr)));
    workspace.take<std::byte>(std::max(inclusive, exclusive));
  }

  template <class T, class Op>
  static void run(const ScanRequest<T>& r, Op) {
    Workspace workspace = r.workspace;
    std::size_t bytes = 0;
    SCAN_CUDA((cub_scan<T, Op>(nullptr, bytes, r.in, r.out, r.n, r.kind, r.stream)));
    void* temp = workspace.take<std::byte>(bytes);
    SCAN_CUDA((cub_scan<T, Op>(temp, bytes, r.in, r.out, r.n, r.kind, r.stream)));
  }
};

/// The same for CUB's scan by key, over the segments ScanRequest::keys numbers.
template <class T, class Op>
cudaError_t cub_scan_by_key(void* temp, std::size_t& temp_bytes, const std::int32_t* keys, const T* in, T* out,
                            std::int64_t n, Kind kind, cudaStream_t stream) {
  const auto op = cub_operator<Op>();
  const auto call = [&](auto count) {
    if (kind == Kind::inclusive) {
      return cub::DeviceScan::InclusiveScanByKey(temp, temp_bytes, keys, in, out, op, count,
                                                 ::cuda::std::equal_to<>{}, stream);
    }
    return cub::DeviceScan::ExclusiveScanByKey(temp, temp_bytes, keys, in, out, op, Op::template identity<T>(),
                                               count, ::cuda::std::equal_to<>{}, stream);
  };
  if (n <= std::numeric_limits<std::int32_t>::max()) return call(static_cast<std::int32_t>(n));
  return call(static_cast<std::int64_t>(n));
}

struct CubScanByKey {
  static VariantInfo info() {
    return {.name = "cub::DeviceScan::ByKey",
            .summary = "CUB's scan by key (it reads a 4-byte key per element, not a 1-byte head flag)",
            .float_order_varies = true,
            .segmented = true};
  }

  template <class T, class Op>
  static void reserve(Workspace& workspace, std::int64_t n, int /*block_threads*/) {
    std::size_t inclusive = 0, exclusive = 0;
    SCAN_CUDA((cub_scan_by_key<T, Op>(nullptr, inclusive, nullptr, nullptr, nullptr, n, Kind::inclusive, nullptr)));
    SCAN_CUDA((cub_scan_by_key<T, Op>(nullptr, exclusive, nullptr, nullptr, nullptr, n, Kind::exclusive, nullptr)));
    workspace.take<std::byte>(std::max(inclusive, exclusive));
  }

  template <class T, class Op>
  static void run(const ScanRequest<T>& r, Op) {
    if (r.keys == nullptr) throw std::logic_error("cub::DeviceScan::ByKey needs the segments' keys");
    Workspace workspace = r.workspace;
    std::size_t bytes = 0;
    SCAN_CUDA((cub_scan_by_key<T, Op>(nullptr, bytes, r.keys, r.in, r.out, r.n, r.kind, r.stream)));
    void* temp = workspace.take<std::byte>(bytes);
    SCAN_CUDA((cub_scan_by_key<T, Op>(temp, bytes, r.keys, r.in, r.out, r.n, r.kind, r.stream)));
  }
};

}  // namespace

const Variant& cub_by_key_variant() {
  static const Variant variant = gpu_variant<CubScanByKey>();
  return variant;
}

const Variant& cub_variant() {
  static const Variant variant = gpu_variant<CubScan>();
  return variant;
}

}  // namespace scan
