/// \file
/// \brief The goal posts: CUB's and Thrust's scans, as registry variants.
///
/// Every GPU chapter's table ends with a CUB row measured in the same run, on
/// the same input, so each number reads as a ratio to the library that ships
/// with the toolkit. Wrapping CUB as a Variant lets the runner verify and
/// time it exactly as it does the chapter's own variants.
#pragma once

#include <scan/registry.hpp>

namespace scan {

/// cub::DeviceScan::InclusiveScan / ExclusiveScan (exclusive with the
/// operator's identity as initial value), built for every pair of ScanCombos.
/// Its temporary storage comes from the workspace, allocated before timing.
const Variant& cub_variant();

/// cub::DeviceScan::InclusiveScanByKey / ExclusiveScanByKey: the segmented
/// scan chapter 12 is compared with. CUB finds segments by key, so it reads
/// ScanRequest::keys (4 bytes per element) where chapter 12 reads one-byte
/// head flags; the keys are made before timing.
const Variant& cub_by_key_variant();

/// thrust::inclusive_scan / exclusive_scan on the runner's stream, for the
/// sums of every element type. Its temporary storage is served from the
/// workspace by a custom allocator, so no allocation is timed.
const Variant& thrust_variant();

}  // namespace scan
