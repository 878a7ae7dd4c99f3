// kernel_cache_p.h: the cache's text entry point, for the runtime's own tests (not installed).
//
// KernelCache::get takes a VerifiedPtx; the cache tests exercise keying and compile-once with a
// fake driver and hand-written PTX, without the verifier, through this function.
#pragma once

#include "ptxkit/runtime/kernel_cache.h"

namespace ptxkit::runtime {

// As KernelCache::get, for PTX text with its entries' signatures given directly.
Expected<Module> cache_get_text(KernelCache& cache, std::string ptx, std::string_view kernel_key,
                                std::vector<KernelSignature> entries, const JitOptions& jit);

} // namespace ptxkit::runtime
