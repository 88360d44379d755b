/// \file
/// \brief Chapter 01: scan on the CPU, sequentially and with threads.
#pragma once

#include <scan/registry.hpp>
#include <scan/verify.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

namespace scan::ch01 {

/// The chapter's variants.
const Chapter& chapter();

// kit: region loop body "void sequential_scan("
// kit: todo Scan in[0 .. n) into out[0 .. n) in one pass, with n - 1 uses of op.
// kit: todo Inclusive: out[i] = in[0] op in[1] op ... op in[i]. Exclusive: out[i] is the same
// kit: todo combination of in[0 .. i), and out[0] is the identity, Op::template identity<T>().
// kit: todo Keep the running combination on the LEFT of op: op need not commute. Read in[i]
// kit: todo before writing out[i]: out may be the same array as in.
// kit: stub (void)in; (void)out; (void)n; (void)kind; (void)op;
// [plain loop]
/// The scan as a loop: one pass, n - 1 applications of the operator.
///
/// `running` holds the combination of everything seen so far. The inclusive
/// scan folds the element in before writing; the exclusive scan writes
/// first. Reading `x` before writing keeps the loop correct even when `out`
/// and `in` are the same array.
template <class T, class Op>
void sequential_scan(const T* in, T* out, std::int64_t n, Kind kind, Op op) {
  T running = Op::template identity<T>();
  for (std::int64_t i = 0; i < n; ++i) {
    const T x = in[i];
    if (kind == Kind::inclusive) {
      running = op(running, x);
      out[i] = running;
    } else {
      out[i] = running;
      running = op(running, x);
    }
  }
}
// [plain loop]

// [standard library]
/// The same scan through the standard library (C++17, header `numeric`). Without an
/// execution policy both functions run sequentially, left to right.
template <class T, class Op>
void standard_scan(const T* in, T* out, std::int64_t n, Kind kind, Op op) {
  if (kind == Kind::inclusive) {
    std::inclusive_scan(in, in + n, out, op);
  } else {
    std::exclusive_scan(in, in + n, out, Op::template identity<T>(), op);
  }
}
// [standard library]

/// Threads the blocked scan uses: one per hardware thread, but never so many
/// that a chunk falls below `min_chunk` elements (a thread costs tens of
/// microseconds to start).
inline unsigned blocked_threads(std::int64_t n, std::int64_t min_chunk = 1 << 16) {
  const auto hardware = std::max(1u, std::thread::hardware_concurrency());
  const auto useful = static_cast<unsigned>(std::max<std::int64_t>(1, n / min_chunk));
  return std::min(hardware, useful);
}

// kit: region blocked from "// Pass 1: chunk totals."
// kit: to end
// kit: todo The two passes of the blocked scan, with the helpers above: in_parallel(work)
// kit: todo runs work(c) for every chunk c on its own thread; chunk c is [chunk_begin(c),
// kit: todo chunk_end(c)). Pass 1: each chunk's total into carry[c]. Then, on one thread, an
// kit: todo exclusive scan of carry[0 .. threads): carry[c] becomes the total of chunks 0 .. c-1.
// kit: todo Pass 2: each chunk scans its elements of the requested kind, starting from carry[c]
// kit: todo on the left of op.
// kit: stub (void)in; (void)out; (void)kind; (void)op; (void)carry;
// kit: stub (void)chunk_begin; (void)chunk_end; (void)in_parallel;
// [blocked two-pass]
/// A multi-threaded scan in two passes over `threads` contiguous chunks.
///
/// Pass 1: each thread reduces its chunk to one total.
/// Between the passes, one thread scans the few totals (exclusively): chunk c
/// then knows `carry[c]`, the combination of every chunk before it.
/// Pass 2: each thread scans its chunk, starting from its carry.
///
/// The input is read twice and the output written once (3n element moves),
/// and the operator is applied about 2n times: twice the loop's work, spread
/// over the threads. Only associativity is used, never commutativity: each
/// carry is combined on the left.
template <class T, class Op>
void blocked_scan(const T* in, T* out, std::int64_t n, Kind kind, Op op, unsigned threads,
                  T* carry) {
  const std::int64_t chunk = (n + threads - 1) / threads;
  const auto chunk_begin = [&](unsigned c) { return std::min<std::int64_t>(n, c * chunk); };
  const auto chunk_end = [&](unsigned c) { return std::min<std::int64_t>(n, (c + 1) * chunk); };
  const auto in_parallel = [&](auto&& work) {
    std::vector<std::thread> pool;
    for (unsigned c = 1; c < threads; ++c) pool.emplace_back(work, c);
    work(0u);  // the calling thread takes chunk 0
    for (auto& t : pool) t.join();
  };

  // Pass 1: chunk totals.
  in_parallel([&](unsigned c) {
    T total = Op::template identity<T>();
    for (std::int64_t i = chunk_begin(c); i < chunk_end(c); ++i) total = op(total, in[i]);
    carry[c] = total;
  });
  // Exclusive scan of the totals: carry[c] = total of chunks 0 .. c-1.
  sequential_scan(carry, carry, threads, Kind::exclusive, op);
  // Pass 2: scan each chunk from its carry.
  in_parallel([&](unsigned c) {
    T running = carry[c];
    for (std::int64_t i = chunk_begin(c); i < chunk_end(c); ++i) {
      const T x = in[i];
      if (kind == Kind::inclusive) {
        running = op(running, x);
        out[i] = running;
      } else {
        out[i] = running;
        running = op(running, x);
      }
    }
  });
}
// [blocked two-pass]

/// Registry entry: the plain loop.
struct PlainLoop {
  /// Name, summary and limits, for the registry.
  static VariantInfo info() {
    return {.name = "loop", .summary = "the sequential loop: n - 1 operations, one pass"};
  }
  /// Scans r.in into r.out on r.stream.
  template <class T, class Op>
  static void run(const ScanRequest<T>& r, Op op) {
    if (r.trace == nullptr) {
      sequential_scan(r.in, r.out, r.n, r.kind, op);
      return;
    }
    // Traced: show the output after every iteration ('-' marks unwritten slots).
    std::vector<T> shown(static_cast<std::size_t>(r.n), poison_value<T>());
    T running = Op::template identity<T>();
    for (std::int64_t i = 0; i < r.n; ++i) {
      if (r.kind == Kind::exclusive) shown[i] = running;
      running = op(running, r.in[i]);
      if (r.kind == Kind::inclusive) shown[i] = running;
      r.trace->snapshot_host("i = " + std::to_string(i), shown.data());
    }
    std::copy(shown.begin(), shown.end(), r.out);
  }
};

/// Registry entry: std::inclusive_scan / std::exclusive_scan.
struct StandardLibrary {
  /// Name, summary and limits, for the registry.
  static VariantInfo info() {
    return {.name = "std-scan", .summary = "std::inclusive_scan / std::exclusive_scan, sequential"};
  }
  /// Scans r.in into r.out on r.stream.
  template <class T, class Op>
  static void run(const ScanRequest<T>& r, Op op) {
    standard_scan(r.in, r.out, r.n, r.kind, op);
  }
};

/// Registry entry: the multi-threaded blocked two-pass scan.
struct BlockedTwoPass {
  /// Name, summary and limits, for the registry.
  static VariantInfo info() {
    return {.name = "blocked-threads",
            .summary = "one chunk per hardware thread: reduce chunks, scan the totals, scan chunks"};
  }
  /// The scratch memory run() takes.
  template <class T, class Op>
  static void reserve(Workspace& workspace, std::int64_t n, int) {
    workspace.take<T>(blocked_threads(n));
  }
  /// Scans r.in into r.out on r.stream.
  template <class T, class Op>
  static void run(const ScanRequest<T>& r, Op op) {
    Workspace workspace = r.workspace;
    const unsigned threads = blocked_threads(r.n);
    T* carry = workspace.take<T>(threads);
    blocked_scan(r.in, r.out, r.n, r.kind, op, threads, carry);
  }
};

}  // namespace scan::ch01
