# classes.sh — the model classes exported from torch here (tests/data/oracle/export.py KIND DIR), one row each:
# kind | the class | what the export holds | the plan's options (the inputs' named dims). Sourced by
# bench/coverage.sh (plan, check, torch's outputs) and bench/class-timing.sh (time beside ONNX Runtime).

# class_export KIND DIR: the class's export (its model, inputs and torch's outputs) into DIR.
class_export() { mkdir -p "$2" && /usr/bin/python3 tests/data/oracle/export.py "$1" "$2" > /dev/null 2>&1; }

# shellcheck disable=SC2034
classes=(
    "encoder|transformer encoder with a padding mask|token embedding, 2 TransformerEncoder layers, a real mask (padded from 6 and 9)"
    "speech|recurrent speech model (LSTM, GRU, RNN)|Conv1d, 2-layer bidirectional LSTM (batch first), GRU with an initial state, reversed RNN; every state an output"
    "video|3-D video ResNet|Conv3d stem, BatchNorm3d, MaxPool3d, residual 3x3x3 blocks, AvgPool3d, ConvTranspose3d"
    "segment|segmentation with large dilations|ASPP: 1x1, 3x3 at dilations 12/24/36 on an 8x8 map, image pooling, bilinear resize"
    "squeeze|squeeze-excite and channel-last CNN|depthwise/pointwise convs, HardSwish at opset 13, squeeze-excite, ConvNeXt block on NHWC"
    "frcnn|Faster R-CNN (torchvision)|RPN, anchors, NonZero, TopK with computed K, NMS, RoiAlign, data-dependent Ifs"
    "retinanet|RetinaNet (torchvision)|anchors, per-level TopK, GatherND, batched NMS"
    "ssd|SSD (torchvision)|two feature maps, default boxes, per-class NonZero/TopK/NMS"
    "maskrcnn|Mask R-CNN (torchvision)|Faster R-CNN plus mask head; masks pasted by a Loop over the detections"
    "keypoint|Keypoint R-CNN (torchvision)|Faster R-CNN plus keypoint heatmaps, each resized in a Loop to its box"
    "vad|VAD-style model with nested Ifs|torch.jit.script's Ifs on a sample-rate input and the features, an LSTM cell"
    "qdq|quantized CNN (QDQ)|QuantizeLinear/DequantizeLinear per tensor (uint8) and per channel (int8 weights)"
    "warp|spatial transformer and flow warp (GridSample)|an affine grid, GridSample bilinear, then bicubic by a flow"
    "listloop|model with a Python list in a loop (sequences)|a Loop over a clip's frames appends to a list; \
torch.stack, list[-1], len(list), a torch.split list summed|--dim frames=5"
    "conformer|speech conformer (GLU, depthwise 1-D, GroupNorm, InstanceNorm)|Conv1d and InstanceNorm1d front end, \
SiLU feed-forwards, self-attention, pointwise Conv1d, GLU, depthwise Conv1d of 15 taps, GroupNorm"
    "fp16|half-precision CNN (FLOAT16)|as the float16 converter writes it (its Casts after the nodes): Conv, Relu, \
MaxPool, a residual Add, GlobalAveragePool, Gemm; torch rounding each module's output to FLOAT16"
)
