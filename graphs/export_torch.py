#!/usr/bin/python3
"""export_torch.py — export reference architectures with the real exporter (torch.onnx.export,
opset 14, random weights) for the corpus: GPT-2 small written with torch.nn after the published
architecture (symbolic batch and sequence, so the exporter emits its Shape/Gather/Unsqueeze/Concat
arithmetic); a torch.nn.TransformerDecoder (4 layers, d 256) with a causal mask made by torch.triu (the
exporter writes Trilu); and torchvision's resnet50, densenet121, mobilenet_v2, shufflenet_v2_x1_0,
googlenet, squeezenet1_0, mobilenet_v3_small, inception_v3 (299x299), vit_b_16 and swin_t (whose shifted
windows export as ScatterND and whose attention dropout as Dropout with training_mode true, ratio 0).

Weights are random (nothing is downloaded). After export, every initializer of more than 64 elements
loses its data (dtype and dims stay): the planner needs no weight bytes, and the files stay small.

Usage: /usr/bin/python3 graphs/export_torch.py OUTDIR   (Debian's python3-torch, python3-torchvision,
python3-onnx; the pyenv python3 on PATH does not see them)
"""
import math
import os
import sys

import onnx
import torch
import torch.nn as nn
import torchvision

OPSET = 14


class Attention(nn.Module):
    def __init__(self, d, heads, n_ctx):
        super().__init__()
        self.heads, self.d = heads, d
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.register_buffer("bias", torch.tril(torch.ones(n_ctx, n_ctx, dtype=torch.bool)).view(1, 1, n_ctx, n_ctx))

    def split_heads(self, x):
        b, s, _ = x.shape
        return x.view(b, s, self.heads, self.d // self.heads).permute(0, 2, 1, 3)

    def forward(self, x):
        q, k, v = self.c_attn(x).split(self.d, dim=2)
        q, k, v = self.split_heads(q), self.split_heads(k), self.split_heads(v)
        w = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(v.size(-1))
        s = q.size(-2)
        mask = self.bias[:, :, :s, :s]
        w = torch.where(mask, w, torch.tensor(-10000.0, dtype=w.dtype))
        a = torch.matmul(nn.functional.softmax(w, dim=-1), v)
        b, _, s, _ = a.shape
        return self.c_proj(a.permute(0, 2, 1, 3).contiguous().view(b, s, self.d))


def gelu_tanh(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class Block(nn.Module):
    def __init__(self, d, heads, n_ctx):
        super().__init__()
        self.ln_1, self.ln_2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = Attention(d, heads, n_ctx)
        self.c_fc, self.c_proj = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.c_proj(gelu_tanh(self.c_fc(self.ln_2(x))))


class GPT2(nn.Module):
    """GPT-2 small: 12 layers, d 768, 12 heads, vocab 50257, 1024 positions, tied embeddings."""

    def __init__(self, layers=12, d=768, heads=12, vocab=50257, n_ctx=1024):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(n_ctx, d)
        self.h = nn.ModuleList(Block(d, heads, n_ctx) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)

    def forward(self, input_ids):
        positions = torch.arange(input_ids.size(-1), dtype=torch.long).unsqueeze(0)
        x = self.wte(input_ids) + self.wpe(positions)
        for block in self.h:
            x = block(x)
        return torch.matmul(self.ln_f(x), self.wte.weight.t())


class Decoder(nn.Module):
    """torch.nn's TransformerDecoder over token embeddings, causal self-attention mask from torch.triu."""

    def __init__(self, d=256, heads=4, layers=4, vocab=1000):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(d, heads, 4 * d, batch_first=True), layers)
        self.out = nn.Linear(d, vocab)

    def forward(self, ids, memory):
        s = ids.size(1)
        mask = torch.triu(torch.full((s, s), float("-inf")), diagonal=1)
        return self.out(self.dec(self.emb(ids), memory, tgt_mask=mask))


def strip_weights(path):
    model = onnx.load(path)
    for t in model.graph.initializer:
        count = 1
        for d in t.dims:
            count *= d
        if count > 64:
            t.ClearField("raw_data")
            for field in ("float_data", "int32_data", "int64_data", "double_data", "uint64_data"):
                t.ClearField(field)
    onnx.save(model, path)


def export(module, example, path, names, dynamic_axes):
    module.eval()
    torch.onnx.export(module, example, path, opset_version=OPSET, input_names=names[0], output_names=names[1],
                      dynamic_axes=dynamic_axes, do_constant_folding=True)
    strip_weights(path)
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")


def vision(out, name, **kwargs):
    model = getattr(torchvision.models, name)(weights=None, **kwargs)
    size = 299 if name == "inception_v3" else 224
    export(model, (torch.zeros(1, 3, size, size),), os.path.join(out, f"{name}.onnx"), (["input"], ["output"]),
           {"input": {0: "batch"}, "output": {0: "batch"}})


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    with torch.no_grad():
        export(GPT2(), (torch.zeros(1, 16, dtype=torch.long),), os.path.join(out, "gpt2-torch.onnx"),
               (["input_ids"], ["logits"]), {"input_ids": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"}})
        for name in ("resnet50", "densenet121", "mobilenet_v2", "shufflenet_v2_x1_0", "squeezenet1_0",
                     "mobilenet_v3_small"):
            vision(out, name)
        for name in ("googlenet", "inception_v3"):  # without the training-only auxiliary heads
            vision(out, name, aux_logits=False, init_weights=False)
    # With gradients on: under no_grad, torch 1.13's attention takes its fused inference path
    # (aten::_native_multi_head_attention), which has no ONNX export.
    with torch.enable_grad():
        export(Decoder(), (torch.zeros(1, 64, dtype=torch.long), torch.zeros(1, 32, 256)),
               os.path.join(out, "decoder-torch.onnx"), (["ids", "memory"], ["logits"]),
               {"ids": {0: "batch", 1: "seq"}, "memory": {0: "batch", 1: "mem"}, "logits": {0: "batch", 1: "seq"}})
        for name in ("vit_b_16", "swin_t"):
            vision(out, name)


if __name__ == "__main__":
    main()
