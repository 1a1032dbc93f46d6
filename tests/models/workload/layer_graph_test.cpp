#include "models/workload/layer_graph.hpp"

#include <catch2/catch.hpp>

#include "models/error.hpp"

using namespace fulcrum;
using namespace fulcrum::models;

TEST_CASE("conv2d derives shape, parameters and MACs from stride, padding and groups",
          "[layer_graph]") {
  LayerGraph g;
  const auto x = g.input({64, 56, 56});
  const auto c = g.conv2d(x, "c", {.out_channels = 128, .kernel = 3, .stride = 2, .padding = 1});
  CHECK(g.shape(c) == Shape{128, 28, 28});
  CHECK(g.layer(c).params == 128 * 64 * 9);
  CHECK(g.layer(c).macs == Approx(128.0 * 28 * 28 * 64 * 9));

  const auto dw = g.conv2d(
      x, "dw", {.out_channels = 64, .kernel = 5, .padding = 2, .groups = 64, .bias = true});
  CHECK(g.shape(dw) == Shape{64, 56, 56});
  CHECK(g.layer(dw).params == 64 * 25 + 64);
  CHECK(g.layer(dw).param_tensors == 2);
  CHECK(g.layer(dw).macs == Approx(64.0 * 56 * 56 * 25));
  CHECK(g.layer(dw).kernels == 2);
}

TEST_CASE("pooling, upsampling, slicing and concatenation keep channels consistent",
          "[layer_graph]") {
  LayerGraph g;
  const auto x = g.input({16, 40, 40});
  const auto p = g.max_pool(x, "p", 3, 2, 1);
  CHECK(g.shape(p) == Shape{16, 20, 20});
  const auto u = g.upsample(p, "u", 2);
  CHECK(g.shape(u) == Shape{16, 40, 40});
  const auto s = g.slice_channels(x, "s", 8, 8);
  CHECK(g.shape(s) == Shape{8, 40, 40});
  CHECK(g.layer(s).kernels == 0);
  const auto c = g.concat({x, u, s}, "cat");
  CHECK(g.shape(c) == Shape{40, 40, 40});
  CHECK(boost::in_degree(c, g.graph()) == 3);
  const auto gap = g.global_avg_pool(c, "gap");
  CHECK(g.shape(gap) == Shape{40, 1, 1});
  CHECK(g.shape(g.flatten(gap, "f")) == Shape{40});
}

TEST_CASE("linear keeps the token dimension and counts MACs per token", "[layer_graph]") {
  LayerGraph g;
  const auto x = g.input({128, 768});
  const auto l = g.linear(x, "l", 3072);
  CHECK(g.shape(l) == Shape{128, 3072});
  CHECK(g.layer(l).params == 768 * 3072 + 3072);
  CHECK(g.layer(l).macs == Approx(128.0 * 768 * 3072));
}

TEST_CASE("squeeze-excite adds two biased 1x1 convs and scales its input", "[layer_graph]") {
  LayerGraph g;
  const auto x = g.input({72, 28, 28});
  const auto se = g.squeeze_excite(x, "se", 24);
  CHECK(g.shape(se) == Shape{72, 28, 28});
  CHECK(g.layer(se).kind == OpKind::mul);
  CHECK(g.parameters() == (72 * 24 + 24) + (24 * 72 + 72));
}

TEST_CASE("an encoder block has BERT's parameters and attention MACs", "[layer_graph]") {
  LayerGraph g;
  const auto x = g.input({128, 768});
  g.transformer_encoder(x, "block", 12, 3072);
  // 4 projections, 2 layer norms, the FFN.
  const double d = 768, f = 3072, t = 128;
  CHECK(g.parameters() == 4 * (d * d + d) + 2 * 2 * d + (d * f + f) + (f * d + d));
  CHECK(g.macs_per_sample() == Approx(t * (4 * d * d + 2 * d * f) + 2 * t * t * d));
}

TEST_CASE("an lstm layer counts four gates with two biases each", "[layer_graph]") {
  LayerGraph g;
  const auto x = g.input({35, 200});
  const auto l = g.lstm(x, "lstm", 300);
  CHECK(g.shape(l) == Shape{35, 300});
  CHECK(g.layer(l).params == 4 * 300 * (200 + 300) + 8 * 300);
  CHECK(g.layer(l).macs == Approx(35.0 * 4 * 300 * 500));
  // cuDNN's fused RNN: input projection and recurrence, whatever the sequence length.
  CHECK(g.layer(l).kernels == 2);
  CHECK(g.layer(l).weight_read_bytes == 4 * g.layer(l).params);
  CHECK(g.layer(l).reread_footprint_bytes == 4.0 * 4 * 300 * 300);
  CHECK(g.layer(l).reread_bytes == 34.0 * 4 * 4 * 300 * 300);
}

TEST_CASE("embeddings gather rows instead of reading the whole table", "[layer_graph]") {
  LayerGraph g;
  const auto ids = g.input({128});
  const auto e = g.embedding(ids, "e", 30522, 768);
  CHECK(g.shape(e) == Shape{128, 768});
  CHECK(g.layer(e).params == 30522.0 * 768);
  CHECK(g.layer(e).weight_read_bytes == 0);
  CHECK(g.layer(e).gathered_bytes == 4.0 * 128 * 768);
}

TEST_CASE("mismatched shapes are input errors naming the layer", "[layer_graph]") {
  LayerGraph g;
  const auto a = g.input({8, 4, 4});
  const auto b = g.conv2d(a, "b", {.out_channels = 8, .kernel = 3, .stride = 2, .padding = 1});
  CHECK_THROWS_WITH(g.add(a, b, "bad_add"), Catch::Contains("bad_add"));
  CHECK_THROWS_AS(g.concat({a, b}, "bad_cat"), InputError);
  CHECK_THROWS_AS(g.conv2d(a, "bad_groups", {.out_channels = 6, .kernel = 1, .groups = 4}),
                  InputError);
  CHECK_THROWS_AS(g.conv2d(a, "too_big", {.out_channels = 4, .kernel = 7}), InputError);
  CHECK_THROWS_AS(g.slice_channels(a, "bad_slice", 4, 8), InputError);
  CHECK_THROWS_AS(g.reshape(a, "bad_view", Shape{3, 3}), InputError);
  CHECK_THROWS_AS(g.multi_head_attention(a, "bad_attention", 2), InputError);
}

// Integer division truncates toward zero, so (in + 2 padding - kernel) / stride + 1 is 1, not
// less, for a window up to a stride wider than the padded input: the builders refuse it.
TEST_CASE("a window wider than the padded input is an input error, even with a stride",
          "[layer_graph]") {
  LayerGraph g;
  const auto x = g.input({3, 32, 32});
  CHECK_THROWS_WITH(g.max_pool(x, "wide_pool", 1000, 1000, 0),
                    Catch::Contains("wide_pool") &&
                        Catch::Contains("a window of 1000 does not fit an input of 32"));
  CHECK_THROWS_WITH(g.conv2d(x, "wide_conv", {.out_channels = 8, .kernel = 33, .stride = 2}),
                    Catch::Contains("wide_conv") && Catch::Contains("padded by 0"));
  CHECK_THROWS_AS(g.avg_pool(x, "wide_avg", 35, 4, 1), InputError);
  // A window exactly as wide as the padded input fits once.
  CHECK(g.shape(g.max_pool(x, "whole", 34, 2, 1)) == Shape{3, 1, 1});
  CHECK(
      g.shape(g.conv2d(x, "edge", {.out_channels = 8, .kernel = 33, .stride = 2, .padding = 1})) ==
      Shape{8, 1, 1});
}
