// The grader's child side for chapter 13: its applications are not scans of
// the registry, so they get their own suite. Each one runs the student's
// chapter as linked into this program (student_api: the student's, or in
// the reference program the reference's) and is checked against a plain CPU
// answer written here.
#include "grader.hpp"
#include "poison.cuh"
#include "run_case.cuh"

#include <scan/device_buffer.hpp>
#include <scan/error.hpp>
#include <scan/generate.hpp>
#include <scan/timing.hpp>

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#ifdef KIT_APPLICATIONS

namespace kit {

/// The applications, behind plain functions (applications_api.cuh).
#define KIT_DECLARE_API(ns)                                                                                       \
  namespace ns {                                                                                                  \
  int tile();                                                                                                     \
  std::size_t scatter_scratch_bytes(std::int64_t n);                                                              \
  std::size_t sort_scratch_bytes(std::int64_t n);                                                                 \
  void select_below(const std::uint32_t* in, std::uint32_t* out, std::int64_t n, std::uint32_t threshold,         \
                    unsigned long long* kept, void* scratch);                                                     \
  void split_by_bit(const std::uint32_t* in, std::uint32_t* out, std::int64_t n, int bit,                         \
                    unsigned long long* zeros, void* scratch);                                                    \
  void partition_by_bit(const std::uint32_t* in, std::uint32_t* out, std::int64_t n, int bit,                     \
                        unsigned long long* zeros, void* scratch);                                                \
  void radix_sort(std::uint32_t* keys, std::int64_t n, void* scratch);                                            \
  }
KIT_DECLARE_API(student_api)

namespace {

using scan::DeviceBuffer;

std::vector<std::uint32_t> random_words(std::int64_t n, std::uint64_t seed) {
  std::vector<std::uint32_t> words(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) words[i] = static_cast<std::uint32_t>(scan::random_bits(seed, i) >> 32);
  return words;
}

/// The first difference between two arrays, or "".
std::string difference(const std::vector<std::uint32_t>& got, const std::vector<std::uint32_t>& expected) {
  if (got.size() != expected.size()) {
    return std::to_string(got.size()) + " elements, expected " + std::to_string(expected.size());
  }
  std::size_t wrong = 0, first = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] != expected[i] && wrong++ == 0) first = i;
  }
  if (wrong == 0) return "";
  const bool poison = got[first] == 0xA5A5A5A5u;
  return std::to_string(wrong) + " of " + std::to_string(got.size()) + " elements wrong; first at index " +
         std::to_string(first) + ": expected " + std::to_string(expected[first]) + ", got " +
         std::to_string(got[first]) + (poison ? " (poison: never written)" : "");
}

// The answers, computed the plain way.
std::vector<std::uint32_t> kept_below(const std::vector<std::uint32_t>& in, std::uint32_t threshold) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t x : in) {
    if (x < threshold) out.push_back(x);
  }
  return out;
}

std::vector<std::uint32_t> split_answer(const std::vector<std::uint32_t>& in, int bit, bool reversed) {
  std::vector<std::uint32_t> zeros, ones;
  for (std::uint32_t x : in) (((x >> bit) & 1u) == 0 ? zeros : ones).push_back(x);
  if (reversed) std::reverse(ones.begin(), ones.end());
  zeros.insert(zeros.end(), ones.begin(), ones.end());
  return zeros;
}

class ApplicationsSubject final : public Subject {
 public:
  nlohmann::json describe() const override {
    nlohmann::json items = nlohmann::json::array();
    for (const char* name : {"compact", "split", "partition", "sort"}) items.push_back({{"name", name}});
    return {{"title", "Applications"}, {"where", "device"}, {"items", items}, {"tile", student_api::tile()}};
  }

  void use_reference(const nlohmann::json& reference) override { reference_ = reference; }

  void correctness(const std::string& item, bool quick, CaseLog& log) override {
    log_ = &log;
    if (!same_tile(log)) return;
    poison_.prepare();
    const std::int64_t tile = student_api::tile();
    std::vector<std::int64_t> sizes = {1, 2, 31, 33, tile - 1, tile, tile + 1, 2 * tile + 1, 3 * tile - 1, 100003,
                                       (1 << 20) + 7};
    if (!quick || item == "compact" || item == "split") sizes.push_back((1 << 24) + 3);
    for (std::int64_t n : sizes) {
      if (item == "compact") {
        const std::vector<std::uint32_t> random = random_words(n, 3 + n);
        std::vector<std::uint32_t> alternating(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i) alternating[i] = i % 2 == 0 ? 7u : 0xF0000000u + static_cast<std::uint32_t>(i);
        std::vector<std::uint32_t> below_max = random;
        for (auto& w : below_max) w = std::min(w, 0xFFFFFFFEu);
        compact(n, "keep none", random, 0u);
        compact(n, "keep all", below_max, 0xFFFFFFFFu);
        compact(n, "keep every other", alternating, 0x80000000u);
        compact(n, "keep 30%", random, static_cast<std::uint32_t>(0.3 * 4294967296.0));
      } else if (item == "split" || item == "partition") {
        for (int keys : {0, 1, 2}) {
          const std::vector<std::uint32_t> in =
              keys == 2 ? random_words(n, 11 + n) : std::vector<std::uint32_t>(static_cast<std::size_t>(n), keys ? ~0u : 0u);
          const char* name = keys == 2 ? "random keys" : keys ? "all ones" : "all zeros";
          for (int bit : {0, 17, 31}) split(n, name, in, bit, item == "partition");
        }
      } else if (item == "sort") {
        std::vector<std::uint32_t> few = random_words(n, 21 + n);
        for (auto& w : few) w &= 0x0F00000Fu;
        sort(n, "random keys", random_words(n, 17 + n));
        sort(n, "few distinct keys", few);
      } else {
        throw std::invalid_argument("no application '" + item + "'");
      }
      if (aborted_) return;
    }
    log.done();
  }

  void sanitize(const std::string& item, std::int64_t large_n, CaseLog& log) override {
    if (!same_tile(log)) return;
    sanitize_cases(log, item, 1, student_api::tile(), large_n, [&](std::int64_t n) {
      const std::vector<std::uint32_t> in = random_words(n, 5 + n);
      DeviceBuffer<std::uint32_t> d_in(in), d_out(in.size());
      DeviceBuffer<unsigned long long> count(1);
      if (item == "compact") {
        DeviceBuffer<std::byte> scratch(student_api::scatter_scratch_bytes(n));
        student_api::select_below(d_in.data(), d_out.data(), n, 0x80000000u, count.data(), scratch.data());
      } else if (item == "split" || item == "partition") {
        DeviceBuffer<std::byte> scratch(student_api::scatter_scratch_bytes(n));
        if (item == "split") {
          student_api::split_by_bit(d_in.data(), d_out.data(), n, 3, count.data(), scratch.data());
        } else {
          student_api::partition_by_bit(d_in.data(), d_out.data(), n, 3, count.data(), scratch.data());
        }
      } else {
        DeviceBuffer<std::byte> scratch(student_api::sort_scratch_bytes(n));
        student_api::radix_sort(d_in.data(), n, scratch.data());
      }
    });
  }

  void past_32_bits(const std::string& item, std::int64_t n, CaseLog& log) override {
    // Run only for an application whose suite passed, its tile check included.
    log_ = &log;
    const std::string name = "compaction, n = " + std::to_string(n) + ", keep 30%";
    if (item != "compact") {
      // Run for the compaction only: the split, the partition and the sort
      // share its index arithmetic (the scatter), at twice to 32 times the time.
    } else if (const std::string why = memory_shortfall(n * 12 + (std::int64_t{1} << 30),
                                                        n * 8 + static_cast<std::int64_t>(
                                                                    student_api::scatter_scratch_bytes(n)) +
                                                            (std::int64_t{1} << 30));
               !why.empty()) {
      log.begin(name);
      log.skip(why);
    } else {
      compact(n, "keep 30%", random_words(n, 77), static_cast<std::uint32_t>(0.3 * 4294967296.0));
    }
    log.done();
  }

  TimingRound timing(const std::string& item, const PerfSettings& perf) override {
    TimingRound result;
    if (item != "compact") {
      result.problem = "only compaction is timed";
      return result;
    }
    const std::int64_t n = perf.n;
    result.shape = "compaction of n = " + std::to_string(n) + " uint32, keep 50%";
    const std::vector<std::uint32_t> in = random_words(n, 20240601);
    const std::vector<std::uint32_t> expected = kept_below(in, 0x80000000u);
    DeviceBuffer<std::uint32_t> d_in(in), d_out(in.size());
    DeviceBuffer<unsigned long long> kept(1);
    DeviceBuffer<std::byte> scratch(student_api::scatter_scratch_bytes(n));
    SCAN_CUDA(cudaMemset(d_out.data(), 0xA5, d_out.bytes()));
    const auto run = [&] {
      student_api::select_below(d_in.data(), d_out.data(), n, 0x80000000u, kept.data(), scratch.data());
    };
    result.median_ms = scan::time_device(run, perf.warmup, perf.reps, nullptr).median_ms;
    std::vector<std::uint32_t> got = d_out.to_host();
    unsigned long long count = 0;
    SCAN_CUDA(cudaMemcpy(&count, kept.data(), sizeof count, cudaMemcpyDeviceToHost));
    got.resize(std::min<std::size_t>(count, got.size()));
    const std::string d = count != expected.size()
                              ? "kept " + std::to_string(count) + " elements, expected " + std::to_string(expected.size())
                              : difference(got, expected);
    if (!d.empty()) result.problem = "the timed output was wrong: " + d;
    return result;
  }

 private:
  /// The first case: the chapter's tile is the reference's (the sizes come
  /// from it).
  bool same_tile(CaseLog& log) const {
    log.begin("the chapter's tile is the reference's");
    const std::int64_t expected = reference_.at("tile").get<std::int64_t>();
    if (student_api::tile() != expected) {
      log.fail("the tile is " + std::to_string(student_api::tile()) + ", the reference's " + std::to_string(expected));
      return false;
    }
    log.pass();
    return true;
  }

  template <class Body>
  void guarded(const std::string& description, Body&& body) {
    if (!aborted_) aborted_ = !run_case(*log_, description, true, body);
  }

  void compact(std::int64_t n, const char* name, const std::vector<std::uint32_t>& in, std::uint32_t threshold) {
    guarded("compaction, n = " + std::to_string(n) + ", " + name, [&]() -> std::string {
      const std::vector<std::uint32_t> expected = kept_below(in, threshold);
      DeviceBuffer<std::uint32_t> d_in(in), d_out(in.size());
      DeviceBuffer<unsigned long long> kept(1);
      DeviceBuffer<std::byte> scratch(student_api::scatter_scratch_bytes(n));
      SCAN_CUDA(cudaMemset(d_out.data(), 0xA5, d_out.bytes()));
      SCAN_CUDA(cudaMemset(kept.data(), 0xA5, kept.bytes()));
      poison_.fill(0xA5);
      student_api::select_below(d_in.data(), d_out.data(), n, threshold, kept.data(), scratch.data());
      unsigned long long count = 0;
      SCAN_CUDA(cudaMemcpy(&count, kept.data(), sizeof count, cudaMemcpyDeviceToHost));
      if (count != expected.size()) {
        return "kept " + std::to_string(count) + " elements, expected " + std::to_string(expected.size());
      }
      std::vector<std::uint32_t> got = d_out.to_host();
      got.resize(expected.size());
      return difference(got, expected);
    });
  }

  void split(std::int64_t n, const char* name, const std::vector<std::uint32_t>& in, int bit, bool reversed) {
    guarded(std::string(reversed ? "partition" : "split") + ", n = " + std::to_string(n) + ", " + name + ", bit " +
                std::to_string(bit),
            [&]() -> std::string {
              const std::vector<std::uint32_t> expected = split_answer(in, bit, reversed);
              std::size_t zeros_expected = 0;
              for (std::uint32_t x : in) zeros_expected += ((x >> bit) & 1u) == 0;
              DeviceBuffer<std::uint32_t> d_in(in), d_out(in.size());
              DeviceBuffer<unsigned long long> zeros(1);
              DeviceBuffer<std::byte> scratch(student_api::scatter_scratch_bytes(n));
              SCAN_CUDA(cudaMemset(d_out.data(), 0xA5, d_out.bytes()));
              SCAN_CUDA(cudaMemset(zeros.data(), 0xA5, zeros.bytes()));
              poison_.fill(0xA5);
              if (reversed) {
                student_api::partition_by_bit(d_in.data(), d_out.data(), n, bit, zeros.data(), scratch.data());
              } else {
                student_api::split_by_bit(d_in.data(), d_out.data(), n, bit, zeros.data(), scratch.data());
              }
              unsigned long long count = 0;
              SCAN_CUDA(cudaMemcpy(&count, zeros.data(), sizeof count, cudaMemcpyDeviceToHost));
              if (count != zeros_expected) {
                return "counted " + std::to_string(count) + " zeros, expected " + std::to_string(zeros_expected);
              }
              return difference(d_out.to_host(), expected);
            });
  }

  void sort(std::int64_t n, const char* name, std::vector<std::uint32_t> keys) {
    guarded("radix sort, n = " + std::to_string(n) + ", " + name, [&]() -> std::string {
      DeviceBuffer<std::uint32_t> d_keys(keys);
      DeviceBuffer<std::byte> scratch(student_api::sort_scratch_bytes(n));
      poison_.fill(0xA5);
      student_api::radix_sort(d_keys.data(), n, scratch.data());
      std::sort(keys.begin(), keys.end());
      return difference(d_keys.to_host(), keys);
    });
  }

  CaseLog* log_ = nullptr;
  bool aborted_ = false;
  SharedPoisoner poison_;
  nlohmann::json reference_;
};

}  // namespace

std::unique_ptr<Subject> applications_subject() { return std::make_unique<ApplicationsSubject>(); }

}  // namespace kit

#endif  // KIT_APPLICATIONS
