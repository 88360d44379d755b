#include "brent_kung.cuh"

namespace scan::ch05 {

std::vector<std::string> brent_kung_labels(int span) {
  std::vector<std::string> labels;
  for (int stride = 1; stride < span; stride *= 2) labels.push_back("up, stride " + std::to_string(stride));
  for (int stride = span / 4; stride >= 1; stride /= 2) labels.push_back("down, stride " + std::to_string(stride));
  return labels;
}

std::vector<std::string> blelloch_labels(int span) {
  std::vector<std::string> labels;
  for (int stride = 1; stride < span; stride *= 2) labels.push_back("up, stride " + std::to_string(stride));
  labels.push_back("root := identity");
  for (int stride = span / 2; stride >= 1; stride /= 2) labels.push_back("down, stride " + std::to_string(stride));
  return labels;
}

const Chapter& chapter() {
  static const Chapter c{"05", "brent_kung", "Brent-Kung: the work-efficient tree", Where::device,
                         {gpu_variant<Divergent>(), gpu_variant<Contiguous<1, PlainLayout>>(),
                          gpu_variant<Contiguous<2, PlainLayout>>(), gpu_variant<Blelloch>(),
                          gpu_variant<Contiguous<2, PaddedLayout>>()}};
  return c;
}

}  // namespace scan::ch05
