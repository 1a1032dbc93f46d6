// Image classifiers of the catalog: LeNet-5, ResNet-18/50, MobileNetV3-Large, VGG-11/16.
// Layer configurations follow torchvision's model definitions (and LeCun et al. 1998 for LeNet).
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/workload/architectures.hpp"

namespace fulcrum::models::architectures {

namespace {

constexpr double kFp32Bytes = 4;
constexpr std::int64_t kImageNetClasses = 1000;

// conv (no bias) -> batch norm -> optional activation: the unit torchvision and Ultralytics
// repeat everywhere.
LayerId conv_bn(LayerGraph& g, LayerId x, const std::string& name, const Conv2dOptions& o,
                const std::string& bn_name, std::optional<Activation> act,
                const std::string& act_name) {
  x = g.conv2d(x, name, o);
  x = g.batchnorm(x, bn_name);
  if (act) x = g.activation(x, act_name, *act);
  return x;
}

GraphWorkload image_classifier(std::string name, LayerGraph g, std::string note) {
  const double input_bytes = kFp32Bytes * g.shape(0).elements();
  return GraphWorkload(std::move(name), "classification", std::move(g), input_bytes,
                       std::move(note));
}

// ---- ResNet ----

LayerId basic_block(LayerGraph& g, LayerId x, const std::string& p, std::int64_t planes,
                    std::int64_t stride) {
  const auto in_channels = g.shape(x)[0];
  auto y = conv_bn(g, x, p + ".conv1",
                   {.out_channels = planes, .kernel = 3, .stride = stride, .padding = 1},
                   p + ".bn1", Activation::relu, p + ".relu1");
  y = conv_bn(g, y, p + ".conv2", {.out_channels = planes, .kernel = 3, .padding = 1}, p + ".bn2",
              std::nullopt, "");
  auto shortcut = x;
  if (stride != 1 || in_channels != planes)
    shortcut =
        conv_bn(g, x, p + ".downsample.0", {.out_channels = planes, .kernel = 1, .stride = stride},
                p + ".downsample.1", std::nullopt, "");
  y = g.add(y, shortcut, p + ".add");
  return g.activation(y, p + ".relu2", Activation::relu);
}

LayerId bottleneck(LayerGraph& g, LayerId x, const std::string& p, std::int64_t planes,
                   std::int64_t stride) {
  constexpr std::int64_t kExpansion = 4;
  const auto in_channels = g.shape(x)[0];
  auto y = conv_bn(g, x, p + ".conv1", {.out_channels = planes, .kernel = 1}, p + ".bn1",
                   Activation::relu, p + ".relu1");
  y = conv_bn(g, y, p + ".conv2",
              {.out_channels = planes, .kernel = 3, .stride = stride, .padding = 1}, p + ".bn2",
              Activation::relu, p + ".relu2");
  y = conv_bn(g, y, p + ".conv3", {.out_channels = planes * kExpansion, .kernel = 1}, p + ".bn3",
              std::nullopt, "");
  auto shortcut = x;
  if (stride != 1 || in_channels != planes * kExpansion)
    shortcut = conv_bn(g, x, p + ".downsample.0",
                       {.out_channels = planes * kExpansion, .kernel = 1, .stride = stride},
                       p + ".downsample.1", std::nullopt, "");
  y = g.add(y, shortcut, p + ".add");
  return g.activation(y, p + ".relu3", Activation::relu);
}

template <typename Block>
LayerGraph resnet(const std::array<int, 4>& blocks, Block block) {
  LayerGraph g;
  auto x = g.input({3, 224, 224});
  x = conv_bn(g, x, "conv1", {.out_channels = 64, .kernel = 7, .stride = 2, .padding = 3}, "bn1",
              Activation::relu, "relu");
  x = g.max_pool(x, "maxpool", 3, 2, 1);
  const std::array<std::int64_t, 4> planes = {64, 128, 256, 512};
  for (std::size_t stage = 0; stage < 4; ++stage) {
    for (int i = 0; i < blocks[stage]; ++i) {
      const std::int64_t stride = (stage > 0 && i == 0) ? 2 : 1;
      x = block(g, x, "layer" + std::to_string(stage + 1) + "." + std::to_string(i), planes[stage],
                stride);
    }
  }
  x = g.global_avg_pool(x, "avgpool");
  x = g.flatten(x, "flatten");
  g.linear(x, "fc", kImageNetClasses);
  return g;
}

// ---- MobileNetV3 ----

// torchvision's _make_divisible: round to a multiple of 8, never dropping more than 10%.
std::int64_t make_divisible(double v, std::int64_t divisor = 8) {
  std::int64_t r = std::max<std::int64_t>(
      divisor,
      static_cast<std::int64_t>(v + static_cast<double>(divisor) / 2.0) / divisor * divisor);
  if (static_cast<double>(r) < 0.9 * static_cast<double>(v)) r += divisor;
  return r;
}

struct InvertedResidual {
  std::int64_t kernel;
  std::int64_t expanded;
  std::int64_t out;
  bool se;
  Activation act;
  std::int64_t stride;
};

// ---- VGG ----

constexpr std::int64_t kPool = 0;  // 'M' in torchvision's configuration lists

LayerGraph vgg(const std::vector<std::int64_t>& config) {
  LayerGraph g;
  auto x = g.input({3, 224, 224});
  int layer_index = 0;  // torchvision numbers features.N over convs, ReLUs and pools together
  for (auto c : config) {
    if (c == kPool) {
      x = g.max_pool(x, "features." + std::to_string(layer_index++) + ".maxpool", 2, 2);
      continue;
    }
    x = g.conv2d(x, "features." + std::to_string(layer_index++) + ".conv",
                 {.out_channels = c, .kernel = 3, .padding = 1, .bias = true});
    x = g.activation(x, "features." + std::to_string(layer_index++) + ".relu", Activation::relu);
  }
  // AdaptiveAvgPool2d((7, 7)) is the identity on a 224x224 input's 7x7 feature map.
  x = g.flatten(x, "flatten");
  x = g.linear(x, "classifier.0", 4096);
  x = g.activation(x, "classifier.1", Activation::relu);
  x = g.linear(x, "classifier.3", 4096);
  x = g.activation(x, "classifier.4", Activation::relu);
  g.linear(x, "classifier.6", kImageNetClasses);
  return g;
}

}  // namespace

GraphWorkload lenet5() {
  LayerGraph g;
  auto x = g.input({1, 32, 32});
  x = g.conv2d(x, "conv1", {.out_channels = 6, .kernel = 5, .bias = true});
  x = g.activation(x, "relu1", Activation::relu);
  x = g.max_pool(x, "pool1", 2, 2);
  x = g.conv2d(x, "conv2", {.out_channels = 16, .kernel = 5, .bias = true});
  x = g.activation(x, "relu2", Activation::relu);
  x = g.max_pool(x, "pool2", 2, 2);
  x = g.flatten(x, "flatten");
  x = g.linear(x, "fc1", 120);
  x = g.activation(x, "relu3", Activation::relu);
  x = g.linear(x, "fc2", 84);
  x = g.activation(x, "relu4", Activation::relu);
  g.linear(x, "fc3", 10);
  return image_classifier("lenet5", std::move(g),
                          "LeNet-5 on 1x32x32 (MNIST padded), ReLU and max-pooling, 10 classes");
}

GraphWorkload resnet18() {
  return image_classifier("resnet18", resnet({2, 2, 2, 2}, basic_block),
                          "torchvision resnet18, 3x224x224, 1000 classes");
}

GraphWorkload resnet50() {
  return image_classifier("resnet50", resnet({3, 4, 6, 3}, bottleneck),
                          "torchvision resnet50 (v1.5), 3x224x224, 1000 classes");
}

GraphWorkload mobilenetv3_large() {
  using A = Activation;
  // torchvision's inverted_residual_setting for "mobilenet_v3_large" (input channels follow).
  const std::vector<InvertedResidual> setting = {
      {3, 16, 16, false, A::relu, 1},       {3, 64, 24, false, A::relu, 2},
      {3, 72, 24, false, A::relu, 1},       {5, 72, 40, true, A::relu, 2},
      {5, 120, 40, true, A::relu, 1},       {5, 120, 40, true, A::relu, 1},
      {3, 240, 80, false, A::hardswish, 2}, {3, 200, 80, false, A::hardswish, 1},
      {3, 184, 80, false, A::hardswish, 1}, {3, 184, 80, false, A::hardswish, 1},
      {3, 480, 112, true, A::hardswish, 1}, {3, 672, 112, true, A::hardswish, 1},
      {5, 672, 160, true, A::hardswish, 2}, {5, 960, 160, true, A::hardswish, 1},
      {5, 960, 160, true, A::hardswish, 1},
  };
  LayerGraph g;
  auto x = g.input({3, 224, 224});
  x = conv_bn(g, x, "features.0.conv", {.out_channels = 16, .kernel = 3, .stride = 2, .padding = 1},
              "features.0.bn", A::hardswish, "features.0.hardswish");
  int index = 1;
  for (const auto& s : setting) {
    const std::string p = "features." + std::to_string(index++);
    const auto in_channels = g.shape(x)[0];
    auto y = x;
    if (s.expanded != in_channels)
      y = conv_bn(g, y, p + ".expand", {.out_channels = s.expanded, .kernel = 1}, p + ".expand.bn",
                  s.act, p + ".expand.act");
    y = conv_bn(g, y, p + ".depthwise",
                {.out_channels = s.expanded,
                 .kernel = s.kernel,
                 .stride = s.stride,
                 .padding = (s.kernel - 1) / 2,
                 .groups = s.expanded},
                p + ".depthwise.bn", s.act, p + ".depthwise.act");
    if (s.se)
      y = g.squeeze_excite(y, p + ".se", make_divisible(static_cast<double>(s.expanded) / 4.0));
    y = conv_bn(g, y, p + ".project", {.out_channels = s.out, .kernel = 1}, p + ".project.bn",
                std::nullopt, "");
    if (s.stride == 1 && in_channels == s.out) y = g.add(y, x, p + ".add");
    x = y;
  }
  const std::string last = "features." + std::to_string(index);
  x = conv_bn(g, x, last + ".conv", {.out_channels = 960, .kernel = 1}, last + ".bn", A::hardswish,
              last + ".hardswish");
  x = g.global_avg_pool(x, "avgpool");
  x = g.flatten(x, "flatten");
  x = g.linear(x, "classifier.0", 1280);
  x = g.activation(x, "classifier.1", A::hardswish);
  g.linear(x, "classifier.3", kImageNetClasses);
  return image_classifier("mobilenetv3-large", std::move(g),
                          "torchvision mobilenet_v3_large, 3x224x224, 1000 classes");
}

GraphWorkload vgg11() {
  return image_classifier(
      "vgg11", vgg({64, kPool, 128, kPool, 256, 256, kPool, 512, 512, kPool, 512, 512, kPool}),
      "torchvision vgg11 (configuration A, no batch norm), 3x224x224, classifier included");
}

GraphWorkload vgg16() {
  return image_classifier("vgg16",
                          vgg({64, 64, kPool, 128, 128, kPool, 256, 256, 256, kPool, 512, 512, 512,
                               kPool, 512, 512, 512, kPool}),
                          "torchvision vgg16 (configuration D, no batch norm), 3x224x224, "
                          "classifier included");
}

}  // namespace fulcrum::models::architectures
