#!/usr/bin/env python3
"""write-tiny-model.py DIR [--leave-out NAME]: a tiny Qwen2 model directory (config.json and
model.safetensors, f32, deterministic pseudo-random weights) for the `ptxkit decode` tests. The
safetensors file is written by hand (8-byte header length, JSON header, raw data), so the tests
need nothing beyond Python's standard library."""
import json
import os
import struct
import sys

HIDDEN, LAYERS, HEADS, KV_HEADS, INTER, VOCAB = 64, 1, 2, 1, 96, 40
HEAD_DIM = HIDDEN // HEADS


def tensors():
    q, kv = HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM
    yield "model.embed_tokens.weight", [VOCAB, HIDDEN]
    for i in range(LAYERS):
        p = f"model.layers.{i}."
        yield p + "input_layernorm.weight", [HIDDEN]
        yield p + "self_attn.q_proj.weight", [q, HIDDEN]
        yield p + "self_attn.q_proj.bias", [q]
        yield p + "self_attn.k_proj.weight", [kv, HIDDEN]
        yield p + "self_attn.k_proj.bias", [kv]
        yield p + "self_attn.v_proj.weight", [kv, HIDDEN]
        yield p + "self_attn.v_proj.bias", [kv]
        yield p + "self_attn.o_proj.weight", [HIDDEN, q]
        yield p + "post_attention_layernorm.weight", [HIDDEN]
        yield p + "mlp.gate_proj.weight", [INTER, HIDDEN]
        yield p + "mlp.up_proj.weight", [INTER, HIDDEN]
        yield p + "mlp.down_proj.weight", [HIDDEN, INTER]
    yield "model.norm.weight", [HIDDEN]


def main():
    out = sys.argv[1]
    leave_out = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--leave-out" else None
    os.makedirs(out, exist_ok=True)
    config = {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2",
              "hidden_size": HIDDEN, "num_hidden_layers": LAYERS,
              "num_attention_heads": HEADS, "num_key_value_heads": KV_HEADS,
              "intermediate_size": INTER, "vocab_size": VOCAB, "rope_theta": 1e6,
              "rms_norm_eps": 1e-6, "tie_word_embeddings": True,
              "max_position_embeddings": 128}
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f)
    header, data, seed = {}, bytearray(), 12345
    for name, shape in tensors():
        n = 1
        for d in shape:
            n *= d
        values = []
        for _ in range(n):
            seed = (seed * 6364136223846793005 + 1442695040888963407) % 2**64
            values.append(((seed >> 40) / 2**24 - 0.5) * 0.4)
        if name.endswith("norm.weight"):
            values = [1.0 + v for v in values]
        if name == leave_out:
            continue
        header[name] = {"dtype": "F32", "shape": shape,
                        "data_offsets": [len(data), len(data) + 4 * n]}
        data += struct.pack(f"<{n}f", *values)
    text = json.dumps(header).encode()
    with open(os.path.join(out, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


if __name__ == "__main__":
    main()
