// attention_fixture.h: decode-attention inputs built so that known attention bugs show.
//
// Fixtures where a wrong kernel cannot pass by luck: scores that strictly increase with position
// (so the running max changes at every step and a stuck online-softmax rescale, the stale
// maximum's `sub %f27, %f8, %f8`, lands far from the reference), a different seq_len per slot, Q
// different per head and K/V different per slot and KV group (a GQA or stride error reads the
// wrong data). Also a CPU model of the stuck rescale, to prove the fixture catches it.
#pragma once

#include <cstdint>
#include <ptxkit/kernels/host_tensors.h>
#include <vector>

namespace ptxkit::device_tests {

struct AttentionShape {
  std::uint32_t batch = 4;
  std::uint32_t num_heads = 12;
  std::uint32_t num_kv_heads = 2;
  std::uint32_t max_seq_len = 2048;
  std::uint32_t head_dim = 128;
  std::vector<std::uint32_t> seq_lens = {2048, 1, 1000, 1537};
};

// Buffers q [batch, heads, dim], k_cache / v_cache [batch, kv_heads, max_seq_len, dim] and
// seq_lens [batch] (the batched kernels' names). K[s][g][p] = t_sg(p) * w_sg with w_sg > 0 and
// t_sg strictly increasing, Q > 0, so q.k strictly increases with p for every head; the score
// span over max_seq_len positions is about 30 (scale 1/sqrt(dim)).
kernels::HostTensors increasing_score_attention(const AttentionShape& shape, std::uint64_t seed);

// The scaled scores of (slot, head) at every position < seq_len (double).
std::vector<double> attention_scores(const AttentionShape& shape, const kernels::HostTensors& in,
                                     std::uint32_t slot, std::uint32_t head);

// Online softmax whose rescale factor is always 1 (old max subtracted from itself): the stale
// maximum defect, on the CPU. Output [batch, heads, dim].
std::vector<float> stuck_rescale_attention(const AttentionShape& shape,
                                           const kernels::HostTensors& in);

} // namespace ptxkit::device_tests
