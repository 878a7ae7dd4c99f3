#!/usr/bin/env python3
"""check-decoder-reference.py TOOL OUT_DIR: ptxkit's CPU reference decoder against Hugging Face
transformers, on the GPU machine (where transformers and PyTorch are installed).

Builds small Qwen2 and Llama models with seeded random weights in transformers, saves them with
save_pretrained (safetensors + config.json), runs TOOL (ptxkit_reference_decode) on each with a
prompt, then runs transformers' f32 eager forward on the prompt plus the tokens the tool generated
and compares the logits before every generated token: max |diff| / max |logit| <= 1e-4 (the
reference works in double, transformers in f32), and the greedy tokens agree wherever the top two
logits of transformers are further apart than that difference. Exit 0 when every model agrees.
"""
import json
import subprocess
import sys
import tempfile

import torch
from transformers import LlamaConfig, LlamaForCausalLM, Qwen2Config, Qwen2ForCausalLM

MODELS = {
    # Qwen2.5-0.5B's shapes at 2 layers: biases, GQA 14/2, theta 1e6, tied head, vocab 151936.
    "qwen2": (Qwen2ForCausalLM, Qwen2Config(
        hidden_size=896, intermediate_size=4864, num_hidden_layers=2, num_attention_heads=14,
        num_key_value_heads=2, vocab_size=151936, rope_theta=1e6, rms_norm_eps=1e-6,
        tie_word_embeddings=True, max_position_embeddings=32768, initializer_range=0.05)),
    # A Llama: no biases, untied head, theta 1e4, GQA 8/4.
    "llama": (LlamaForCausalLM, LlamaConfig(
        hidden_size=256, intermediate_size=688, num_hidden_layers=2, num_attention_heads=8,
        num_key_value_heads=4, vocab_size=1000, rope_theta=1e4, rms_norm_eps=1e-5,
        tie_word_embeddings=False, initializer_range=0.05)),
}
PROMPT = [17, 3, 250, 9, 611]
NEW_TOKENS = 8


def main():
    tool, out_dir = sys.argv[1], sys.argv[2]
    ok = True
    report = []
    for name, (cls, cfg) in MODELS.items():
        torch.manual_seed(0)
        cfg._attn_implementation = "eager"
        model = cls(cfg).float().eval()
        d = tempfile.mkdtemp(prefix=f"ptxkit-{name}-")
        model.save_pretrained(d, safe_serialization=True)
        with open(f"{d}/config.json") as f:
            saved = json.load(f)
        rope = {k: saved[k] for k in ("rope_theta", "rope_parameters", "rope_scaling") if k in saved}
        run = subprocess.run([tool, d, ",".join(map(str, PROMPT)), str(NEW_TOKENS)],
                             capture_output=True, text=True, timeout=300)
        if run.returncode != 0:
            report.append(f"{name}: the tool failed ({run.returncode}): {run.stderr.strip()}")
            ok = False
            continue
        got = json.loads(run.stdout)
        ids = torch.tensor([PROMPT + got["tokens"][:-1]])
        with torch.no_grad():
            logits = model(ids).logits[0].double()
        want = logits[len(PROMPT) - 1:]
        ours = torch.tensor(got["logits"], dtype=torch.float64)
        rel = ((ours - want).abs().max() / want.abs().max()).item()
        top2 = want.topk(2, dim=-1).values
        margin = (top2[:, 0] - top2[:, 1])
        hf_tokens = want.argmax(dim=-1).tolist()
        decisive = [i for i in range(len(hf_tokens))
                    if margin[i].item() > 2 * rel * want.abs().max().item()]
        agree = all(hf_tokens[i] == got["tokens"][i] for i in decisive)
        passed = rel <= 1e-4 and agree
        ok &= passed
        report.append(f"{name}: {'ok' if passed else 'MISMATCH'}: max |diff| / max |logit| = "
                      f"{rel:.2e} over {len(got['tokens'])} steps; tokens {got['tokens']} vs "
                      f"transformers {hf_tokens} ({len(decisive)} decisive steps agree: {agree}); "
                      f"config.json RoPE fields {rope}")
    text = "\n".join(report)
    print(text)
    with open(f"{out_dir}/decoder_reference.log", "w") as f:
        f.write(text + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
