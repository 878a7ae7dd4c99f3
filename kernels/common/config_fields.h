// config_fields.h: the field specs several kernel configs declare alike, stated once. Each
// returns the FieldSpec a config passes to v.field(NAME, member, SPEC); the field's name, member
// and default stay in the config, so reflection, --set, limits and cache keys are unchanged.
#pragma once

#include <cmath>
#include <cstdint>
#include <ptxkit/kernels/field.h>
#include <string_view>

namespace ptxkit::kernels::common {

// A row of `hidden` floats moved as .v4 chunks: a multiple of 4 in [4, max_hidden].
constexpr FieldSpec hidden_v4_field(double max_hidden) {
  return FieldSpec{.doc = "row length (elements); the .v4 path needs a multiple of 4",
                   .min = 4.0,
                   .max = max_hidden,
                   .multiple_of = 4};
}

// The element type (f32, f16 or bf16) of a kernel's activations and weights; `doc` names the
// buffers it applies to. Baked: it changes every load and store of the PTX.
constexpr FieldSpec dtype_field(std::string_view doc) {
  return FieldSpec{.doc = doc};
}

// The epsilon of a normalization, in (0, 1]; `doc` says what it is added to.
constexpr FieldSpec eps_field(std::string_view doc) {
  return FieldSpec{.doc = doc, .min = 0.0, .max = 1.0, .min_exclusive = true};
}

// A field of the launch shape only (a grid dimension each block reads its index from): not baked,
// in [1, max]; `exempt_reason` says why no PTX depends on it.
constexpr FieldSpec launch_shape_field(std::string_view doc, double max,
                                       std::string_view exempt_reason) {
  return FieldSpec{
      .doc = doc, .baked = false, .min = 1.0, .max = max, .exempt_reason = exempt_reason};
}
inline constexpr double kGridXMax = 2147483647.0; // 2^31 - 1
inline constexpr double kGridYZMax = 65535.0;

// `rows`, one block per row on grid.x: launch shape only.
constexpr FieldSpec rows_on_grid_x_field() {
  return launch_shape_field("rows per launch (grid.x)", kGridXMax,
                            "launch shape only: grid.x = rows and each block reads its row index "
                            "from %ctaid.x, so no PTX depends on it");
}

// The attention family's KV-cache shape fields.
constexpr FieldSpec query_heads_field(std::string_view doc) {
  return FieldSpec{.doc = doc, .min = 1.0, .max = 65535.0};
}
constexpr FieldSpec kv_heads_field(std::string_view doc = "KV heads (GQA); must divide num_heads") {
  return FieldSpec{.doc = doc, .min = 1.0, .max = 65535.0};
}
constexpr FieldSpec max_seq_len_field(std::string_view doc) {
  return FieldSpec{.doc = doc, .min = 1.0, .max = 1048576.0};
}
constexpr FieldSpec attention_scale_field() {
  return FieldSpec{
      .doc = "softmax scale of q.k; 0 means 1/sqrt(head_dim)", .min = 0.0, .max = 1024.0};
}
// `batch_size` on grid.y: each block's slot is %ctaid.y and its length seq_lens[slot].
constexpr FieldSpec slots_on_grid_y_field() {
  return launch_shape_field(
      "slots per launch (grid.y)", kGridYZMax,
      "launch shape only: grid.y = batch_size and each block reads its slot "
      "from %ctaid.y, its length from seq_lens[slot], so no PTX depends on it");
}
// `head_dim` of the attention kernels: one warp spans a head, head_dim/32 elements per lane.
constexpr FieldSpec attention_head_dim_field(std::string_view doc) {
  return FieldSpec{.doc = doc, .min = 32.0, .max = 128.0, .multiple_of = 32};
}
// `chunk_size` of flash decoding (the chunk pass and the reduce): a multiple of 32 in [32, 256].
constexpr FieldSpec flash_chunk_size_field(std::string_view doc) {
  return FieldSpec{.doc = doc, .min = 32.0, .max = 256.0, .multiple_of = 32};
}

// The softmax scale an attention config means: `scale`, or 1/sqrt(head_dim) when it is 0.
inline float effective_attention_scale(float scale, std::uint32_t head_dim) {
  if (scale != 0.0f) return scale;
  return static_cast<float>(1.0 / std::sqrt(static_cast<double>(head_dim)));
}

} // namespace ptxkit::kernels::common
