// reference_decoder.cpp: the CPU forward pass (reference_decoder.h), in double.
#include "ptxkit/decoder/reference_decoder.h"

#include <cmath>
#include <string>

namespace ptxkit::decoder {
namespace {

using Vec = std::vector<double>;

// y = W x (+ bias), W row-major [rows, cols] in f32.
Vec matvec(const std::vector<float>& w, const Vec& x, std::size_t rows,
           const std::vector<float>* bias = nullptr) {
  const std::size_t cols = x.size();
  Vec y(rows);
  for (std::size_t r = 0; r < rows; ++r) {
    double acc = bias && !bias->empty() ? (*bias)[r] : 0.0;
    const float* row = w.data() + r * cols;
    for (std::size_t c = 0; c < cols; ++c)
      acc += double{row[c]} * x[c];
    y[r] = acc;
  }
  return y;
}

Vec rms_norm(const Vec& x, const std::vector<float>& weight, double eps) {
  double ss = 0;
  for (double v : x)
    ss += v * v;
  const double inv = 1.0 / std::sqrt(ss / static_cast<double>(x.size()) + eps);
  Vec y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    y[i] = x[i] * inv * weight[i];
  return y;
}

// RoPE NeoX on each head of `x` ([heads * head_dim]) at `position`.
void rope(Vec& x, std::uint32_t heads, std::uint32_t head_dim, double theta, std::size_t position) {
  const std::uint32_t half = head_dim / 2;
  for (std::uint32_t h = 0; h < heads; ++h) {
    double* v = x.data() + std::size_t{h} * head_dim;
    for (std::uint32_t i = 0; i < half; ++i) {
      const double inv_freq = std::pow(theta, -2.0 * i / head_dim);
      const double angle = static_cast<double>(position) * inv_freq;
      const double c = std::cos(angle), s = std::sin(angle);
      const double a = v[i], b = v[i + half];
      v[i] = a * c - b * s;
      v[i + half] = b * c + a * s;
    }
  }
}

} // namespace

std::uint32_t argmax_first(const std::vector<float>& v) {
  std::uint32_t best = 0;
  for (std::uint32_t i = 1; i < v.size(); ++i)
    if (v[i] > v[best]) best = i;
  return best;
}

ReferenceDecoder::ReferenceDecoder(const ModelWeights& weights) : w_(weights) {}

std::size_t ReferenceDecoder::length(std::size_t seq) const {
  return seq < seqs_.size() ? seqs_[seq].length : 0;
}

Expected<std::vector<float>> ReferenceDecoder::step(std::size_t seq, std::uint32_t token) {
  const ModelConfig& c = w_.config;
  if (token >= c.vocab)
    return Error{.message = "token id " + std::to_string(token) + " is not below the vocabulary " +
                            std::to_string(c.vocab),
                 .file = {}};
  if (seq >= seqs_.size()) seqs_.resize(seq + 1);
  Sequence& s = seqs_[seq];
  if (s.k.empty()) {
    s.k.resize(c.layers);
    s.v.resize(c.layers);
  }
  const std::size_t pos = s.length;
  const std::size_t hidden = c.hidden, hd = c.head_dim, group = c.heads / c.kv_heads;
  Vec x(w_.embed.begin() + static_cast<std::ptrdiff_t>(token * hidden),
        w_.embed.begin() + static_cast<std::ptrdiff_t>((token + 1) * hidden));
  const double scale = 1.0 / std::sqrt(static_cast<double>(hd));
  for (std::uint32_t li = 0; li < c.layers; ++li) {
    const LayerWeights& l = w_.layers[li];
    const Vec h = rms_norm(x, l.input_norm, c.rms_norm_eps);
    Vec q = matvec(l.q, h, std::size_t{c.heads} * hd, &l.q_bias);
    Vec k = matvec(l.k, h, std::size_t{c.kv_heads} * hd, &l.k_bias);
    Vec v = matvec(l.v, h, std::size_t{c.kv_heads} * hd, &l.v_bias);
    rope(q, c.heads, c.head_dim, c.rope_theta, pos);
    rope(k, c.kv_heads, c.head_dim, c.rope_theta, pos);
    s.k[li].push_back(std::move(k));
    s.v[li].push_back(std::move(v));
    Vec attn(std::size_t{c.heads} * hd, 0.0);
    for (std::size_t head = 0; head < c.heads; ++head) {
      const std::size_t kvh = head / group;
      std::vector<double> score(pos + 1);
      double m = -INFINITY;
      for (std::size_t p = 0; p <= pos; ++p) {
        double dot = 0;
        for (std::size_t d = 0; d < hd; ++d)
          dot += q[head * hd + d] * s.k[li][p][kvh * hd + d];
        score[p] = dot * scale;
        m = std::max(m, score[p]);
      }
      double sum = 0;
      for (double& e : score)
        sum += (e = std::exp(e - m));
      for (std::size_t p = 0; p <= pos; ++p)
        for (std::size_t d = 0; d < hd; ++d)
          attn[head * hd + d] += score[p] / sum * s.v[li][p][kvh * hd + d];
    }
    const Vec o = matvec(l.o, attn, hidden);
    for (std::size_t i = 0; i < hidden; ++i)
      x[i] += o[i];
    const Vec h2 = rms_norm(x, l.post_attention_norm, c.rms_norm_eps);
    const Vec gate = matvec(l.gate, h2, c.intermediate);
    Vec act = matvec(l.up, h2, c.intermediate);
    for (std::size_t i = 0; i < act.size(); ++i)
      act[i] *= gate[i] / (1.0 + std::exp(-gate[i]));
    const Vec down = matvec(l.down, act, hidden);
    for (std::size_t i = 0; i < hidden; ++i)
      x[i] += down[i];
  }
  s.length = pos + 1;
  const Vec hf = rms_norm(x, w_.final_norm, c.rms_norm_eps);
  const Vec logits = matvec(w_.head(), hf, c.vocab);
  return std::vector<float>(logits.begin(), logits.end());
}

Expected<std::vector<std::uint32_t>>
ReferenceDecoder::generate(std::size_t seq, const std::vector<std::uint32_t>& prompt,
                           std::uint32_t new_tokens,
                           std::vector<std::vector<float>>* logits_per_step) {
  if (prompt.empty()) return Error{.message = "generate: the prompt is empty", .file = {}};
  std::vector<std::uint32_t> out;
  std::vector<float> logits;
  for (std::uint32_t t : prompt) {
    auto l = step(seq, t);
    if (!l) return l.error();
    logits = std::move(*l);
  }
  for (std::uint32_t i = 0; i < new_tokens; ++i) {
    if (logits_per_step) logits_per_step->push_back(logits);
    const std::uint32_t next = argmax_first(logits);
    out.push_back(next);
    if (i + 1 == new_tokens) break;
    auto l = step(seq, next);
    if (!l) return l.error();
    logits = std::move(*l);
  }
  return out;
}

} // namespace ptxkit::decoder
