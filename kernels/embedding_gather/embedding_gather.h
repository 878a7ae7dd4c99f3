// embedding_gather.h: rows of an embedding table by token id (config, launch contract,
// reference).
//
//   out[t, :] = table[ids[t], :]   if ids[t] < vocab
//   out[t, :] = 0                  otherwise (an out-of-range id)
//
// Out-of-range ids: the kernel writes a zero row and reads nothing from the table, so it never
// reads past the table's end and the output is fully defined (no stale data from an earlier
// step). We chose zeros over an error-flag buffer because a flag would have to be cleared before
// every launch and read back after it, which a decode loop on a stream (or a CUDA graph) does not
// do; callers that need to know validate the ids on the host with
// EmbeddingGather::check_ids (part of the launch contract), which names the first bad id.
//
// The table and out are of the config's dtype (f32, f16 or bf16: a copy, bit-exact; ids stay u32).
// One block per token (grid (tokens)), T = min(256, chunks rounded up to a warp) threads, each
// copying its 16-byte chunks of the row (4 floats, 8 halves; 4 halves when hidden % 8 != 0;
// unrolled, common/row_block.h). hidden must be a multiple of 4 in [4, 16384]; vocab and hidden
// are baked (vocab is the guard's immediate).
#pragma once

#include "common/config_fields.h"
#include "common/row_block.h"

#include <cstdint>
#include <ptxkit/kernels/dtype.h>
#include <ptxkit/kernels/kernel.h>
#include <span>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

struct EmbeddingGatherConfig {
  std::uint32_t vocab = 151936;
  std::uint32_t hidden = 896;
  std::uint32_t tokens = 1;
  DType dtype = DType::kF32;

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("vocab", c.vocab,
            FieldSpec{.doc = "rows of the table; an id >= vocab gives a zero row",
                      .min = 1.0,
                      .max = 2147483647.0});
    v.field("hidden", c.hidden, common::hidden_v4_field(16384.0));
    v.field("tokens", c.tokens,
            common::launch_shape_field("ids per launch (grid.x)", common::kGridXMax,
                                       "launch shape only: grid.x = tokens and each block reads "
                                       "its id from ids[%ctaid.x], so no PTX depends on it"));
    v.field("dtype", c.dtype, common::dtype_field("element type of the table and out (ids: u32)"));
  }
};

struct EmbeddingGather {
  PTXKIT_KERNEL_FUNCTIONS(EmbeddingGatherConfig);
  static constexpr std::string_view kName = "embedding_gather";
  static constexpr std::string_view kSummary =
      "embedding gather: out[t] = table[ids[t]] (16-byte row copy, one block per token; f32, f16 "
      "or bf16 table); an id >= vocab writes a zero row and reads nothing";
  static constexpr std::string_view kLimits =
      "hidden a multiple of 4 in [4, 16384]; vocab in [1, 2^31 - 1]; tokens in [1, 2^31 - 1] "
      "(grid.x); ids >= vocab give zero rows (check_ids reports them on the host)";

  static Tolerance tolerance(const Config&, const HostTensors&) {
    return {0, 0, "a copy: bit-exact (halves widen to f32 and narrow back exactly)"};
  }
  // Elements per chunk (one access): row_block::chunk_width.
  static constexpr std::uint32_t chunk_width(const Config& c) {
    return row_block::chunk_width(c.dtype, c.hidden);
  }
  static constexpr std::uint32_t chunks(const Config& c) { return c.hidden / chunk_width(c); }
  static std::vector<BenchCase> bench_cases();

  // Host-side half of the launch contract: an error naming the first id >= vocab (and its
  // index), for callers that must refuse bad ids instead of getting zero rows.
  static ptxkit::Expected<void> check_ids(const Config& c, std::span<const std::uint32_t> ids);
};

// The reference on plain vectors: table is vocab*hidden, ids has one entry per token.
std::vector<float> embedding_gather_reference(const std::vector<float>& table,
                                              const std::vector<std::uint32_t>& ids,
                                              std::uint32_t vocab, std::uint32_t hidden);

} // namespace ptxkit::kernels
