// Operators that move data between shapes: pooling (max, average, global average),
// nearest-neighbour upsampling and concatenation along an axis.
#include "backends/cuda/kernels.hpp"
#include "backends/cuda/ops/op_table.hpp"

namespace fulcrum::backends::cuda::ops {

void pool_forward(const Launch& k) {
  const models::LayerGeometry& g = k.op().geometry;
  const ImageDims in = image_dims(k.input_shape());
  if (g.kernel == 0) {
    kernels::global_avg_pool(k.y(), k.x(), k.batch() * in.c, in.h * in.w, k.stream);
  } else {
    const ImageDims o = image_dims(k.op().out);
    kernels::pool(k.y(), k.x(), k.batch() * in.c, in.h, in.w, o.h, o.w, g.kernel, g.stride,
                  g.padding, g.max_pool, k.stream);
  }
  k.launched("pool");
}

void pool_backward(const Launch& k) {
  const models::LayerGeometry& g = k.op().geometry;
  const ImageDims in = image_dims(k.input_shape());
  if (g.kernel == 0) {
    kernels::global_avg_pool_grad(k.dx(), k.dy(), k.batch() * in.c, in.h * in.w, k.stream);
  } else {
    const ImageDims o = image_dims(k.op().out);
    kernels::pool_grad(k.dx(), k.dy(), k.x(), k.batch() * in.c, in.h, in.w, o.h, o.w, g.kernel,
                       g.stride, g.padding, g.max_pool, k.stream);
  }
  k.launched("pool_grad");
}

void upsample_forward(const Launch& k) {
  const ImageDims in = image_dims(k.input_shape());
  kernels::upsample_nearest(k.y(), k.x(), k.batch() * in.c, in.h, in.w, k.op().out[1] / in.h,
                            k.stream);
  k.launched("upsample_nearest");
}

void upsample_backward(const Launch& k) {
  const ImageDims in = image_dims(k.input_shape());
  kernels::upsample_nearest_grad(k.dx(), k.dy(), k.batch() * in.c, in.h, in.w, k.op().out[1] / in.h,
                                 k.stream);
  k.launched("upsample_nearest_grad");
}

namespace {

// The blocks of a concatenation: `outer` runs of `out_block` floats in the output, each holding
// every input's `in_block` at `offset`; calls part(input, in_block, offset) per input.
template <typename Part>
void for_each_concat_part(const Launch& k, i64& outer, i64& out_block, Part part) {
  const PlannedLayer& l = k.layer();
  outer = k.batch();
  for (std::size_t d = 0; d < l.layer->geometry.axis; ++d) outer *= l.layer->out[d];
  out_block = l.output.floats / outer;
  i64 offset = 0;
  for (int in : l.inputs) {
    const i64 in_block = k.plan.layers[static_cast<std::size_t>(in)].output.floats / outer;
    part(in, in_block, offset);
    offset += in_block;
  }
}

}  // namespace

void concat_forward(const Launch& k) {
  i64 outer = 0, out_block = 0;
  float* y = k.y();
  for_each_concat_part(k, outer, out_block, [&](int in, i64 in_block, i64 offset) {
    kernels::concat_copy(y, k.item.at(k.plan.layers[static_cast<std::size_t>(in)].output), outer,
                         in_block, out_block, offset, k.stream);
    k.launched("concat_copy");
  });
}

void concat_backward(const Launch& k) {
  i64 outer = 0, out_block = 0;
  const float* dy = k.dy();
  for_each_concat_part(k, outer, out_block, [&](int in, i64 in_block, i64 offset) {
    kernels::concat_split(k.item.at(k.plan.layers[static_cast<std::size_t>(in)].gradient), dy,
                          outer, in_block, out_block, offset, k.stream);
    k.launched("concat_split");
  });
}

}  // namespace fulcrum::backends::cuda::ops
