// ch05_op_counts: operations and steps of Kogge-Stone, Brent-Kung and
// Blelloch for power-of-two n, counted by running the CPU models.
#include "op_count.hpp"

#include <scan/ops.hpp>

#include <cstdio>
#include <numeric>

int main() {
  std::printf("| n | Kogge-Stone ops | steps | Brent-Kung ops | steps | Blelloch ops | steps | KS / BK ops |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (std::int64_t n : {8, 16, 32, 256, 1024, 4096, 1 << 20}) {
    std::vector<std::int64_t> a(static_cast<std::size_t>(n));
    std::iota(a.begin(), a.end(), 1);
    auto b = a, c = a;
    const auto ks = scan::ch05::kogge_stone_model(a, scan::Add{});
    const auto bk = scan::ch05::brent_kung_model(b, scan::Add{});
    const auto bl = scan::ch05::blelloch_model(c, scan::Add{}, std::int64_t{0});
    std::printf("| %lld | %lld | %d | %lld | %d | %lld | %d | %.1f |\n", static_cast<long long>(n),
                static_cast<long long>(ks.operations), ks.steps, static_cast<long long>(bk.operations),
                bk.steps, static_cast<long long>(bl.operations), bl.steps,
                static_cast<double>(ks.operations) / static_cast<double>(bk.operations));
  }
  return 0;
}
