// The MLP on its own: it learns a known smooth function, training is deterministic for a seed,
// early stopping stops, and standardisation round-trips.
#include "models/learn/mlp.hpp"

#include <catch2/catch.hpp>
#include <cmath>

using namespace fulcrum::models;

namespace {

double smooth(double a, double b) { return 2.0 + std::sin(a) + 0.5 * b * b; }

// n x n grid over [-1.5, 1.5]^2 (offset by `shift` grid steps), inputs and the function's values.
void grid(int n, double shift, Matrix& x, Matrix& y) {
  x.resize(Eigen::Index{n} * n, 2);
  y.resize(Eigen::Index{n} * n, 1);
  const double step = 3.0 / (n - 1);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const double a = -1.5 + step * (i + shift);
      const double b = -1.5 + step * (j + shift);
      x(i * n + j, 0) = static_cast<float>(a);
      x(i * n + j, 1) = static_cast<float>(b);
      y(i * n + j, 0) = static_cast<float>(smooth(a, b));
    }
  }
}

double mape(const Matrix& predicted, const Matrix& actual) {
  return 100.0 * ((predicted - actual).cwiseAbs().array() / actual.array().abs()).mean();
}

MlpLayout small_layout() { return MlpLayout{2, {32, 32}, {0.0F, 0.0F}, 1}; }

}  // namespace

TEST_CASE("an MLP learns a smooth function to under 2% MAPE on points it never saw") {
  Matrix x, y, xt, yt;
  grid(20, 0.0, x, y);
  grid(19, 0.5, xt, yt);  // the midpoints between training points, within the range
  Rng rng = RngStreams(3).stream("test/smooth");
  Mlp net(small_layout(), rng);
  const Standardizer sx = Standardizer::fit(x), sy = Standardizer::fit(y);
  TrainOptions options;
  options.epochs = 300;
  options.learning_rate = 3e-3F;
  const TrainReport r = train(net, sx.apply(x), sy.apply(y), options, rng);
  CHECK(r.validation_samples == 80);
  CHECK(r.training_samples == 320);
  const double held_out = mape(sy.invert(net.predict(sx.apply(xt))), yt);
  INFO("held-out MAPE " << held_out << " %");
  CHECK(held_out < 2.0);
}

TEST_CASE("training is deterministic for a seed and depends on it") {
  Matrix x, y;
  grid(10, 0.0, x, y);
  auto run = [&](std::uint64_t seed) {
    Rng rng = RngStreams(seed).stream("test/determinism");
    Mlp net(MlpLayout{2, {16, 8}, {0.4F, 0.0F}, 1}, rng);  // dropout draws from the stream too
    TrainOptions options;
    options.epochs = 5;
    train(net, x, y, options, rng);
    return net.predict(x);
  };
  const Matrix a = run(11), b = run(11), c = run(12);
  CHECK(a == b);
  CHECK(a != c);
}

TEST_CASE("early stopping ends training and keeps the best validation epoch") {
  Matrix x, y;
  grid(8, 0.0, x, y);
  Rng rng = RngStreams(5).stream("test/patience");
  Mlp net(small_layout(), rng);
  TrainOptions options;
  options.epochs = 5000;
  options.patience = 5;
  options.learning_rate = 0.05F;  // noisy enough to stop improving quickly
  const TrainReport r = train(net, x, y, options, rng);
  CHECK(r.epochs_run < options.epochs);
  CHECK(r.epochs_run - r.best_epoch == options.patience);
  // The kept weights are the best epoch's: their validation loss is the reported one.
  CHECK(std::isfinite(r.best_validation_mse));
}

TEST_CASE("min_steps adds epochs when there are few samples") {
  Matrix x, y;
  grid(3, 0.0, x, y);  // 9 samples: 7 train, 1 step per epoch
  Rng rng = RngStreams(1).stream("test/steps");
  Mlp net(small_layout(), rng);
  TrainOptions options;
  options.epochs = 10;
  options.min_steps = 40;
  CHECK(train(net, x, y, options, rng).epochs_run == 40);
}

TEST_CASE("standardisation has zero mean, unit variance and inverts") {
  Matrix x(4, 2);
  x << 1, 5, 2, 5, 3, 5, 4, 5;  // the second column is constant: scaled by its mean
  const Standardizer s = Standardizer::fit(x);
  const Matrix z = s.apply(x);
  CHECK(z.col(0).mean() == Approx(0).margin(1e-6));
  CHECK(z.col(0).squaredNorm() / 4 == Approx(1));
  CHECK(s.scale(1) == 5.0F);
  CHECK((s.invert(z) - x).cwiseAbs().maxCoeff() < 1e-5F);
}
