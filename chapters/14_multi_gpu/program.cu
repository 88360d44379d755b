// Chapter 14's program: the scan over P GPUs, driven by one process or by
// one process per GPU, checked against the oracle and timed next to the
// same scan on one GPU.
#include "multi_gpu.cuh"
#include "program.hpp"

#include <scan/cli.hpp>
#include <scan/device_buffer.hpp>
#include <scan/device_info.hpp>
#include <scan/error.hpp>
#include <scan/format.hpp>
#include <scan/generate.hpp>
#include <scan/runner.hpp>
#include <scan/timing.hpp>
#include <scan/verify.hpp>

#include <CLI/CLI.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

namespace scan::ch14 {
namespace {

/// Milliseconds between two events recorded on one GPU.
float elapsed_ms(cudaEvent_t from, cudaEvent_t to) {
  float ms = 0;
  SCAN_CUDA(cudaEventElapsedTime(&ms, from, to));
  return ms;
}

/// One GPU's resources in a run: its part, its arrays, and an event at
/// each phase boundary: the first phase (the reduce; with the carry
/// deferred, the scan) ends at `first_done`, the exchange at `exchanged`,
/// the run at `done`.
template <class T>
struct Gpu {
  Part<T> part;
  DeviceBuffer<T> in, out;
  DeviceBuffer<std::byte> scratch;
  cudaEvent_t start{}, first_done{}, exchanged{}, done{};
};

/// Times of one run, per phase: the slowest GPU's.
struct PhaseTimes {
  double total = 0, reduce = 0, exchange = 0, scan = 0;
};

/// The phase before the exchange on one GPU: the reduce, or, with the carry
/// deferred, the shard's scan and its total.
template <class T, class Op>
void first_phase(const Options14& o, const Part<T>& part) {
  if (o.defer_carry) {
    scan_shard_alone(part, o.kind, Op{});
  } else {
    reduce_shard(part, Op{});
  }
}

/// The phase after the exchange: the carry, and with the carry applied the
/// shard's seeded scan.
template <class T, class Op>
void last_phase(const Options14& o, const Part<T>& part) {
  if (o.defer_carry) {
    combine_carry(part, Op{});
  } else {
    scan_shard(part, o.kind, Op{});
  }
}

/// One GPU's phase times from its events.
template <class T>
PhaseTimes phase_times(const Options14& o, const Gpu<T>& g) {
  PhaseTimes t;
  t.total = elapsed_ms(g.start, g.done);
  t.exchange = elapsed_ms(g.first_done, g.exchanged);
  if (o.defer_carry) {
    t.scan = elapsed_ms(g.start, g.first_done);  // the scan and the shard's total
  } else {
    t.reduce = elapsed_ms(g.start, g.first_done);
    t.scan = elapsed_ms(g.exchanged, g.done);
  }
  return t;
}

/// A shard's output as the global scan: with the carry deferred, the carry
/// put before each element (as the reader of the output would); with the
/// carry applied, as it is.
template <class T, class Op>
void apply_carry(const Options14& o, const T& carry, T* shard, std::int64_t count) {
  if (!o.defer_carry) return;
  const Op op{};
  for (std::int64_t i = 0; i < count; ++i) shard[i] = op(carry, shard[i]);
}

/// The carry a GPU computed, copied to the host.
template <class T>
T carry_of(const Part<T>& part) {
  T carry{};
  SCAN_CUDA(cudaMemcpy(&carry, part.carry, sizeof(T), cudaMemcpyDeviceToHost));
  return carry;
}

/// The name of a run's mode in the table: how it is launched, and where the carry goes.
std::string mode_name(const Options14& o, const std::string& launch) {
  return o.defer_carry ? launch + " (carry deferred)" : launch;  // no comma: the CSV does not quote
}

/// What a run printed as its table rows.
struct Line {
  std::string what;
  std::int64_t n = 0;
  int gpus = 1;
  TimingStats timing;
  PhaseTimes phases;
  bool timed = false;
  bool phased = false;
  std::string status = "PASS";
  std::string note;
};

void print_lines(const Options14& o, const std::vector<Line>& lines, std::size_t element_bytes,
                 const std::string& device_line) {
  double one_gpu_ms = 0;
  for (const Line& l : lines) {
    if (l.gpus == 1 && l.timed) one_gpu_ms = l.timing.median_ms;
  }
  if (o.format == OutputFormat::csv) {
    std::cout << "# device: " << device_line << "\n"
              << "program,mode,gpus,n,type,op,kind,status,median_ms,min_ms,max_ms,gbps,reduce_ms,exchange_ms,"
                 "scan_ms,x_one_gpu\n";
    for (const Line& l : lines) {
      std::cout << "ch14_multi_gpu," << l.what << ',' << l.gpus << ',' << l.n << ',' << dtype_name(o.dtype) << ','
                << op_name(o.op) << ',' << kind_name(o.kind) << ',' << l.status << ',';
      if (l.timed) {
        const double bytes = 2.0 * static_cast<double>(l.n) * static_cast<double>(element_bytes);
        std::cout << fixed(l.timing.median_ms, 6) << ',' << fixed(l.timing.min_ms, 6) << ','
                  << fixed(l.timing.max_ms, 6) << ',' << fixed(gigabytes_per_second(bytes, l.timing.median_ms), 2)
                  << ',';
        if (l.phased) {  // no reduce with the carry deferred: an empty field
          std::cout << (l.phases.reduce > 0 ? fixed(l.phases.reduce, 6) : "") << ',' << fixed(l.phases.exchange, 6)
                    << ',' << fixed(l.phases.scan, 6);
        } else {
          std::cout << ",,";
        }
        std::cout << ',' << (one_gpu_ms > 0 && l.gpus > 1 ? fixed(one_gpu_ms / l.timing.median_ms, 4) : "");
      } else {
        std::cout << ",,,,,,,";
      }
      std::cout << "\n";
    }
    return;
  }
  std::cout << "ch14_multi_gpu: one scan across GPUs, through NCCL\n" << device_line << "\n\n"
            << "what                              GPUs             n   median ms      GB/s  x 1 GPU   reduce  exchange"
               "     scan  check\n";
  for (const Line& l : lines) {
    char row[512];
    const double bytes = 2.0 * static_cast<double>(l.n) * static_cast<double>(element_bytes);
    if (l.timed) {
      std::snprintf(row, sizeof row, "%-32s %5d %13lld %11.4f %9.1f %8s %8s %9s %8s  %s", l.what.c_str(), l.gpus,
                    static_cast<long long>(l.n), l.timing.median_ms, gigabytes_per_second(bytes, l.timing.median_ms),
                    one_gpu_ms > 0 && l.gpus > 1 ? fixed(one_gpu_ms / l.timing.median_ms, 2).c_str() : "-",
                    l.phased && l.phases.reduce > 0 ? fixed(l.phases.reduce, 3).c_str() : "-", l.phased ? fixed(l.phases.exchange, 3).c_str() : "-",
                    l.phased ? fixed(l.phases.scan, 3).c_str() : "-", l.status.c_str());
    } else {
      std::snprintf(row, sizeof row, "%-32s %5d %13lld %11s %9s %8s %8s %9s %8s  %s", l.what.c_str(), l.gpus,
                    static_cast<long long>(l.n), "-", "-", "-", "-", "-", "-", l.status.c_str());
    }
    std::cout << row << (l.note.empty() ? "" : "  (" + l.note + ")") << "\n";
  }
}

/// The median of each phase over runs (and of the totals).
PhaseTimes median_phases(std::vector<PhaseTimes> runs, TimingStats& total) {
  std::vector<double> totals, reduces, exchanges, scans;
  for (const auto& r : runs) {
    totals.push_back(r.total);
    reduces.push_back(r.reduce);
    exchanges.push_back(r.exchange);
    scans.push_back(r.scan);
  }
  total = summarize(totals);
  return {total.median_ms, summarize(reduces).median_ms, summarize(exchanges).median_ms, summarize(scans).median_ms};
}

/// The scan the multi-GPU runs are compared with: the best the tutorial has
/// on one GPU, chapter 11's `fastest` as it dispatches on that GPU and size.
using OneGpuScan = ch11::Fastest;

/// The best one-GPU scan (device 0) of the whole input, if it fits: the comparison.
template <class T, class Op>
Line one_gpu_line(const Options14& o, const std::vector<T>& input) {
  Line line{"one GPU (chapter 11's fastest)", o.n, 1};
  SCAN_CUDA(cudaSetDevice(0));
  std::size_t free_bytes = 0, total_bytes = 0;
  SCAN_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  Workspace measuring;
  OneGpuScan::reserve<T, Op>(measuring, o.n, 0);
  if (2 * input.size() * sizeof(T) + measuring.used() > free_bytes) {
    line.status = "SKIP";
    line.note = "does not fit one GPU";
    return line;
  }
  DeviceBuffer<T> in(input), out(input.size());
  DeviceBuffer<std::byte> scratch(measuring.used());
  ScanRequest<T> request;
  request.in = in.data();
  request.out = out.data();
  request.n = o.n;
  request.kind = o.kind;
  request.workspace = Workspace(scratch.data(), measuring.used());
  // With --reps 0 the scan still runs once (as a warm-up), to be checked, untimed.
  line.timing =
      time_device([&] { OneGpuScan::run<T, Op>(request, Op{}); }, o.reps > 0 ? o.warmup : 1, o.reps, nullptr);
  line.timed = o.reps > 0;
  const VerifyReport report = verify_scan(input, out.to_host(), o.kind, Op{});
  if (!report.ok) {
    line.status = "FAIL";
    std::cerr << "FAIL: one GPU, n = " << o.n << ": " << report.describe() << "\n";
  }
  return line;
}

// [one process]
/// One process drives every GPU: one communicator per GPU from
/// ncclCommInitAll, the all-gather issued for all of them inside one NCCL
/// group.
template <class T, class Op>
int run_one_process(const Options14& o, int gpus, const std::string& device_line) {
  Progress progress(!o.quiet);
  progress.step("ch14: generating the input", o.n);
  const std::vector<T> input = generate_input<T>(o.n, o.seed);
  std::vector<Line> lines;
  if (o.compare && gpus > 1) {
    progress.step("ch14: one GPU", o.n);
    lines.push_back(one_gpu_line<T, Op>(o, input));
  }
  progress.step("ch14: " + std::to_string(gpus) + " GPUs: setting up", o.n);
  std::vector<int> devices(static_cast<std::size_t>(gpus));
  for (int k = 0; k < gpus; ++k) devices[static_cast<std::size_t>(k)] = k;
  std::vector<ncclComm_t> comms(static_cast<std::size_t>(gpus));
  check_nccl(ncclCommInitAll(comms.data(), gpus, devices.data()), "ncclCommInitAll");
  std::vector<Gpu<T>> gpu(static_cast<std::size_t>(gpus));
  for (int k = 0; k < gpus; ++k) {
    auto& g = gpu[static_cast<std::size_t>(k)];
    SCAN_CUDA(cudaSetDevice(k));
    const std::int64_t begin = shard_begin(o.n, gpus, k), end = shard_begin(o.n, gpus, k + 1);
    g.part.device = k;
    g.part.rank = k;
    g.part.ranks = gpus;
    g.part.comm = comms[static_cast<std::size_t>(k)];
    g.part.count = end - begin;
    SCAN_CUDA(cudaStreamCreateWithFlags(&g.part.stream, cudaStreamNonBlocking));
    g.in = DeviceBuffer<T>(static_cast<std::size_t>(g.part.count));
    if (g.part.count > 0) {
      SCAN_CUDA(cudaMemcpy(g.in.data(), input.data() + begin, g.in.bytes(), cudaMemcpyHostToDevice));
    }
    g.out = DeviceBuffer<T>(static_cast<std::size_t>(g.part.count));
    g.part.in = g.in.data();
    g.part.out = g.out.data();
    g.scratch = DeviceBuffer<std::byte>(part_scratch_bytes<T, Op>(g.part.count, gpus, k));
    place_scratch<T, Op>(g.part, g.scratch.data());
    for (cudaEvent_t* e : {&g.start, &g.first_done, &g.exchanged, &g.done}) SCAN_CUDA(cudaEventCreate(e));
  }
  const auto run = [&] {
    for (auto& g : gpu) {
      SCAN_CUDA(cudaSetDevice(g.part.device));
      SCAN_CUDA(cudaEventRecord(g.start, g.part.stream));
      first_phase<T, Op>(o, g.part);
      SCAN_CUDA(cudaEventRecord(g.first_done, g.part.stream));
    }
    check_nccl(ncclGroupStart(), "ncclGroupStart");
    for (auto& g : gpu) exchange_totals(g.part);
    check_nccl(ncclGroupEnd(), "ncclGroupEnd");
    for (auto& g : gpu) {
      SCAN_CUDA(cudaSetDevice(g.part.device));
      SCAN_CUDA(cudaEventRecord(g.exchanged, g.part.stream));
      last_phase<T, Op>(o, g.part);
      SCAN_CUDA(cudaEventRecord(g.done, g.part.stream));
    }
  };
  const auto finish = [&] {
    PhaseTimes slowest;
    for (auto& g : gpu) {
      SCAN_CUDA(cudaSetDevice(g.part.device));
      SCAN_CUDA(cudaEventSynchronize(g.done));
      const PhaseTimes t = phase_times(o, g);
      slowest.total = std::max(slowest.total, t.total);
      slowest.reduce = std::max(slowest.reduce, t.reduce);
      slowest.exchange = std::max(slowest.exchange, t.exchange);
      slowest.scan = std::max(slowest.scan, t.scan);
    }
    return slowest;
  };
  Line line{mode_name(o, "one process"), o.n, gpus};
  progress.step("ch14: " + std::to_string(gpus) + " GPUs: running once and verifying", o.n);
  run();
  (void)finish();
  std::vector<T> output(input.size());
  for (auto& g : gpu) {
    SCAN_CUDA(cudaSetDevice(g.part.device));
    T* shard = output.data() + shard_begin(o.n, gpus, g.part.rank);
    if (g.part.count > 0) SCAN_CUDA(cudaMemcpy(shard, g.out.data(), g.out.bytes(), cudaMemcpyDeviceToHost));
    apply_carry<T, Op>(o, carry_of(g.part), shard, g.part.count);
  }
  const VerifyReport report = verify_scan(input, output, o.kind, Op{});
  if (!report.ok) {
    line.status = "FAIL";
    progress.clear();
    std::cerr << "FAIL: " << gpus << " GPUs, one process, n = " << o.n << ": " << report.describe() << "\n";
  } else if (o.reps > 0) {
    progress.step("ch14: " + std::to_string(gpus) + " GPUs: timing", o.n);
    for (int w = 0; w < o.warmup; ++w) {
      run();
      (void)finish();
    }
    std::vector<PhaseTimes> runs;
    for (int r = 0; r < o.reps; ++r) {
      run();
      runs.push_back(finish());
    }
    line.phases = median_phases(runs, line.timing);
    line.timed = line.phased = true;
  }
  lines.push_back(line);
  for (auto& g : gpu) {
    SCAN_CUDA(cudaSetDevice(g.part.device));
    const cudaEvent_t events[] = {g.start, g.first_done, g.exchanged, g.done};
    for (cudaEvent_t e : events) (void)cudaEventDestroy(e);
    (void)cudaStreamDestroy(g.part.stream);
    (void)ncclCommDestroy(g.part.comm);
  }
  progress.clear();
  print_lines(o, lines, sizeof(T), device_line);
  const bool failed = std::any_of(lines.begin(), lines.end(), [](const Line& l) { return l.status == "FAIL"; });
  return failed ? kExitWrongResult : kExitOk;
}
// [one process]

/// The NCCL id, handed from rank 0 to the others through a file: written
/// under a temporary name and renamed, so a reader never sees half of it.
ncclUniqueId exchange_id(int rank, const std::string& path) {
  ncclUniqueId id{};
  if (rank == 0) {
    check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
    const std::string temporary = path + ".partial";
    std::ofstream(temporary, std::ios::binary).write(reinterpret_cast<const char*>(&id), sizeof id);
    std::filesystem::rename(temporary, path);
    return id;
  }
  for (int tries = 0; tries < 6000; ++tries) {  // up to a minute
    std::ifstream file(path, std::ios::binary);
    if (file && file.read(reinterpret_cast<char*>(&id), sizeof id)) return id;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  throw CudaError(cudaErrorUnknown, "rank " + std::to_string(rank) + " found no NCCL id in " + path);
}

// [one rank]
/// One process per GPU, as across nodes: this process is rank `rank` of
/// `ranks`, joins the others with ncclCommInitRank, scans its shard, and
/// checks it against the oracle of the whole prefix up to its end. Rank 0
/// prints the slowest rank's times (each phase's median, gathered over NCCL).
template <class T, class Op>
int run_rank(const Options14& o, int rank, int ranks, const std::string& id_path, const std::string& device_line) {
  int devices = 0;
  SCAN_CUDA(cudaGetDeviceCount(&devices));
  SCAN_CUDA(cudaSetDevice(rank % devices));
  const ncclUniqueId id = exchange_id(rank, id_path);
  ncclComm_t comm = nullptr;
  check_nccl(ncclCommInitRank(&comm, ranks, id, rank), "ncclCommInitRank");
  const std::int64_t begin = shard_begin(o.n, ranks, rank), end = shard_begin(o.n, ranks, rank + 1);
  const std::vector<T> prefix = generate_input<T>(end, o.seed);  // the shard and all before it
  Gpu<T> g;
  g.part.device = rank % devices;
  g.part.rank = rank;
  g.part.ranks = ranks;
  g.part.comm = comm;
  g.part.count = end - begin;
  SCAN_CUDA(cudaStreamCreateWithFlags(&g.part.stream, cudaStreamNonBlocking));
  g.in = DeviceBuffer<T>(static_cast<std::size_t>(g.part.count));
  if (g.part.count > 0) {
    SCAN_CUDA(cudaMemcpy(g.in.data(), prefix.data() + begin, g.in.bytes(), cudaMemcpyHostToDevice));
  }
  g.out = DeviceBuffer<T>(static_cast<std::size_t>(g.part.count));
  g.part.in = g.in.data();
  g.part.out = g.out.data();
  g.scratch = DeviceBuffer<std::byte>(part_scratch_bytes<T, Op>(g.part.count, ranks, g.part.device));
  place_scratch<T, Op>(g.part, g.scratch.data());
  for (cudaEvent_t* e : {&g.start, &g.first_done, &g.exchanged, &g.done}) SCAN_CUDA(cudaEventCreate(e));
  const auto run = [&] {
    SCAN_CUDA(cudaEventRecord(g.start, g.part.stream));
    first_phase<T, Op>(o, g.part);
    SCAN_CUDA(cudaEventRecord(g.first_done, g.part.stream));
    exchange_totals(g.part);
    SCAN_CUDA(cudaEventRecord(g.exchanged, g.part.stream));
    last_phase<T, Op>(o, g.part);
    SCAN_CUDA(cudaEventRecord(g.done, g.part.stream));
    SCAN_CUDA(cudaEventSynchronize(g.done));
    return phase_times(o, g);
  };
  (void)run();
  // Check the shard: the output before it is the oracle's own, so the
  // check of the whole prefix judges this rank's elements alone.
  std::vector<T> got(prefix.size());
  reference_scan(prefix.data(), got.data(), begin, o.kind, Op{});
  if (g.part.count > 0) {
    SCAN_CUDA(cudaMemcpy(got.data() + begin, g.out.data(), g.out.bytes(), cudaMemcpyDeviceToHost));
  }
  apply_carry<T, Op>(o, carry_of(g.part), got.data() + begin, g.part.count);
  const VerifyReport report = verify_scan(prefix, got, o.kind, Op{});
  if (!report.ok) std::cerr << "FAIL: rank " << rank << ", n = " << o.n << ": " << report.describe() << "\n";
  std::vector<PhaseTimes> runs;
  TimingStats total;
  PhaseTimes mine;
  if (report.ok && o.reps > 0) {
    for (int w = 0; w < o.warmup; ++w) (void)run();
    for (int r = 0; r < o.reps; ++r) runs.push_back(run());
    mine = median_phases(runs, total);
  }
  // Every rank's verdict and medians, to every rank.
  const double sent[5] = {report.ok ? 1.0 : 0.0, mine.total, mine.reduce, mine.exchange, mine.scan};
  DeviceBuffer<double> d_sent(std::vector<double>(sent, sent + 5)), d_all(static_cast<std::size_t>(5 * ranks));
  check_nccl(ncclAllGather(d_sent.data(), d_all.data(), 5, ncclFloat64, comm, g.part.stream), "ncclAllGather");
  SCAN_CUDA(cudaStreamSynchronize(g.part.stream));
  const std::vector<double> all = d_all.to_host();
  const cudaEvent_t events[] = {g.start, g.first_done, g.exchanged, g.done};
  for (cudaEvent_t e : events) (void)cudaEventDestroy(e);
  (void)cudaStreamDestroy(g.part.stream);
  (void)ncclCommDestroy(comm);
  bool every_ok = true;
  Line line{mode_name(o, "one rank per GPU"), o.n, ranks};
  for (int k = 0; k < ranks; ++k) {
    every_ok = every_ok && all[5 * k] == 1.0;
    line.phases.total = std::max(line.phases.total, all[5 * k + 1]);
    line.phases.reduce = std::max(line.phases.reduce, all[5 * k + 2]);
    line.phases.exchange = std::max(line.phases.exchange, all[5 * k + 3]);
    line.phases.scan = std::max(line.phases.scan, all[5 * k + 4]);
  }
  if (rank == 0) {
    line.status = every_ok ? "PASS" : "FAIL";
    line.timed = line.phased = every_ok && o.reps > 0;
    line.timing = {line.phases.total, line.phases.total, line.phases.total};
    line.note = "slowest rank's medians";
    print_lines(o, {line}, sizeof(T), device_line);
  }
  return every_ok ? kExitOk : kExitWrongResult;
}
// [one rank]

/// Starts one copy of this program per GPU, as a job launcher would, with
/// the rank, the number of ranks and the id file in the environment.
int launch_ranks(int ranks, int argc, char** argv) {
  const std::string path = std::filesystem::temp_directory_path() /
                           ("scan-nccl-id-" + std::to_string(getpid()) + "-" + std::to_string(std::time(nullptr)));
  std::vector<pid_t> children;
  for (int r = 0; r < ranks; ++r) {
    const pid_t pid = fork();
    if (pid < 0) throw UsageError("could not start rank " + std::to_string(r));
    if (pid == 0) {
      setenv("SCAN_RANK", std::to_string(r).c_str(), 1);
      setenv("SCAN_RANKS", std::to_string(ranks).c_str(), 1);
      setenv("SCAN_NCCL_ID_FILE", path.c_str(), 1);
      execv("/proc/self/exe", argv);
      _exit(kExitCuda);
    }
    children.push_back(pid);
  }
  int worst = kExitOk;
  for (pid_t child : children) {
    int status = 0;
    waitpid(child, &status, 0);
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : kExitCuda;
    worst = std::max(worst, code);
  }
  std::error_code ignored;
  std::filesystem::remove(path, ignored);
  (void)argc;
  return worst;
}

}  // namespace

int run_program(int argc, char** argv) {
  Options14 o;
  CLI::App app("Chapter 14: one scan across several GPUs through NCCL. Each GPU reduces its shard, the totals\n"
               "are all-gathered, and each GPU scans its shard seeded with the totals before it (with\n"
               "--carry deferred: each GPU scans its shard alone, and the carry before it is left apart).",
               "ch14_multi_gpu");
  configure_app(app);
  add_count_option(app, "--n", o.n, "elements in all, with K/M/G suffixes [256M]");
  add_type_and_op_options(app, o.dtype, o.op);
  add_kind_option(app, o.kind);
  add_int_option(app, "--gpus", o.gpus, 1, 64, "GPUs to use [all of them]");
  add_value_option(app, "--mode", "M", "process (one process, every GPU) or ranks (one process per GPU) [process]",
                   [&o](const std::string& v) {
                     if (v != "process" && v != "ranks") throw UsageError("--mode must be process or ranks, not '" + v + "'");
                     o.mode = v;
                   });
  add_value_option(app, "--carry", "C",
                   "applied (the output is the global scan) or deferred (each shard holds its own scan; the "
                   "carry before it is left for the reader) [applied]",
                   [&o](const std::string& v) {
                     if (v != "applied" && v != "deferred") {
                       throw UsageError("--carry must be applied or deferred, not '" + v + "'");
                     }
                     o.defer_carry = v == "deferred";
                   });
  app.add_flag_callback("--no-compare", [&o] { o.compare = false; }, "leave out the one-GPU row");
  add_run_options(app, o);
  app.add_flag_callback("--csv", [&o] { o.format = OutputFormat::csv; }, "CSV on stdout");
  app.footer("exit codes: 0 verified, 1 a wrong result, 2 bad usage, 3 no usable CUDA device, too few GPUs, or a "
             "CUDA or NCCL error");
  if (!parse_command_line(app, std::vector<std::string>(argv + 1, argv + argc))) {
    std::cout << app.help();
    return kExitOk;
  }
  apply_affine_type(app, o.dtype, o.op);
  const DeviceInfo device = query_device();
  require_architecture("ch14_multi_gpu", ch11::kNeedsHopper, device);  // exit 3 with one line on an older GPU
  int count = 0;
  SCAN_CUDA(cudaGetDeviceCount(&count));
  const int gpus = o.gpus > 0 ? o.gpus : count;
  if (gpus > count) {
    throw CudaError(cudaErrorInvalidDevice, "--gpus " + std::to_string(gpus) + " but only " + std::to_string(count) +
                                                " CUDA device(s) are visible");
  }
  const std::string device_line = std::to_string(gpus) + " x " + describe(device);
  int result = kExitOk;
  const char* rank_text = std::getenv("SCAN_RANK");
  if (o.mode == "ranks" && rank_text == nullptr) return launch_ranks(gpus, argc, argv);
  if (o.mode != "ranks" && rank_text != nullptr) {
    throw UsageError("SCAN_RANK is set, so this process is one rank of several: run it with --mode ranks");
  }
  visit_combo(o.dtype, o.op, [&]<class T, class Op>() {
    if (o.mode == "ranks") {
      const char* ranks_text = std::getenv("SCAN_RANKS");
      const char* id_path = std::getenv("SCAN_NCCL_ID_FILE");
      if (ranks_text == nullptr || id_path == nullptr) {
        throw UsageError("a rank needs SCAN_RANKS and SCAN_NCCL_ID_FILE in its environment");
      }
      result = run_rank<T, Op>(o, std::atoi(rank_text), std::atoi(ranks_text), id_path, device_line);
    } else {
      result = run_one_process<T, Op>(o, gpus, device_line);
    }
  });
  return result;
}

}  // namespace scan::ch14
