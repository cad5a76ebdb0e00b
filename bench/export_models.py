#!/usr/bin/python3
"""export_models.py — the executor bench's own exports (bench/kernels.sh), six classes the corpus lacks,
each with torchvision 0.14's architecture and random weights (nothing is downloaded):

- deeplabv3_mobilenet_v3_large at 320 x 320: segmentation, its ASPP head's 3 x 3 convolutions at dilations
  12, 24 and 36 on a 20 x 20 map (most of their taps read only padding), bilinear Resize back to the input;
- efficientnet_b0: squeeze-excite blocks (a global pool, two 1 x 1 convolutions, Sigmoid, a broadcast Mul)
  and SiLU written as x * Sigmoid(x);
- mobilenet_v3_small at opset 13, where the exporter writes HardSwish as x * HardSigmoid(x) (the corpus's
  opset-14 export has the HardSwish op);
- r3d_18 on a clip of 4 frames of 112 x 112: a 3-D video model (Conv3d, 3-D pooling);
- regnet_y_400mf: grouped 3 x 3 convolutions (8 channels a group) with squeeze-excite;
- r2plus1d_18 on a clip of 4 frames of 112 x 112: separable 3-D convolutions (a spatial 1 x 3 x 3 one, then a
  temporal 3 x 1 x 1 one).

Opset 14 except where said. Weights are stripped to their shapes as in graphs/export_torch.py; the bench
fills them (bench/peers/fill_weights.py).

Usage: /usr/bin/python3 bench/export_models.py OUTDIR   (Debian's python3-torch, python3-torchvision)
"""
import os
import sys

import torch
import torchvision

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "graphs"))
from export_torch import strip_weights  # noqa: E402


def export(model, shape, path, opset=14):
    model.eval()
    torch.onnx.export(model, (torch.zeros(*shape),), path, opset_version=opset, input_names=["input"],
                      output_names=["output"], dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}},
                      do_constant_folding=True)
    strip_weights(path)
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    models = torchvision.models
    with torch.no_grad():
        export(models.segmentation.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None, aux_loss=False),
               (1, 3, 320, 320), os.path.join(out, "deeplabv3-mobilenet.onnx"))
        export(models.efficientnet_b0(weights=None), (1, 3, 224, 224), os.path.join(out, "efficientnet-b0.onnx"))
        export(models.mobilenet_v3_small(weights=None), (1, 3, 224, 224),
               os.path.join(out, "mobilenet-v3-small-opset13.onnx"), opset=13)
        export(models.video.r3d_18(weights=None), (1, 3, 4, 112, 112), os.path.join(out, "r3d-18.onnx"))
        export(models.regnet_y_400mf(weights=None), (1, 3, 224, 224), os.path.join(out, "regnet-y-400mf.onnx"))
        export(models.video.r2plus1d_18(weights=None), (1, 3, 4, 112, 112), os.path.join(out, "r2plus1d-18.onnx"))


if __name__ == "__main__":
    main()
