#!/usr/bin/env python3
"""check-decoder-reference.py TOOL PTXKIT OUT_DIR [--speed]: ptxkit's decoders against Hugging Face
transformers, on the GPU machine (where transformers and PyTorch are installed).

Builds small Qwen2 and Llama models with seeded random weights in transformers and saves them with
save_pretrained (safetensors + config.json). Then, per model:
  - TOOL (ptxkit_reference_decode, the CPU reference decoder in double) against transformers' f32
    eager forward on the prompt plus the generated tokens: max |diff| / max |logit| <= 1e-4;
  - `PTXKIT decode` (the GPU decoder), four prompts of different lengths in one batch, f32
    weights, against transformers: <= 1e-3, and each prompt decoded alone against its slot of the
    batch: <= 1e-5;
  - bf16 weights against transformers in f32 on the same bf16-rounded weights: <= 1e-3;
  - Q4_K weights against TOOL --q4k (the reference on the same quantized-then-dequantized
    weights, so the comparison isolates kernel error): <= 1e-3;
and the greedy tokens agree wherever the oracle's top two logits are further apart than twice the
measured difference.

--full: the same at the whole Qwen2.5-0.5B shape (24 layers, seeded random weights), 64 new
tokens: f32 at batch 1 and batch 4 (prompts of lengths 5, 3, 8, 1) against transformers' f32
eager forward (<= 1e-3, tokens identical where decisive), each prompt alone against its slot
(<= 1e-5); bf16 against transformers in f32 on the bf16-rounded weights (<= 1e-3) and in bf16
(reported), and how many prompts keep the f32 run's greedy tokens for >= 32 steps; Q4_K against
transformers on the quantized-then-dequantized weights (written by TOOL), <= 1e-3.
--speed: tokens/s of `ptxkit decode` at that shape at batch 1 and 4 in each weight mode, beside
transformers eager (f32 and bf16) and the weight-read floor (the weights read once per step at
the copy bandwidth measured here); --compile adds transformers with a static cache and
torch.compile(mode="reduce-overhead"), in a child process (so a crash is recorded, not fatal).
--memcheck: compute-sanitizer memcheck over a short `ptxkit decode` (graph replay, batch 4).
Writes OUT_DIR/decoder_reference.log; exit 0 when every comparison passes.
"""
import json
import os
import shutil
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
from transformers import LlamaConfig, LlamaForCausalLM, Qwen2Config, Qwen2ForCausalLM

QWEN05B = dict(hidden_size=896, intermediate_size=4864, num_attention_heads=14,
               num_key_value_heads=2, vocab_size=151936, rope_theta=1e6, rms_norm_eps=1e-6,
               tie_word_embeddings=True, max_position_embeddings=32768)
MODELS = {
    # Qwen2.5-0.5B's shapes at 2 layers: biases, GQA 14/2, theta 1e6, tied head, vocab 151936.
    "qwen2": (Qwen2ForCausalLM, Qwen2Config(num_hidden_layers=2, initializer_range=0.05, **QWEN05B)),
    # A Llama: no biases, untied head, theta 1e4, GQA 8/4.
    "llama": (LlamaForCausalLM, LlamaConfig(
        hidden_size=256, intermediate_size=688, num_hidden_layers=2, num_attention_heads=8,
        num_key_value_heads=4, vocab_size=1000, rope_theta=1e4, rms_norm_eps=1e-5,
        tie_word_embeddings=False, initializer_range=0.05)),
}
PROMPTS = [[17, 3, 250, 9, 611], [42, 7, 99], [5, 6, 7, 8, 9, 10, 11, 12], [123]]
NEW_TOKENS = 8

report = []
ok = True


def say(line):
    print(line, flush=True)
    report.append(line)


def check(name, passed, line):
    global ok
    ok &= passed
    say(f"{name}: {'ok' if passed else 'MISMATCH'}: {line}")


def hf_logits(model, prompt, tokens):
    """transformers' logits before each generated token (teacher-forced on `tokens`)."""
    ids = torch.tensor([prompt + tokens[:-1]], device=model.device)
    with torch.no_grad():
        out = model(ids).logits[0].double().cpu()
    return out[len(prompt) - 1:]


def compare(ours, want, tokens, limit):
    """(relative difference, tokens agree where the oracle is decisive, decisive steps)."""
    ours = torch.as_tensor(np.asarray(ours), dtype=torch.float64)
    scale = want.abs().max().item()
    rel = (ours - want).abs().max().item() / scale
    top2 = want.topk(2, dim=-1).values
    margin = top2[:, 0] - top2[:, 1]
    oracle = want.argmax(dim=-1).tolist()
    decisive = [i for i in range(len(tokens)) if margin[i].item() > 2 * rel * scale]
    agree = all(oracle[i] == tokens[i] for i in decisive)
    return rel, agree and rel <= limit, len(decisive)


def run_ptxkit(ptxkit, model_dir, prompts, weights, extra=(), new_tokens=None, wrap=(),
               logits=True):
    """[{"tokens": ids, "logits": [new tokens, vocab] array}] per slot, and the speed line (with
    logits=False, no logits are downloaded, as a user decoding for speed runs it, and the lines
    after the speed line come too: --profile's table)."""
    d = tempfile.mkdtemp(prefix="ptxkit-decode-")
    batch = os.path.join(d, "batch.txt")
    with open(batch, "w") as f:
        f.write("\n".join(",".join(map(str, p)) for p in prompts) + "\n")
    path = os.path.join(d, "logits.npy")
    cmd = [*wrap, ptxkit, "decode", "--model", model_dir, "--batch-file", batch,
           "--max-new-tokens", str(new_tokens or NEW_TOKENS), "--weights", weights,
           *(["--logits", path] if logits else []), *extra]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if run.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {run.returncode}: {run.stderr.strip()[-2000:]}")
    tokens = [list(map(int, line.split(":")[1].split())) for line in run.stdout.splitlines()
              if line.startswith("slot ")]
    err = [l for l in run.stderr.strip().splitlines() if not l.startswith("\r")]
    if not logits:
        shutil.rmtree(d, ignore_errors=True)
        speed_at = max(i for i, l in enumerate(err) if l.startswith("decode:"))
        return [{"tokens": t} for t in tokens], "\n      ".join(err[speed_at:])
    values = np.load(path)
    shutil.rmtree(d, ignore_errors=True)
    return ([{"tokens": t, "logits": values[i]} for i, t in enumerate(tokens)], err[-1])


def correctness(tool, ptxkit):
    for name, (cls, cfg) in MODELS.items():
        torch.manual_seed(0)
        cfg._attn_implementation = "eager"
        model = cls(cfg).float().eval()
        d = tempfile.mkdtemp(prefix=f"ptxkit-{name}-")
        model.save_pretrained(d, safe_serialization=True)
        # The CPU reference decoder.
        run = subprocess.run([tool, d, ",".join(map(str, PROMPTS[0])), str(NEW_TOKENS)],
                             capture_output=True, text=True, timeout=600)
        if run.returncode != 0:
            check(f"{name} reference", False, f"the tool failed: {run.stderr.strip()}")
            continue
        got = json.loads(run.stdout)
        rel, passed, dec = compare(got["logits"], hf_logits(model, PROMPTS[0], got["tokens"]),
                                   got["tokens"], 1e-4)
        check(f"{name} CPU reference vs transformers f32", passed,
              f"max |diff| / max |logit| = {rel:.2e}, {dec}/{NEW_TOKENS} decisive steps, tokens {got['tokens']}")
        if ptxkit is None:
            continue
        # The GPU decoder, f32 weights: a batch of four prompts, then each alone.
        try:
            batch, speed = run_ptxkit(ptxkit, d, PROMPTS, "f32")
        except RuntimeError as e:
            check(f"{name} ptxkit decode f32", False, str(e))
            continue
        worst, all_passed = 0.0, True
        for slot, p in zip(batch, PROMPTS):
            rel, passed, dec = compare(slot["logits"], hf_logits(model, p, slot["tokens"]),
                                       slot["tokens"], 1e-3)
            worst, all_passed = max(worst, rel), all_passed and passed
        check(f"{name} ptxkit decode f32, batch 4 vs transformers f32", all_passed,
              f"worst max |diff| / max |logit| over 4 slots = {worst:.2e}; tokens "
              f"{[s['tokens'] for s in batch]} ({speed})")
        worst_alone, same_tokens = 0.0, True
        for slot, p in zip(batch, PROMPTS):
            alone, _ = run_ptxkit(ptxkit, d, [p], "f32")
            a = torch.tensor(alone[0]["logits"], dtype=torch.float64)
            b = torch.tensor(slot["logits"], dtype=torch.float64)
            worst_alone = max(worst_alone, ((a - b).abs().max() / b.abs().max()).item())
            same_tokens &= alone[0]["tokens"] == slot["tokens"]
        check(f"{name} ptxkit decode f32, each prompt alone vs its slot of the batch",
              worst_alone <= 1e-5 and same_tokens,
              f"worst relative difference {worst_alone:.2e}, tokens identical: {same_tokens}")
        # bf16 weights against transformers on the same rounded weights (in f32).
        rounded = cls(cfg).float().eval()
        rounded.load_state_dict({k: v.to(torch.bfloat16).float() for k, v in model.state_dict().items()})
        half, speed = run_ptxkit(ptxkit, d, PROMPTS[:2], "bf16")
        worst, all_passed = 0.0, True
        for slot, p in zip(half, PROMPTS):
            rel, passed, dec = compare(slot["logits"], hf_logits(rounded, p, slot["tokens"]), slot["tokens"], 1e-3)
            worst, all_passed = max(worst, rel), all_passed and passed
        f32_tokens = [s["tokens"] for s in batch[:2]]
        check(f"{name} ptxkit decode bf16 vs transformers f32 on the bf16-rounded weights", all_passed,
              f"worst {worst:.2e}; tokens {[s['tokens'] for s in half]} (f32 run: {f32_tokens})")
        # Q4_K weights against the CPU reference on the dequantized weights.
        q4, speed = run_ptxkit(ptxkit, d, PROMPTS[:1], "q4k")
        run = subprocess.run([tool, d, ",".join(map(str, PROMPTS[0])), str(NEW_TOKENS), "--q4k"],
                             capture_output=True, text=True, timeout=600)
        ref = json.loads(run.stdout)
        # The oracle is the reference: teacher-force it on the GPU's tokens only if they agree.
        rel, passed, dec = compare(q4[0]["logits"], torch.tensor(ref["logits"], dtype=torch.float64),
                                   q4[0]["tokens"], 1e-3)
        check(f"{name} ptxkit decode q4k vs the CPU reference on the dequantized weights",
              passed and q4[0]["tokens"] == ref["tokens"],
              f"max |diff| / max |logit| = {rel:.2e}; tokens {q4[0]['tokens']} vs {ref['tokens']}")


def qwen05b_full(layers=24):
    """The Qwen2.5-0.5B shape with seeded random weights, saved; (model on the GPU, its dir)."""
    torch.manual_seed(0)
    cfg = Qwen2Config(num_hidden_layers=layers, initializer_range=0.02, **QWEN05B)
    cfg._attn_implementation = "eager"
    model = Qwen2ForCausalLM(cfg).float().eval()
    d = tempfile.mkdtemp(prefix="ptxkit-qwen05b-")
    model.save_pretrained(d, safe_serialization=True)
    return model.cuda(), d


def hf_logits_batch(model, prompts, slots):
    return [hf_logits(model, p, s["tokens"]) for p, s in zip(prompts, slots)]


def check_slots(name, slots, oracle, limit, prompts):
    """Each slot's logits against its oracle; one line with the worst difference."""
    worst, all_passed, decisive = 0.0, True, []
    for slot, want in zip(slots, oracle):
        rel, passed, dec = compare(slot["logits"], want, slot["tokens"], limit)
        worst, all_passed = max(worst, rel), all_passed and passed
        decisive.append(dec)
    check(name, all_passed,
          f"worst max |diff| / max |logit| over {len(slots)} slot(s) = {worst:.2e} (limit {limit:g}); "
          f"decisive steps {decisive} of {len(slots[0]['tokens'])}; prompt lengths "
          f"{[len(p) for p in prompts]}; first tokens {[s['tokens'][:8] for s in slots]}")
    return worst


def full_depth(tool, ptxkit):
    """The issue's correctness runs at the whole Qwen2.5-0.5B shape, 64 new tokens."""
    new = 64
    model, d = qwen05b_full()
    say(f"full depth: Qwen2.5-0.5B shape, 24 layers, seeded random weights, {new} new tokens")
    # f32: batch 1 and batch 4 against transformers' f32 eager forward.
    one, line1 = run_ptxkit(ptxkit, d, PROMPTS[:1], "f32", new_tokens=new)
    check_slots("full f32 batch 1 vs transformers f32", one,
                hf_logits_batch(model, PROMPTS[:1], one), 1e-3, PROMPTS[:1])
    four, line4 = run_ptxkit(ptxkit, d, PROMPTS, "f32", new_tokens=new)
    check_slots("full f32 batch 4 vs transformers f32", four,
                hf_logits_batch(model, PROMPTS, four), 1e-3, PROMPTS)
    worst, same = 0.0, True
    for i, p in enumerate(PROMPTS):
        alone = one if i == 0 else run_ptxkit(ptxkit, d, [p], "f32", new_tokens=new)[0]
        a = torch.as_tensor(alone[0]["logits"], dtype=torch.float64)
        b = torch.as_tensor(four[i]["logits"], dtype=torch.float64)
        worst = max(worst, ((a - b).abs().max() / b.abs().max()).item())
        same &= alone[0]["tokens"] == four[i]["tokens"]
    check("full f32: each prompt alone vs its slot of the batch", worst <= 1e-5 and same,
          f"worst relative difference {worst:.2e}, tokens identical: {same}")
    # bf16: against transformers in f32 on the bf16-rounded weights (the same model), in bf16
    # (reported: its arithmetic is bf16 too), and the greedy tokens against the f32 run.
    half, _ = run_ptxkit(ptxkit, d, PROMPTS, "bf16", new_tokens=new)
    # Round the parameters only: Module.to(bfloat16) would also round the non-persistent
    # buffers, among them RoPE's inv_freq, and so change the model rather than its weights.
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(p.to(torch.bfloat16).float())
    check_slots("full bf16 vs transformers f32 on the bf16-rounded weights", half,
                hf_logits_batch(model, PROMPTS, half), 1e-3, PROMPTS)
    # transformers in bf16 as a user runs it (Module.to, buffers included).
    model_bf16 = model.to(torch.bfloat16)
    rel_bf16 = [compare(s["logits"], w, s["tokens"], 1.0)[0]
                for s, w in zip(half, hf_logits_batch(model_bf16, PROMPTS, half))]
    say(f"full bf16 vs transformers bf16 (bf16 arithmetic there): max |diff| / max |logit| per "
        f"slot {[f'{r:.2e}' for r in rel_bf16]} (reported, no limit)")
    agree = []
    for s, f in zip(half, four):
        n = 0
        while n < new and s["tokens"][n] == f["tokens"][n]:
            n += 1
        agree.append(n)
    say(f"full bf16 greedy tokens identical to the f32 run for {agree} leading steps: "
        f"{sum(a >= 32 for a in agree)} of {len(agree)} prompts reach 32")
    del model_bf16, model
    torch.cuda.empty_cache()
    # Q4_K: transformers on the quantized-then-dequantized weights written by TOOL.
    deq = tempfile.mkdtemp(prefix="ptxkit-q4k-")
    run = subprocess.run([tool, d, "--write-q4k-dequantized", deq], capture_output=True,
                         text=True, timeout=600)
    if run.returncode != 0:
        check("full q4k", False, f"the tool failed: {run.stderr.strip()}")
        return d
    cls = Qwen2ForCausalLM.from_pretrained(deq, dtype=torch.float32,
                                           attn_implementation="eager").cuda().eval()
    q4, _ = run_ptxkit(ptxkit, d, PROMPTS, "q4k", new_tokens=new)
    check_slots("full q4k vs transformers f32 on the dequantized weights", q4,
                hf_logits_batch(cls, PROMPTS, q4), 1e-3, PROMPTS)
    del cls
    torch.cuda.empty_cache()
    shutil.rmtree(deq, ignore_errors=True)
    return d


def copy_gbps():
    src = torch.empty(256 << 20, dtype=torch.float32, device="cuda")
    dst = torch.empty_like(src)
    dst.copy_(src)
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(10):
        dst.copy_(src)
    torch.cuda.synchronize()
    return 10 * 2 * src.numel() * 4 / (time.perf_counter() - t) / 1e9


def hf_generate_speed(model, prompts, new=64):
    ids = torch.tensor(prompts, device="cuda")
    with torch.no_grad():
        model.generate(ids, max_new_tokens=4, do_sample=False)
        torch.cuda.synchronize()
        t = time.perf_counter()
        model.generate(ids, max_new_tokens=new, min_new_tokens=new, do_sample=False)
        torch.cuda.synchronize()
    return new * len(prompts) / (time.perf_counter() - t)


COMPILE_CHILD = r"""
import sys, time, torch
from transformers import Qwen2ForCausalLM
model = Qwen2ForCausalLM.from_pretrained(sys.argv[1], dtype=torch.float32).cuda().eval()
model.generation_config.cache_implementation = "static"
model.forward = torch.compile(model.forward, mode="reduce-overhead", fullgraph=True)
for batch in (1, 4):
    ids = torch.tensor([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16]][:batch],
                       device="cuda")
    with torch.no_grad():
        t = time.perf_counter()
        model.generate(ids, max_new_tokens=64, min_new_tokens=64, do_sample=False)
        torch.cuda.synchronize()
        first = time.perf_counter() - t
        t = time.perf_counter()
        model.generate(ids, max_new_tokens=64, min_new_tokens=64, do_sample=False)
        torch.cuda.synchronize()
        dt = time.perf_counter() - t
    print(f"batch {batch}: {64 * batch / dt:.1f} tokens/s (first call, compiling: {first:.1f} s)",
          flush=True)
"""


def speed(ptxkit, model_dir, with_compile):
    """tokens/s at the full Qwen2.5-0.5B shape with random weights."""
    model = Qwen2ForCausalLM.from_pretrained(model_dir, dtype=torch.float32,
                                             attn_implementation="eager").cuda().eval()
    weight_bytes = sum(p.numel() * 4 for p in model.parameters())
    gbps = copy_gbps()
    say(f"speed: Qwen2.5-0.5B shape, 24 layers, random weights ({weight_bytes / 1e9:.2f} GB in f32); "
        f"copy {gbps:.0f} GB/s read+write; f32 weight-read floor "
        f"{gbps * 1e9 / 2 / weight_bytes:.0f} tokens/s")
    prompts4 = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16]]
    for weights in ("f32", "bf16", "q4k"):
        for prompts in (prompts4[:1], prompts4):
            try:
                profile = ("--profile",) if len(prompts) == 1 else ()
                _, line = run_ptxkit(ptxkit, model_dir, prompts, weights, new_tokens=64,
                                     extra=profile, logits=False)
                say(f"speed: ptxkit decode --weights {weights}, batch {len(prompts)}: {line}")
            except RuntimeError as e:
                say(f"speed: ptxkit decode --weights {weights}, batch {len(prompts)}: FAILED {e}")
    for batch in (1, 4):
        say(f"speed: transformers eager f32, batch {batch}: "
            f"{hf_generate_speed(model, prompts4[:batch]):.1f} tokens/s")
    model = model.to(torch.bfloat16)
    say(f"speed: transformers eager bf16, batch 1: {hf_generate_speed(model, prompts4[:1]):.1f} tokens/s")
    del model
    torch.cuda.empty_cache()
    if with_compile:
        try:
            run = subprocess.run([sys.executable, "-c", COMPILE_CHILD, model_dir],
                                 capture_output=True, text=True, timeout=240)
            lines = run.stdout.strip().splitlines()
            tail = " | ".join(run.stderr.strip().splitlines()[-3:])
            say(f"speed: transformers static cache + torch.compile(reduce-overhead) f32: exit "
                f"{run.returncode}; {'; '.join(lines) or 'no result'}"
                + (f"; stderr: {tail}" if run.returncode != 0 else ""))
        except subprocess.TimeoutExpired:
            say("speed: transformers static cache + torch.compile(reduce-overhead): did not finish "
                "in 240 s")


def memcheck(ptxkit):
    """compute-sanitizer memcheck over a short decode of the small Qwen2 (graph replay, batch 4)."""
    sanitizer = shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer"
    if not os.path.exists(sanitizer):
        check("memcheck decode", False, "compute-sanitizer not found")
        return
    cls, cfg = MODELS["qwen2"]
    torch.manual_seed(0)
    d = tempfile.mkdtemp(prefix="ptxkit-memcheck-")
    cls(cfg).float().eval().save_pretrained(d, safe_serialization=True)
    for weights in ("f32", "q4k"):
        try:
            _, line = run_ptxkit(ptxkit, d, PROMPTS, weights, new_tokens=4,
                                 wrap=(sanitizer, "--tool", "memcheck", "--error-exitcode", "9"))
            check(f"memcheck over `ptxkit decode --weights {weights}` (batch 4, 4 new tokens, graph)",
                  True, f"0 errors; {line}")
        except RuntimeError as e:
            check(f"memcheck over `ptxkit decode --weights {weights}`", False, str(e)[-1500:])


def main():
    tool, ptxkit, out_dir = sys.argv[1], sys.argv[2], sys.argv[3]
    flags = set(sys.argv[4:])
    if not os.path.exists(ptxkit):
        ptxkit = None
    try:
        if "--no-small" not in flags:
            correctness(tool, ptxkit)
        if ptxkit and "--memcheck" in flags:
            memcheck(ptxkit)
        model_dir = None
        if ptxkit and "--full" in flags:
            model_dir = full_depth(tool, ptxkit)
        if ptxkit and "--speed" in flags:
            if model_dir is None:
                _, model_dir = qwen05b_full()
            speed(ptxkit, model_dir, "--compile" in flags)
    except Exception as e:  # report what ran so far
        check("check-decoder-reference", False, f"{type(e).__name__}: {e}")
    with open(f"{out_dir}/decoder_reference.log", "w") as f:
        f.write("\n".join(report) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
