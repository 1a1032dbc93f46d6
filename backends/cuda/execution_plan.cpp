#include "backends/cuda/execution_plan.hpp"

#include <boost/range/iterator_range.hpp>
#include <cmath>

#include "models/error.hpp"

namespace fulcrum::backends::cuda {

namespace {

using models::OpKind;

std::int64_t to_int(double v) { return static_cast<std::int64_t>(std::llround(v)); }

// Hands out consecutive runs of one arena.
struct ArenaCursor {
  std::int64_t* sizes;
  BufferRef take(Arena a, std::int64_t floats) {
    BufferRef r{a, sizes[static_cast<int>(a)], floats};
    // Keep every buffer 256-byte aligned (64 floats), as cuDNN and cuBLAS prefer.
    sizes[static_cast<int>(a)] += (floats + 63) / 64 * 64;
    return r;
  }
};

// The sizes of the parameter tensors of a layer (weight first), from its kind and shapes.
std::vector<std::int64_t> parameter_tensors(const models::Layer& l) {
  const std::int64_t params = to_int(l.params);
  if (params == 0) return {};
  switch (l.kind) {
    case OpKind::conv:
      if (l.geometry.bias) return {params - l.out[0], l.out[0]};
      return {params};
    case OpKind::linear:
      if (l.geometry.bias) return {params - l.out.dims.back(), l.out.dims.back()};
      return {params};
    case OpKind::bn:
    case OpKind::layernorm:
      return {params / 2, params / 2};
    case OpKind::lstm: {
      // w_ih (4h x x), w_hh (4h x h), b_ih (4h), b_hh (4h)
      const std::int64_t h = l.out.dims.back();
      const std::int64_t w_hh = 4 * h * h;
      const std::int64_t w_ih = params - w_hh - 8 * h;
      return {w_ih, w_hh, 4 * h, 4 * h};
    }
    default:
      return {params};
  }
}

}  // namespace

ImageDims image_dims(const models::Shape& s) {
  ImageDims d;
  if (s.rank() >= 1) d.c = s[0];
  if (s.rank() >= 2) d.h = s[1];
  if (s.rank() >= 3) d.w = s[2];
  for (std::size_t i = 3; i < s.rank(); ++i) d.w *= s[i];
  return d;
}

double ExecutionPlan::bytes() const {
  double floats_total = 0;
  for (std::int64_t f : arena_floats) floats_total += static_cast<double>(f);
  return 4 * floats_total;
}

int ExecutionPlan::launches() const {
  std::size_t n = 0;
  for (const PlannedLayer& l : layers) n += l.forward.size() + l.backward.size() + l.update.size();
  if (phase == models::Phase::training) {
    n += 2;  // the memsets of the activation and parameter gradients
    for (const PlannedLayer& l : layers) n += l.is_output ? 1 : 0;  // the loss
  }
  return static_cast<int>(n);
}

ExecutionPlan make_execution_plan(const models::GraphWorkload& workload, models::Phase phase,
                                  int batch_size) {
  if (batch_size < 1) {
    throw InputError("workload '" + workload.name() + "': batch size must be >= 1, got " +
                     std::to_string(batch_size));
  }
  const bool training = phase == models::Phase::training;
  const models::Graph& g = workload.layers().graph();
  ExecutionPlan plan;
  plan.workload = workload.name();
  plan.phase = phase;
  plan.batch_size = batch_size;
  ArenaCursor cursor{plan.arena_floats};
  const std::int64_t b = batch_size;
  const std::size_t n = boost::num_vertices(g);
  plan.layers.resize(n);

  for (models::LayerId v = 0; v < n; ++v) {
    const models::Layer& l = g[v];
    PlannedLayer& p = plan.layers[v];
    p.id = v;
    p.layer = &l;
    for (auto e : boost::make_iterator_range(boost::in_edges(v, g))) {
      p.inputs.push_back(static_cast<int>(boost::source(e, g)));
    }
    p.is_output = boost::out_degree(v, g) == 0;
    const auto fail = [&](const std::string& problem) {
      throw InputError("workload '" + workload.name() + "', layer '" + l.name +
                       "': the cuda backend cannot execute it: " + problem);
    };
    if ((l.kind == OpKind::input) != p.inputs.empty()) fail("a layer without inputs");
    const std::int64_t out_floats = b * to_int(l.out.elements());

    if (l.kind == OpKind::view) {
      const PlannedLayer& from = plan.layers[static_cast<std::size_t>(p.inputs.front())];
      p.is_view = true;
      p.output = from.output;
      p.output.floats = out_floats;
      p.gradient = from.gradient;
      p.gradient.floats = training ? out_floats : 0;
      continue;
    }
    p.output = cursor.take(Arena::activations, out_floats);
    if (training) p.gradient = cursor.take(Arena::gradients, out_floats);
    p.param_tensors = parameter_tensors(l);
    std::int64_t params = 0;
    for (std::int64_t t : p.param_tensors) params += t;
    if (params > 0) {
      p.params = cursor.take(Arena::parameters, params);
      if (training) {
        cursor.take(Arena::parameter_gradients, params);
        cursor.take(Arena::momenta, params);
      }
    }
    // Gradients flow to every input that is not the network's input (nor embedding ids).
    bool input_gradient = false;
    for (int i : p.inputs) {
      if (plan.layers[static_cast<std::size_t>(i)].layer->kind != OpKind::input) {
        input_gradient = true;
      }
    }
    p.needs_input_gradient = training && input_gradient && l.kind != OpKind::embedding;
    const ImageDims in = p.inputs.empty()
                             ? ImageDims{}
                             : image_dims(g[static_cast<models::LayerId>(p.inputs.front())].out);

    std::vector<std::string>& fw = p.forward;
    std::vector<std::string>& bw = p.backward;
    switch (l.kind) {
      case OpKind::input:
        fw = {"cudaMemcpyAsync(input)"};
        break;
      case OpKind::conv:
        if (l.out.rank() != 3) fail("a convolution needs a {C, H, W} output");
        fw = {"cudnnConvolutionForward"};
        if (l.geometry.bias) fw.push_back("bias_add");
        if (l.geometry.bias) bw.push_back("bias_grad");
        if (p.needs_input_gradient) bw.push_back("cudnnConvolutionBackwardData");
        bw.push_back("cudnnConvolutionBackwardFilter");
        break;
      case OpKind::linear:
        fw = {"cublasSgemm"};
        if (l.geometry.bias) fw.push_back("bias_add");
        if (p.needs_input_gradient) bw.push_back("cublasSgemm(dgrad)");
        bw.push_back("cublasSgemm(wgrad)");
        if (l.geometry.bias) bw.push_back("bias_grad");
        break;
      case OpKind::matmul:
        if (p.inputs.size() != 2) fail("a matrix product needs two inputs");
        fw = {"cublasSgemmStridedBatched"};
        bw = {"cublasSgemmStridedBatched(grad a)", "cublasSgemmStridedBatched(grad b)"};
        break;
      case OpKind::bn:
        p.scratch = cursor.take(Arena::scratch, 4 * in.c);  // mean, inverse std, 2 reductions
        fw = training ? std::vector<std::string>{"bn_stats", "bn_apply"}
                      : std::vector<std::string>{"bn_apply"};
        bw = {"bn_grad_reduce", "bn_grad_apply"};
        break;
      case OpKind::layernorm: {
        const std::int64_t rows = b * to_int(l.out.elements()) / l.out.dims.back();
        p.scratch = cursor.take(Arena::scratch, 2 * rows);
        fw = {"layernorm"};
        bw = {"layernorm_grad"};
        break;
      }
      case OpKind::act:
        fw = {"activation"};
        bw = {"activation_grad"};
        break;
      case OpKind::pool: {
        const std::string kind = l.geometry.kernel == 0 ? "global_avg_pool"
                                 : l.geometry.max_pool  ? "max_pool"
                                                        : "avg_pool";
        fw = {kind};
        bw = {kind + "_grad"};
        break;
      }
      case OpKind::add:
        fw = {"add"};
        bw = {"add_grad"};
        break;
      case OpKind::mul:
        fw = {"mul_broadcast"};
        bw = {"mul_broadcast_grad"};
        break;
      case OpKind::concat:
        if (l.geometry.axis >= l.out.rank()) fail("concat axis out of range");
        for (std::size_t i = 0; i < p.inputs.size(); ++i) {
          fw.push_back("concat_copy");
          bw.push_back("concat_split");
        }
        break;
      case OpKind::upsample:
        fw = {"upsample_nearest"};
        bw = {"upsample_nearest_grad"};
        break;
      case OpKind::softmax:
        fw = l.geometry.attention_scaling ? std::vector<std::string>{"scale", "mask_add", "softmax"}
                                          : std::vector<std::string>{"softmax"};
        bw = {"softmax_grad"};
        if (l.geometry.attention_scaling) bw.push_back("scale");
        break;
      case OpKind::embedding:
        fw = {"embedding_gather"};
        bw = {"embedding_scatter_add"};
        break;
      case OpKind::lstm: {
        const models::Shape& x = g[static_cast<models::LayerId>(p.inputs.front())].out;
        if (x.rank() != 2) fail("an LSTM needs a {T, features} input");
        const std::int64_t steps = x[0];
        const std::int64_t h = l.out.dims.back();
        // gates (activated, kept for backward), cells, gate gradients, carried dh and dc.
        p.scratch = cursor.take(Arena::scratch, b * steps * (4 * h + h + 4 * h) + 2 * b * h);
        fw = {"cublasSgemm(input projection)"};
        for (std::int64_t t = 0; t < steps; ++t) {
          if (t > 0) fw.push_back("cublasSgemm(recurrent)");
          fw.push_back("lstm_cell");
        }
        bw.push_back("cudaMemsetAsync(lstm carry)");
        for (std::int64_t t = steps; t-- > 0;) {
          bw.push_back("lstm_cell_grad");
          if (t > 0) bw.push_back("cublasSgemm(recurrent dgrad)");
        }
        bw.push_back("cublasSgemm(wgrad input)");
        bw.push_back("cublasSgemm(wgrad recurrent)");
        bw.push_back("bias_grad");
        if (p.needs_input_gradient) bw.push_back("cublasSgemm(dgrad input)");
        break;
      }
      case OpKind::view:
        break;  // handled above
    }
    if (!training) {
      bw.clear();
    } else {
      p.update.assign(p.param_tensors.size(), "sgd_momentum");
    }
  }
  return plan;
}

}  // namespace fulcrum::backends::cuda
