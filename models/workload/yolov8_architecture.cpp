// Ultralytics YOLOv8n as a layer graph, from the public yolov8.yaml at scale n (depth 0.33,
// width 0.25, max channels 1024), 80 COCO classes, 3x640x640 input.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "models/workload/architectures.hpp"

namespace fulcrum::models::architectures {

namespace {

constexpr double kDepth = 0.33;
constexpr double kWidth = 0.25;
constexpr std::int64_t kMaxChannels = 1024;
constexpr std::int64_t kClasses = 80;
constexpr std::int64_t kRegMax = 16;  // DFL bins per box side

std::int64_t width(std::int64_t c) {
  // make_divisible(min(c, max_channels) * width, 8)
  const double scaled = static_cast<double>(std::min(c, kMaxChannels)) * kWidth;
  return static_cast<std::int64_t>(std::ceil(scaled / 8.0)) * 8;
}

std::int64_t depth(int n) {
  return std::max<std::int64_t>(static_cast<std::int64_t>(std::lround(n * kDepth)), 1);
}

// Ultralytics Conv: conv (no bias, "same" padding) -> batch norm -> SiLU.
LayerId conv(LayerGraph& g, LayerId x, const std::string& p, std::int64_t out, std::int64_t k,
             std::int64_t s = 1) {
  x = g.conv2d(x, p + ".conv", {.out_channels = out, .kernel = k, .stride = s, .padding = k / 2});
  x = g.batchnorm(x, p + ".bn");
  return g.activation(x, p + ".act", Activation::silu);
}

// C2f: 1x1 conv to 2c channels, split in two halves, n bottlenecks chained on the second half,
// concatenate everything, 1x1 conv to c2.
LayerId c2f(LayerGraph& g, LayerId x, const std::string& p, std::int64_t c2, std::int64_t n,
            bool shortcut) {
  const std::int64_t c = c2 / 2;
  const auto y = conv(g, x, p + ".cv1", 2 * c, 1);
  std::vector<LayerId> parts = {g.slice_channels(y, p + ".chunk0", 0, c),
                                g.slice_channels(y, p + ".chunk1", c, c)};
  for (std::int64_t i = 0; i < n; ++i) {
    const std::string m = p + ".m." + std::to_string(i);
    const auto in = parts.back();
    auto b = conv(g, in, m + ".cv1", c, 3);
    b = conv(g, b, m + ".cv2", c, 3);
    if (shortcut) b = g.add(b, in, m + ".add");
    parts.push_back(b);
  }
  return conv(g, g.concat(parts, p + ".concat"), p + ".cv2", c2, 1);
}

// SPPF: 1x1 conv to c1/2, three chained 5x5 max-pools, concatenate the four, 1x1 conv.
LayerId sppf(LayerGraph& g, LayerId x, const std::string& p, std::int64_t c2) {
  const auto c_half = g.shape(x)[0] / 2;
  std::vector<LayerId> parts = {conv(g, x, p + ".cv1", c_half, 1)};
  for (int i = 0; i < 3; ++i)
    parts.push_back(g.max_pool(parts.back(), p + ".m" + std::to_string(i), 5, 1, 2));
  return conv(g, g.concat(parts, p + ".concat"), p + ".cv2", c2, 1);
}

}  // namespace

GraphWorkload yolov8n() {
  LayerGraph g;
  auto x = g.input({3, 640, 640});
  // Backbone (model.0 - model.9).
  x = conv(g, x, "model.0", width(64), 3, 2);
  x = conv(g, x, "model.1", width(128), 3, 2);
  x = c2f(g, x, "model.2", width(128), depth(3), true);
  x = conv(g, x, "model.3", width(256), 3, 2);
  const auto p3 = c2f(g, x, "model.4", width(256), depth(6), true);
  x = conv(g, p3, "model.5", width(512), 3, 2);
  const auto p4 = c2f(g, x, "model.6", width(512), depth(6), true);
  x = conv(g, p4, "model.7", width(1024), 3, 2);
  x = c2f(g, x, "model.8", width(1024), depth(3), true);
  const auto p5 = sppf(g, x, "model.9", width(1024));
  // Head: top-down then bottom-up path aggregation (model.10 - model.21).
  x = g.upsample(p5, "model.10", 2);
  x = g.concat({x, p4}, "model.11");
  const auto h12 = c2f(g, x, "model.12", width(512), depth(3), false);
  x = g.upsample(h12, "model.13", 2);
  x = g.concat({x, p3}, "model.14");
  const auto out_small = c2f(g, x, "model.15", width(256), depth(3), false);
  x = conv(g, out_small, "model.16", width(256), 3, 2);
  x = g.concat({x, h12}, "model.17");
  const auto out_medium = c2f(g, x, "model.18", width(512), depth(3), false);
  x = conv(g, out_medium, "model.19", width(512), 3, 2);
  x = g.concat({x, p5}, "model.20");
  const auto out_large = c2f(g, x, "model.21", width(1024), depth(3), false);

  // Detect (model.22): per level a box branch (2 Conv + 1x1 conv to 4 x reg_max) and a class
  // branch (2 Conv + 1x1 conv to classes), concatenated.
  const std::vector<LayerId> levels = {out_small, out_medium, out_large};
  const std::int64_t c_box = std::max<std::int64_t>({16, g.shape(out_small)[0] / 4, 4 * kRegMax});
  const std::int64_t c_cls =
      std::max<std::int64_t>(g.shape(out_small)[0], std::min<std::int64_t>(kClasses, 100));
  const std::int64_t outputs = 4 * kRegMax + kClasses;
  std::vector<LayerId> flat;
  std::int64_t anchors = 0;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const std::string p = "model.22.level" + std::to_string(i);
    auto box = conv(g, levels[i], p + ".cv2.0", c_box, 3);
    box = conv(g, box, p + ".cv2.1", c_box, 3);
    box = g.conv2d(box, p + ".cv2.2", {.out_channels = 4 * kRegMax, .kernel = 1, .bias = true});
    auto cls = conv(g, levels[i], p + ".cv3.0", c_cls, 3);
    cls = conv(g, cls, p + ".cv3.1", c_cls, 3);
    cls = g.conv2d(cls, p + ".cv3.2", {.out_channels = kClasses, .kernel = 1, .bias = true});
    const auto both = g.concat({box, cls}, p + ".concat");
    const auto& s = g.shape(both);
    anchors += s[1] * s[2];
    flat.push_back(g.reshape(both, p + ".view", Shape{outputs, s[1] * s[2]}));
  }
  // Decode: distribution focal loss integral (softmax over bins, fixed 1x1 conv) for boxes,
  // sigmoid for classes. dist2bbox and NMS are cheap CPU/GPU glue, not modelled.
  const auto all = g.concat(flat, "model.22.concat", 1);
  auto box = g.slice_channels(all, "model.22.box", 0, 4 * kRegMax);
  box = g.reshape(box, "model.22.dfl.view", Shape{4, anchors, kRegMax});
  box = g.softmax(box, "model.22.dfl.softmax");
  box = g.reshape(box, "model.22.dfl.transpose", Shape{kRegMax, 4, anchors});
  box = g.conv2d(box, "model.22.dfl.conv", {.out_channels = 1, .kernel = 1});
  box = g.reshape(box, "model.22.dfl.out", Shape{4, anchors});
  auto cls = g.slice_channels(all, "model.22.cls", 4 * kRegMax, kClasses);
  cls = g.activation(cls, "model.22.sigmoid", Activation::sigmoid);
  g.concat({box, cls}, "model.22.output");

  const double input_bytes = 4 * g.shape(0).elements();
  return GraphWorkload("yolov8n", "detection", std::move(g), input_bytes,
                       "Ultralytics YOLOv8n (depth 0.33, width 0.25), 3x640x640, 80 classes; "
                       "the DFL conv's 16 fixed weights are counted as parameters, as "
                       "Ultralytics does; NMS not modelled");
}

}  // namespace fulcrum::models::architectures
