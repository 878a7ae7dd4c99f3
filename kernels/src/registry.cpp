// registry.cpp: storage of the statically registered kernels.
#include <algorithm>
#include <cassert>
#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {
namespace {

std::vector<std::unique_ptr<Kernel>>& storage() {
  static std::vector<std::unique_ptr<Kernel>> kernels;
  return kernels;
}

} // namespace

bool KernelRegistry::add(std::unique_ptr<Kernel> kernel) {
  assert(kernel != nullptr);
  assert(find(kernel->name()) == nullptr && "two kernels registered under one name");
  storage().push_back(std::move(kernel));
  return true;
}

std::vector<const Kernel*> KernelRegistry::all() {
  std::vector<const Kernel*> out;
  for (const auto& k : storage())
    out.push_back(k.get());
  std::sort(out.begin(), out.end(),
            [](const Kernel* a, const Kernel* b) { return a->name() < b->name(); });
  return out;
}

const Kernel* KernelRegistry::find(std::string_view name) {
  for (const auto& k : storage())
    if (k->name() == name) return k.get();
  return nullptr;
}

std::string KernelRegistry::names() {
  std::string out;
  for (const Kernel* k : all())
    out += (out.empty() ? "" : ", ") + std::string(k->name());
  return out;
}

} // namespace ptxkit::kernels
