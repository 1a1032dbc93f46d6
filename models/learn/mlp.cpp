#include "models/learn/mlp.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>

namespace fulcrum::models {

MlpLayout powertrain_layout(int inputs) {
  return MlpLayout{inputs, {256, 128, 64}, {0.4F, 0.3F, 0.0F}, 1};
}

namespace {

// Uniform in [-limit, limit), limit = sqrt(6 / (fan_in + fan_out)).
void glorot_uniform(DenseLayer& layer, Rng& rng) {
  const double limit = std::sqrt(6.0 / static_cast<double>(layer.w.rows() + layer.w.cols()));
  for (Eigen::Index i = 0; i < layer.w.size(); ++i) {
    layer.w.data()[i] = static_cast<float>((2 * rng.uniform() - 1) * limit);
  }
  layer.b.setZero();
}

DenseLayer make_layer(int in, int out, float dropout, Rng& rng) {
  DenseLayer layer{Matrix(in, out), RowVector(out), dropout};
  glorot_uniform(layer, rng);
  return layer;
}

// Adam's moments for one layer.
struct Moments {
  Matrix mw, vw;
  RowVector mb, vb;
};

// Rows `indices[first, last)` of `m`.
Matrix gather(const Matrix& m, const std::vector<int>& indices, std::size_t first,
              std::size_t last) {
  Matrix out(static_cast<Eigen::Index>(last - first), m.cols());
  for (std::size_t i = first; i < last; ++i)
    out.row(static_cast<Eigen::Index>(i - first)) = m.row(indices[i]);
  return out;
}

double mse(const Mlp& net, const Matrix& x, const Matrix& y) {
  return static_cast<double>((net.predict(x) - y).squaredNorm()) / static_cast<double>(y.size());
}

// One Adam step on a minibatch, with dropout masks drawn from `rng`.
class Trainer {
 public:
  Trainer(Mlp& net, const TrainOptions& options) : net_(net), options_(options) {
    for (const DenseLayer& l : net_.layers()) {
      moments_.push_back({Matrix::Zero(l.w.rows(), l.w.cols()),
                          Matrix::Zero(l.w.rows(), l.w.cols()), RowVector::Zero(l.b.size()),
                          RowVector::Zero(l.b.size())});
    }
    const std::size_t n = net_.layers().size();
    z_.resize(n);
    a_.resize(n);
    masks_.resize(n);
  }

  void step(const Matrix& x, const Matrix& y, Rng& rng) {
    std::vector<DenseLayer>& layers = net_.layers();
    const std::size_t n = layers.size();
    // Forward: a_[i] is the output of layer i after ReLU and dropout (the last: linear).
    for (std::size_t i = 0; i < n; ++i) {
      const Matrix& in = i == 0 ? x : a_[i - 1];
      z_[i].noalias() = in * layers[i].w;
      z_[i].rowwise() += layers[i].b;
      if (i + 1 == n) {
        a_[i] = z_[i];
        break;
      }
      a_[i] = z_[i].cwiseMax(0.0F);
      const float rate = layers[i].dropout;
      if (rate > 0) {
        masks_[i].resize(a_[i].rows(), a_[i].cols());
        // Four 16-bit uniforms from each 64-bit draw: the keep probability is resolved to 2^-16.
        const float keep = 1.0F - rate;
        const auto threshold = static_cast<std::uint64_t>(std::lround(keep * 65536.0F));
        const float kept = 1.0F / keep;
        float* mask = masks_[i].data();
        const Eigen::Index size = masks_[i].size();
        for (Eigen::Index k = 0; k < size; k += 4) {
          std::uint64_t bits = rng.next();
          for (Eigen::Index j = k; j < std::min(size, k + 4); ++j, bits >>= 16) {
            mask[j] = (bits & 0xFFFF) < threshold ? kept : 0.0F;
          }
        }
        a_[i].array() *= masks_[i].array();
      }
    }
    // Backward from d(MSE)/d(output).
    Matrix delta = (a_[n - 1] - y) * (2.0F / static_cast<float>(y.size()));
    ++t_;
    const float b1 = 0.9F, b2 = 0.999F, eps = 1e-7F;
    const float lr_t =
        options_.learning_rate * static_cast<float>(std::sqrt(1.0 - std::pow(double{b2}, t_)) /
                                                    (1.0 - std::pow(double{b1}, t_)));
    for (std::size_t i = n; i-- > 0;) {
      const Matrix& in = i == 0 ? x : a_[i - 1];
      gw_.noalias() = in.transpose() * delta;
      gb_ = delta.colwise().sum();
      if (i > 0) {
        Matrix back = delta * layers[i].w.transpose();
        back.array() *= (z_[i - 1].array() > 0.0F).cast<float>();
        if (layers[i - 1].dropout > 0) back.array() *= masks_[i - 1].array();
        delta.swap(back);
      }
      Moments& m = moments_[i];
      m.mw = b1 * m.mw + (1 - b1) * gw_;
      m.vw = b2 * m.vw + (1 - b2) * gw_.cwiseAbs2();
      m.mb = b1 * m.mb + (1 - b1) * gb_;
      m.vb = b2 * m.vb + (1 - b2) * gb_.cwiseAbs2();
      layers[i].w.array() -= lr_t * m.mw.array() / (m.vw.array().sqrt() + eps);
      layers[i].b.array() -= lr_t * m.mb.array() / (m.vb.array().sqrt() + eps);
    }
  }

 private:
  Mlp& net_;
  const TrainOptions& options_;
  std::vector<Moments> moments_;
  std::vector<Matrix> z_, a_, masks_;
  Matrix gw_;
  RowVector gb_;
  int t_ = 0;
};

}  // namespace

Mlp::Mlp(const MlpLayout& layout, Rng& rng) {
  assert(layout.dropout.size() == layout.hidden.size());
  int in = layout.inputs;
  for (std::size_t i = 0; i < layout.hidden.size(); ++i) {
    layers_.push_back(make_layer(in, layout.hidden[i], layout.dropout[i], rng));
    in = layout.hidden[i];
  }
  layers_.push_back(make_layer(in, layout.outputs, 0.0F, rng));
}

Matrix Mlp::predict(const Matrix& x) const {
  Matrix a = x;
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    Matrix z = a * layers_[i].w;
    z.rowwise() += layers_[i].b;
    if (i + 1 < layers_.size()) z = z.cwiseMax(0.0F);
    a.swap(z);
  }
  return a;
}

void Mlp::reset_output_layer(Rng& rng) { glorot_uniform(layers_.back(), rng); }

std::vector<int> permutation(int n, Rng& rng) {
  std::vector<int> p(static_cast<std::size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  for (int i = n - 1; i > 0; --i) {
    const auto j = static_cast<int>(rng.uniform_below(static_cast<std::uint64_t>(i) + 1));
    std::swap(p[static_cast<std::size_t>(i)], p[static_cast<std::size_t>(j)]);
  }
  return p;
}

TrainReport train(Mlp& net, const Matrix& x, const Matrix& y, const TrainOptions& options,
                  Rng& rng) {
  assert(x.rows() == y.rows() && x.rows() >= 1);
  const int n = static_cast<int>(x.rows());
  const std::vector<int> order = permutation(n, rng);
  int n_val = n >= 2 ? std::max(1, static_cast<int>(std::floor(options.validation_share * n))) : 0;
  if (options.validation_share <= 0) n_val = 0;
  const int n_train = n - n_val;
  std::vector<int> train_idx(order.begin(), order.begin() + n_train);
  const std::vector<int> val_idx(order.begin() + n_train, order.end());
  const Matrix xv = n_val > 0 ? gather(x, val_idx, 0, val_idx.size()) : x;
  const Matrix yv = n_val > 0 ? gather(y, val_idx, 0, val_idx.size()) : y;

  TrainReport report;
  report.training_samples = n_train;
  report.validation_samples = n_val;
  report.best_validation_mse = std::numeric_limits<double>::infinity();
  std::vector<DenseLayer> best = net.layers();
  Trainer trainer(net, options);
  const int batch = std::max(1, options.batch_size);
  const int steps_per_epoch = (n_train + batch - 1) / batch;
  int epochs = options.epochs;
  if (options.min_steps > 0) {
    epochs = std::max(epochs, (options.min_steps + steps_per_epoch - 1) / steps_per_epoch);
  }
  int since_best = 0;
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    for (int i = n_train - 1; i > 0; --i) {
      const auto j = static_cast<int>(rng.uniform_below(static_cast<std::uint64_t>(i) + 1));
      std::swap(train_idx[static_cast<std::size_t>(i)], train_idx[static_cast<std::size_t>(j)]);
    }
    for (int first = 0; first < n_train; first += batch) {
      const auto last = static_cast<std::size_t>(std::min(n_train, first + batch));
      trainer.step(gather(x, train_idx, static_cast<std::size_t>(first), last),
                   gather(y, train_idx, static_cast<std::size_t>(first), last), rng);
    }
    report.epochs_run = epoch;
    const double loss = mse(net, xv, yv);
    if (loss < report.best_validation_mse) {
      report.best_validation_mse = loss;
      report.best_epoch = epoch;
      best = net.layers();
      since_best = 0;
    } else if (options.patience > 0 && ++since_best >= options.patience) {
      break;
    }
  }
  net.layers() = std::move(best);
  return report;
}

Standardizer Standardizer::fit(const Matrix& data) {
  Standardizer s;
  const auto rows = static_cast<double>(data.rows());
  s.mean = RowVector::Zero(data.cols());
  s.scale = RowVector::Ones(data.cols());
  for (Eigen::Index c = 0; c < data.cols(); ++c) {
    double sum = 0;
    for (Eigen::Index r = 0; r < data.rows(); ++r) sum += data(r, c);
    const double mean = sum / rows;
    double var = 0;
    for (Eigen::Index r = 0; r < data.rows(); ++r) var += (data(r, c) - mean) * (data(r, c) - mean);
    const double sd = std::sqrt(var / rows);
    s.mean(c) = static_cast<float>(mean);
    // A column constant in the sample (a single row, or one value of a dimension) is scaled by
    // its magnitude, so that other values arrive as relative differences rather than raw units.
    const double magnitude = std::abs(mean) > 0 ? std::abs(mean) : 1.0;
    s.scale(c) = sd > 1e-12 * std::max(1.0, std::abs(mean)) ? static_cast<float>(sd)
                                                            : static_cast<float>(magnitude);
  }
  return s;
}

Matrix Standardizer::apply(const Matrix& data) const {
  Matrix out = data;
  out.rowwise() -= mean;
  out.array().rowwise() /= scale.array();
  return out;
}

Matrix Standardizer::invert(const Matrix& data) const {
  Matrix out = data;
  out.array().rowwise() *= scale.array();
  out.rowwise() += mean;
  return out;
}

}  // namespace fulcrum::models
