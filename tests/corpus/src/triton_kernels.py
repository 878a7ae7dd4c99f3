# triton_kernels.py: real Triton and TorchInductor PTX for the parser/verifier corpus.
#
# Run on the GPU machine (Triton compiles for the device it finds): compiles the kernels below and a
# torch.compile'd block, then copies every PTX file Triton wrote to its cache into /tmp/tritonptx
# (tests/corpus/triton/ holds them, renamed by kernel and dtype; captured 2026-11-30 on an H200
# with Triton 3.6.0, PyTorch 2.11.0+cu130).
import glob, os, shutil, sys
os.environ.setdefault("TRITON_CACHE_DIR", "/tmp/triton-cache")
import torch, triton, triton.language as tl
print("torch", torch.__version__, "triton", triton.__version__, flush=True)
dev = "cuda"

@triton.jit
def add_kernel(x, y, out, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out + offs, tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m), mask=m)

@triton.jit
def softmax_kernel(out, inp, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(inp + row * in_stride + cols, mask=cols < n_cols, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out + row * out_stride + cols, num / tl.sum(num, axis=0), mask=cols < n_cols)

@triton.jit
def layernorm_kernel(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
    mean = tl.sum(acc, axis=0) / N
    var_acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        var_acc += x * x
    rstd = 1 / tl.sqrt(tl.sum(var_acc, axis=0) / N + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        m = cols < N
        x = tl.load(X + cols, mask=m, other=0.).to(tl.float32)
        tl.store(Y + cols, (x - mean) * rstd * tl.load(W + cols, mask=m) + tl.load(B + cols, mask=m), mask=m)

@triton.jit
def matmul_kernel(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
    pid = tl.program_id(0)
    npm = tl.cdiv(M, BM); npn = tl.cdiv(N, BN)
    width = GROUP * npn
    gid = pid // width
    first = gid * GROUP
    gsz = min(npm - first, GROUP)
    pm = first + (pid % gsz)
    pn = (pid % width) // gsz
    rm = (pm * BM + tl.arange(0, BM)) % M
    rn = (pn * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    ap = a + rm[:, None] * sam + rk[None, :] * sak
    bp = b + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        av = tl.load(ap, mask=rk[None, :] < K - k * BK, other=0.)
        bv = tl.load(bp, mask=rk[:, None] < K - k * BK, other=0.)
        acc = tl.dot(av, bv, acc)
        ap += BK * sak
        bp += BK * sbk
    cm = pm * BM + tl.arange(0, BM)
    cn = pn * BN + tl.arange(0, BN)
    tl.store(c + cm[:, None] * scm + cn[None, :] * scn, acc.to(tl.float16),
             mask=(cm[:, None] < M) & (cn[None, :] < N))

@triton.jit
def histogram_kernel(x, hist, n, BINS: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x + offs, mask=offs < n, other=0.)
    b = tl.minimum(tl.maximum((v * BINS).to(tl.int32), 0), BINS - 1)
    tl.atomic_add(hist + b, 1, mask=offs < n)

@triton.jit
def rope_kernel(q, cos, sin, out, seq, HALF: tl.constexpr):
    t = tl.program_id(0).to(tl.int64)
    i = tl.arange(0, HALF)
    x1 = tl.load(q + t * 2 * HALF + i)
    x2 = tl.load(q + t * 2 * HALF + HALF + i)
    c = tl.load(cos + (t % seq) * HALF + i)
    s = tl.load(sin + (t % seq) * HALF + i)
    tl.store(out + t * 2 * HALF + i, x1 * c - x2 * s)
    tl.store(out + t * 2 * HALF + HALF + i, x2 * c + x1 * s)

def run(name, fn):
    try:
        fn(); torch.cuda.synchronize(); print("ok", name, flush=True)
    except Exception as e:
        print("FAILED", name, type(e).__name__, str(e)[:300], flush=True)

n = 1 << 20
x = torch.rand(n, device=dev); y = torch.rand(n, device=dev); o = torch.empty_like(x)
run("add", lambda: add_kernel[(triton.cdiv(n, 1024),)](x, y, o, n, BLOCK=1024))
a = torch.randn(64, 1000, device=dev); so = torch.empty_like(a)
run("softmax", lambda: softmax_kernel[(64,)](so, a, a.stride(0), so.stride(0), 1000, BLOCK=1024, num_warps=4))
run("softmax_fp16", lambda: softmax_kernel[(64,)](so.half(), a.half(), a.stride(0), so.stride(0), 1000, BLOCK=1024, num_warps=8))
X = torch.randn(128, 896, device=dev); W = torch.rand(896, device=dev); B = torch.rand(896, device=dev)
Y = torch.empty_like(X); M_ = torch.empty(128, device=dev); R_ = torch.empty(128, device=dev)
run("layernorm", lambda: layernorm_kernel[(128,)](X, Y, W, B, M_, R_, X.stride(0), 896, 1e-5, BLOCK=256))
for dt in (torch.float16, torch.bfloat16, torch.float32):
    A = torch.randn(512, 384, device=dev, dtype=dt); Bm = torch.randn(384, 256, device=dev, dtype=dt)
    C = torch.empty(512, 256, device=dev, dtype=torch.float16)
    for (bm, bn, bk, nw, ns) in ((128, 128, 64, 8, 3), (64, 64, 32, 4, 2)):
        run(f"matmul_{dt}_{bm}", lambda: matmul_kernel[(triton.cdiv(512, bm) * triton.cdiv(256, bn),)](
            A, Bm, C, 512, 256, 384, A.stride(0), A.stride(1), Bm.stride(0), Bm.stride(1), C.stride(0), C.stride(1),
            BM=bm, BN=bn, BK=bk, GROUP=8, num_warps=nw, num_stages=ns))
h = torch.zeros(64, device=dev, dtype=torch.int32)
run("histogram", lambda: histogram_kernel[(triton.cdiv(n, 1024),)](x, h, n, BINS=64, BLOCK=1024))
q = torch.randn(300, 128, device=dev); cs = torch.randn(100, 64, device=dev); ro = torch.empty_like(q)
run("rope", lambda: rope_kernel[(300,)](q, cs, cs, ro, 100, HALF=64))

def compiled_block(x, w, res):
    h = x + res
    h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6) * w
    g, u = (h @ torch.ones(896, 1792, device=dev, dtype=h.dtype)).chunk(2, dim=-1)
    return torch.nn.functional.silu(g) * u, torch.softmax(h, -1).argmax(-1)
try:
    cf = torch.compile(compiled_block)
    xx = torch.randn(32, 896, device=dev); ww = torch.rand(896, device=dev); rr = torch.randn(32, 896, device=dev)
    cf(xx, ww, rr); torch.cuda.synchronize(); print("ok torch.compile", flush=True)
except Exception as e:
    print("FAILED torch.compile", type(e).__name__, str(e)[:300], flush=True)

out = "/tmp/tritonptx"
os.makedirs(out, exist_ok=True)
seen = 0
roots = [os.environ["TRITON_CACHE_DIR"], os.path.expanduser("~/.triton/cache"), "/tmp/torchinductor_root"]
for root in roots:
    for p in sorted(glob.glob(os.path.join(root, "**", "*.ptx"), recursive=True)):
        name = os.path.basename(p)
        dst = os.path.join(out, name)
        if os.path.exists(dst):
            dst = os.path.join(out, f"{seen}_{name}")
        shutil.copy(p, dst); seen += 1
print("copied", seen, "ptx files", flush=True)
