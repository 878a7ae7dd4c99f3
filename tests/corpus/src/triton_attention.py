# triton_attention.py: real Triton online-softmax attention PTX (flash-attention forward with wgmma,
# f16/bf16, causal or not; a GQA decode loop whose trip count is loaded from memory) for the corpus
# and the softmax-rescale rule's planted-defect tests. Run on the GPU machine; the PTX files land
# in /tmp/fa (tests/corpus/triton/triton36.flash_attn_fwd_*.ptx, captured 2026-11-30 on an H200,
# Triton 3.6.0).
import glob, os, shutil
os.environ["TRITON_CACHE_DIR"] = "/tmp/triton-cache-fa"
import torch, triton, triton.language as tl

@triton.jit
def attn_fwd(Q, K, V, Out, sqz, sqh, sqm, skz, skh, skn, svz, svh, svn, soz, soh, som,
             H, N_CTX, sm_scale, HEAD: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
             CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    z = off_hz // H
    h = off_hz % H
    offs_m = start_m * BM + tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    offs_d = tl.arange(0, HEAD)
    q = tl.load(Q + z * sqz + h * sqh + offs_m[:, None] * sqm + offs_d[None, :],
                mask=offs_m[:, None] < N_CTX, other=0.)
    m_i = tl.zeros([BM], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BM], dtype=tl.float32)
    acc = tl.zeros([BM, HEAD], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    hi = (start_m + 1) * BM if CAUSAL else N_CTX
    for start_n in range(0, hi, BN):
        kn = start_n + offs_n
        k = tl.load(K + z * skz + h * skh + kn[None, :] * skn + offs_d[:, None],
                    mask=kn[None, :] < N_CTX, other=0.)
        qk = tl.dot(q, k)
        if CAUSAL:
            qk = tl.where(offs_m[:, None] >= kn[None, :], qk, float("-inf"))
        qk = tl.where(kn[None, :] < N_CTX, qk, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        p = tl.math.exp2(qk * qk_scale - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(V + z * svz + h * svh + kn[:, None] * svn + offs_d[None, :],
                    mask=kn[:, None] < N_CTX, other=0.)
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(Out + z * soz + h * soh + offs_m[:, None] * som + offs_d[None, :], acc.to(Out.dtype.element_ty),
             mask=offs_m[:, None] < N_CTX)

@triton.jit
def decode_attn(Q, K, V, Out, lens, stride_kb, stride_kh, stride_kn, H: tl.constexpr, KVH: tl.constexpr,
                HEAD: tl.constexpr, BN: tl.constexpr):
    b = tl.program_id(0)
    h = tl.program_id(1)
    kvh = h // (H // KVH)
    n = tl.load(lens + b)
    d = tl.arange(0, HEAD)
    q = tl.load(Q + (b * H + h) * HEAD + d).to(tl.float32)
    m = -float("inf")
    l = 0.0
    acc = tl.zeros([HEAD], dtype=tl.float32)
    for start in range(0, n, BN):
        pos = start + tl.arange(0, BN)
        msk = pos < n
        base = b * stride_kb + kvh * stride_kh + pos[:, None] * stride_kn + d[None, :]
        k = tl.load(K + base, mask=msk[:, None], other=0.).to(tl.float32)
        s = tl.sum(k * q[None, :], 1) * 0.08838834764831845
        s = tl.where(msk, s, -float("inf"))
        m_new = tl.maximum(m, tl.max(s, 0))
        scale = tl.exp(m - m_new)
        p = tl.exp(s - m_new)
        v = tl.load(V + base, mask=msk[:, None], other=0.).to(tl.float32)
        acc = acc * scale + tl.sum(p[:, None] * v, 0)
        l = l * scale + tl.sum(p, 0)
        m = m_new
    tl.store(Out + (b * H + h) * HEAD + d, acc / l)

dev = "cuda"
for dt in (torch.float16, torch.bfloat16):
    for causal in (False, True):
        q = torch.randn(2, 4, 256, 64, device=dev, dtype=dt); k = torch.randn_like(q); v = torch.randn_like(q)
        o = torch.empty_like(q)
        attn_fwd[(triton.cdiv(256, 64), 8)](q, k, v, o, *q.stride()[:3], *k.stride()[:3], *v.stride()[:3],
                                            *o.stride()[:3], 4, 256, 0.125, HEAD=64, BM=64, BN=64,
                                            CAUSAL=causal, num_warps=4, num_stages=2)
        torch.cuda.synchronize(); print("ok attn_fwd", dt, causal, flush=True)
q = torch.randn(4, 12, 128, device=dev); K = torch.randn(4, 2, 2048, 128, device=dev); V = torch.randn_like(K)
o = torch.empty_like(q); lens = torch.tensor([2048, 1, 1000, 1537], device=dev, dtype=torch.int32)
decode_attn[(4, 12)](q, K, V, o, lens, K.stride(0), K.stride(1), K.stride(2), H=12, KVH=2, HEAD=128, BN=64)
torch.cuda.synchronize(); print("ok decode", flush=True)
os.makedirs("/tmp/fa", exist_ok=True)
for i, p in enumerate(sorted(glob.glob("/tmp/triton-cache-fa/**/*.ptx", recursive=True))):
    shutil.copy(p, f"/tmp/fa/{i}_{os.path.basename(p)}")
print(os.listdir("/tmp/fa"))
