#include "sequential.hpp"

namespace scan::ch01 {

const Chapter& chapter() {
  static const Chapter c{"01", "sequential", "Scan on the CPU", Where::host,
                         {host_variant<PlainLoop>(), host_variant<StandardLibrary>(),
                          host_variant<BlockedTwoPass>()}};
  return c;
}

}  // namespace scan::ch01
