#include <scan/baselines.hpp>
#include <scan/error.hpp>

#include <cub/device/device_scan.cuh>
#include <cuda/std/functional>
#include <thrust/execution_policy.h>
#include <thrust/scan.h>

#include <cstddef>
#include <cstdint>
#include <tuple>

namespace scan {
namespace {

/// Serves Thrust's temporary allocations from the pre-allocated workspace,
/// so the timed region holds no cudaMalloc. Should Thrust ever ask for more
/// than we reserved, it gets real device memory, as it would by default.
class WorkspaceAllocator {
 public:
  using value_type = char;
  WorkspaceAllocator(std::byte* base, std::size_t capacity) : base_(base), capacity_(capacity) {}

  char* allocate(std::ptrdiff_t bytes) {
    if (!lent_ && static_cast<std::size_t>(bytes) <= capacity_) {
      lent_ = true;
      return reinterpret_cast<char*>(base_);
    }
    void* p = nullptr;
    SCAN_CUDA(cudaMalloc(&p, static_cast<std::size_t>(bytes)));
    return static_cast<char*>(p);
  }
  void deallocate(char* p, std::size_t) {
    if (p == reinterpret_cast<char*>(base_)) {
      lent_ = false;
    } else {
      (void)cudaFree(p);  // called while Thrust cleans up: must not throw
    }
  }

 private:
  std::byte* base_;
  std::size_t capacity_;
  bool lent_ = false;
};

struct ThrustScan {
  static VariantInfo info() {
    return {.name = "thrust::scan",
            .summary = "Thrust's scan (inclusive_scan / exclusive_scan), which calls CUB underneath",
            .float_order_varies = true};
  }

  template <class T, class Op>
  static void reserve(Workspace& workspace, std::int64_t n, int /*block_threads*/) {
    // Thrust runs CUB's scan with 64-bit counts; reserve what that asks for, twice over.
    std::size_t bytes = 0;
    SCAN_CUDA(cub::DeviceScan::ExclusiveScan(nullptr, bytes, static_cast<const T*>(nullptr),
                                             static_cast<T*>(nullptr), ::cuda::std::plus<>{}, T{},
                                             static_cast<std::int64_t>(n)));
    workspace.take<std::byte>(2 * bytes + (std::size_t{1} << 20));
  }

  template <class T, class Op>
  static void run(const ScanRequest<T>& r, Op) {
    Workspace workspace = r.workspace;
    std::size_t bytes = 0;
    SCAN_CUDA(cub::DeviceScan::ExclusiveScan(nullptr, bytes, r.in, r.out, ::cuda::std::plus<>{}, T{},
                                             static_cast<std::int64_t>(r.n)));
    const std::size_t reserved = 2 * bytes + (std::size_t{1} << 20);
    WorkspaceAllocator allocator(workspace.take<std::byte>(reserved), reserved);
    const auto policy = thrust::cuda::par_nosync(allocator).on(r.stream);
    if (r.kind == Kind::inclusive) {
      thrust::inclusive_scan(policy, r.in, r.in + r.n, r.out, ::cuda::std::plus<>{});
    } else {
      thrust::exclusive_scan(policy, r.in, r.in + r.n, r.out, T{}, ::cuda::std::plus<>{});
    }
    SCAN_CUDA(cudaGetLastError());
  }
};

using ThrustCombos = std::tuple<Combo<std::int32_t, Add>, Combo<std::uint32_t, Add>,
                                Combo<std::int64_t, Add>, Combo<float, Add>, Combo<double, Add>>;

}  // namespace

const Variant& thrust_variant() {
  static const Variant variant = gpu_variant<ThrustScan, ThrustCombos>();
  return variant;
}

}  // namespace scan
