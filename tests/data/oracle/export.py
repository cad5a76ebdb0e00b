#!/usr/bin/env python3
"""export.py KIND OUT_DIR — a small torch model of one class, exported with torch.onnx.export to
OUT_DIR/model.onnx, with its inputs and torch's own outputs in the ONNX model zoo's layout
(OUT_DIR/test_data_set_0/input_K.pb, output_K.pb). tests/test-oracle.c runs it with Debian's python3
(python3-torch, python3-onnx) and checks sim's run against torch's outputs. Random weights, fixed seeds.

KIND:
  encoder  token embedding, two torch.nn.TransformerEncoder layers, a linear head; token ids and a real
           padding mask (the second sequence padded from position 6, the first from 9)
  vit      a small vision transformer: 4 x 4 patches of a 16 x 16 image, a class token, position embeddings,
           two pre-norm torch.nn.TransformerEncoder layers with no mask (attention that a fused kernel runs without
           its score matrix) and a post-norm one (its residual sums read by their LayerNorms alone), a linear head
  speech   a speech-style recurrent stack: Conv1d front end, a two-layer bidirectional LSTM (batch first),
           a GRU with an initial state, a one-layer Tanh RNN run in reverse, a linear head; every LSTM/GRU
           output (sequence, final hidden and cell states) is a graph output
  video    a 3-D ResNet-style video classifier: Conv3d stem (stride 1x2x2), BatchNorm3d, MaxPool3d, two
           residual blocks of 3x3x3 convolutions (one strided with a 1x1x1 shortcut), AvgPool3d, a ConvTranspose3d
           decoder branch, global average pooling and a linear head
  segment  a DeepLabV3-style segmentation head: a strided backbone to an 8 x 8 map, ASPP with a 1x1 branch,
           3x3 branches at dilations 12, 24 and 36 (whose off-centre taps read only padding) and an image-pooling
           branch, projection, classifier and a bilinear resize back to the input
  squeeze  squeeze-and-excite and channel-last blocks: depthwise and pointwise convolutions with HardSwish
           (opset 13: HardSigmoid times x), squeeze-excite (global mean, two linears, hard sigmoid, scale), and a
           ConvNeXt-style block computed channel-last (permute to NHWC, LayerNorm and linears on the last axis,
           GELU, permute back) with a residual
  residual a ResNet-style classifier of dense 3x3 stride-1 convolutions (the ones oneDNN may run by Winograd's
           algorithm): a stem, two residual blocks of 64 channels on a 20 x 20 map, a strided block to 128
           channels with a 1x1 shortcut and one more of 128, BatchNorm, global pooling and a linear head
  qdq      a quantization-aware model as torch exports it (QuantizeLinear and DequantizeLinear pairs): activations
           quantized per tensor to uint8, a convolution's weight per output channel to int8 (axis 0), a linear layer
           between them, a ReLU; the QDQ pairs are the ops ONNX Runtime's quantizer writes
  warp     a spatial transformer: a small localisation network predicts an affine transform, which makes the
           sampling grid (affine_grid by hand: torch exports no affine_grid) and grid_sample warps the image
           (bilinear, zeros padding); then a flow-style grid_sample (bicubic, border padding, align_corners) warps
           it again by a predicted offset field (GridSample, opset 16)
  listloop a per-frame video model with a Python list, as torch.jit.script exports it: a Loop over the clip's frames
           (its length a named dimension) appends each frame's features to a list (SequenceEmpty, SequenceInsert), then
           torch.stack (ConcatFromSequence with a new axis), the last element (SequenceAt -1) and the list's length
           (SequenceLength); a second list built from torch.split of the features (SplitToSequence) is summed
  conformer a speech conformer block (the convolution module of ASR encoders): a Conv1d front end with InstanceNorm1d,
           half-step feed-forward modules with SiLU, multi-head self-attention, and the convolution module (a
           pointwise Conv1d to twice the width, GLU, a depthwise Conv1d of 15 taps, GroupNorm, SiLU, a pointwise
           Conv1d) with residuals, a final LayerNorm and a linear head
  fp16     a half-precision CNN as ONNX's float16 converter writes one with keep_io_types (bench/peers/to_float16.py:
           FLOAT16 weights and activations, a Cast at the input and the output appended after the nodes): Conv, Relu,
           MaxPool, a residual Add, a strided Conv, GlobalAveragePool, Flatten, Gemm. torch's outputs are the model's
           in float32 with its weights and input rounded to FLOAT16 and every module's output rounded to FLOAT16,
           the points where the ONNX model rounds (each op's result)
  frcnn, retinanet, ssd, maskrcnn
           torchvision's detectors (FasterRCNN, RetinaNet, SSD, MaskRCNN: their own pre- and post-processing,
           anchors, RoiAlign, NonMaxSuppression, data-dependent sizes and control flow) on a two-convolution
           backbone, a 64 x 64 image, score threshold 0 and a few detections, exported at opset 11 as torchvision
           exports them; weights drawn so that boxes, scores and labels differ from one another
"""
import os, sys, torch
from onnx import numpy_helper

torch.manual_seed(0)


def encoder():
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

    ids = torch.randint(0, 50, (batch, seq))
    mask = torch.zeros(batch, seq, dtype=torch.bool)
    mask[0, 9:] = True
    mask[1, 6:] = True
    return Enc(), (ids, mask), ["ids", "mask"], ["y"], 14


def vit():
    d, heads, patch, size, batch = 32, 4, 4, 16, 2

    class ViT(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.patches = torch.nn.Conv2d(3, d, patch, stride=patch)
            self.cls = torch.nn.Parameter(torch.randn(1, 1, d))
            self.pos = torch.nn.Parameter(torch.randn(1, (size // patch) ** 2 + 1, d) * 0.1)
            pre = torch.nn.TransformerEncoderLayer(d, heads, dim_feedforward=64, dropout=0.0, batch_first=True,
                                                   norm_first=True)
            self.pre = torch.nn.TransformerEncoder(pre, 2, enable_nested_tensor=False)
            self.post = torch.nn.TransformerEncoderLayer(d, heads, dim_feedforward=64, dropout=0.0, batch_first=True)
            self.head = torch.nn.Linear(d, 10)

        def forward(self, x):
            t = self.patches(x).flatten(2).transpose(1, 2)
            t = torch.cat([self.cls.expand(x.shape[0], -1, -1), t], dim=1) + self.pos
            return self.head(self.post(self.pre(t))[:, 0])

    return ViT(), (torch.randn(batch, 3, size, size),), ["image"], ["logits"], 14


def speech():
    batch, frames, feats = 2, 20, 13

    class Speech(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.front = torch.nn.Conv1d(feats, 24, 3, padding=1)
            self.lstm = torch.nn.LSTM(24, 16, num_layers=2, bidirectional=True, batch_first=True)
            self.gru = torch.nn.GRU(32, 12)
            self.rnn = torch.nn.RNN(12, 10, nonlinearity="tanh")
            self.head = torch.nn.Linear(10, 6)

        def forward(self, x, h0):
            f = torch.relu(self.front(x)).transpose(1, 2)   # [batch, frames, 24]
            y, (h, c) = self.lstm(f)                        # [batch, frames, 32]
            g, gh = self.gru(y.transpose(0, 1), h0)         # [frames, batch, 12]
            r, _ = self.rnn(torch.flip(g, [0]))             # the RNN reads the sequence backwards
            return self.head(r), h, c, gh

    x = torch.randn(batch, feats, frames)
    h0 = torch.randn(1, batch, 12)
    return Speech(), (x, h0), ["x", "h0"], ["logits", "h", "c", "gh"], 14


def video():
    class Block(torch.nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.a = torch.nn.Conv3d(cin, cout, 3, stride=stride, padding=1, bias=False)
            self.an = torch.nn.BatchNorm3d(cout)
            self.b = torch.nn.Conv3d(cout, cout, 3, padding=1, bias=False)
            self.bn = torch.nn.BatchNorm3d(cout)
            self.skip = None if stride == 1 and cin == cout else torch.nn.Conv3d(cin, cout, 1, stride=stride)

        def forward(self, x):
            y = self.bn(self.b(torch.relu(self.an(self.a(x)))))
            return torch.relu(y + (x if self.skip is None else self.skip(x)))

    class Video(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = torch.nn.Conv3d(3, 8, (3, 5, 5), stride=(1, 2, 2), padding=(1, 2, 2))
            self.stem_bn = torch.nn.BatchNorm3d(8)
            self.pool = torch.nn.MaxPool3d((1, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1))
            self.b1 = Block(8, 8, 1)
            self.b2 = Block(8, 16, 2)
            self.avg = torch.nn.AvgPool3d(2, stride=1)
            self.up = torch.nn.ConvTranspose3d(16, 4, 2, stride=2)
            self.head = torch.nn.Linear(16 + 4, 5)

        def forward(self, x):
            y = self.b2(self.b1(self.pool(torch.relu(self.stem_bn(self.stem(x))))))
            u = self.up(self.avg(y))
            return self.head(torch.cat([y.mean((2, 3, 4)), u.mean((2, 3, 4))], 1))

    m = Video()
    for mod in m.modules():  # running statistics that are not the identity
        if isinstance(mod, torch.nn.BatchNorm3d):
            mod.running_mean.uniform_(-0.2, 0.2)
            mod.running_var.uniform_(0.5, 1.5)
    x = torch.randn(2, 3, 6, 32, 32)
    return m, (x,), ["clip"], ["y"], 13


def segment():
    from torch import nn
    import torch.nn.functional as F

    class Seg(nn.Module):
        def __init__(self):
            super().__init__()
            self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
                                          nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU())
            self.branches = nn.ModuleList([nn.Conv2d(32, 16, 1)] +
                                          [nn.Conv2d(32, 16, 3, padding=d, dilation=d) for d in (12, 24, 36)])
            self.pool = nn.Conv2d(32, 16, 1)
            self.project = nn.Sequential(nn.Conv2d(80, 16, 1), nn.ReLU(), nn.Conv2d(16, 4, 1))

        def forward(self, x):
            f = self.backbone(x)
            parts = [torch.relu(b(f)) for b in self.branches]
            g = torch.relu(self.pool(f.mean((2, 3), keepdim=True)))
            parts.append(F.interpolate(g, size=f.shape[-2:], mode="bilinear", align_corners=False))
            y = self.project(torch.cat(parts, 1))
            return F.interpolate(y, size=x.shape[-2:], mode="bilinear", align_corners=False)

    m = Seg()
    for mod in m.modules():
        if isinstance(mod, nn.BatchNorm2d):
            mod.running_mean.uniform_(-0.2, 0.2)
            mod.running_var.uniform_(0.5, 1.5)
    return m, (torch.randn(1, 3, 32, 32),), ["image"], ["logits"], 13


def squeeze():
    from torch import nn

    class SE(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.a = nn.Linear(c, c // 4)
            self.b = nn.Linear(c // 4, c)

        def forward(self, x):
            s = nn.functional.hardsigmoid(self.b(torch.relu(self.a(x.mean((2, 3))))))
            return x * s[:, :, None, None]

    class ChannelLast(nn.Module):  # ConvNeXt's block: depthwise conv, then everything on NHWC
        def __init__(self, c):
            super().__init__()
            self.dw = nn.Conv2d(c, c, 7, padding=3, groups=c)
            self.norm = nn.LayerNorm(c)
            self.up = nn.Linear(c, 4 * c)
            self.down = nn.Linear(4 * c, c)

        def forward(self, x):
            y = self.dw(x).permute(0, 2, 3, 1)
            y = self.down(nn.functional.gelu(self.up(self.norm(y))))
            return x + y.permute(0, 3, 1, 2)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Conv2d(3, 16, 3, stride=2, padding=1)
            self.dw = nn.Conv2d(16, 16, 3, padding=1, groups=16)
            self.pw = nn.Conv2d(16, 24, 1)
            self.se = SE(24)
            self.block = ChannelLast(24)
            self.head = nn.Linear(24, 10)

        def forward(self, x):
            y = nn.functional.hardswish(self.stem(x))
            y = self.se(nn.functional.hardswish(self.pw(nn.functional.hardswish(self.dw(y)))))
            return self.head(self.block(y).mean((2, 3)))

    return Net(), (torch.randn(2, 3, 24, 24),), ["image"], ["logits"], 13


def residual():
    from torch import nn

    class Block(nn.Module):
        def __init__(self, c_in, c, stride):
            super().__init__()
            self.a = nn.Conv2d(c_in, c, 3, stride=stride, padding=1, bias=False)
            self.an = nn.BatchNorm2d(c)
            self.b = nn.Conv2d(c, c, 3, padding=1, bias=False)
            self.bn = nn.BatchNorm2d(c)
            self.short = nn.Conv2d(c_in, c, 1, stride=stride) if stride != 1 or c_in != c else nn.Identity()

        def forward(self, x):
            return torch.relu(self.short(x) + self.bn(self.b(torch.relu(self.an(self.a(x))))))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Conv2d(3, 64, 3, padding=1)
            self.blocks = nn.Sequential(Block(64, 64, 1), Block(64, 64, 1), Block(64, 128, 2), Block(128, 128, 1))
            self.head = nn.Linear(128, 10)

        def forward(self, x):
            return self.head(self.blocks(torch.relu(self.stem(x))).mean((2, 3)))

    net = Net()
    for m in net.modules():  # running statistics that are not the identity, so BatchNorm's folding is checked
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.2, 0.2)
            m.running_var.uniform_(0.5, 1.5)
    return net, (torch.randn(2, 3, 32, 32),), ["image"], ["logits"], 13


def qdq():
    from torch import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3, padding=1)
            self.fc = nn.Linear(8 * 8 * 8, 10)

        def forward(self, x):
            x = torch.fake_quantize_per_tensor_affine(x, 0.02, 128, 0, 255)
            w = torch.fake_quantize_per_channel_affine(self.conv.weight, self.w_scale, self.w_zero, 0, -128, 127)
            h = torch.relu(nn.functional.conv2d(x, w, self.conv.bias, padding=1))
            h = torch.fake_quantize_per_tensor_affine(h, 0.01, 0, 0, 255)
            return self.fc(h.flatten(1))

    net = Net()
    net.w_scale = (net.conv.weight.abs().amax((1, 2, 3)) / 127).detach()
    net.w_zero = torch.zeros(8, dtype=torch.int32)
    return net, (torch.rand(2, 3, 8, 8) * 4 - 2,), ["image"], ["logits"], 13


def warp():
    from torch import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.loc = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                                     nn.Flatten(), nn.Linear(8, 6))
            self.flow = nn.Conv2d(3, 2, 3, padding=1)

        def forward(self, x):
            n, _, h, w = x.shape
            theta = self.loc(x).view(-1, 2, 3) * 0.1 + torch.tensor([[1.0, 0, 0], [0, 1.0, 0]])
            ys, xs = torch.meshgrid(torch.linspace(-1, 1, h), torch.linspace(-1, 1, w), indexing="ij")
            base = torch.stack((xs, ys), -1).unsqueeze(0).expand(n, h, w, 2)
            homog = torch.cat((base, torch.ones(n, h, w, 1)), -1).reshape(n, h * w, 3)  # affine_grid, by hand
            grid = torch.bmm(homog, theta.transpose(1, 2)).reshape(n, h, w, 2)
            y = nn.functional.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False)
            offset = torch.tanh(self.flow(y)).permute(0, 2, 3, 1) * 0.2
            return nn.functional.grid_sample(y, base + offset, mode="bicubic", padding_mode="border",
                                             align_corners=True)

    return Net(), (torch.randn(2, 3, 12, 16),), ["image"], ["warped"], 16


def vad():
    """A VAD-style streaming model as torch.jit.script exports its Python ifs: an If on the sample-rate input with an
    If inside it on the features' mean, an LSTM cell in one branch; the recurrent state in and out. As in Silero VAD
    v5, the 8 kHz branch cuts the window into frames that only its own window size fills (256 samples), so at the
    16 kHz window of 512 samples its shapes are invalid: that branch cannot be planned, only the other run."""
    from torch import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = nn.Conv1d(1, 8, 5, stride=2, padding=2)
            self.rnn = nn.LSTMCell(8, 16)
            self.head = nn.Linear(16, 1)
            self.alt = nn.Linear(8, 16)

        def forward(self, x, sr, h, c):
            feats = torch.relu(self.enc(x.unsqueeze(1))).mean(-1)
            if bool((sr == 16000).all()):
                if bool(feats.mean() > 0.1):
                    h2, c2 = self.rnn(feats, (h, c))
                else:
                    h2, c2 = torch.tanh(self.alt(feats)) + h, c
            else:
                frames = x.view(1, 2, 128)
                h2, c2 = h * 0.5 + frames.mean(2).mean(1, keepdim=True), c * 0.5
            return torch.sigmoid(self.head(h2)), h2, c2

    inputs = (torch.randn(1, 512), torch.tensor(16000), torch.randn(1, 16) * 0.1, torch.randn(1, 16) * 0.1)
    return torch.jit.script(Net()), inputs, ["x", "sr", "h", "c"], ["speech", "hn", "cn"], 14


def listloop():
    from typing import List
    from torch import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3, padding=1)
            self.head = nn.Linear(8, 4)

        def forward(self, clip):
            feats: List[torch.Tensor] = []
            for t in range(clip.size(1)):
                f = torch.relu(self.conv(clip[:, t]))
                feats.append(f.mean(dim=(2, 3)))
            stacked = torch.stack(feats, 1)
            parts = torch.split(stacked, 2, dim=2)
            total = parts[0]
            for k in range(1, len(parts)):
                total = total + parts[k]
            return self.head(stacked), feats[-1] * len(feats), total

    return torch.jit.script(Net()), (torch.randn(2, 5, 3, 8, 8),), ["clip"], ["logits", "last", "total"], 14, \
        {"clip": {1: "frames"}}


def conformer():
    batch, frames, feats, d = 2, 40, 20, 32
    nn = torch.nn

    def feed_forward():
        return nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.SiLU(), nn.Linear(4 * d, d))

    class Conformer(nn.Module):
        def __init__(self):
            super().__init__()
            self.front = nn.Conv1d(feats, d, 3, padding=1)
            self.inorm = nn.InstanceNorm1d(d, affine=True)
            self.ff1, self.ff2 = feed_forward(), feed_forward()
            self.anorm = nn.LayerNorm(d)
            self.attn = nn.MultiheadAttention(d, 4, batch_first=True)
            self.cnorm = nn.LayerNorm(d)
            self.pw1 = nn.Conv1d(d, 2 * d, 1)
            self.glu = nn.GLU(dim=1)
            self.dw = nn.Conv1d(d, d, 15, padding=7, groups=d)
            self.gn = nn.GroupNorm(4, d)
            self.pw2 = nn.Conv1d(d, d, 1)
            self.out_norm = nn.LayerNorm(d)
            self.head = nn.Linear(d, 10)

        def forward(self, x):                                  # x [batch, feats, frames]
            h = self.inorm(self.front(x)).transpose(1, 2)       # [batch, frames, d]
            h = h + 0.5 * self.ff1(h)
            a = self.anorm(h)
            h = h + self.attn(a, a, a, need_weights=False)[0]
            c = self.glu(self.pw1(self.cnorm(h).transpose(1, 2)))
            c = torch.nn.functional.silu(self.gn(self.dw(c)))
            h = h + self.pw2(c).transpose(1, 2)
            h = h + 0.5 * self.ff2(h)
            return self.head(self.out_norm(h))

    m = Conformer()
    for mod in (m.inorm, m.gn):  # affine parameters that are not the identity
        mod.weight.data.uniform_(0.5, 1.5)
        mod.bias.data.uniform_(-0.2, 0.2)
    return m, (torch.randn(batch, feats, frames),), ["features"], ["logits"], 14


def fp16():
    nn = torch.nn

    class Add(nn.Module):  # a module, so that its sum is rounded where the ONNX Add's is
        def forward(self, a, b):
            return a + b

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1, self.relu1, self.pool = nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2)
            self.conv2, self.relu2, self.add = nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(), Add()
            self.conv3, self.relu3 = nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU()
            self.gap, self.flat, self.fc = nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10)

        def forward(self, x):
            y = self.pool(self.relu1(self.conv1(x)))
            s = self.add(y, self.relu2(self.conv2(y)))
            return self.fc(self.flat(self.gap(self.relu3(self.conv3(s)))))

    m = Net()
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(p.half().float())
    return m, (torch.randn(2, 3, 16, 16).half().float(),), ["image"], ["logits"], 13


def half_outputs(model):
    """Every module's output rounded to FLOAT16 (forward hooks), as the half-precision graph rounds each op's."""
    for mod in model.modules():
        if not list(mod.children()):
            mod.register_forward_hook(lambda mod, args, out: out.half().float())


def detector(kind):
    from collections import OrderedDict
    from torch import nn
    from torchvision.models.detection import FasterRCNN, KeypointRCNN, MaskRCNN, RetinaNet
    from torchvision.models.detection.keypoint_rcnn import KeypointRCNNHeads, KeypointRCNNPredictor
    from torchvision.models.detection.anchor_utils import AnchorGenerator, DefaultBoxGenerator
    from torchvision.models.detection.faster_rcnn import TwoMLPHead, FastRCNNPredictor
    from torchvision.models.detection.mask_rcnn import MaskRCNNHeads, MaskRCNNPredictor
    from torchvision.models.detection.ssd import SSD, SSDHead
    from torchvision.ops import MultiScaleRoIAlign

    def backbone():
        b = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(), nn.Conv2d(8, 16, 3, stride=2, padding=1),
                          nn.ReLU())
        b.out_channels = 16
        return b

    class Features(nn.Module):  # SSD's two feature maps, 16 x 16 and 8 x 8
        def __init__(self):
            super().__init__()
            self.a = nn.Conv2d(3, 8, 3, stride=2, padding=1)
            self.b = nn.Conv2d(8, 16, 3, stride=2, padding=1)
            self.c = nn.Conv2d(16, 16, 3, stride=2, padding=1)

        def forward(self, x):
            b = torch.relu(self.b(torch.relu(self.a(x))))
            return OrderedDict([("0", b), ("1", torch.relu(self.c(b)))])

    anchors = AnchorGenerator(sizes=((8, 16),), aspect_ratios=((0.5, 1.0, 2.0),))
    rpn = dict(rpn_anchor_generator=anchors, min_size=64, max_size=64, rpn_pre_nms_top_n_test=60,
               rpn_post_nms_top_n_test=30, box_roi_pool=MultiScaleRoIAlign(["0"], 7, 2),
               box_head=TwoMLPHead(16 * 49, 32), box_predictor=FastRCNNPredictor(32, 5), box_score_thresh=0.0)
    if kind == "frcnn":
        m = FasterRCNN(backbone(), num_classes=None, box_detections_per_img=12, **rpn)
    elif kind == "maskrcnn":
        m = MaskRCNN(backbone(), num_classes=None, box_detections_per_img=6, mask_roi_pool=MultiScaleRoIAlign(["0"], 14, 2),
                     mask_head=MaskRCNNHeads(16, (16,), 1), mask_predictor=MaskRCNNPredictor(16, 16, 5), **rpn)
    elif kind == "keypoint":  # real-valued heatmaps: each keypoint's peak found at its detection's size
        m = KeypointRCNN(backbone(), num_classes=None, box_detections_per_img=6, num_keypoints=None,
                         keypoint_roi_pool=MultiScaleRoIAlign(["0"], 14, 2), keypoint_head=KeypointRCNNHeads(16, (16,)),
                         keypoint_predictor=KeypointRCNNPredictor(16, 5), **rpn)
    elif kind == "retinanet":
        m = RetinaNet(backbone(), num_classes=5, anchor_generator=anchors, score_thresh=0.0, detections_per_img=12,
                      topk_candidates=40, min_size=64, max_size=64)
    else:
        boxes = DefaultBoxGenerator([[2], [2, 3]])
        m = SSD(Features(), boxes, (64, 64), num_classes=5, head=SSDHead([16, 16], boxes.num_anchors_per_location(), 5),
                score_thresh=0.0, detections_per_img=12, topk_candidates=40)
    deep = kind in ("retinanet", "ssd")  # deeper heads: scaled initialisation, smaller class logits (no ties at 1.0)
    for mod in m.modules():
        if isinstance(mod, (nn.Conv2d, nn.Linear)):
            if deep:
                nn.init.kaiming_normal_(mod.weight, nonlinearity="relu")
            else:
                nn.init.normal_(mod.weight, 0.0, 0.3)
            if mod.bias is not None:
                nn.init.normal_(mod.bias, 0.0, 0.1)
    if kind == "retinanet":
        m.head.classification_head.cls_logits.weight.data *= 0.05
    if kind == "ssd":
        for conv in m.head.classification_head.module_list:
            conv.weight.data *= 0.2
    image = torch.rand(3, 64, 64)

    class Outputs(nn.Module):  # the first image's detections as a tuple: boxes, labels, scores, then masks or keypoints
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, image):
            y = self.m([image])[0]
            return tuple(y[k] for k in ("boxes", "labels", "scores", "masks", "keypoints", "keypoints_scores")
                         if k in y)

    names = ["boxes", "labels", "scores"] + (["masks"] if kind == "maskrcnn" else []) + \
        (["keypoints", "keypoints_scores"] if kind == "keypoint" else [])
    return Outputs(m), (image,), ["image"], names, 11


kind, out_dir = sys.argv[1], sys.argv[2]
kinds = {"encoder": encoder, "vit": vit, "speech": speech, "video": video, "segment": segment, "squeeze": squeeze,
         "residual": residual, "qdq": qdq, "warp": warp, "vad": vad, "listloop": listloop, "conformer": conformer,
         "fp16": fp16}
for d in ("frcnn", "retinanet", "ssd", "maskrcnn", "keypoint"):
    kinds[d] = lambda d=d: detector(d)
model, inputs, in_names, out_names, opset, *dynamic = kinds[kind]()
model = model.train(False)
torch.onnx.export(model, inputs, os.path.join(out_dir, "model.onnx"), input_names=in_names, output_names=out_names,
                  opset_version=opset, dynamic_axes=dynamic[0] if dynamic else None)
if kind == "fp16":  # the file in half precision, as the float16 converter writes it; torch rounding alike
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "bench", "peers"))
    from to_float16 import main as to_float16
    to_float16(os.path.join(out_dir, "model.onnx"), os.path.join(out_dir, "model.onnx"))
    half_outputs(model)
with torch.no_grad():
    outputs = model(*inputs)
if isinstance(outputs, torch.Tensor):
    outputs = (outputs,)
data = os.path.join(out_dir, "test_data_set_0")
os.makedirs(data, exist_ok=True)
for k, t in enumerate(inputs):
    with open(os.path.join(data, f"input_{k}.pb"), "wb") as f:
        f.write(numpy_helper.from_array(t.detach().numpy()).SerializeToString())
for k, t in enumerate(outputs):
    with open(os.path.join(data, f"output_{k}.pb"), "wb") as f:
        f.write(numpy_helper.from_array(t.detach().numpy()).SerializeToString())
if kind == "vad":  # the same inputs at 8 kHz: the branch that cannot run at 512 samples (torch would fail too)
    other = os.path.join(out_dir, "test_data_set_8k")
    os.makedirs(other, exist_ok=True)
    for k, t in enumerate(inputs):
        with open(os.path.join(other, f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array((torch.tensor(8000) if k == 1 else t).detach().numpy()).SerializeToString())
