// Builders of the catalog's DNNs as layer graphs, from their public architectures. Each returns a
// finished GraphWorkload; WorkloadCatalog owns one of each.
#pragma once

#include "models/workload/graph_workload.hpp"

namespace fulcrum::models::architectures {

// LeNet-5 on a 1x32x32 input: two 5x5 conv + ReLU + 2x2 max-pool stages, then 120-84-10 FC.
GraphWorkload lenet5();
// torchvision ResNet-18 / ResNet-50 (v1.5: stride on the 3x3 conv), 3x224x224, 1000 classes.
GraphWorkload resnet18();
GraphWorkload resnet50();
// torchvision MobileNetV3-Large (SE blocks, hardswish), 3x224x224, 1000 classes.
GraphWorkload mobilenetv3_large();
// torchvision VGG-11 / VGG-16 without batch norm, classifier included, 3x224x224.
GraphWorkload vgg11();
GraphWorkload vgg16();
// Ultralytics YOLOv8n (depth 0.33, width 0.25): C2f backbone, SPPF, PAN neck, anchor-free
// detect head for 80 classes, 3x640x640.
GraphWorkload yolov8n();
// BERT-base / BERT-large for extractive QA on a 128-token sequence: embeddings, encoder blocks,
// pooler (part of the published model), span-start/end head.
GraphWorkload bert_base();
GraphWorkload bert_large();
// Word-level LSTM language model (Zaremba et al. "medium"): vocabulary 10,000, embedding 650,
// two LSTM layers of hidden 650, decoder to the vocabulary, sequences of 35 tokens, untied.
GraphWorkload lstm();

}  // namespace fulcrum::models::architectures
