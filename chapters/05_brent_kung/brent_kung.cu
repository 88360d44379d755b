#include "brent_kung.cuh"

namespace scan::ch05 {
namespace {

/// The power of two a tile of `tile` elements is padded to.
int span_of(std::int64_t tile) {
  int span = 1;
  while (span < tile) span *= 2;
  return span;
}

}  // namespace

std::vector<std::string> brent_kung_labels(std::int64_t tile) {
  const int span = span_of(tile);
  std::vector<std::string> labels;
  for (int stride = 1; stride < span; stride *= 2) labels.push_back("up, stride " + std::to_string(stride));
  for (int stride = span / 4; stride >= 1; stride /= 2) labels.push_back("down, stride " + std::to_string(stride));
  return labels;
}

std::vector<std::string> blelloch_labels(std::int64_t tile) {
  const int span = span_of(tile);
  std::vector<std::string> labels;
  for (int stride = 1; stride < span; stride *= 2) labels.push_back("up, stride " + std::to_string(stride));
  labels.push_back("root := identity");
  for (int stride = span / 2; stride >= 1; stride /= 2) labels.push_back("down, stride " + std::to_string(stride));
  return labels;
}

const Chapter& chapter() {
  static const Chapter c{"05", "brent_kung", "Brent-Kung: the work-efficient tree", Where::device,
                         {gpu_variant<ScanByTiles<Divergent>>(), gpu_variant<ScanByTiles<Contiguous<1, PlainLayout>>>(),
                          gpu_variant<ScanByTiles<Contiguous<2, PlainLayout>>>(), gpu_variant<ScanByTiles<Blelloch>>(),
                          gpu_variant<ScanByTiles<Contiguous<2, PaddedLayout>>>()}};
  return c;
}

}  // namespace scan::ch05
