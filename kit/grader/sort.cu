// The grader's child side for chapter 15: its radix sort is not a scan of
// the registry, so it gets its own suite, as chapter 13's applications do.
// Each case calls the sort as linked into this program (the student's
// chapter, or in the reference program the reference's) through the
// chapter's library call, radix_sort.hpp, which declares and does not
// define: the kernels are compiled in the chapter's library, never here.
// Every output is checked against a plain CPU answer written here, with its
// own key order (not the chapter's KeyBits).
#include "grader.hpp"
#include "poison.cuh"
#include "run_case.cuh"

#include <scan/device_buffer.hpp>
#include <scan/error.hpp>
#include <scan/generate.hpp>
#include <scan/timing.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#ifdef KIT_SORT

#include "radix_sort.hpp"

namespace kit {
namespace {

using scan::DeviceBuffer;
namespace ch15 = scan::ch15;

// --- the order, written plainly ---------------------------------------------

/// The key's bits as an unsigned number whose order is the order the sort
/// must give: unsigned keys as they are, signed ones with the sign bit
/// flipped, floats by IEEE 754's totalOrder (-NaN, -inf, ..., -0, +0, ...,
/// +inf, +NaN).
std::uint32_t order_of(std::uint32_t key) { return key; }
std::uint64_t order_of(std::uint64_t key) { return key; }
std::uint32_t order_of(std::int32_t key) { return static_cast<std::uint32_t>(key) ^ 0x80000000u; }
std::uint32_t order_of(float key) {
  std::uint32_t bits;
  std::memcpy(&bits, &key, sizeof bits);
  return (bits & 0x80000000u) != 0 ? ~bits : bits | 0x80000000u;
}

template <class Key>
const char* key_name() {
  if constexpr (std::is_same_v<Key, std::uint32_t>) return "uint32";
  if constexpr (std::is_same_v<Key, std::int32_t>) return "int32";
  if constexpr (std::is_same_v<Key, float>) return "float";
  return "uint64";
}

/// What a key prints as in a report: its value and, where that hides
/// something (a float's NaN payload, -0), its bits.
template <class Key>
std::string show(Key key) {
  if constexpr (std::is_same_v<Key, float>) {
    std::uint32_t bits;
    std::memcpy(&bits, &key, sizeof bits);
    char text[64];
    std::snprintf(text, sizeof text, "%g (bits 0x%08x)", static_cast<double>(key), bits);
    return text;
  } else {
    return std::to_string(key);
  }
}

/// The same bits (a float compares by its bits: NaN != NaN).
template <class Key>
bool same_bits(Key a, Key b) {
  return std::memcmp(&a, &b, sizeof(Key)) == 0;
}

template <class Key>
bool is_poison(Key key) {
  Key poison;
  std::memset(&poison, 0xA5, sizeof poison);
  return same_bits(key, poison);
}

/// The first difference between two arrays, or "".
template <class T>
std::string difference(const std::vector<T>& got, const std::vector<T>& expected, const char* what) {
  if (got.size() != expected.size()) {
    return std::string(what) + ": " + std::to_string(got.size()) + " elements, expected " +
           std::to_string(expected.size());
  }
  std::size_t wrong = 0, first = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!same_bits(got[i], expected[i]) && wrong++ == 0) first = i;
  }
  if (wrong == 0) return "";
  return std::string(what) + ": " + std::to_string(wrong) + " of " + std::to_string(got.size()) +
         " wrong; first at index " + std::to_string(first) + ": expected " + show(expected[first]) + ", got " +
         show(got[first]) + (is_poison(got[first]) ? " (poison: never written)" : "");
}

// --- inputs -----------------------------------------------------------------

/// Kinds of key arrays.
enum class Keys {
  random,    ///< every bit random (floats: with zeros, infinities, NaNs and subnormals among them)
  few,       ///< seven distinct keys, far apart in every digit: runs of equal keys, digits with no key
  equal,     ///< one key: every tile's keys share every digit
  reversed,  ///< descending: each tile holds a narrow band of the keys
};

const char* keys_name(Keys k) {
  switch (k) {
    case Keys::random: return "random keys";
    case Keys::few: return "seven distinct keys";
    case Keys::equal: return "equal keys";
    case Keys::reversed: return "descending keys";
  }
  return "?";
}

/// The key whose bits are the low sizeof(Key) bytes of `bits`.
template <class Key>
Key key_of(std::uint64_t bits) {
  Key key;
  if constexpr (sizeof(Key) == 8) {
    std::memcpy(&key, &bits, sizeof key);
  } else {
    const auto word = static_cast<std::uint32_t>(bits);
    std::memcpy(&key, &word, sizeof key);
  }
  return key;
}

/// Writes `byte` over every byte of `buffer` (nothing for an empty one).
template <class T>
void poison_bytes(DeviceBuffer<T>& buffer, unsigned char byte = 0xA5) {
  if (buffer.bytes() != 0) SCAN_CUDA(cudaMemset(buffer.data(), byte, buffer.bytes()));
}

template <class Key>
std::vector<Key> make_keys(std::int64_t n, Keys kind, std::uint64_t seed) {
  std::vector<Key> keys(static_cast<std::size_t>(n));
  // Seven keys that differ in every digit of 8, 4 and 1 bits somewhere, and
  // share most of them.
  const std::uint64_t few[7] = {0,
                                1,
                                0x100,
                                sizeof(Key) == 8 ? 0x00FF00FF00FF00FFull : 0x00FF00FFull,
                                sizeof(Key) == 8 ? 0x8000000080000000ull : 0x80000000ull,
                                sizeof(Key) == 8 ? 0xFFFF0000FFFF0000ull : 0xFFFF0000ull,
                                ~std::uint64_t{0}};
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint64_t r = scan::random_bits(seed, static_cast<std::uint64_t>(i));
    switch (kind) {
      case Keys::random: keys[i] = key_of<Key>(sizeof(Key) == 8 ? r : r >> 32); break;
      case Keys::few: keys[i] = key_of<Key>(few[r % 7]); break;
      case Keys::equal: keys[i] = key_of<Key>(0x5A5A3C3C96966969ull); break;
      case Keys::reversed: break;
    }
  }
  if (kind == Keys::reversed) {
    // Descending in the key's own order, with equal neighbours now and then.
    std::vector<Key> sorted = make_keys<Key>(n, Keys::random, seed);
    std::sort(sorted.begin(), sorted.end(), [](Key a, Key b) { return order_of(a) > order_of(b); });
    keys = std::move(sorted);
    for (std::int64_t i = 1; i < n; i += 5) keys[i] = keys[i - 1];
  }
  if constexpr (std::is_same_v<Key, float>) {
    if (kind == Keys::random) {
      const float special[8] = {0.0f, -0.0f, std::numeric_limits<float>::infinity(),
                                -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                                -std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::denorm_min(),
                                -std::numeric_limits<float>::denorm_min()};
      for (std::int64_t i = 3; i < n; i += 7) keys[i] = special[(i / 7) % 8];
    }
  }
  return keys;
}

/// The stable order of `keys`: the index of the key that goes to each place.
template <class Key>
std::vector<std::uint32_t> stable_order(const std::vector<Key>& keys) {
  std::vector<std::uint32_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return order_of(keys[a]) < order_of(keys[b]); });
  return order;
}

/// A multiset's fingerprint: two sums of a mix of each element, wrapping.
/// Equal multisets have equal fingerprints; a key lost, doubled or changed
/// changes them but for a chance of about 2^-64.
struct Fingerprint {
  std::uint64_t a = 0, b = 0;
  void add(std::uint64_t x) {
    a += scan::random_bits(0x5EED, x);
    b += scan::random_bits(0xF00D, x) * 3 + x;
  }
  bool same(const Fingerprint& other) const { return a == other.a && b == other.b; }
};

// --- the subject --------------------------------------------------------------

class SortSubject final : public Subject {
 public:
  nlohmann::json describe() const override {
    nlohmann::json items = nlohmann::json::array();
    for (const char* name : {"keys", "pairs"}) items.push_back({{"name", name}});
    return {{"title", "Radix sort, the scan's biggest customer"},
            {"where", "device"},
            {"items", items},
            {"tile", tiles()}};
  }

  void use_reference(const nlohmann::json& reference) override { reference_ = reference; }

  void correctness(const std::string& item, bool quick, CaseLog& log) override {
    log_ = &log;
    if (item != "keys" && item != "pairs") throw std::invalid_argument("no sort '" + item + "'");
    if (!same_tiles(log)) return;
    poison_.prepare();
    const bool pairs = item == "pairs";
    if (pairs) {
      suite<std::uint32_t, std::uint32_t>(quick, {Keys::random, Keys::few, Keys::reversed}, 8);
      suite<std::int32_t, std::uint32_t>(quick, {Keys::random}, 8);
      suite<float, std::uint32_t>(quick, {Keys::random}, 8);
      suite<std::uint64_t, std::uint32_t>(quick, {Keys::random, Keys::few}, 8);
    } else {
      suite<std::uint32_t, void>(quick, {Keys::random, Keys::few, Keys::equal, Keys::reversed}, 8);
      suite<std::uint32_t, void>(quick, {Keys::random}, 4);
      suite<std::uint32_t, void>(true, {Keys::random}, 1);  // 32 passes: never the largest size
      suite<std::int32_t, void>(quick, {Keys::random}, 8);
      suite<float, void>(quick, {Keys::random}, 8);
      suite<std::uint64_t, void>(quick, {Keys::random, Keys::few}, 8);
    }
    if (!aborted_) log.done();
  }

  void sanitize(const std::string& item, std::int64_t large_n, CaseLog& log) override {
    if (item != "keys" && item != "pairs") throw std::invalid_argument("no sort '" + item + "'");
    if (!same_tiles(log)) return;
    const bool pairs = item == "pairs";
    const std::int64_t tile = pairs ? ch15::sort_tile_keys<std::uint32_t, std::uint32_t>()
                                    : ch15::sort_tile_keys<std::uint32_t, void>();
    sanitize_cases(log, item, 2, tile, large_n, [&](std::int64_t n) {
      const std::vector<std::uint32_t> keys = make_keys<std::uint32_t>(n, Keys::random, 5 + n);
      DeviceBuffer<std::uint32_t> keys_in(keys), keys_out(keys.size());
      if (pairs) {
        DeviceBuffer<std::uint32_t> values_in(keys), values_out(keys.size());
        const std::size_t bytes = ch15::sort_scratch_bytes<std::uint32_t, std::uint32_t>(n, 8);
        DeviceBuffer<std::byte> scratch(bytes);
        ch15::onesweep_sort<std::uint32_t, std::uint32_t>(keys_in.data(), keys_out.data(), values_in.data(),
                                                          values_out.data(), n, 8, scratch.data(), bytes);
      } else {
        const std::size_t bytes = ch15::sort_scratch_bytes<std::uint32_t, void>(n, 8);
        DeviceBuffer<std::byte> scratch(bytes);
        ch15::onesweep_sort<std::uint32_t, void>(keys_in.data(), keys_out.data(), nullptr, nullptr, n, 8,
                                                 scratch.data(), bytes);
      }
    });
  }

  void past_32_bits(const std::string& item, std::int64_t n, CaseLog& log) override {
    // Run only for a sort whose suite passed, its tile check included, and
    // for keys alone: the pairs' walk is the same code, at twice the memory.
    log_ = &log;
    constexpr std::int64_t kPortion = std::int64_t{1} << 28;  // the most keys a launch of a pass sorts
    const std::string name = "uint32 keys, n = " + std::to_string(n) + ", random keys (" +
                             std::to_string((n + kPortion - 1) / kPortion) + " launches a pass)";
    if (item != "keys") {
      log.done();
      return;
    }
    const std::size_t scratch_bytes = ch15::sort_scratch_bytes<std::uint32_t, void>(n, 8);
    if (const std::string why = memory_shortfall(n * 8 + (std::int64_t{1} << 30),
                                                 n * 8 + static_cast<std::int64_t>(scratch_bytes) +
                                                     (std::int64_t{1} << 30));
        !why.empty()) {
      log.begin(name);
      log.skip(why);
      log.done();
      return;
    }
    guarded(name, [&]() -> std::string {
      // Too many keys to sort on the CPU within the limits: the output must
      // be in order and hold the input's keys (their fingerprints agree).
      Fingerprint in_print, out_print;
      std::vector<std::uint32_t> keys(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) {
        keys[i] = static_cast<std::uint32_t>(scan::random_bits(99, static_cast<std::uint64_t>(i)) >> 32);
        in_print.add(keys[i]);
      }
      DeviceBuffer<std::uint32_t> keys_in(keys), keys_out(keys.size());
      DeviceBuffer<std::byte> scratch(scratch_bytes);
      poison_bytes(keys_out);
      ch15::onesweep_sort<std::uint32_t, void>(keys_in.data(), keys_out.data(), nullptr, nullptr, n, 8,
                                               scratch.data(), scratch_bytes);
      keys_out.copy_to(keys);
      for (std::int64_t i = 0; i < n; ++i) {
        if (i > 0 && keys[i - 1] > keys[i]) {
          return "out of order at index " + std::to_string(i) + ": " + std::to_string(keys[i - 1]) + " before " +
                 std::to_string(keys[i]) + (keys[i - 1] == 0xA5A5A5A5u || keys[i] == 0xA5A5A5A5u
                                                ? " (0xA5A5A5A5 is the poison: a slot never written?)"
                                                : "");
        }
        out_print.add(keys[i]);
      }
      if (!in_print.same(out_print)) return "in order, but not the input's keys: some were lost, doubled or changed";
      return "";
    });
    log.done();
  }

  TimingRound timing(const std::string& item, const PerfSettings& perf) override {
    TimingRound result;
    if (item != "keys") {
      result.problem = "only the keys' sort is timed";
      return result;
    }
    const std::int64_t n = perf.n;
    result.shape = "sort of n = " + std::to_string(n) + " uint32 keys, random, 8-bit digits";
    const std::vector<std::uint32_t> keys = make_keys<std::uint32_t>(n, Keys::random, 20240601);
    DeviceBuffer<std::uint32_t> keys_in(keys), keys_out(keys.size());
    const std::size_t bytes = ch15::sort_scratch_bytes<std::uint32_t, void>(n, 8);
    DeviceBuffer<std::byte> scratch(bytes);
    poison_bytes(keys_out);
    const auto run = [&] {
      ch15::onesweep_sort<std::uint32_t, void>(keys_in.data(), keys_out.data(), nullptr, nullptr, n, 8,
                                               scratch.data(), bytes);
    };
    result.median_ms = scan::time_device(run, perf.warmup, perf.reps, nullptr).median_ms;
    std::vector<std::uint32_t> expected = keys;
    std::sort(expected.begin(), expected.end());
    const std::string d = difference(keys_out.to_host(), expected, "keys");
    if (!d.empty()) result.problem = "the timed output was wrong: " + d;
    return result;
  }

 private:
  /// The tile of each shape the suite sorts: where a pass's last tile turns
  /// partial, so where the sizes probe.
  static nlohmann::json tiles() {
    return {{"uint32", ch15::sort_tile_keys<std::uint32_t, void>()},
            {"int32", ch15::sort_tile_keys<std::int32_t, void>()},
            {"float", ch15::sort_tile_keys<float, void>()},
            {"uint64", ch15::sort_tile_keys<std::uint64_t, void>()},
            {"uint32 pairs", ch15::sort_tile_keys<std::uint32_t, std::uint32_t>()},
            {"int32 pairs", ch15::sort_tile_keys<std::int32_t, std::uint32_t>()},
            {"float pairs", ch15::sort_tile_keys<float, std::uint32_t>()},
            {"uint64 pairs", ch15::sort_tile_keys<std::uint64_t, std::uint32_t>()}};
  }

  /// The first case: the chapter's tiles are the reference's (the sizes
  /// come from them).
  bool same_tiles(CaseLog& log) const {
    log.begin("the chapter's tiles are the reference's");
    const nlohmann::json got = tiles(), expected = reference_.at("tile");
    if (got != expected) {
      log.fail("the tiles are " + got.dump() + ", the reference's " + expected.dump());
      return false;
    }
    log.pass();
    return true;
  }

  template <class Body>
  void guarded(const std::string& description, Body&& body) {
    if (!aborted_) aborted_ = !run_case(*log_, description, true, body);
  }

  /// Every size of the suite for one key type (and values), each kind of
  /// keys, digits of `digit_bits`.
  template <class Key, class Value>
  void suite(bool quick, std::initializer_list<Keys> kinds, int digit_bits) {
    const std::int64_t tile = ch15::sort_tile_keys<Key, Value>();
    std::vector<std::int64_t> sizes = {0,        1,        2,        31,         33,    tile - 1,
                                       tile,     tile + 1, 2 * tile + 1, 3 * tile - 1, 100003, (1 << 20) + 7};
    if (!quick) sizes.push_back((1 << 24) + 3);
    for (std::int64_t n : sizes) {
      for (Keys kind : kinds) {
        if (aborted_) return;
        sort_case<Key, Value>(n, kind, digit_bits);
      }
    }
  }

  /// One sort, checked: the keys in order (stable: pairs carry each key's
  /// index as its value), the inputs untouched.
  template <class Key, class Value>
  void sort_case(std::int64_t n, Keys kind, int digit_bits) {
    constexpr bool kPairs = !std::is_void_v<Value>;
    const std::string name = std::string(key_name<Key>()) + (kPairs ? " pairs" : " keys") + ", n = " +
                             std::to_string(n) + ", " + keys_name(kind) +
                             (digit_bits != 8 ? ", " + std::to_string(digit_bits) + "-bit digits" : "");
    guarded(name, [&]() -> std::string {
      const std::vector<Key> keys = make_keys<Key>(n, kind, 17 + n + 1000 * static_cast<int>(kind));
      // Keys alone sort as values (equal orders are equal bits); pairs by
      // their indices, stably.
      std::vector<std::uint32_t> order;
      std::vector<Key> expected = keys;
      if constexpr (kPairs) {
        order = stable_order(keys);
        for (std::size_t i = 0; i < keys.size(); ++i) expected[i] = keys[order[i]];
      } else {
        std::sort(expected.begin(), expected.end(), [](Key a, Key b) { return order_of(a) < order_of(b); });
      }
      DeviceBuffer<Key> keys_in(keys), keys_out(keys.size());
      poison_bytes(keys_out);
      const std::size_t bytes = ch15::sort_scratch_bytes<Key, Value>(n, digit_bits);
      DeviceBuffer<std::byte> scratch(bytes);
      poison_bytes(scratch);  // the sort must clear what it relies on
      if constexpr (kPairs) {
        std::vector<std::uint32_t> values(keys.size());
        std::iota(values.begin(), values.end(), 0u);
        DeviceBuffer<std::uint32_t> values_in(values), values_out(values.size());
        poison_bytes(values_out);
        poison_.fill(0xA5);
        ch15::onesweep_sort<Key, std::uint32_t>(keys_in.data(), keys_out.data(), values_in.data(), values_out.data(),
                                                n, digit_bits, scratch.data(), bytes);
        SCAN_CUDA(cudaDeviceSynchronize());
        if (std::string d = difference(keys_out.to_host(), expected, "keys"); !d.empty()) return d;
        if (std::string d = difference(values_out.to_host(), order, "values (each key's index in the input: a "
                                                                    "wrong one means an unstable order or a value "
                                                                    "that did not follow its key)");
            !d.empty()) {
          return d;
        }
        if (values_in.to_host() != values) return "the input values were changed";
      } else {
        poison_.fill(0xA5);
        ch15::onesweep_sort<Key, void>(keys_in.data(), keys_out.data(), nullptr, nullptr, n, digit_bits,
                                       scratch.data(), bytes);
        SCAN_CUDA(cudaDeviceSynchronize());
        if (std::string d = difference(keys_out.to_host(), expected, "keys"); !d.empty()) return d;
      }
      if (!difference(keys_in.to_host(), keys, "keys").empty()) return "the input keys were changed";
      return "";
    });
  }

  CaseLog* log_ = nullptr;
  bool aborted_ = false;
  SharedPoisoner poison_;
  nlohmann::json reference_;
};

}  // namespace

std::unique_ptr<Subject> sort_subject() { return std::make_unique<SortSubject>(); }

}  // namespace kit

#endif  // KIT_SORT
