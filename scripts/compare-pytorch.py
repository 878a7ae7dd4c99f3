#!/usr/bin/env python3
"""compare-pytorch.py: PyTorch at ptxkit's benchmark shapes, in the same run, and one results table.

ptxkit's RMSNorm and decode-attention performance targets are set against PyTorch (rms_norm on
65536x896 f32; scaled_dot_product_attention decode, 4 slots x 12 query heads over 2 KV heads x 2048
positions x head_dim 128, f32). This times those with CUDA events the way `ptxkit bench` times
its kernels (warm-up, median of many samples, L2 made cold and clean before each by a read-only pass), reads the JSON of
`ptxkit bench --json` from the same machine, and prints one Markdown table: every performance target,
ptxkit's figure, PyTorch's where there is one, and met or not.

usage: compare-pytorch.py BENCH_JSON [--out TABLE.md] [--json PYTORCH.json]
"""
import argparse
import json
import statistics
import sys


def time_cuda(torch, fn, warmup=10, iters=100, flush_bytes=256 << 20):
    flush = torch.ones(flush_bytes // 4, dtype=torch.float32, device="cuda")
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(iters):
        # Untimed: evict the inputs from L2 with a read-only pass (sum), as `ptxkit bench` does:
        # a fill would leave the L2 full of dirty lines that the timed kernel pays to write back.
        flush.sum()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) * 1e3)  # us
    return statistics.median(samples)


def pytorch_figures():
    import torch
    import torch.nn.functional as F

    torch.manual_seed(0)
    out = {"torch": torch.__version__, "device": torch.cuda.get_device_name(0)}
    x = torch.randn(65536, 896, device="cuda")
    w = torch.randn(896, device="cuda")
    out["rms_norm_65536x896_us"] = time_cuda(torch, lambda: F.rms_norm(x, (896,), w, 1e-6))
    del x
    for slots, seq in ((4, 2048), (64, 4096)):
        q = torch.randn(slots, 12, 1, 128, device="cuda")
        k = torch.randn(slots, 2, seq, 128, device="cuda")
        v = torch.randn(slots, 2, seq, 128, device="cuda")
        fn = lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=True)  # noqa: E731
        out[f"sdpa_decode_{slots}x{seq}_us"] = time_cuda(torch, fn)
        del q, k, v
    n = 1 << 30
    a = torch.empty(n // 4, device="cuda")
    b = torch.empty_like(a)
    us = time_cuda(torch, lambda: b.copy_(a))
    out["copy_gbps"] = 2 * n / (us * 1e3)
    return out


def fmt(v, spec=".1f"):
    return "-" if v is None else format(v, spec)


def table(bench, torch_fig):
    cases = {c["name"]: c for c in bench.get("cases", [])}
    rows = []
    head = ("| target | case | ptxkit median µs | GB/s | % of copy | PyTorch µs | "
            "vs PyTorch | met |")
    rows.append(head)
    rows.append("| --- | --- | --- | --- | --- | --- | --- | --- |")

    def verdict(m):
        return "-" if m is None else ("met" if m else "**missed**")

    pt = {
        "rmsnorm_65536x896": torch_fig.get("rms_norm_65536x896_us"),
        "flash_decode_4x12_2x2048": torch_fig.get("sdpa_decode_4x2048_us"),
        "flash_decode_64x12_2x4096": torch_fig.get("sdpa_decode_64x4096_us"),
        "batched_incremental_attention_4x2048": torch_fig.get("sdpa_decode_4x2048_us"),
    }
    for name, c in cases.items():
        t = pt.get(name)
        speed = None if (t is None or not c.get("median_us")) else t / c["median_us"]
        met = c.get("met")
        target = c.get("target") or "(informative)"
        if name == "flash_decode_4x12_2x2048" and speed is not None:
            target += "; >= 10x PyTorch"
            met = bool(met) and speed >= 10
        if name == "rmsnorm_65536x896" and speed is not None:
            target += "; faster than PyTorch"
            met = bool(met) and speed > 1
        rows.append(
            f"| {target} | {name} | {fmt(c.get('median_us'), '.2f')} | {fmt(c.get('gbps'))} | "
            f"{fmt(c.get('pct_of_copy'))}% | {fmt(t, '.2f')} | "
            f"{'-' if speed is None else format(speed, '.2f') + 'x'} | {verdict(met)} |")
    o = bench.get("launch_overhead")
    if o:
        rows.append(
            f"| checked launch within 10% of raw cuLaunchKernel ({o['launches']} launches x "
            f"{o['rounds']}) | launch_overhead | {o['checked_us']:.3f} (raw {o['raw_us']:.3f}) | "
            f"- | {o['diff_pct']:+.1f}% | - | - | {verdict(o['met'])} |")
    copy = bench.get("copy", {}).get("gbps")
    notes = [f"device: {bench.get('device', '?')}",
             f"D2D copy (ptxkit, read + written): {fmt(copy)} GB/s; "
             f"PyTorch copy_ in the same run: {fmt(torch_fig.get('copy_gbps'))} GB/s",
             f"PyTorch {torch_fig.get('torch', '?')}"]
    return "\n".join(rows) + "\n\n" + "\n".join("- " + n for n in notes) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bench_json")
    ap.add_argument("--out")
    ap.add_argument("--json")
    args = ap.parse_args()
    try:
        with open(args.bench_json) as f:
            bench = json.load(f)
    except (OSError, ValueError) as e:
        print(f"compare-pytorch: cannot read {args.bench_json}: {e}", file=sys.stderr)
        bench = {}
    try:
        torch_fig = pytorch_figures()
    except Exception as e:  # no torch or no GPU: still print ptxkit's table
        print(f"compare-pytorch: PyTorch figures unavailable: {e}", file=sys.stderr)
        torch_fig = {}
    print(json.dumps(torch_fig, indent=2))
    t = table(bench, torch_fig)
    print(t)
    if args.out:
        with open(args.out, "w") as f:
            f.write(t)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(torch_fig, f, indent=2)
    return 0 if bench and torch_fig else 1


if __name__ == "__main__":
    sys.exit(main())
