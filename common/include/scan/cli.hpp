/// \file
/// \brief The command line every chapter program shares.
///
/// \code
/// chNN_name [--n 16M] [--type int32|uint32|int64|float|double] [--op add|max|min|affine]
///           [--kind inclusive|exclusive] [--variant NAME|all|sweep] [--block B]
///           [--reps 20] [--warmup 3] [--seed 1] [--input 3,1,7,0] [--trace]
///           [--csv | --json] [--no-baselines] [--list] [--help]
/// \endcode
/// Parsing never exits: a bad argument throws UsageError with the reason.
#pragma once

#include <scan/registry.hpp>
#include <scan/types.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace scan {

/// How results are printed.
enum class OutputFormat { table, csv, json };

/// The parsed command line.
struct Options {
  std::int64_t n = std::int64_t{16} << 20;  ///< elements (default 16M)
  DType dtype = DType::i32;                 ///< `--type`
  OpId op = OpId::add;                      ///< `--op`
  Kind kind = Kind::inclusive;              ///< `--kind`
  std::string variant = "all";              ///< a name, "all" or "sweep"
  int block = 0;                            ///< 0: each variant's default
  int reps = 20;                            ///< `--reps`: timed runs (0: verify only)
  int warmup = 3;                           ///< `--warmup`: untimed runs first
  std::uint64_t seed = 1;                   ///< `--seed` of the input generator
  std::optional<std::vector<std::string>> input;  ///< the items of `--input`
  bool trace = false;                       ///< `--trace`
  OutputFormat format = OutputFormat::table;  ///< table, `--csv` or `--json`
  bool baselines = true;                    ///< CUB and copy rows (off: `--no-baselines`)
  bool list = false;                        ///< `--list`
  bool help = false;                        ///< `--help`
};

/// Parses `args` (without the program name). Throws UsageError.
Options parse_options(const std::vector<std::string>& args);

/// Parses a count: digits with an optional K, M or G suffix (powers of two:
/// 1K = 1024). `option` names the option in the error message.
/// Throws UsageError for negatives, junk and values above 2^40.
std::int64_t parse_count(std::string_view text, std::string_view option);

/// Splits "a,b,c" into items (empty items are kept, so "1,,2" can be rejected).
std::vector<std::string> split_list(std::string_view text);

/// Parses one `--input` item as a T. Throws UsageError naming the item.
template <class T>
T parse_value(std::string_view item, std::size_t position);

/// The `--help` text for a chapter program.
std::string usage_text(const Chapter& chapter);

}  // namespace scan
