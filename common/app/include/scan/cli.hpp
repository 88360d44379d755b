/// \file
/// \brief The command line every program shares, parsed by CLI11.
///
/// \code
/// chNN_name [--n 16M] [--type int32|uint32|int64|float|double] [--op add|max|min|affine]
///           [--kind inclusive|exclusive] [--variant NAME|all|sweep] [--block B]
///           [--reps 20] [--warmup 3] [--seed 1] [--input 3,1,7,0] [--trace]
///           [--segments 1024] [--lengths random|fixed] [--heads 1,0,0,1]
///           [--csv | --json] [--no-baselines] [--quiet] [--list] [--help]
/// \endcode
/// The chapter programs, the scoreboard and the stress program build their
/// command line from the same pieces: configure_app(), the add_*_option()
/// helpers and parse_command_line(). A value is written `--n 16M` or
/// `--n=16M`; the last of a repeated option wins. Parsing never exits: a bad
/// argument throws UsageError with a one-line reason.
#pragma once

#include <scan/generate.hpp>
#include <scan/segments.hpp>
#include <scan/registry.hpp>
#include <scan/types.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace scan {

/// How results are printed.
enum class OutputFormat { table, csv, json };

/// Segmented scans: the mean segment length when `--segments` is not given.
inline constexpr std::int64_t kDefaultSegmentLength = 1024;

/// What every program that times scans takes: `--reps`, `--warmup`, `--seed`, `--quiet`.
struct RunOptions {
  int reps = 20;            ///< `--reps`: timed runs (0: verify only, where allowed)
  int warmup = 3;           ///< `--warmup`: untimed runs first
  std::uint64_t seed = 1;   ///< `--seed` of the input generator
  bool quiet = false;       ///< `--quiet`: no progress line on stderr
};

/// The parsed command line of a chapter program.
struct Options : RunOptions {
  std::int64_t n = std::int64_t{16} << 20;  ///< elements (default 16M)
  DType dtype = DType::i32;                 ///< `--type`
  OpId op = OpId::add;                      ///< `--op`
  Kind kind = Kind::inclusive;              ///< `--kind`
  std::string variant = "all";              ///< a name, a comma-separated list of names, "all" or "sweep"
  int block = 0;                            ///< 0: each variant's default
  std::optional<std::vector<std::string>> input;  ///< the items of `--input`
  bool trace = false;                       ///< `--trace`
  OutputFormat format = OutputFormat::table;  ///< table, `--csv` or `--json`
  bool baselines = true;                    ///< CUB and copy rows (off: `--no-baselines`)
  bool list = false;                        ///< `--list`
  bool help = false;                        ///< `--help`
  /// Segmented scans: `--segments`, the mean segment length (0: not given,
  /// the default of 1024 applies).
  std::int64_t segments = 0;
  Lengths lengths = Lengths::random;        ///< segmented scans: `--lengths random|fixed`
  std::optional<std::vector<std::string>> heads;  ///< segmented scans: the items of `--heads` (with `--input`)
};

/// Sets `app` up the way every program here parses: `--help` (and `-h`)
/// starts with "usage: PROGRAM [options]", options are listed in one group,
/// and the last value of a repeated option wins. Call it before adding options.
void configure_app(CLI::App& app);

/// Adds an option that takes a value; `set` receives the text and throws
/// UsageError if it is bad. A value that starts with "--" is taken for a
/// forgotten value ("--n --csv"). `value_name` shows in `--help` ("N").
CLI::Option* add_value_option(CLI::App& app, const std::string& name, const std::string& value_name,
                              const std::string& help, std::function<void(const std::string&)> set);

/// Adds an option that takes a count (parse_count).
CLI::Option* add_count_option(CLI::App& app, const std::string& name, std::int64_t& target,
                              const std::string& help);

/// Adds an option that takes a whole number from lo to hi.
CLI::Option* add_int_option(CLI::App& app, const std::string& name, int& target, int lo, int hi,
                            const std::string& help);

/// Adds `--kind inclusive|exclusive`.
CLI::Option* add_kind_option(CLI::App& app, Kind& target);

/// Adds `--type` (the element type) and `--op` (the operator).
void add_type_and_op_options(CLI::App& app, DType& dtype, OpId& op);

/// After parsing: the affine operator is defined on 32-bit words only, so
/// `--op affine` sets uint32 and refuses any other `--type` given.
void apply_affine_type(const CLI::App& app, DType& dtype, OpId op);

/// Adds `--reps` (at least `min_reps`; 0 means verify only), `--warmup`, `--seed` and `--quiet`.
void add_run_options(CLI::App& app, RunOptions& o, int min_reps = 0);

/// Parses `args` (without the program name). Returns false when `--help`
/// was asked for (print app.help() then). Throws UsageError with a one-line
/// reason for anything else that is wrong, such as "unknown option '--list'".
bool parse_command_line(CLI::App& app, const std::vector<std::string>& args);

/// Parses a chapter program's `args` (without the program name). Throws UsageError.
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
