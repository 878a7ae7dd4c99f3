// kv_cache_slots.cpp: the shared parameters and inputs of the batched attention kernels.
#include "kv_cache_slots.h"

#include "error_p.h"

#include <string>

namespace ptxkit::kernels::common {

ptxkit::Expected<void> check_append_positions(std::string_view kernel, std::uint32_t batch_size,
                                              std::uint32_t max_seq_len,
                                              std::span<const std::uint32_t> positions) {
  const std::string who(kernel);
  if (positions.size() != batch_size)
    return fail(who + ": " + std::to_string(positions.size()) +
                " positions given for batch_size = " + std::to_string(batch_size) + " slots");
  for (std::size_t s = 0; s < positions.size(); ++s)
    if (positions[s] >= max_seq_len)
      return fail(who + ": positions[" + std::to_string(s) + "] = " + std::to_string(positions[s]) +
                  " is beyond the cache capacity max_seq_len = " + std::to_string(max_seq_len) +
                  " (valid positions are 0.." + std::to_string(max_seq_len - 1) + ")");
  return {};
}

ParamSpec query_param(const KvCacheSlots& s) {
  return {.name = "q", .kind = ParamKind::kInput, .buffer = "q", .elems = s.query_elems()};
}

ParamSpec cache_pointers_param(const KvCacheSlots& s, const char* name, const char* buffer,
                               ElemType elem) {
  return {.name = name,
          .kind = ParamKind::kPointerArray,
          .buffer = buffer,
          .elem = elem,
          .elems = s.slot_elems() * s.batch_size,
          .count = s.batch_size,
          .stride_elems = s.slot_elems()};
}

ParamSpec seq_lens_param(const KvCacheSlots& s) {
  return {.name = "seq_lens",
          .kind = ParamKind::kInput,
          .buffer = "seq_lens",
          .elem = ElemType::kU32,
          .elems = s.batch_size};
}

HostTensors kv_cache_slot_inputs(const KvCacheSlots& s, std::uint64_t seed) {
  InputRng rng(seed);
  HostTensors t;
  t.f32["q"] = rng.uniform_vector(s.query_elems(), -1, 1);
  t.f32["k_cache"] = rng.uniform_vector(s.slot_elems() * s.batch_size, -1, 1);
  t.f32["v_cache"] = rng.uniform_vector(s.slot_elems() * s.batch_size, -1, 1);
  auto& lens = t.u32["seq_lens"];
  for (std::uint32_t slot = 0; slot < s.batch_size; ++slot)
    lens.push_back(1 + static_cast<std::uint32_t>(rng.next_u64() % s.max_seq_len));
  return t;
}

} // namespace ptxkit::kernels::common
