// decode_logits_file.h: the bytes of `ptxkit decode --logits FILE`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ptxkit::cli {

// The logits file: a NumPy array [slots, new tokens, vocab] of little-endian f32 when `path` ends
// in .npy (every slot generates the same number of tokens), else JSON, one object per slot with
// its prompt, tokens and logits (a list per token). logits[s] holds slot s's rows of `vocab`
// values, one per generated token.
[[nodiscard]] std::string logits_file(const std::string& path,
                                      const std::vector<std::vector<std::uint32_t>>& prompts,
                                      const std::vector<std::vector<std::uint32_t>>& generated,
                                      const std::vector<std::vector<float>>& logits,
                                      std::size_t vocab);

} // namespace ptxkit::cli
