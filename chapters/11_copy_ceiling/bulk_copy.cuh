/// \file
/// \brief Chapter 11: thin wrappers over the PTX of Hopper's asynchronous
/// bulk copies (TMA), shared-memory barriers (mbarrier) and early launches
/// (griddepcontrol), one instruction each, for the kernels of chapters 11
/// to 13. The header needs nothing but CUDA, so a stand-alone program can
/// use it too (scripts/gpu/probe_copy.cu).
#pragma once

#include <cstdint>

/// The PTX wrappers, one instruction each (a bulk store also commits its
/// group, and a wait tries again until its phase completes).
namespace scan::ch11::tma {

/// The shared-memory address PTX wants for a pointer into shared memory.
__device__ __forceinline__ unsigned shared_address(const void* pointer) {
  return static_cast<unsigned>(__cvta_generic_to_shared(pointer));
}

/// Makes `barrier` expect `arrivals` arrivals per phase.
__device__ __forceinline__ void init(std::uint64_t* barrier, unsigned arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(barrier)), "r"(arrivals) : "memory");
}
/// Makes initialized barriers visible to the copy engine.
__device__ __forceinline__ void fence_init() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }

/// Arrives on `barrier` and tells it that `bytes` more are on their way:
/// the phase completes when they have landed.
__device__ __forceinline__ void arrive_expecting(std::uint64_t* barrier, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(barrier)), "r"(bytes)
               : "memory");
}
/// Arrives on `barrier` with nothing to wait for.
__device__ __forceinline__ void arrive(std::uint64_t* barrier) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address(barrier)) : "memory");
}
/// Waits until the phase of `barrier` with parity `parity` has completed.
__device__ __forceinline__ void wait(std::uint64_t* barrier, unsigned parity) {
  unsigned done = 0;
  while (!done) {
    asm volatile(
        "{\n\t.reg .pred complete;\n\tmbarrier.try_wait.parity.shared::cta.b64 complete, [%1], %2;\n\t"
        "selp.u32 %0, 1, 0, complete;\n\t}"
        : "=r"(done)
        : "r"(shared_address(barrier)), "r"(parity)
        : "memory");
  }
}

/// Starts copying `bytes` (a multiple of 16, both addresses 16-byte
/// aligned) from global memory to shared memory; `barrier` counts them in.
__device__ __forceinline__ void load(void* shared, const void* global, unsigned bytes, std::uint64_t* barrier) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   shared_address(shared)),
               "l"(global), "r"(bytes), "r"(shared_address(barrier))
               : "memory");
}
/// Makes this thread's ordinary writes to shared memory visible to the
/// copy engine (before a bulk store reads them).
__device__ __forceinline__ void fence_shared_writes() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
/// Starts copying `bytes` from shared memory to global memory, as a new
/// bulk group.
__device__ __forceinline__ void store(void* global, const void* shared, unsigned bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(global),
               "r"(shared_address(shared)), "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
/// Waits until at most `Pending` bulk stores still read their shared memory.
template <int Pending>
__device__ __forceinline__ void wait_stores_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(Pending) : "memory");
}
/// Waits until every bulk store has completed.
__device__ __forceinline__ void wait_stores_done() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }

/// Starts moving `bytes` (a multiple of 16, from a 16-byte aligned address)
/// of global memory into L2, without waiting and without a destination in
/// shared memory (cp.async.bulk.prefetch).
__device__ __forceinline__ void prefetch_l2(const void* global, unsigned bytes) {
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(global), "r"(bytes) : "memory");
}

/// Lets the grid launched behind this one in the stream with programmatic
/// stream serialization start now, before this grid has finished
/// (griddepcontrol.launch_dependents). Once every block of this grid has
/// called it or exited, the next grid's blocks may be scheduled.
__device__ __forceinline__ void release_dependent_grid() {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}
/// Waits until the grids this one was launched early behind have finished
/// and their writes are visible to this thread (griddepcontrol.wait).
/// Returns at once in a grid launched the ordinary way.
__device__ __forceinline__ void wait_for_prerequisite_grid() { asm volatile("griddepcontrol.wait;" ::: "memory"); }

}  // namespace scan::ch11::tma
