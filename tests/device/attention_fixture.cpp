// attention_fixture.cpp: the increasing-score attention fixture and the stuck-rescale model
// (attention_fixture.h says why).
#include "attention_fixture.h"

#include <cmath>
#include <limits>

namespace ptxkit::device_tests {

kernels::HostTensors increasing_score_attention(const AttentionShape& sh, std::uint64_t seed) {
  kernels::InputRng rng(seed);
  kernels::HostTensors t;
  const std::size_t dim = sh.head_dim, len = sh.max_seq_len;
  t.f32["q"] = rng.uniform_vector(std::size_t{sh.batch} * sh.num_heads * dim, 0.2f, 1.0f);
  auto& k = t.f32["k_cache"];
  auto& v = t.f32["v_cache"];
  const std::size_t cache = std::size_t{sh.batch} * sh.num_kv_heads * len * dim;
  k.resize(cache);
  v = rng.uniform_vector(cache, -1.0f, 1.0f);
  for (std::size_t s = 0; s < sh.batch; ++s)
    for (std::size_t g = 0; g < sh.num_kv_heads; ++g) {
      const auto w = rng.uniform_vector(dim, 0.5f, 1.5f);
      const double step = 4.4 / static_cast<double>(len) * rng.uniform(0.8f, 1.2f);
      for (std::size_t p = 0; p < len; ++p) {
        const double tp = static_cast<double>(p + 1) * step;
        for (std::size_t d = 0; d < dim; ++d)
          k[((s * sh.num_kv_heads + g) * len + p) * dim + d] = static_cast<float>(tp * w[d]);
      }
    }
  t.u32["seq_lens"] = sh.seq_lens;
  return t;
}

std::vector<double> attention_scores(const AttentionShape& sh, const kernels::HostTensors& in,
                                     std::uint32_t slot, std::uint32_t head) {
  const auto& q = in.f32.at("q");
  const auto& k = in.f32.at("k_cache");
  const std::size_t dim = sh.head_dim, len = sh.max_seq_len;
  const std::size_t g = head / (sh.num_heads / sh.num_kv_heads);
  const double scale = 1.0 / std::sqrt(static_cast<double>(dim));
  std::vector<double> scores;
  for (std::size_t p = 0; p < sh.seq_lens[slot]; ++p) {
    double dot = 0;
    for (std::size_t d = 0; d < dim; ++d)
      dot += double{q[(std::size_t{slot} * sh.num_heads + head) * dim + d]} *
             k[((slot * sh.num_kv_heads + g) * len + p) * dim + d];
    scores.push_back(dot * scale);
  }
  return scores;
}

std::vector<float> stuck_rescale_attention(const AttentionShape& sh,
                                           const kernels::HostTensors& in) {
  const auto& v = in.f32.at("v_cache");
  const std::size_t dim = sh.head_dim, len = sh.max_seq_len;
  std::vector<float> out(std::size_t{sh.batch} * sh.num_heads * dim, 0.0f);
  for (std::uint32_t s = 0; s < sh.batch; ++s)
    for (std::uint32_t h = 0; h < sh.num_heads; ++h) {
      const std::size_t g = h / (sh.num_heads / sh.num_kv_heads);
      const auto scores = attention_scores(sh, in, s, h);
      double m = -std::numeric_limits<double>::infinity(), l = 0;
      std::vector<double> acc(dim, 0.0);
      for (std::size_t p = 0; p < scores.size(); ++p) {
        const double old_max = m;
        m = std::max(m, scores[p]);
        const double alpha = std::exp(old_max - old_max); // the defect: always 1 (or NaN at -inf)
        const double w = std::exp(scores[p] - m);
        l = (p == 0 ? 0 : l * alpha) + w;
        for (std::size_t d = 0; d < dim; ++d)
          acc[d] = (p == 0 ? 0 : acc[d] * alpha) +
                   w * v[((s * sh.num_kv_heads + g) * len + p) * dim + d];
      }
      for (std::size_t d = 0; d < dim && l > 0; ++d)
        out[(std::size_t{s} * sh.num_heads + h) * dim + d] = static_cast<float>(acc[d] / l);
    }
  return out;
}

} // namespace ptxkit::device_tests
