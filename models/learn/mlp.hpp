// Mlp: a small fully connected network on Eigen (float, row-major batches: one sample per row),
// trained with Adam on mean squared error, inverted dropout after hidden layers, and a
// best-validation checkpoint with optional early stopping. Deterministic for a seed: every random
// draw (initial weights, the validation split, shuffling, dropout masks) comes from an Rng the
// caller passes (models/random), never from std:: distributions.
//
//   Rng rng = RngStreams(7).stream("learn/time");
//   Mlp net(powertrain_layout(4), rng);
//   TrainReport r = train(net, x, y, TrainOptions{}, rng);   // x: n x 4, y: n x 1
//   Matrix out = net.predict(x);
#pragma once

#include <Eigen/Dense>
#include <vector>

#include "models/random/rng_streams.hpp"

namespace fulcrum::models {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowVector = Eigen::Matrix<float, 1, Eigen::Dynamic>;

// Shape of a network: inputs, then each hidden layer (ReLU, then dropout at its rate; 0 = none),
// then a linear output layer.
struct MlpLayout {
  int inputs = 0;
  std::vector<int> hidden;
  std::vector<float> dropout;  // one rate per hidden layer
  int outputs = 1;
};

// PowerTrain's network (reference/measurements/README.md): Dense 256 ReLU, Dropout 0.4, Dense 128
// ReLU, Dropout 0.3, Dense 64 ReLU, Dense 1 linear.
MlpLayout powertrain_layout(int inputs);

// One dense layer: out = in * w + b; `dropout` applies to its output when it is hidden.
struct DenseLayer {
  Matrix w;  // inputs x outputs
  RowVector b;
  float dropout = 0;
};

class Mlp {
 public:
  Mlp() = default;
  // Glorot-uniform weights, zero biases (the Keras defaults PowerTrain used).
  Mlp(const MlpLayout& layout, Rng& rng);
  // A network from stored layers (weights files); ReLU after every layer but the last.
  explicit Mlp(std::vector<DenseLayer> layers) : layers_(std::move(layers)) {}

  // Outputs for a batch, without dropout.
  Matrix predict(const Matrix& x) const;

  // Fresh Glorot-uniform weights and zero biases for the output layer (transfer learning).
  void reset_output_layer(Rng& rng);

  int inputs() const { return layers_.empty() ? 0 : static_cast<int>(layers_.front().w.rows()); }
  int outputs() const { return layers_.empty() ? 0 : static_cast<int>(layers_.back().w.cols()); }
  const std::vector<DenseLayer>& layers() const { return layers_; }
  std::vector<DenseLayer>& layers() { return layers_; }

 private:
  std::vector<DenseLayer> layers_;
};

struct TrainOptions {
  float learning_rate = 1e-3F;  // Adam, beta1 0.9, beta2 0.999, epsilon 1e-7 (Keras)
  int epochs = 100;
  int batch_size = 32;
  // Share of the samples held out for validation (at least one sample when there are two or more;
  // with a single sample the training loss stands in for it).
  double validation_share = 0.2;
  // Stop after this many epochs without a better validation loss; 0 = run every epoch. Either way
  // the weights of the best validation epoch are kept.
  int patience = 0;
  // Fewest optimiser steps: with few samples an epoch is one step, so epochs are added until this
  // many steps have run (0 = exactly `epochs`).
  int min_steps = 0;
};

struct TrainReport {
  int epochs_run = 0;
  int best_epoch = 0;  // 1-based
  double best_validation_mse = 0;
  int training_samples = 0;
  int validation_samples = 0;
};

// Trains `net` on rows of x (inputs) and y (targets) in place and restores its best-validation
// weights. Precondition: x.rows() == y.rows() >= 1, the columns match the network.
TrainReport train(Mlp& net, const Matrix& x, const Matrix& y, const TrainOptions& options,
                  Rng& rng);

// Column means and standard deviations, to map data to zero mean and unit variance and back. A
// column constant in the data is scaled by its mean's magnitude (1 when the mean is 0).
struct Standardizer {
  RowVector mean;
  RowVector scale;

  static Standardizer fit(const Matrix& data);
  Matrix apply(const Matrix& data) const;
  Matrix invert(const Matrix& data) const;
};

// Uniform integer draws for a permutation of 0..n-1 (Fisher-Yates), from `rng`.
std::vector<int> permutation(int n, Rng& rng);

}  // namespace fulcrum::models
