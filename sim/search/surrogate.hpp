// Surrogates over a power-mode grid for the model-based strategies (`als`, `prior`): standardised
// mode features and a Gaussian process with a linear mean, on Eigen.
//
// Features of a mode: the logarithm of (cores, CPU, GPU and EMC frequency), standardised over the
// grid (zero mean, unit variance per axis). On logarithms a linear mean is a power law in every
// frequency (time ~ f_gpu^b1 f_emc^b2 ...), the shape a roofline has where one resource binds; the
// GP models what the power law misses.
//
//   ModeFeatures f(grid);
//   GaussianProcess gp({.min_signal_sd = 0.05});
//   gp.fit(f.rows(profiled_indices), log_times);
//   GaussianProcess::Prediction p = gp.predict(f.all());   // mean and sd at every grid mode
#pragma once

#include <Eigen/Dense>
#include <cstddef>
#include <utility>
#include <vector>

#include "models/device/mode_space.hpp"

namespace fulcrum::sim::search {

class ModeFeatures {
 public:
  static constexpr int kDims = 4;  // log cores, log CPU, log GPU, log EMC
  explicit ModeFeatures(const models::ModeSpace& grid);
  // Every grid mode's features, one row per mode in grid order.
  const Eigen::MatrixXd& all() const { return all_; }
  // The rows of the given grid indices.
  Eigen::MatrixXd rows(const std::vector<std::size_t>& indices) const;

 private:
  Eigen::MatrixXd all_;
};

struct GpOptions {
  // Floor on the prior standard deviation of the residual (in the target's unit): with few
  // points the residuals' spread says little, and a GP without a floor is overconfident.
  double min_signal_sd = 0.05;
  // Nugget as a share of the signal variance: the data are exact, but not smooth everywhere
  // (reference/measurements/README.md lists non-monotone points).
  double nugget = 0.01;
  // Ridge on the linear mean's slopes (standardised features), so that it is defined with fewer
  // points than features.
  double ridge = 0.1;
  // Length scales (standardised units) tried; the one with the highest marginal likelihood wins.
  std::vector<double> length_scales = {0.5, 1.0, 2.0, 4.0};
  // GpBank only: a length scale per feature axis (automatic relevance determination). After the
  // common length scale, each axis in turn (cores, CPU, GPU, EMC) takes the factor on it from
  // `axis_factors` with the highest marginal likelihood, the axes before it kept at theirs. Off:
  // one isotropic kernel.
  bool per_axis = false;
  std::vector<double> axis_factors = {0.25, 0.5, 1.0, 2.0, 4.0};
};

class GaussianProcess {
 public:
  explicit GaussianProcess(GpOptions options = {}) : options_(std::move(options)) {}

  // Fits to rows of `x` (features) and `y`. With reselect = false the length scale of the
  // previous fit is kept (cheaper: one Cholesky factorisation).
  void fit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, bool reselect = true);

  struct Prediction {
    Eigen::VectorXd mean;
    Eigen::VectorXd sd;
  };
  // Mean and standard deviation at every row of `x`. Before any fit: mean 0, sd = the floor x 10.
  Prediction predict(const Eigen::MatrixXd& x) const;

  double length_scale() const { return length_scale_; }
  std::size_t points() const { return static_cast<std::size_t>(x_.rows()); }

 private:
  double fit_with(double length_scale, bool keep);

  GpOptions options_;
  Eigen::MatrixXd x_;
  Eigen::VectorXd beta_;   // linear mean: intercept, then one slope per feature
  Eigen::VectorXd resid_;  // y - linear mean
  Eigen::VectorXd alpha_;  // K^-1 resid_
  Eigen::LLT<Eigen::MatrixXd> llt_;
  double signal_var_ = 1;
  double length_scale_ = 1;
};

}  // namespace fulcrum::sim::search

namespace fulcrum::sim::search {

// Several GPs on the same inputs at once (one target per column of Y): each target has its own
// linear mean and signal variance, all share the correlation kernel and its length scale (chosen
// by the summed marginal likelihood; per axis with GpOptions::per_axis), so one factorisation
// serves them all.
class GpBank {
 public:
  explicit GpBank(GpOptions options = {}) : options_(std::move(options)) {}
  // `min_sd`: the floor of each target's signal sd (GpOptions::min_signal_sd, per column).
  void fit(const Eigen::MatrixXd& x, const Eigen::MatrixXd& y, const Eigen::VectorXd& min_sd,
           bool reselect = true);
  // Mean and sd at every row of `x`, one column per target. Before any fit: mean 0, sd = the
  // floor x 10.
  void predict(const Eigen::MatrixXd& x, Eigen::MatrixXd& mean, Eigen::MatrixXd& sd) const;
  double length_scale() const { return length_scale_; }
  // Per feature axis, the factor on length_scale() (ones without GpOptions::per_axis; empty
  // before a fit).
  const Eigen::VectorXd& axis_factors() const { return axis_; }

 private:
  // The marginal likelihood summed over the targets at this kernel; with `keep`, the kernel is
  // kept and factorised for predictions.
  double factor(double length_scale, const Eigen::VectorXd& axis, bool keep);

  GpOptions options_;
  Eigen::VectorXd axis_;      // per feature: the factor on length_scale_
  Eigen::MatrixXd scaled_x_;  // x_ with each column over its axis_ factor, as the kernel sees it
  Eigen::MatrixXd x_, beta_, resid_, alpha_;
  Eigen::VectorXd signal_var_, min_sd_;
  Eigen::LLT<Eigen::MatrixXd> llt_;
  double length_scale_ = 0;
};

}  // namespace fulcrum::sim::search
