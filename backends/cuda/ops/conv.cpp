// 2-D convolution through cuDNN (grouped and depthwise by cuDNN's group count), with its bias.
#include "backends/cuda/kernels.hpp"
#include "backends/cuda/ops/op_table.hpp"

namespace fulcrum::backends::cuda::ops {

void conv_forward(const Launch& k) {
  const ConvState& c = *k.item.convs.at(k.index);
  float* y = k.y();
  check(cudnnConvolutionForward(k.dnn, &kOne, c.x, k.x(), c.w, k.params(), c.conv, c.fwd,
                                k.item.workspace, k.item.workspace_bytes, &kZero, c.y, y),
        "cudnnConvolutionForward", k.site);
  k.called();
  if (k.op().geometry.bias) {
    const ImageDims d = image_dims(k.op().out);
    kernels::bias_add(y, k.params() + k.layer().param_tensors[0], k.batch(), d.c, d.h * d.w,
                      k.stream);
    k.launched("bias_add");
  }
}

void conv_backward(const Launch& k) {
  const ConvState& c = *k.item.convs.at(k.index);
  const float* dy = k.dy();
  if (k.op().geometry.bias) {
    const ImageDims d = image_dims(k.op().out);
    kernels::bias_grad(k.param_grad() + k.layer().param_tensors[0], dy, k.batch(), d.c, d.h * d.w,
                       k.stream);
    k.launched("bias_grad");
  }
  if (k.layer().needs_input_gradient) {
    check(
        cudnnConvolutionBackwardData(k.dnn, &kOne, c.w, k.params(), c.y, dy, c.conv, c.bwd_data,
                                     k.item.workspace, k.item.workspace_bytes, &kOne, c.x, k.dx()),
        "cudnnConvolutionBackwardData", k.site);
    k.called();
  }
  check(cudnnConvolutionBackwardFilter(k.dnn, &kOne, c.x, k.x(), c.y, dy, c.conv, c.bwd_filter,
                                       k.item.workspace, k.item.workspace_bytes, &kZero, c.w,
                                       k.param_grad()),
        "cudnnConvolutionBackwardFilter", k.site);
  k.called();
}

}  // namespace fulcrum::backends::cuda::ops
