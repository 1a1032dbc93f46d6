#!/usr/bin/python3
"""Exports the catalog's torchvision architectures as weightless ONNX files.

With a small network of the other ops the importer maps (ops-coverage.onnx), the files are the
independent check of the ONNX importer (models/onnx/, tests/models/onnx/):
torchvision's own model definitions, traced by PyTorch's exporter, against the catalog's
hand-written layer graphs (models/workload/cnn_architectures.cpp).

    scripts/export_onnx.py [--out models/data/onnx] [--opset 15]

Needs Debian's python3-torch and python3-torchvision (scripts/install-deps.sh --onnx-export). The
models are built with weights=None and exported with export_params=False: every parameter and
buffer becomes a graph input that carries only its shape, so each file holds the graph alone
(tens of kB, not hundreds of MB). They are exported in training mode, the graph a training step
runs: in eval mode the exporter folds each batch norm into the convolution before it, which the
simulator's training phase does not do. The batch dimension is exported as the dynamic axis
"batch"; nothing else is dynamic.
"""
import argparse
import os
import sys
import warnings

import torch
import torchvision

MODELS = {
    "resnet18": torchvision.models.resnet18,
    "resnet50": torchvision.models.resnet50,
    "mobilenetv3-large": torchvision.models.mobilenet_v3_large,
    "vgg11": torchvision.models.vgg11,
    "vgg16": torchvision.models.vgg16,
}


class OpsCoverage(torch.nn.Module):
    """A small network with the ops the torchvision models above do not have: ReLU6 (Clip),
    sigmoid, concatenation, a reshape whose target is computed from the input's shape, transpose,
    layer norm, a linear layer on a sequence (MatMul and a bias Add), GELU (as Erf), tanh,
    arithmetic by constants, softmax, flatten and a slice. Height and width are dynamic."""

    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 16, 3, padding=1)
        self.c2 = torch.nn.Conv2d(3, 16, 3, padding=1)
        self.ln = torch.nn.LayerNorm(32)
        self.fc = torch.nn.Linear(32, 64)
        self.gelu = torch.nn.GELU()
        self.relu6 = torch.nn.ReLU6()

    def forward(self, x):  # per sample: 3 x 8 x 8
        y = torch.cat([self.relu6(self.c1(x)), torch.sigmoid(self.c2(x))], 1)  # 32 x 8 x 8
        y = y.flatten(2).transpose(1, 2)  # 64 x 32
        y = self.gelu(self.fc(self.ln(y)))  # 64 x 64
        y = y.reshape(y.shape[0], -1, 32)  # 128 x 32
        y = torch.softmax(torch.tanh(y) * 2.0 + 1.0, -1)
        return y.flatten(1)[:, 16:48]  # 32


def export(name, build, out_dir, opset, image=(3, 224, 224), dynamic=None):
    torch.manual_seed(0)
    model = build(weights=None).train()
    path = os.path.join(out_dir, name + ".onnx")
    partial = path + ".partial"
    torch.onnx.export(
        model,
        torch.zeros(1, *image),
        partial,
        export_params=False,
        opset_version=opset,
        do_constant_folding=False,
        training=torch.onnx.TrainingMode.TRAINING,
        input_names=["input"],
        output_names=["logits"],
        dynamic_axes={"input": dynamic or {0: "batch"}, "logits": {0: "batch"}},
    )
    os.replace(partial, path)
    print(f"{path}: {os.path.getsize(path)} bytes")


def main():
    # The exporter warns that a traced training graph drops the running-statistics updates:
    # nothing the importer reads.
    warnings.filterwarnings("ignore", category=UserWarning)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "models",
                                                      "data", "onnx"))
    parser.add_argument("--opset", type=int, default=15)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name, build in MODELS.items():
        export(name, build, args.out, args.opset)
    # LayerNormalization is an ONNX op from opset 17 (before, PyTorch spells it out in
    # reductions), so this one is exported at 17.
    export("ops-coverage", lambda weights: OpsCoverage(), args.out, max(args.opset, 17),
           image=(3, 8, 8), dynamic={0: "batch", 2: "height", 3: "width"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
