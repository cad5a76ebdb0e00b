#!/usr/bin/python3
"""export_decode.py — the KV cache bench's own exports (bench/kv.sh): two decoders whose step takes the cache so far
and returns it one step longer, written with torch.nn after their published architectures, random weights (nothing
is downloaded), kept in the file so that the step can run:

- gpt2-kv.onnx: a GPT-2-style decoder (learned positions from the past length, LayerNorm before each block, tanh
  GELU, multi-head attention; 4 layers, d 256, 4 heads, at most 2048 positions);
- llama-kv.onnx: a LLaMA-style decoder (RMSNorm, rotary embeddings from cached cos/sin tables at the past length,
  grouped-query attention with 8 query and 2 key/value heads, the cache holding the 2 and expanded after it, SwiGLU;
  4 layers, d 256, at most 2048 positions).

Both take input_ids [batch, seq] and past_key_values.N.key / .value [batch, kv heads, past_seq, head dim], and give
logits [batch, seq, vocab] and present.N.key / .value [batch, kv heads, past_seq + seq, head dim]: a Concat of the
past with the new slice along axis 2 (the layout Hugging Face's exports use). The same file runs any number of
new tokens (seq) after a past of one or more; NAME-prefill.onnx is the same model's pass over a prompt with no past (its
presents are the prompt's keys and values, [batch, kv heads, seq, head dim]). Opset 14. NAME-generate/ holds torch's
own greedy generation with its cache, in the model zoo's layout: a prompt of 16 ids (input_0.pb) and the 32 tokens
generated (output_0.pb).

Usage: /usr/bin/python3 bench/export_decode.py OUTDIR   (Debian's python3-torch, python3-onnx)
"""
import math
import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_range import LlamaLayer, RMSNorm  # noqa: E402

LAYERS, D, VOCAB, MAX_POS = 4, 256, 8000, 2048


def gelu_tanh(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class Gpt2Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads, self.hd = heads, d // heads
        self.ln_1, self.ln_2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.c_attn, self.c_proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.c_fc, self.c_mlp = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x, mask, past_k, past_v):
        b, s, d = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(d, dim=2)
        q, k, v = (t.view(b, s, self.heads, self.hd).transpose(1, 2) for t in (q, k, v))
        if past_k is not None:
            k, v = torch.cat((past_k, k), dim=2), torch.cat((past_v, v), dim=2)
        w = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.hd)
        w = torch.where(mask, w, torch.tensor(-10000.0, dtype=w.dtype))
        a = torch.matmul(torch.softmax(w, dim=-1), v).transpose(1, 2).reshape(b, s, d)
        x = x + self.c_proj(a)
        return x + self.c_mlp(gelu_tanh(self.c_fc(self.ln_2(x)))), k, v


class Gpt2Kv(nn.Module):
    kv_heads, head_dim = 4, D // 4

    def __init__(self):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(VOCAB, D), nn.Embedding(MAX_POS, D)
        self.h = nn.ModuleList(Gpt2Block(D, 4) for _ in range(LAYERS))
        self.ln_f, self.head = nn.LayerNorm(D), nn.Linear(D, VOCAB, bias=False)
        self.register_buffer("bias", torch.tril(torch.ones(MAX_POS, MAX_POS, dtype=torch.bool)))

    def forward(self, ids, *past):
        p, s = past[0].shape[2] if past else 0, ids.shape[1]
        x = self.wte(ids) + self.wpe(torch.arange(p, p + s).unsqueeze(0))
        mask = self.bias[p:p + s, :p + s]
        presents = []
        for k, block in enumerate(self.h):
            x, pk, pv = block(x, mask, *(past[2 * k:2 * k + 2] if past else (None, None)))
            presents += [pk, pv]
        return (self.head(self.ln_f(x)), *presents)


class LlamaKv(nn.Module):
    kv_heads, head_dim = 2, D // 8

    def __init__(self, hidden=688):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, D)
        self.layers = nn.ModuleList(LlamaLayer(D, 8, 2, hidden) for _ in range(LAYERS))
        self.norm, self.head = RMSNorm(D), nn.Linear(D, VOCAB, bias=False)
        hd = D // 8
        inv = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
        freqs = torch.outer(torch.arange(MAX_POS).float(), inv)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos", emb.cos())
        self.register_buffer("sin", emb.sin())
        self.register_buffer("mask", torch.full((MAX_POS, MAX_POS), -10000.0).triu(1))

    def forward(self, ids, *past):
        p, s = past[0].shape[2] if past else 0, ids.shape[1]
        x = self.tok(ids)
        cos, sin, mask = self.cos[p:p + s], self.sin[p:p + s], self.mask[p:p + s, :p + s]
        presents = []
        for k, layer in enumerate(self.layers):
            x, pk, pv = layer(x, cos, sin, mask, *(past[2 * k:2 * k + 2] if past else (None, None)))
            presents += [pk, pv]
        return (self.head(self.norm(x)), *presents)


def export(model, path, prefill=False):
    """The decode step (past inputs), or with `prefill` the prompt's pass (no past: the presents are the prompt's
    keys and values)."""
    model.eval()
    ids = torch.zeros(1, 2, dtype=torch.long)
    past = () if prefill else tuple(torch.zeros(1, model.kv_heads, 3, model.head_dim) for _ in range(2 * LAYERS))
    kinds = [(k, kind) for k in range(LAYERS) for kind in ("key", "value")]
    past_names = [] if prefill else [f"past_key_values.{k}.{kind}" for k, kind in kinds]
    present_names = [f"present.{k}.{kind}" for k, kind in kinds]
    axes = {"input_ids": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"}}
    axes.update({n: {0: "batch", 2: "past_seq"} for n in past_names})
    axes.update({n: {0: "batch", 2: "seq" if prefill else "total_seq"} for n in present_names})
    with torch.no_grad():
        torch.onnx.export(model, (ids, *past), path, opset_version=14, input_names=["input_ids", *past_names],
                          output_names=["logits", *present_names], dynamic_axes=axes, do_constant_folding=True)
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")


def generate(model, out, prompt_len=16, new=32):
    """torch's own greedy generation with its KV cache, the oracle of `sim --generate`: a prompt of pseudo-random
    ids, then `new` tokens, each the argmax of the last logits (the first from the prompt's pass). Written in the
    model zoo's layout: input_0.pb the prompt [1, prompt_len], output_0.pb the tokens [1, new] (int64)."""
    from onnx import numpy_helper
    g = torch.Generator().manual_seed(1)
    prompt = torch.randint(0, VOCAB, (1, prompt_len), generator=g)
    tokens = []
    with torch.no_grad():
        logits, *past = model(prompt)
        for _ in range(new):
            tokens.append(int(logits[0, -1].argmax()))
            if len(tokens) < new:
                logits, *past = model(torch.tensor([[tokens[-1]]]), *past)
    os.makedirs(out, exist_ok=True)
    for what, t in (("input_0", prompt), ("output_0", torch.tensor([tokens]))):
        with open(os.path.join(out, f"{what}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(t.numpy()).SerializeToString())
    print(f"wrote {out} (a prompt of {prompt_len} ids, {new} tokens)")


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    for name, model in (("gpt2", Gpt2Kv()), ("llama", LlamaKv())):
        export(model, os.path.join(out, f"{name}-kv.onnx"))
        export(model, os.path.join(out, f"{name}-prefill.onnx"), prefill=True)
        generate(model.eval(), os.path.join(out, f"{name}-generate"))


if __name__ == "__main__":
    main()
