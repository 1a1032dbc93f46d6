#!/usr/bin/python3
"""Exports the catalog's torchvision architectures as weightless ONNX files.

The files are the independent check of the ONNX importer (models/onnx/, tests/models/onnx/):
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


def export(name, build, out_dir, opset):
    torch.manual_seed(0)
    model = build(weights=None).train()
    path = os.path.join(out_dir, name + ".onnx")
    partial = path + ".partial"
    torch.onnx.export(
        model,
        torch.zeros(1, 3, 224, 224),
        partial,
        export_params=False,
        opset_version=opset,
        do_constant_folding=False,
        training=torch.onnx.TrainingMode.TRAINING,
        input_names=["input"],
        output_names=["logits"],
        dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}},
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
