#!/usr/bin/python3
"""export_range.py — the range bench's own exports (bench/range.sh): two transformers whose dims vary, written with
torch.nn after their published architectures, random weights (nothing is downloaded), symbolic dims left to the
planner:

- bert.onnx: a BERT-style encoder (token and position embeddings, LayerNorm after each residual, GELU MLP, 4 layers,
  d 256, 4 heads, at most 512 positions), inputs ids and attention mask [batch, seq], output the pooled first token;
- llama.onnx: a LLaMA-style prefill (RMSNorm, rotary position embeddings from cached cos/sin tables, grouped-query
  attention with 8 query and 2 key/value heads expanded to the query heads, a causal mask sliced from a cached one,
  SwiGLU MLP; 4 layers, d 256, at most 2048 positions), input ids [batch, seq], output the logits.

Opset 14; weights stripped to their shapes as in graphs/export_torch.py.

Usage: /usr/bin/python3 bench/export_range.py OUTDIR   (Debian's python3-torch, python3-onnx)
"""
import math
import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "graphs"))
from export_torch import strip_weights  # noqa: E402


class BertLayer(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads, self.d = heads, d
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.up, self.down = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x, bias):
        b, s, _ = x.shape
        q, k, v = self.qkv(x).split(self.d, dim=2)
        q, k, v = (t.view(b, s, self.heads, self.d // self.heads).transpose(1, 2) for t in (q, k, v))
        w = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.d // self.heads) + bias
        a = torch.matmul(torch.softmax(w, dim=-1), v).transpose(1, 2).reshape(b, s, self.d)
        x = self.ln1(x + self.out(a))
        return self.ln2(x + self.down(nn.functional.gelu(self.up(x))))


class Bert(nn.Module):
    def __init__(self, vocab=8000, d=256, heads=4, layers=4, max_pos=512):
        super().__init__()
        self.tok, self.pos, self.ln = nn.Embedding(vocab, d), nn.Embedding(max_pos, d), nn.LayerNorm(d)
        self.layers = nn.ModuleList(BertLayer(d, heads) for _ in range(layers))
        self.pool = nn.Linear(d, d)

    def forward(self, ids, mask):
        s = ids.shape[1]
        x = self.ln(self.tok(ids) + self.pos(torch.arange(s).unsqueeze(0)))
        bias = (1.0 - mask[:, None, None, :].to(x.dtype)) * -10000.0
        for layer in self.layers:
            x = layer(x, bias)
        return torch.tanh(self.pool(x[:, 0]))


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight, self.eps = nn.Parameter(torch.ones(d)), eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class LlamaLayer(nn.Module):
    def __init__(self, d, heads, kv_heads, hidden):
        super().__init__()
        self.heads, self.kv_heads, self.hd = heads, kv_heads, d // heads
        self.q = nn.Linear(d, d, bias=False)
        self.k = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.v = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.o = nn.Linear(d, d, bias=False)
        self.n1, self.n2 = RMSNorm(d), RMSNorm(d)
        self.w1, self.w3 = nn.Linear(d, hidden, bias=False), nn.Linear(d, hidden, bias=False)
        self.w2 = nn.Linear(hidden, d, bias=False)

    def forward(self, x, cos, sin, mask, past_k=None, past_v=None):
        """The layer's output and its keys and values (joined after a cache's, past_k and past_v, when given: the
        decode step of bench/export_decode.py)."""
        b, s, d = x.shape
        h = self.n1(x)
        q = self.q(h).view(b, s, self.heads, self.hd).transpose(1, 2)
        k = self.k(h).view(b, s, self.kv_heads, self.hd).transpose(1, 2)
        v = self.v(h).view(b, s, self.kv_heads, self.hd).transpose(1, 2)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        t = s
        if past_k is not None:
            k, v = torch.cat((past_k, k), dim=2), torch.cat((past_v, v), dim=2)
            t = k.shape[2]
        rep = self.heads // self.kv_heads
        ke = k[:, :, None].expand(b, self.kv_heads, rep, t, self.hd).reshape(b, self.heads, t, self.hd)
        ve = v[:, :, None].expand(b, self.kv_heads, rep, t, self.hd).reshape(b, self.heads, t, self.hd)
        w = torch.matmul(q, ke.transpose(-1, -2)) / math.sqrt(self.hd) + mask
        a = torch.matmul(torch.softmax(w, dim=-1), ve).transpose(1, 2).reshape(b, s, d)
        x = x + self.o(a)
        h = self.n2(x)
        return x + self.w2(nn.functional.silu(self.w1(h)) * self.w3(h)), k, v


class Llama(nn.Module):
    def __init__(self, vocab=8000, d=256, heads=8, kv_heads=2, hidden=688, layers=4, max_pos=2048):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList(LlamaLayer(d, heads, kv_heads, hidden) for _ in range(layers))
        self.norm, self.head = RMSNorm(d), nn.Linear(d, vocab, bias=False)
        hd = d // heads
        inv = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
        freqs = torch.outer(torch.arange(max_pos).float(), inv)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos", emb.cos())
        self.register_buffer("sin", emb.sin())
        self.register_buffer("mask", torch.full((max_pos, max_pos), -10000.0).triu(1))

    def forward(self, ids):
        s = ids.shape[1]
        x = self.tok(ids)
        cos, sin, mask = self.cos[:s], self.sin[:s], self.mask[:s, :s]
        for layer in self.layers:
            x, _, _ = layer(x, cos, sin, mask)
        return self.head(self.norm(x))


def export(model, args, path, names, axes):
    model.eval()
    with torch.no_grad():
        torch.onnx.export(model, args, path, opset_version=14, input_names=names[0], output_names=names[1],
                          dynamic_axes=axes, do_constant_folding=True)
    strip_weights(path)
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    ids = torch.zeros(2, 16, dtype=torch.long)
    export(Bert(), (ids, torch.ones(2, 16, dtype=torch.long)), os.path.join(out, "bert.onnx"),
           (["ids", "mask"], ["pooled"]), {"ids": {0: "batch", 1: "seq"}, "mask": {0: "batch", 1: "seq"},
                                           "pooled": {0: "batch"}})
    export(Llama(), (ids,), os.path.join(out, "llama.onnx"), (["ids"], ["logits"]),
           {"ids": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"}})


if __name__ == "__main__":
    main()
