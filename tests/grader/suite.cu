// The grader's child side for the registry chapters: the generic suite (as
// tests/support.cpp runs it, case by case into a CaseLog), the small runs
// compute-sanitizer watches, and the timing of the student's variant against
// the reference's. Everything here may run the student's code.
#include "grader.hpp"
#include "poison.cuh"
#include "run_case.cuh"
#include "suite_plan.hpp"

#include <scan/error.hpp>
#include <scan/generate.hpp>
#include <scan/harness.hpp>
#include <scan/registry.hpp>
#include <scan/verify.hpp>

#include <algorithm>
#include <cstring>
#include <set>
#include <sstream>
#include <stdexcept>
#include <type_traits>

#ifndef KIT_APPLICATIONS

namespace scan::KIT_STUDENT_NS {
const Chapter& chapter();
}
namespace scan::KIT_REFERENCE_NS {
const Chapter& chapter();
}

namespace kit {
namespace {

using namespace scan;
using namespace scan::suite_plan;

/// The first `lines` lines of a text, joined with " | ".
std::string first_lines(const std::string& text, int lines) {
  std::istringstream in(text);
  std::string line, out;
  for (int k = 0; k < lines && std::getline(in, line); ++k) out += (k ? " | " : "") + line;
  return out;
}

/// The fields of a registry entry the suite relies on: the student's must
/// be the reference's (sizes, tiles and what is verified come from them).
std::string entry_difference(const Variant& student, const Variant& reference) {
  const VariantInfo& s = student.info;
  const VariantInfo& r = reference.info;
  if (s.max_n != r.max_n || s.segment != r.segment || s.block != r.block || s.takes_block != r.takes_block ||
      s.block_min != r.block_min || s.items_per_thread != r.items_per_thread || s.segmented != r.segmented ||
      s.float_order_varies != r.float_order_varies || student.where != reference.where) {
    return "the registry entry of '" + r.name + "' differs from the reference's (limits, block, tile or kind)";
  }
  return "";
}

class RegistrySubject final : public Subject {
 public:
  RegistrySubject() : student_(scan::KIT_STUDENT_NS::chapter()), reference_(scan::KIT_REFERENCE_NS::chapter()) {}

  bool on_device() const override { return reference_.where == Where::device; }
  std::string title() const override { return reference_.title; }
  std::vector<std::string> items() const override {
    std::vector<std::string> names;
    for (const Variant& v : reference_.variants) names.push_back(v.info.name);
    return names;
  }

  void correctness(const std::string& item, bool quick, CaseLog& log) override {
    log_ = &log;
    quick_ = quick;
    const Variant& ref = reference_variant(item);
    log.begin("the variant '" + item + "' exists with the reference's registry entry");
    const Variant* stu = student_.find(item);
    if (stu == nullptr) {
      log.fail("the student's chapter has no variant '" + item + "'");
      return;
    }
    if (const std::string d = entry_difference(*stu, ref); !d.empty()) {
      log.fail(d);
      return;
    }
    log.pass();
    if (on_device()) poison_.prepare();
    run_variant(*stu, ref, ref.info.block);
    if (ref.info.takes_block) {
      // The smallest block (deep recursion of tile totals) and the largest.
      for (int block : {std::max(ref.info.block_min, 2), 1024}) {
        if (block == ref.info.block) continue;
        for (std::int64_t n : {std::int64_t{1}, std::int64_t{block} + 1, std::int64_t{5000}, std::int64_t{100003}}) {
          if (n > ref.info.max_n || (n > 5000 && (ref.info.items_per_thread == 0 || quick))) continue;
          check_case<std::int32_t, Add>(*stu, Kind::inclusive, n, block, Distribution::typical);
          check_case<std::uint32_t, AffineCompose>(*stu, Kind::exclusive, n, block, Distribution::typical);
        }
      }
    }
    if (!aborted_) log.done();
  }

  void sanitize(const std::string& item, std::int64_t large_n) override {
    const Variant& ref = reference_variant(item);
    const Variant* stu = student_.find(item);
    if (stu == nullptr || !entry_difference(*stu, ref).empty()) return;  // the correctness child says why
    const int block = ref.info.block;
    const std::int64_t threads = ref.block_for(block);
    const std::int64_t tile = ref.tile_for(block) > 0 ? ref.tile_for(block) : threads;
    // Around the block and the tile, and a few tiles (look-backs, carries).
    std::set<std::int64_t> sizes = {1, threads + 1, tile - 1, tile + 1, 3 * tile + 5};
    for (std::int64_t n : sizes) {
      if (n < 1 || n > ref.info.max_n || n > 70000) continue;
      run_quietly<std::int32_t, Add>(*stu, Kind::inclusive, n, block);
      run_quietly<std::uint32_t, AffineCompose>(*stu, Kind::exclusive, n, block);
    }
    run_quietly<double, Max>(*stu, Kind::inclusive, std::min<std::int64_t>(tile + 1, ref.info.max_n), block);
    if (large_n > 0 && large_n <= ref.info.max_n) run_quietly<std::int32_t, Add>(*stu, Kind::inclusive, large_n, block);
  }

  TimingResult timing(const std::string& item, const PerfSettings& perf) override {
    TimingResult result;
    const Variant& ref = reference_variant(item);
    const Variant* stu = student_.find(item);
    if (stu == nullptr) {
      result.problem = "no variant '" + item + "'";
      return result;
    }
    const std::int64_t n = std::min(perf.n, ref.info.max_n);
    using T = std::int32_t;
    std::ostringstream shape;
    shape << "n = " << n << " int32 add inclusive";
    result.shape = shape.str();
    std::vector<std::uint8_t> heads;
    if (ref.info.segmented) heads = make_heads(Heads::long_random, n, ref.tile_for(ref.info.block), 99);
    Harness<T> harness(reference_.where, generate_input<T>(n, 20240601), std::move(heads));
    const int block = ref.info.block;
    std::vector<double> student_ms, reference_ms;
    for (int round = 0; round < perf.rounds; ++round) {
      for (int k = 0; k < 2; ++k) {
        const bool student_turn = (round + k) % 2 == 0;
        const Variant& v = student_turn ? *stu : ref;
        TimingStats stats;
        if (student_turn) {
          stats = harness.time(v, OpId::add, Kind::inclusive, block, perf.warmup, perf.reps);
        } else {
          try {
            stats = harness.time(v, OpId::add, Kind::inclusive, block, perf.warmup, perf.reps);
          } catch (const std::exception& e) {
            result.problem = std::string("the reference's run failed: ") + e.what();
            return result;
          }
        }
        (student_turn ? student_ms : reference_ms).push_back(stats.median_ms);
        if (round == 0 || round == perf.rounds - 1) {
          const VerifyReport report = verify_scan(harness.input(), harness.output(), Kind::inclusive, Add{},
                                                  harness.restarts(ref.info.segment));
          if (!report.ok) {
            result.problem = std::string(student_turn ? "the student's" : "the reference's") +
                             " timed output was wrong: " + first_lines(report.describe(), 1);
            return result;
          }
        }
      }
    }
    result.student_ms = summarize(student_ms).median_ms;
    result.reference_ms = summarize(reference_ms).median_ms;
    return result;
  }

 private:
  const Variant& reference_variant(const std::string& item) const {
    const Variant* v = reference_.find(item);
    if (v == nullptr) throw std::invalid_argument("the reference has no variant '" + item + "'");
    return *v;
  }

  void run_variant(const Variant& stu, const Variant& ref, int block) {
    const Where where = reference_.where;
    const auto sizes = suite_sizes(ref, block, where);
    for_each_combo<ScanCombos>([&]<class T, class Op>() {
      if (aborted_ || !ref.supports(dtype_of<T>(), op_id_of<Op>())) return;
      if (!stu.supports(dtype_of<T>(), op_id_of<Op>())) {
        log_->begin(std::string("built for ") + std::string(dtype_name(dtype_of<T>())) + " " +
                    std::string(op_name(op_id_of<Op>())));
        log_->fail("the student's variant is not built for this type and operator");
        return;
      }
      for (Kind kind : {Kind::inclusive, Kind::exclusive}) {
        check_empty<T, Op>(stu, kind, block);
        for (std::int64_t n : sizes) {
          if (n > kEveryPairUpTo && !large_size_pair(dtype_of<T>(), op_id_of<Op>()) && !ref.info.tuning) continue;
          // Quick: the largest size (many tiles per block in a fixed grid, deep
          // recursions) for int32 add and the non-commutative operator only.
          const bool quick_pair = (dtype_of<T>() == DType::i32 && op_id_of<Op>() == OpId::add) ||
                                  op_id_of<Op>() == OpId::affine;
          if (quick_ && n > (1 << 20) + 7 && !quick_pair) continue;
          check_case<T, Op>(stu, kind, n, block, Distribution::typical);
          if (!ref.info.segmented) continue;
          for (Heads pattern : kSegmentPatterns) {
            if (n > kEveryPairUpTo && !pattern_at_large_sizes(pattern)) continue;
            check_case<T, Op>(stu, kind, n, block, Distribution::typical, pattern);
          }
        }
      }
      if constexpr (std::is_floating_point_v<T> && std::is_same_v<Op, Add>) {
        for (Kind kind : {Kind::inclusive, Kind::exclusive}) {
          for (std::int64_t n : {std::int64_t{1000}, std::int64_t{(1 << 20) + 7}}) {
            if (n <= ref.info.max_n) check_case<T, Op>(stu, kind, n, block, Distribution::real_valued);
          }
        }
      }
      if (sizes.size() > 6) check_repeatable<T, Op>(stu, sizes[sizes.size() / 2], block);
      constexpr std::int64_t kManyTiles = (std::int64_t{1} << 24) + 3;
      if (!quick_ && std::is_floating_point_v<T> && std::is_same_v<Op, Add> && kManyTiles <= ref.info.max_n) {
        check_repeatable<T, Op>(stu, kManyTiles, block);
      }
    });
  }

  template <class T, class Op>
  std::string describe(Kind kind, std::int64_t n, int block, Distribution dist, Heads pattern, bool segmented) const {
    std::ostringstream d;
    d << "n = " << n << ", " << dtype_name(dtype_of<T>()) << " " << op_name(op_id_of<Op>()) << " "
      << kind_name(kind) << (on_device() ? ", block " + std::to_string(block) : std::string())
      << (dist == Distribution::real_valued ? ", real-valued" : "")
      << (segmented ? std::string(", ") + heads_name(pattern) : std::string());
    return d.str();
  }

  /// Runs `body` as one case: an exception fails it; a CUDA error that
  /// leaves the context unusable ends the suite.
  template <class Body>
  void guarded(const std::string& description, Body&& body) {
    if (!aborted_) aborted_ = !run_case(*log_, description, on_device(), body);
  }

  template <class T, class Op>
  void check_case(const Variant& v, Kind kind, std::int64_t n, int block, Distribution dist,
                  Heads pattern = Heads::first_only) {
    const Variant& ref = reference_variant(v.info.name);
    guarded(describe<T, Op>(kind, n, block, dist, pattern, ref.info.segmented), [&]() -> std::string {
      const std::uint64_t seed = seed_for(v.info.name, dtype_of<T>(), op_id_of<Op>(), kind, n) + block;
      std::vector<std::uint8_t> heads;
      if (ref.info.segmented) heads = make_heads(pattern, n, ref.tile_for(block), seed);
      Harness<T> harness(reference_.where, generate_input<T>(n, seed, dist), std::move(heads));
      if (on_device()) poison_.fill(poison_byte<T>());
      const std::vector<T>& out = harness.run_once(v, op_id_of<Op>(), kind, block, nullptr);
      return first_lines(verify_scan(harness.input(), out, kind, Op{}, harness.restarts(ref.info.segment)).describe(),
                         1);
    });
  }

  template <class T, class Op>
  void check_empty(const Variant& v, Kind kind, int block) {
    guarded("n = 0, " + std::string(dtype_name(dtype_of<T>())) + " " + std::string(op_name(op_id_of<Op>())) + " " +
                std::string(kind_name(kind)),
            [&]() -> std::string {
              Harness<T> harness(reference_.where, std::vector<T>{});
              harness.run_once(v, op_id_of<Op>(), kind, block, nullptr);
              return harness.output().empty() ? "" : "an empty scan produced output";
            });
  }

  template <class T, class Op>
  void check_repeatable(const Variant& v, std::int64_t n, int block) {
    const Variant& ref = reference_variant(v.info.name);
    guarded("two runs agree: n = " + std::to_string(n) + ", " + std::string(dtype_name(dtype_of<T>())) + " " +
                std::string(op_name(op_id_of<Op>())),
            [&]() -> std::string {
              std::vector<std::uint8_t> heads;
              if (ref.info.segmented) heads = make_heads(Heads::long_random, n, ref.tile_for(block), 777 + n);
              Harness<T> harness(reference_.where, generate_input<T>(n, 12345 + n, Distribution::real_valued),
                                 std::move(heads));
              if (on_device()) poison_.fill(poison_byte<T>());
              const std::vector<T> first = harness.run_once(v, op_id_of<Op>(), Kind::inclusive, block, nullptr);
              if (on_device()) poison_.fill(poison_byte<T>());
              const std::vector<T>& second = harness.run_once(v, op_id_of<Op>(), Kind::inclusive, block, nullptr);
              const Restarts restarts = harness.restarts(ref.info.segment);
              for (const std::vector<T>* out : {&first, &second}) {
                const std::string d = verify_scan(harness.input(), *out, Kind::inclusive, Op{}, restarts).describe();
                if (!d.empty()) return first_lines(d, 1);
              }
              const bool exact = !(std::is_floating_point_v<T> && std::is_same_v<Op, Add>) ||
                                 !ref.info.float_order_varies;
              if (exact && std::memcmp(first.data(), second.data(), first.size() * sizeof(T)) != 0) {
                return "two runs on the same input gave different outputs";
              }
              return "";
            });
  }

  /// One run for compute-sanitizer to watch; the result is not judged here.
  template <class T, class Op>
  void run_quietly(const Variant& v, Kind kind, std::int64_t n, int block) {
    if (!v.supports(dtype_of<T>(), op_id_of<Op>())) return;
    const Variant& ref = reference_variant(v.info.name);
    try {
      std::vector<std::uint8_t> heads;
      if (ref.info.segmented) heads = make_heads(Heads::short_random, n, ref.tile_for(block), 5 + n);
      Harness<T> harness(reference_.where, generate_input<T>(n, 31 + n), std::move(heads));
      (void)harness.run_once(v, op_id_of<Op>(), kind, block, nullptr);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "grade: %s\n", e.what());
    }
  }

  const Chapter& student_;
  const Chapter& reference_;
  CaseLog* log_ = nullptr;
  bool quick_ = false;
  bool aborted_ = false;
  SharedPoisoner poison_;
};

}  // namespace

std::unique_ptr<Subject> registry_subject() { return std::make_unique<RegistrySubject>(); }

}  // namespace kit

#endif  // KIT_APPLICATIONS
