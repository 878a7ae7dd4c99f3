// kernel_cache.cpp: compile-once module cache (see kernel_cache.h for the keying argument).
//
// One mutex guards the map; compilation runs outside it, so loads of different keys proceed in
// parallel and a slow JIT never blocks lookups of modules already loaded. The first caller for a
// key owns a promise; later callers wait on its shared_future.
#include "ptxkit/runtime/kernel_cache.h"

#include "kernel_cache_p.h"
#include "module_p.h"
#include "ptxkit/verifier/verified_ptx.h"

#include <cstdio>
#include <utility>

namespace ptxkit::runtime {

std::uint64_t hash_ptx(std::string_view ptx) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : ptx) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string CacheKey::str() const {
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(ptx_hash));
  return kernel_key + "|ptx=" + hash + "|cc=" + cc.str() + "|" + jit;
}

Expected<Module> KernelCache::get(const verifier::VerifiedPtx& ptx, std::string_view kernel_key,
                                  const JitOptions& jit) {
  std::vector<KernelSignature> entries;
  for (const verifier::Function* f : ptx.module().entries())
    entries.push_back(signature_of(*f));
  return get_text(ptx.text(), ptx.name(), kernel_key, std::move(entries), jit);
}

Expected<Module> cache_get_text(KernelCache& cache, std::string ptx, std::string_view kernel_key,
                                std::vector<KernelSignature> entries, const JitOptions& jit) {
  return cache.get_text(std::move(ptx), std::string(kernel_key), kernel_key, std::move(entries),
                        jit);
}

Expected<Module> KernelCache::get_text(std::string ptx, std::string name,
                                       std::string_view kernel_key,
                                       std::vector<KernelSignature> entries,
                                       const JitOptions& jit) {
  const CacheKey key{std::string(kernel_key), hash_ptx(ptx), ctx_.device().cc, jit.fingerprint()};
  const std::string k = key.str();

  std::promise<Expected<Module>> promise;
  std::shared_ptr<Slot> slot;
  bool owner = false;
  {
    std::lock_guard lock(mutex_);
    if (auto it = slots_.find(k); it != slots_.end()) {
      slot = it->second;
      if (slot->ptx == ptx) ++hits_;
    } else {
      slot = std::make_shared<Slot>();
      slot->ptx = ptx;
      slot->result = promise.get_future().share();
      slots_.emplace(k, slot);
      owner = true;
      ++loads_;
    }
  }
  if (!owner) {
    // Same key, different text: a 64-bit hash collision. Serve nothing stale: load uncached.
    if (slot->ptx != ptx)
      return load_module_text(ctx_, std::move(ptx), std::move(name), std::move(entries), jit);
    return slot->result.get();
  }

  Expected<Module> result =
      load_module_text(ctx_, std::move(ptx), std::move(name), std::move(entries), jit);
  if (!result) {
    std::lock_guard lock(mutex_);
    if (auto it = slots_.find(k); it != slots_.end() && it->second == slot) slots_.erase(it);
  }
  promise.set_value(result);
  return result;
}

std::size_t KernelCache::size() const {
  std::lock_guard lock(mutex_);
  return slots_.size();
}
std::uint64_t KernelCache::loads() const {
  std::lock_guard lock(mutex_);
  return loads_;
}
std::uint64_t KernelCache::hits() const {
  std::lock_guard lock(mutex_);
  return hits_;
}
void KernelCache::clear() {
  std::lock_guard lock(mutex_);
  slots_.clear();
}

} // namespace ptxkit::runtime
