#include "sim/search/surrogate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace fulcrum::sim::search {

ModeFeatures::ModeFeatures(const models::ModeSpace& grid) {
  const Eigen::Index n = static_cast<Eigen::Index>(grid.size());
  all_.resize(n, kDims);
  for (Eigen::Index i = 0; i < n; ++i) {
    const models::PowerMode m = grid.at(static_cast<std::size_t>(i));
    all_(i, 0) = std::log(static_cast<double>(m.cores));
    all_(i, 1) = std::log(m.cpu_khz);
    all_(i, 2) = std::log(m.gpu_hz);
    all_(i, 3) = std::log(m.emc_hz);
  }
  for (int d = 0; d < kDims; ++d) {
    const double mean = all_.col(d).mean();
    const double var = (all_.col(d).array() - mean).square().mean();
    const double sd = var > 0 ? std::sqrt(var) : 1.0;
    all_.col(d) = (all_.col(d).array() - mean) / sd;
  }
}

Eigen::MatrixXd ModeFeatures::rows(const std::vector<std::size_t>& indices) const {
  Eigen::MatrixXd out(static_cast<Eigen::Index>(indices.size()), kDims);
  for (std::size_t i = 0; i < indices.size(); ++i) {
    out.row(static_cast<Eigen::Index>(i)) = all_.row(static_cast<Eigen::Index>(indices[i]));
  }
  return out;
}

namespace {

// Coefficients of the linear mean by ridge regression on h = [1, x] (the intercept is not
// shrunk); y has one column per target.
Eigen::MatrixXd ridge_mean(const Eigen::MatrixXd& h, const Eigen::MatrixXd& y, double ridge) {
  Eigen::MatrixXd a = h.transpose() * h;
  for (Eigen::Index d = 1; d < a.rows(); ++d) a(d, d) += ridge;
  a(0, 0) += 1e-9;
  return a.ldlt().solve(h.transpose() * y);
}

// The length scale of `scales` with the highest log marginal likelihood `lml(l)`.
template <class Lml>
double best_length_scale(const std::vector<double>& scales, Lml lml) {
  double best = -std::numeric_limits<double>::infinity();
  double best_l = scales.front();
  for (double l : scales) {
    const double v = lml(l);
    if (v > best) {
      best = v;
      best_l = l;
    }
  }
  return best_l;
}

Eigen::MatrixXd with_intercept(const Eigen::MatrixXd& x) {
  Eigen::MatrixXd h(x.rows(), x.cols() + 1);
  h.col(0).setOnes();
  h.rightCols(x.cols()) = x;
  return h;
}

// Squared-exponential kernel between the rows of a and b.
Eigen::MatrixXd kernel(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, double length_scale,
                       double variance) {
  Eigen::MatrixXd k(a.rows(), b.rows());
  const double inv = 1.0 / (2.0 * length_scale * length_scale);
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    for (Eigen::Index j = 0; j < b.rows(); ++j) {
      k(i, j) = variance * std::exp(-(a.row(i) - b.row(j)).squaredNorm() * inv);
    }
  }
  return k;
}

}  // namespace

double GaussianProcess::fit_with(double length_scale, bool keep) {
  const Eigen::Index n = x_.rows();
  Eigen::MatrixXd k = kernel(x_, x_, length_scale, signal_var_);
  k.diagonal().array() += options_.nugget * signal_var_ + 1e-10;
  Eigen::LLT<Eigen::MatrixXd> llt(k);
  if (llt.info() != Eigen::Success) return -std::numeric_limits<double>::infinity();
  const Eigen::VectorXd r = resid_;
  const Eigen::VectorXd alpha = llt.solve(r);
  double log_det = 0;
  const Eigen::MatrixXd l = llt.matrixL();
  for (Eigen::Index i = 0; i < n; ++i) log_det += 2.0 * std::log(l(i, i));
  if (keep) {
    llt_ = llt;
    alpha_ = alpha;
    length_scale_ = length_scale;
  }
  return -0.5 * r.dot(alpha) - 0.5 * log_det;
}

void GaussianProcess::fit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, bool reselect) {
  x_ = x;
  const Eigen::Index n = x.rows();
  if (n == 0) {
    beta_.resize(0);
    return;
  }
  // Linear mean by ridge regression (the intercept is not shrunk).
  const Eigen::MatrixXd h = with_intercept(x);
  beta_ = ridge_mean(h, y, options_.ridge);
  resid_ = y - h * beta_;
  const double var = n > 1 ? resid_.squaredNorm() / static_cast<double>(n) : 0.0;
  signal_var_ = std::max(var, options_.min_signal_sd * options_.min_signal_sd);
  if (!reselect && llt_.rows() + 1 >= n && length_scale_ > 0) {
    fit_with(length_scale_, true);
    return;
  }
  fit_with(best_length_scale(options_.length_scales, [&](double l) { return fit_with(l, false); }),
           true);
}

GaussianProcess::Prediction GaussianProcess::predict(const Eigen::MatrixXd& x) const {
  Prediction p;
  if (x_.rows() == 0 || beta_.size() == 0) {
    p.mean = Eigen::VectorXd::Zero(x.rows());
    p.sd = Eigen::VectorXd::Constant(x.rows(), options_.min_signal_sd * 10);
    return p;
  }
  const Eigen::MatrixXd ks = kernel(x, x_, length_scale_, signal_var_);  // m x n
  p.mean = with_intercept(x) * beta_ + ks * alpha_;
  const Eigen::MatrixXd v = llt_.matrixL().solve(ks.transpose());  // n x m
  p.sd.resize(x.rows());
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    p.sd(i) = std::sqrt(std::max(signal_var_ - v.col(i).squaredNorm(), 0.0) +
                        options_.nugget * signal_var_);
  }
  return p;
}

}  // namespace fulcrum::sim::search

namespace fulcrum::sim::search {

namespace {

// The rows of x with each column divided by its axis factor (the factors: a length scale per axis
// in a common unit).
Eigen::MatrixXd per_axis(const Eigen::MatrixXd& x, const Eigen::VectorXd& axis) {
  return (x.array().rowwise() / axis.transpose().array()).matrix();
}

// exp(-|a_i - b_j|^2 / (2 l^2)) for every pair of rows.
Eigen::MatrixXd correlation(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, double l) {
  const Eigen::VectorXd an = a.rowwise().squaredNorm();
  const Eigen::VectorXd bn = b.rowwise().squaredNorm();
  Eigen::MatrixXd d = (-2.0 * a * b.transpose()).colwise() + an;
  d.rowwise() += bn.transpose();
  return (d.array().max(0.0) * (-1.0 / (2.0 * l * l))).exp().matrix();
}

}  // namespace

double GpBank::factor(double length_scale, const Eigen::VectorXd& axis, bool keep) {
  const Eigen::Index n = x_.rows();
  const Eigen::MatrixXd xs = per_axis(x_, axis);
  Eigen::MatrixXd c = correlation(xs, xs, length_scale);
  c.diagonal().array() += options_.nugget + 1e-10;
  Eigen::LLT<Eigen::MatrixXd> llt(c);
  if (llt.info() != Eigen::Success) return -std::numeric_limits<double>::infinity();
  const Eigen::MatrixXd alpha = llt.solve(resid_);
  double log_det = 0;
  const Eigen::MatrixXd l = llt.matrixL();
  for (Eigen::Index i = 0; i < n; ++i) log_det += 2.0 * std::log(l(i, i));
  double lml = 0;
  for (Eigen::Index j = 0; j < resid_.cols(); ++j) {
    lml += -0.5 * resid_.col(j).dot(alpha.col(j)) / signal_var_(j) - 0.5 * log_det;
  }
  if (keep) {
    llt_ = llt;
    alpha_ = alpha;
    length_scale_ = length_scale;
    axis_ = axis;
    scaled_x_ = xs;
  }
  return lml;
}

void GpBank::fit(const Eigen::MatrixXd& x, const Eigen::MatrixXd& y, const Eigen::VectorXd& min_sd,
                 bool reselect) {
  x_ = x;
  min_sd_ = min_sd;
  const Eigen::Index n = x.rows();
  if (n == 0) {
    beta_.resize(0, 0);
    return;
  }
  const Eigen::MatrixXd h = with_intercept(x);
  beta_ = ridge_mean(h, y, options_.ridge);
  resid_ = y - h * beta_;
  signal_var_.resize(y.cols());
  for (Eigen::Index j = 0; j < y.cols(); ++j) {
    const double var = n > 1 ? resid_.col(j).squaredNorm() / static_cast<double>(n) : 0.0;
    signal_var_(j) = std::max(var, min_sd(j) * min_sd(j));
  }
  if (!reselect && length_scale_ > 0) {
    factor(length_scale_, axis_, true);
    return;
  }
  Eigen::VectorXd axis = Eigen::VectorXd::Ones(x.cols());
  const double l =
      best_length_scale(options_.length_scales, [&](double s) { return factor(s, axis, false); });
  if (options_.per_axis && !options_.axis_factors.empty()) {
    for (Eigen::Index d = 0; d < x.cols(); ++d) {
      Eigen::VectorXd trial = axis;
      axis(d) = best_length_scale(options_.axis_factors, [&](double f) {
        trial(d) = f;
        return factor(l, trial, false);
      });
    }
  }
  factor(l, axis, true);
}

void GpBank::predict(const Eigen::MatrixXd& x, Eigen::MatrixXd& mean, Eigen::MatrixXd& sd) const {
  const Eigen::Index targets = min_sd_.size();
  if (x_.rows() == 0 || beta_.size() == 0) {
    mean = Eigen::MatrixXd::Zero(x.rows(), targets);
    sd.resize(x.rows(), targets);
    for (Eigen::Index j = 0; j < targets; ++j) sd.col(j).setConstant(min_sd_(j) * 10);
    return;
  }
  const Eigen::MatrixXd cs = correlation(per_axis(x, axis_), scaled_x_, length_scale_);  // m x n
  mean = with_intercept(x) * beta_ + cs * alpha_;
  const Eigen::MatrixXd v = llt_.matrixL().solve(cs.transpose());  // n x m
  const Eigen::VectorXd q =
      (1.0 - v.colwise().squaredNorm().array()).max(0.0).matrix().transpose().array() +
      options_.nugget;
  sd.resize(x.rows(), targets);
  for (Eigen::Index j = 0; j < targets; ++j) {
    sd.col(j) = (q.array() * signal_var_(j)).sqrt().matrix();
  }
}

}  // namespace fulcrum::sim::search
