// kernel_cache.h: the thread-safe cache of loaded modules, keyed so a stale module is never served.
//
// Kernel caches keyed by hand-written strings once left baked constants out, so
// the first module compiled served every later caller. Here the key is the kernel's own key
// (derived from its reflected config, see docs/cache-keys.md) plus a hash of the exact PTX text,
// the device's exact compute capability and the JIT options that can change the code: even a
// wrong kernel key cannot return a module compiled from different PTX. A hit also compares the
// full text, so not even a hash collision can. Concurrent requests for one key compile once:
// the first caller compiles, the others wait for its result.
#pragma once

#include "ptxkit/runtime/context.h"
#include "ptxkit/runtime/module.h"

#include <cstdint>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ptxkit::verifier {
class VerifiedPtx;
}

namespace ptxkit::runtime {

// 64-bit FNV-1a of the PTX text.
std::uint64_t hash_ptx(std::string_view ptx);

struct CacheKey {
  std::string kernel_key;
  std::uint64_t ptx_hash = 0;
  ComputeCapability cc;
  std::string jit; // JitOptions::fingerprint()
  bool operator==(const CacheKey&) const = default;
  // "rmsnorm/v1/...|ptx=0123456789abcdef|cc=9.0|O4,lineinfo=0,debug=0,maxreg=0"
  std::string str() const;
};

class KernelCache {
public:
  explicit KernelCache(Context ctx) : ctx_(std::move(ctx)) {}
  KernelCache(const KernelCache&) = delete;
  KernelCache& operator=(const KernelCache&) = delete;

  // The module for `ptx` under `kernel_key`, loading it on the first request. Thread-safe;
  // failures are returned to every waiter and not cached (a later call tries again).
  Expected<Module> get(const verifier::VerifiedPtx& ptx, std::string_view kernel_key,
                       const JitOptions& jit = {});

  const Context& context() const { return ctx_; }
  std::size_t size() const;    // modules held
  std::uint64_t loads() const; // JIT compilations started by the cache
  std::uint64_t hits() const;  // requests served from a module already loaded or loading
  void clear();

private:
  friend Expected<Module> cache_get_text(KernelCache&, std::string, std::string_view,
                                         std::vector<KernelSignature>, const JitOptions&);
  Expected<Module> get_text(std::string ptx, std::string name, std::string_view kernel_key,
                            std::vector<KernelSignature> entries, const JitOptions& jit);

  struct Slot {
    std::string ptx; // compared on every hit
    std::shared_future<Expected<Module>> result;
  };
  Context ctx_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<Slot>> slots_;
  std::uint64_t loads_ = 0;
  std::uint64_t hits_ = 0;
};

} // namespace ptxkit::runtime
