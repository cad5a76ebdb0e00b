#!/usr/bin/env python3
"""export_encoder.py OUT_DIR — a small transformer encoder (token embedding, two torch.nn.TransformerEncoder
layers, a linear head) taking token ids and a real padding mask (the second sequence padded from position 6,
the first from 9), exported with torch.onnx.export to OUT_DIR/encoder.onnx, with its inputs and torch's own
output in the ONNX model zoo's layout (OUT_DIR/test_data_set_0/input_K.pb, output_0.pb). tests/test-oracle.c
runs it with Debian's python3 (python3-torch, python3-onnx) and checks sim's run against torch's output."""
import os, sys, torch
from onnx import numpy_helper
torch.manual_seed(0)
d, heads, seq, batch = 32, 4, 12, 2
class Enc(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(50, d)
        layer = torch.nn.TransformerEncoderLayer(d, heads, dim_feedforward=64, dropout=0.0, batch_first=True)
        self.enc = torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = torch.nn.Linear(d, 8)
    def forward(self, ids, mask):
        return self.head(self.enc(self.emb(ids), src_key_padding_mask=mask))
m = Enc().train(False)
ids = torch.randint(0, 50, (batch, seq))
mask = torch.zeros(batch, seq, dtype=torch.bool)
mask[0, 9:] = True
mask[1, 6:] = True
out_dir = sys.argv[1]
torch.onnx.export(m, (ids, mask), os.path.join(out_dir, "encoder.onnx"), input_names=["ids", "mask"], output_names=["y"], opset_version=14)
with torch.no_grad():
    y = m(ids, mask)
data = os.path.join(out_dir, "test_data_set_0")
os.makedirs(data, exist_ok=True)
for k, t in enumerate([ids, mask]):
    open(os.path.join(data, f"input_{k}.pb"), "wb").write(numpy_helper.from_array(t.numpy()).SerializeToString())
open(os.path.join(data, "output_0.pb"), "wb").write(numpy_helper.from_array(y.numpy()).SerializeToString())
