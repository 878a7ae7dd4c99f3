// rope_neox_batched_reference.cpp: rope_neox_batched's bench case (its reference, launch and
// parameters are common/rope_neox_batched_common.h's).
#include "rope_neox_batched.h"

namespace ptxkit::kernels {

std::vector<BenchCase> RopeNeoxBatched::bench_cases() {
  return {{.name = "rope_neox_batched_65535x14x64",
           .config = "qwen05b_q",
           .sets = {"num_tokens=65535"},
           .shape = "65535 tokens x 14 heads x 64",
           .target = BenchTarget{.min_pct_of_copy = 80}}};
}

} // namespace ptxkit::kernels
