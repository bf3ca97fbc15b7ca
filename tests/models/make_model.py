#!/usr/bin/python3
"""Builds a test or benchmark model with PyTorch (random weights, no downloads), exports it to
ONNX, and writes an input and PyTorch's output for it.

  /usr/bin/python3 tests/models/make_model.py NAME OUT_DIR [--seed S]

NAME: small_cnn (every CNN operator the graph layer covers, in seconds), mlp (three dense
layers, two of them of 16 and 8 outputs), pointwise (three 1x1 convolutions of 24 and 40
outputs), resnet18, resnet50,
mobilenet_v2 (torchvision, random weights), encoder (torch.nn.TransformerEncoderLayer, 256
wide, 4 heads, ReLU), encoder_gelu (the same with GELU), bert_layer (BERT-base sizes, GELU).
Writes OUT_DIR/NAME.onnx, OUT_DIR/NAME.input.bin and OUT_DIR/NAME.expected.bin (float32,
little-endian, row-major).
"""
import argparse
import os
import sys

import torch
import torch.nn as nn


class SmallCnn(nn.Module):
    """Conv + BN + ReLU, max pool, a residual block, a strided conv with a 1x1 downsample, a
    depthwise conv + ReLU6 (Clip), an average pool, global pooling, flatten and a linear layer,
    with channel counts that 16 divides and ones it does not (24)."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1, bias=False),
                                  nn.BatchNorm2d(16), nn.ReLU())
        self.pool = nn.MaxPool2d(3, stride=2, padding=1)
        self.c1 = nn.Sequential(nn.Conv2d(16, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
                                nn.Conv2d(16, 16, 3, padding=1), nn.BatchNorm2d(16))
        self.c2 = nn.Sequential(nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32))
        self.down = nn.Conv2d(16, 32, 1, stride=2)
        self.dw = nn.Sequential(nn.Conv2d(32, 32, 3, padding=1, groups=32), nn.BatchNorm2d(32),
                                nn.ReLU6(), nn.Conv2d(32, 24, 1), nn.BatchNorm2d(24))
        self.avg = nn.AvgPool2d(2)
        self.fc = nn.Linear(24, 10)

    def forward(self, x):
        x = self.pool(self.stem(x))
        x = torch.relu(self.c1(x) + x)
        x = torch.relu(self.c2(x) + self.down(x))
        x = self.avg(self.dw(x))
        x = torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1)
        return self.fc(x)


class Mlp(nn.Module):
    """Dense layers of 16 and 8 outputs (both also tuned with the weight in pairs of inputs,
    graph/dense_pairs.h), the first with a ReLU, and one of 10 outputs (not: 10 is not a multiple
    of 8), over 64 rows."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(32, 16)
        self.fc2 = nn.Linear(16, 8)
        self.fc3 = nn.Linear(8, 10)

    def forward(self, x):
        return self.fc3(self.fc2(torch.relu(self.fc1(x))))


class Pointwise(nn.Module):
    """1x1 convolutions of 24 and 40 output channels (also tuned with their filter in pairs of
    input channels, graph/dense_pairs.h): with batch norm and ReLU6, with batch norm, and with a
    residual add and ReLU, over 8x8 pixels."""

    def __init__(self):
        super().__init__()
        self.a = nn.Sequential(nn.Conv2d(32, 24, 1), nn.BatchNorm2d(24), nn.ReLU6())
        self.b = nn.Sequential(nn.Conv2d(24, 40, 1), nn.BatchNorm2d(40))
        self.c = nn.Conv2d(40, 40, 1)

    def forward(self, x):
        y = self.b(self.a(x))
        return torch.relu(self.c(y) + y)


def build(name):
    if name == "small_cnn":
        return SmallCnn(), torch.randn(1, 3, 32, 32)
    if name == "mlp":
        return Mlp(), torch.randn(64, 32)
    if name == "pointwise":
        return Pointwise(), torch.randn(1, 32, 8, 8)
    if name in ("encoder", "encoder_gelu", "bert_layer"):
        # bert_layer: BERT-base's sizes (768 wide, 12 heads, 3072 inner, GELU) at 128 tokens.
        d, heads, inner = (768, 12, 3072) if name == "bert_layer" else (256, 4, 1024)
        layer = nn.TransformerEncoderLayer(d_model=d, nhead=heads, dim_feedforward=inner,
                                           dropout=0.0, batch_first=True,
                                           activation="relu" if name == "encoder" else "gelu")
        return layer, torch.randn(1, 128, d)
    import torchvision
    if name in ("resnet18", "resnet50", "mobilenet_v2"):
        return getattr(torchvision.models, name)(weights=None), torch.randn(1, 3, 224, 224)
    sys.exit("unknown model " + name)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("name")
    p.add_argument("out_dir")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    torch.manual_seed(a.seed)
    model, x = build(a.name)
    model.eval()
    # Random batch-norm statistics, so folding them is tested for real.
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.5, 0.5)
    os.makedirs(a.out_dir, exist_ok=True)
    base = os.path.join(a.out_dir, a.name)
    with torch.no_grad():
        y = model(x)
    # Exported with autograd on: under no_grad an encoder layer takes PyTorch's fused fast
    # path (aten::_transformer_encoder_layer_fwd), which torch.onnx cannot export.
    torch.onnx.export(model, x, base + ".onnx", opset_version=13, input_names=["input"],
                      output_names=["output"])
    x.numpy().astype("<f4").tofile(base + ".input.bin")
    y.numpy().astype("<f4").tofile(base + ".expected.bin")
    print(base + ".onnx", list(x.shape), "->", list(y.shape))


if __name__ == "__main__":
    main()
