# triton_tma.py: Triton 3.6 Hopper PTX for the corpus: a matmul through TMA tensor descriptors
# (cp.async.bulk.tensor, mbarrier), plain and warp-specialized (producer/consumer warpgroups,
# setmaxnreg, named barriers). Run on the GPU machine; PTX lands in /tmp/ws (captured 2026-11-30
# on an H200: tests/corpus/triton/triton36.matmul_tma*.ptx).
import glob, os, shutil
os.environ["TRITON_CACHE_DIR"] = "/tmp/triton-cache-ws"
import torch, triton, triton.language as tl

def alloc(size, alignment, stream):
    return torch.empty(size, device="cuda", dtype=torch.int8)
triton.set_allocator(alloc)

@triton.jit
def matmul_tma(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
               WS: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pid = tl.program_id(0)
    npn = tl.cdiv(N, BN)
    pm = pid // npn
    pn = pid % npn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BK), warp_specialize=WS):
        a = a_desc.load([pm * BM, k * BK])
        b = b_desc.load([pn * BN, k * BK])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([pm * BM, pn * BN], acc.to(tl.float16))

M = N = K = 1024
a = torch.randn(M, K, device="cuda", dtype=torch.float16)
b = torch.randn(N, K, device="cuda", dtype=torch.float16)
for ws in (False, True):
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    try:
        matmul_tma[(triton.cdiv(M, 128) * triton.cdiv(N, 128),)](a, b, c, M, N, K, BM=128, BN=128, BK=64,
                                                                 WS=ws, num_warps=4, num_stages=3)
        torch.cuda.synchronize()
        print("ok ws", ws, "max err", (c.float() - (a.float() @ b.float().T)).abs().max().item(), flush=True)
    except Exception as e:
        print("FAILED ws", ws, type(e).__name__, str(e)[:400], flush=True)
os.makedirs("/tmp/ws", exist_ok=True)
for i, p in enumerate(sorted(glob.glob("/tmp/triton-cache-ws/**/*.ptx", recursive=True))):
    shutil.copy(p, f"/tmp/ws/{i}_{os.path.basename(p)}")
print(os.listdir("/tmp/ws"))
