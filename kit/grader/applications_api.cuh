// Chapter 13's applications behind plain functions, so that the grader's
// suite (applications.cu) needs none of the chapter's templates: compiled in
// applications_student.cu against whichever chapter 13 the program links
// (the student's, or in the reference program the reference's). Only
// declarations of the chapter are used here.
#include "applications.cuh"

#include <cstdint>

namespace kit::KIT_API_NS {

int tile() { return scan::ch13::kTile; }
std::size_t scatter_scratch_bytes(std::int64_t n) { return scan::ch13::scatter_scratch_bytes(n); }
std::size_t sort_scratch_bytes(std::int64_t n) { return scan::ch13::sort_scratch_bytes(n); }

void select_below(const std::uint32_t* in, std::uint32_t* out, std::int64_t n, std::uint32_t threshold,
                  unsigned long long* kept, void* scratch) {
  // The bulk kernel, not select_if's default (the ballot kernel): it runs
  // the student's scatter_tile().
  scan::ch13::select_if(in, out, n, scan::ch13::KeepBelow{threshold}, kept, scratch, nullptr,
                        scan::ch13::ScatterKernel::bulk);
}
void split_by_bit(const std::uint32_t* in, std::uint32_t* out, std::int64_t n, int bit, unsigned long long* zeros,
                  void* scratch) {
  scan::ch13::split_by_bit(in, out, n, bit, zeros, false, scratch, nullptr);
}
void partition_by_bit(const std::uint32_t* in, std::uint32_t* out, std::int64_t n, int bit,
                      unsigned long long* zeros, void* scratch) {
  scan::ch13::partition_by_bit(in, out, n, bit, zeros, scratch, nullptr);
}
void radix_sort(std::uint32_t* keys, std::int64_t n, void* scratch) { scan::ch13::radix_sort(keys, n, scratch, nullptr); }

}  // namespace kit::KIT_API_NS
