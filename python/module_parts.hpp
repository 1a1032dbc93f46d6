// What the source files of fulcrum._core share: each binds one part of the module
// (core_module.cpp the runs, studies and catalogs; search_module.cpp optimize, sweep and the
// search strategies; policy_module.cpp the GPU-sharing policies) and core_module.cpp's
// PYBIND11_MODULE calls them in turn.
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>
#include <string>

#include "sim/runtime/gpu_sharing_policy.hpp"

namespace fulcrum::python {

// How far a run, study or sweep has got, written by the engine's thread without the GIL and read
// from Python (a notebook's progress bar, or a test that the GIL is released while it runs).
struct Progress {
  std::atomic<double> fraction{0};
  std::atomic<bool> finished{false};
};

// The Python exception being handled, in one line: "ValueError: the message" (GIL held).
std::string python_error_line(const pybind11::error_already_set& e);

// fulcrum._core.search: optimize, sweep, the search's types and strategies written in Python.
void bind_search(pybind11::module_& m);
// fulcrum._core.policy: GPU-sharing policies written in Python (and run's policy= argument).
void bind_policy(pybind11::module_& m);
// Makes a run's GPU-sharing policy from a Python object with pick_next(host) (and optionally
// on_item_finished(host, context), on_start(host)); TypeError without pick_next. The object
// must outlive the run.
sim::GpuSharingPolicyFactory python_policy_factory(const pybind11::object& policy);

}  // namespace fulcrum::python
