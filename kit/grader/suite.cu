// The grader's child side for the registry chapters: the generic suite (as
// tests/support.cpp runs it, case by case into a CaseLog), the small runs
// compute-sanitizer watches, and the timing of the student's variant against
// the reference's. Everything here may run the student's code.
#include "grader.hpp"
#include "poison.cuh"
#include "run_case.cuh"

#include <scan/error.hpp>
#include <scan/generate.hpp>
#include <scan/harness.hpp>
#include <scan/registry.hpp>
#include <scan/segments.hpp>
#include <scan/suite_plan.hpp>
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

/// The blocks the suite runs a variant at: its default, and for a variant
/// that takes --block the smallest and the largest.
std::vector<int> suite_blocks(const VariantInfo& info) {
  std::vector<int> blocks = {info.block};
  if (info.takes_block) {
    for (int b : {std::max(info.block_min, 2), 1024}) {
      if (b != info.block) blocks.push_back(b);
    }
  }
  return blocks;
}

/// What the suite relies on in a registry entry: its limits, blocks, tiles,
/// where it runs and the types and operators it is built for.
nlohmann::json describe_variant(const Variant& v) {
  const VariantInfo& i = v.info;
  nlohmann::json supports = nlohmann::json::array();
  for_each_combo<ScanCombos>([&]<class T, class Op>() {
    if (v.supports(dtype_of<T>(), op_id_of<Op>())) {
      supports.push_back(std::string(dtype_name(dtype_of<T>())) + " " + std::string(op_name(op_id_of<Op>())));
    }
  });
  nlohmann::json shapes = nlohmann::json::object();
  for (int b : suite_blocks(i)) shapes[std::to_string(b)] = {v.block_for(b), v.tile_for(b)};
  return {{"name", i.name},
          {"where", v.where == Where::device ? "device" : "host"},
          {"max_n", i.max_n},
          {"segment", i.segment},
          {"block", i.block},
          {"takes_block", i.takes_block},
          {"block_min", i.block_min},
          {"items_per_thread", i.items_per_thread},
          {"segmented", i.segmented},
          {"float_order_varies", i.float_order_varies},
          {"tuning", i.tuning},
          {"supports", supports},
          {"shapes", shapes}};
}

class RegistrySubject final : public Subject {
 public:
  RegistrySubject() : chapter_(scan::KIT_STUDENT_NS::chapter()) {}

  nlohmann::json describe() const override {
    nlohmann::json variants = nlohmann::json::array();
    for (const Variant& v : chapter_.variants) variants.push_back(describe_variant(v));
    return {{"title", chapter_.title},
            {"where", chapter_.where == Where::device ? "device" : "host"},
            {"items", variants}};
  }

  void use_reference(const nlohmann::json& reference) override { reference_ = reference; }

  void correctness(const std::string& item, bool quick, CaseLog& log) override {
    log_ = &log;
    quick_ = quick;
    const Variant* v = checked_variant(item, &log);
    if (v == nullptr) return;
    if (on_device()) poison_.prepare();
    run_variant(*v, v->info.block);
    if (v->info.takes_block) {
      // The smallest block (deep recursion of tile totals) and the largest.
      for (int block : suite_blocks(v->info)) {
        if (block == v->info.block) continue;
        for (std::int64_t n : {std::int64_t{1}, std::int64_t{block} + 1, std::int64_t{5000}, std::int64_t{100003}}) {
          if (n > v->info.max_n || (n > 5000 && (v->info.items_per_thread == 0 || quick))) continue;
          check_case<std::int32_t, Add>(*v, Kind::inclusive, n, block, Distribution::typical);
          check_case<std::uint32_t, AffineCompose>(*v, Kind::exclusive, n, block, Distribution::typical);
        }
      }
    }
    if (!aborted_) log.done();
  }

  void sanitize(const std::string& item, std::int64_t large_n, CaseLog& log) override {
    log_ = &log;
    const Variant* v = checked_variant(item, &log);
    if (v == nullptr) return;  // the correctness child says why
    const int block = v->info.block;
    const std::int64_t threads = v->block_for(block);
    const std::int64_t tile = v->tile_for(block) > 0 ? v->tile_for(block) : threads;
    // Around the block and the tile (a partial last tile: threads that have
    // no element must still reach every barrier), and a few tiles
    // (look-backs, carries).
    std::set<std::int64_t> sizes = {1, threads - 1, threads + 1, tile - 1, tile + 1, 2 * tile + threads / 2 + 3,
                                     3 * tile + 5};
    for (std::int64_t n : sizes) {
      if (n < 1 || n > v->info.max_n || n > 70000) continue;
      run_quietly<std::int32_t, Add>(*v, Kind::inclusive, n, block);
      run_quietly<std::uint32_t, AffineCompose>(*v, Kind::exclusive, n, block);
    }
    run_quietly<double, Max>(*v, Kind::inclusive, std::min<std::int64_t>(tile + 1, v->info.max_n), block);
    if (large_n > 0 && large_n <= v->info.max_n) run_quietly<std::int32_t, Add>(*v, Kind::inclusive, large_n, block);
    log.done();
  }

  void past_32_bits(const std::string& item, std::int64_t n, CaseLog& log) override {
    // Run only for a variant whose suite passed, its entry check included.
    log_ = &log;
    const Variant* v = chapter_.find(item);
    if (v == nullptr) throw std::invalid_argument("no variant '" + item + "'");
    const std::string name = case_name<std::int32_t, Add>(Kind::inclusive, n, v->info.block, Distribution::typical,
                                                          Heads::long_random, v->info.segmented);
    // The input, the output and the oracle's wide copy on the host; the
    // input and the output on the GPU.
    const std::int64_t host_bytes = n * static_cast<std::int64_t>(2 * sizeof(std::int32_t) + 2 * sizeof(std::int64_t));
    const std::int64_t device_bytes = on_device() ? n * static_cast<std::int64_t>(2 * sizeof(std::int32_t)) : 0;
    std::string why;
    if (n > v->info.max_n) {
      why = "the variant's limit is " + std::to_string(v->info.max_n) + " elements";
    } else {
      why = memory_shortfall(host_bytes + (std::int64_t{1} << 30), device_bytes + (std::int64_t{1} << 30));
    }
    if (!why.empty()) {
      log.begin(name);
      log.skip(why);
    } else {
      guarded(name, [&]() -> std::string {
        std::vector<std::uint8_t> heads;
        if (v->info.segmented) heads = make_heads(Heads::long_random, n, v->tile_for(v->info.block), 4242);
        Harness<std::int32_t> harness(chapter_.where, generate_input<std::int32_t>(n, 31337), std::move(heads));
        const std::vector<std::int32_t>& out = harness.run_once(*v, OpId::add, Kind::inclusive, v->info.block, nullptr);
        return first_lines(
            verify_scan(harness.input(), out, Kind::inclusive, Add{}, harness.restarts(v->info.segment)).describe(), 1);
      });
    }
    log.done();
  }

  TimingRound timing(const std::string& item, const PerfSettings& perf) override {
    TimingRound result;
    const Variant* v = chapter_.find(item);
    if (v == nullptr) {
      result.problem = "no variant '" + item + "'";
      return result;
    }
    const std::int64_t n = std::min(perf.n, v->info.max_n);
    using T = std::int32_t;
    std::ostringstream shape;
    shape << "n = " << n << " int32 add inclusive";
    result.shape = shape.str();
    std::vector<std::uint8_t> heads;
    if (v->info.segmented) heads = make_heads(Heads::long_random, n, v->tile_for(v->info.block), 99);
    Harness<T> harness(chapter_.where, generate_input<T>(n, 20240601), std::move(heads));
    const TimingStats stats = harness.time(*v, OpId::add, Kind::inclusive, v->info.block, perf.warmup, perf.reps);
    result.median_ms = stats.median_ms;
    const VerifyReport report = verify_scan(harness.input(), harness.output(), Kind::inclusive, Add{},
                                            harness.restarts(v->info.segment));
    if (!report.ok) result.problem = "the timed output was wrong: " + first_lines(report.describe(), 1);
    return result;
  }

 private:
  bool on_device() const { return reference_.value("where", "device") == "device"; }

  /// The chapter's variant `item`, checked as the first case: it must exist
  /// and its entry must be the reference's (sizes, tiles and what is
  /// verified come from the entry). Null if not.
  const Variant* checked_variant(const std::string& item, CaseLog* log) const {
    const nlohmann::json* expected = nullptr;
    for (const auto& r : reference_.at("items")) {
      if (r.at("name") == item) expected = &r;
    }
    if (expected == nullptr) throw std::invalid_argument("the reference has no variant '" + item + "'");
    log->begin("the variant '" + item + "' exists with the reference's registry entry");
    const Variant* v = chapter_.find(item);
    if (v == nullptr) {
      log->fail("the chapter has no variant '" + item + "'");
      return nullptr;
    }
    const nlohmann::json got = describe_variant(*v);
    for (const auto& [key, value] : expected->items()) {
      if (!got.contains(key) || got.at(key) != value) {
        log->fail("the registry entry of '" + item + "' differs from the reference's in '" + key + "': " +
                  (got.contains(key) ? got.at(key).dump() : "(none)") + ", the reference's " + value.dump());
        return nullptr;
      }
    }
    log->pass();
    return v;
  }

  void run_variant(const Variant& v, int block) {
    const auto sizes = suite_sizes(v, block, chapter_.where);
    for_each_combo<ScanCombos>([&]<class T, class Op>() {
      if (aborted_ || !v.supports(dtype_of<T>(), op_id_of<Op>())) return;
      for (Kind kind : {Kind::inclusive, Kind::exclusive}) {
        check_empty<T, Op>(v, kind, block);
        for (std::int64_t n : sizes) {
          if (n > kEveryPairUpTo && !large_size_pair(dtype_of<T>(), op_id_of<Op>()) && !v.info.tuning) continue;
          // Quick: the largest size (many tiles per block in a fixed grid, deep
          // recursions) for int32 add and the non-commutative operator only.
          const bool quick_pair = (dtype_of<T>() == DType::i32 && op_id_of<Op>() == OpId::add) ||
                                  op_id_of<Op>() == OpId::affine;
          if (quick_ && n > (1 << 20) + 7 && !quick_pair) continue;
          check_case<T, Op>(v, kind, n, block, Distribution::typical);
          if (!v.info.segmented) continue;
          for (Heads pattern : kSegmentPatterns) {
            if (n > kEveryPairUpTo && !pattern_at_large_sizes(pattern)) continue;
            check_case<T, Op>(v, kind, n, block, Distribution::typical, pattern);
          }
        }
      }
      if constexpr (std::is_floating_point_v<T> && std::is_same_v<Op, Add>) {
        for (Kind kind : {Kind::inclusive, Kind::exclusive}) {
          for (std::int64_t n : {std::int64_t{1000}, std::int64_t{(1 << 20) + 7}}) {
            if (n <= v.info.max_n) check_case<T, Op>(v, kind, n, block, Distribution::real_valued);
          }
        }
      }
      if (sizes.size() > 6) check_repeatable<T, Op>(v, sizes[sizes.size() / 2], block);
      constexpr std::int64_t kManyTiles = (std::int64_t{1} << 24) + 3;
      if (!quick_ && std::is_floating_point_v<T> && std::is_same_v<Op, Add> && kManyTiles <= v.info.max_n) {
        check_repeatable<T, Op>(v, kManyTiles, block);
      }
    });
  }

  template <class T, class Op>
  std::string case_name(Kind kind, std::int64_t n, int block, Distribution dist, Heads pattern, bool segmented) const {
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
    guarded(case_name<T, Op>(kind, n, block, dist, pattern, v.info.segmented), [&]() -> std::string {
      const std::uint64_t seed = seed_for(v.info.name, dtype_of<T>(), op_id_of<Op>(), kind, n) + block;
      std::vector<std::uint8_t> heads;
      if (v.info.segmented) heads = make_heads(pattern, n, v.tile_for(block), seed);
      Harness<T> harness(chapter_.where, generate_input<T>(n, seed, dist), std::move(heads));
      if (on_device()) poison_.fill(poison_byte<T>());
      const std::vector<T>& out = harness.run_once(v, op_id_of<Op>(), kind, block, nullptr);
      return first_lines(verify_scan(harness.input(), out, kind, Op{}, harness.restarts(v.info.segment)).describe(),
                         1);
    });
  }

  template <class T, class Op>
  void check_empty(const Variant& v, Kind kind, int block) {
    guarded("n = 0, " + std::string(dtype_name(dtype_of<T>())) + " " + std::string(op_name(op_id_of<Op>())) + " " +
                std::string(kind_name(kind)),
            [&]() -> std::string {
              Harness<T> harness(chapter_.where, std::vector<T>{});
              harness.run_once(v, op_id_of<Op>(), kind, block, nullptr);
              return harness.output().empty() ? "" : "an empty scan produced output";
            });
  }

  template <class T, class Op>
  void check_repeatable(const Variant& v, std::int64_t n, int block) {
    guarded("two runs agree: n = " + std::to_string(n) + ", " + std::string(dtype_name(dtype_of<T>())) + " " +
                std::string(op_name(op_id_of<Op>())),
            [&]() -> std::string {
              std::vector<std::uint8_t> heads;
              if (v.info.segmented) heads = make_heads(Heads::long_random, n, v.tile_for(block), 777 + n);
              Harness<T> harness(chapter_.where, generate_input<T>(n, 12345 + n, Distribution::real_valued),
                                 std::move(heads));
              if (on_device()) poison_.fill(poison_byte<T>());
              const std::vector<T> first = harness.run_once(v, op_id_of<Op>(), Kind::inclusive, block, nullptr);
              if (on_device()) poison_.fill(poison_byte<T>());
              const std::vector<T>& second = harness.run_once(v, op_id_of<Op>(), Kind::inclusive, block, nullptr);
              const Restarts restarts = harness.restarts(v.info.segment);
              for (const std::vector<T>* out : {&first, &second}) {
                const std::string d = verify_scan(harness.input(), *out, Kind::inclusive, Op{}, restarts).describe();
                if (!d.empty()) return first_lines(d, 1);
              }
              const bool exact = !(std::is_floating_point_v<T> && std::is_same_v<Op, Add>) ||
                                 !v.info.float_order_varies;
              if (exact && std::memcmp(first.data(), second.data(), first.size() * sizeof(T)) != 0) {
                return "two runs on the same input gave different outputs";
              }
              return "";
            });
  }

  /// One run for compute-sanitizer to watch; the result is not judged here
  /// (the case log only shows the grader where a run hung).
  template <class T, class Op>
  void run_quietly(const Variant& v, Kind kind, std::int64_t n, int block) {
    if (!v.supports(dtype_of<T>(), op_id_of<Op>())) return;
    log_->begin(case_name<T, Op>(kind, n, block, Distribution::typical, Heads::short_random, v.info.segmented));
    try {
      std::vector<std::uint8_t> heads;
      if (v.info.segmented) heads = make_heads(Heads::short_random, n, v.tile_for(block), 5 + n);
      Harness<T> harness(chapter_.where, generate_input<T>(n, 31 + n), std::move(heads));
      (void)harness.run_once(v, op_id_of<Op>(), kind, block, nullptr);
      log_->pass();
    } catch (const std::exception& e) {
      log_->fail(e.what());
      std::fprintf(stderr, "grade: %s\n", e.what());
    }
  }

  const Chapter& chapter_;
  nlohmann::json reference_;
  CaseLog* log_ = nullptr;
  bool quick_ = false;
  bool aborted_ = false;
  SharedPoisoner poison_;
};

}  // namespace

std::unique_ptr<Subject> registry_subject() { return std::make_unique<RegistrySubject>(); }

}  // namespace kit

#endif  // KIT_APPLICATIONS
