// GPU-sharing policies written in Python (docs/PYTHON.md, "A GPU-sharing policy"). A Python
// policy runs one item at a time alone on the GPU, as managed and sequential sharing do: it is an
// ExclusivePolicy (sim/runtime/exclusive_policy.hpp) whose pick_next -- asked whenever the GPU is
// idle and work may start: an inference batch was dispatched, training data became ready, the
// running item finished -- and on_item_finished are the Python object's methods. They get a
// `Host`: the GpuHost queries a policy decides with (times in integer nanoseconds, the
// runtime's own clock), never the levers that start or finish items. The engine runs with the
// GIL released; it is taken only inside these callbacks.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "models/error.hpp"
#include "python/module_parts.hpp"
#include "sim/runtime/exclusive_policy.hpp"
#include "sim/runtime/gpu_host.hpp"

namespace py = pybind11;

namespace fulcrum::python {

namespace {

using sim::GpuHost;
using sim::Time;

class PythonPolicy;

// What a Python policy sees of the run: GpuHost's queries, bounds-checked (a bad context number
// is a Python IndexError, not undefined behaviour in the runtime).
class HostView {
 public:
  HostView(GpuHost& host, const PythonPolicy& policy) : host_(&host), policy_(&policy) {}
  // The run has ended: a Host kept past it answers nothing.
  void detach() {
    host_ = nullptr;
    policy_ = nullptr;
  }

  Time now() const { return host().now(); }
  int context_count() const { return host().context_count(); }
  std::string kind(int c) const {
    check(c);
    return host().kind(c) == sim::ContextKind::training ? "training" : "inference";
  }
  std::optional<int> training_context() const { return host().training_context(); }
  bool has_ready_work(int c) const {
    check(c);
    return host().has_ready_work(c);
  }
  std::optional<Time> ready_since(int c) const {
    check(c);
    if (!host().has_ready_work(c)) return std::nullopt;
    return host().ready_since(c);
  }
  std::optional<int> oldest_ready_inference() const { return host().oldest_ready_inference(); }
  bool is_training_active() const { return host().is_training_active(); }
  Time predicted_duration(int c) const {
    check(c);
    return host().predicted_duration(c);
  }
  Time next_ready_bound(int c) const {
    check(c);
    if (host().kind(c) != sim::ContextKind::inference) {
      throw py::value_error("next_ready_bound: context " + std::to_string(c) +
                            " is the training job, not an inference stream");
    }
    return host().next_ready_bound(c);
  }
  std::optional<int> running() const;

 private:
  GpuHost& host() const {
    if (host_ == nullptr) throw py::value_error("this Host's run has ended");
    return *host_;
  }
  void check(int c) const {
    if (c < 0 || c >= host().context_count()) {
      throw py::index_error("context " + std::to_string(c) + " out of range (the run has " +
                            std::to_string(host().context_count()) + ")");
    }
  }

  GpuHost* host_;
  const PythonPolicy* policy_;
};

class PythonPolicy final : public sim::ExclusivePolicy<PythonPolicy> {
 public:
  // GIL held.
  PythonPolicy(GpuHost& host, py::object policy, std::string name)
      : ExclusivePolicy(host), policy_(std::move(policy)), name_(std::move(name)) {
    auto view = std::make_unique<HostView>(host, *this);
    view_raw_ = view.get();
    view_ = py::cast(std::move(view));
    pick_ = policy_.attr("pick_next");
    if (py::hasattr(policy_, "on_item_finished")) finished_ = policy_.attr("on_item_finished");
    if (py::hasattr(policy_, "on_start")) policy_.attr("on_start")(view_);
  }
  ~PythonPolicy() override {
    const py::gil_scoped_acquire gil;
    view_raw_->detach();
    pick_ = py::object();
    finished_ = py::object();
    view_ = py::object();
    policy_ = py::object();
  }

  std::optional<int> pick_next() {
    const py::gil_scoped_acquire gil;
    std::optional<int> pick;
    try {
      const py::object r = pick_(view_);
      if (r.is_none()) return std::nullopt;
      // An int (or anything with __index__: a numpy integer), never a bool.
      if (PyIndex_Check(r.ptr()) == 0 || py::isinstance<py::bool_>(r)) {
        throw Error("policy '" + name_ + "': pick_next returned " +
                    std::string(py::str(py::repr(r))) + ", not a context number or None");
      }
      pick = py::int_(r).cast<int>();
    } catch (const py::error_already_set& e) {
      throw Error("policy '" + name_ + "': pick_next: " + python_error_line(e));
    } catch (const py::cast_error&) {
      throw Error("policy '" + name_ + "': pick_next returned a number out of range");
    }
    if (*pick < 0 || *pick >= host_.context_count() || !host_.has_ready_work(*pick)) {
      throw Error("policy '" + name_ + "': pick_next returned context " + std::to_string(*pick) +
                  ", which has no work ready to start");
    }
    return pick;
  }

  void on_item_finished(int context) {
    if (!finished_) return;
    const py::gil_scoped_acquire gil;
    try {
      finished_(view_, context);
    } catch (const py::error_already_set& e) {
      throw Error("policy '" + name_ + "': on_item_finished: " + python_error_line(e));
    }
  }

 private:
  py::object policy_;
  std::string name_;
  py::object view_;
  HostView* view_raw_ = nullptr;  // owned by view_
  py::object pick_;
  py::object finished_;
};

std::optional<int> HostView::running() const {
  host();  // the run has not ended
  return policy_->running();
}

}  // namespace

sim::GpuSharingPolicyFactory python_policy_factory(const py::object& policy) {
  if (!py::hasattr(policy, "pick_next")) {
    throw py::type_error(
        "policy= takes an object with a pick_next(host) method (a subclass of "
        "fulcrum.policy.Policy)");
  }
  const std::string name = py::str(policy.get_type().attr("__qualname__"));
  // The factory runs on the engine's thread without the GIL; it holds the object by a plain
  // pointer (the caller's reference keeps it alive for the run) so that copying the factory
  // needs no GIL either.
  PyObject* raw = policy.ptr();
  return [raw, name](GpuHost& host) -> std::unique_ptr<sim::GpuSharingPolicy> {
    if (host.executes_concurrently()) {
      throw InputError(std::nullopt, "policy",
                       "a Python policy runs one item at a time; it cannot drive native "
                       "time-slicing on a real-time backend");
    }
    const py::gil_scoped_acquire gil;
    try {
      return std::make_unique<PythonPolicy>(host, py::reinterpret_borrow<py::object>(raw), name);
    } catch (const py::error_already_set& e) {
      throw Error("policy '" + name + "': " + python_error_line(e));
    }
  };
}

void bind_policy(py::module_& m) {
  py::module_ p = m.def_submodule("policy", "GPU-sharing policies written in Python");
  py::class_<HostView>(p, "Host",
                       "What a policy sees of the run (sim/runtime/gpu_host.hpp). Times are "
                       "integer nanoseconds of simulated time; contexts are numbered from 0, the "
                       "training job first when the run has one, then the inference streams.")
      .def("now", &HostView::now, "The simulated time, ns.")
      .def("context_count", &HostView::context_count)
      .def("kind", &HostView::kind, py::arg("context"), "'training' or 'inference'.")
      .def("training_context", &HostView::training_context, "The training job's context, or None.")
      .def("has_ready_work", &HostView::has_ready_work, py::arg("context"),
           "Whether the context has an item that could start now (False while its item runs).")
      .def("ready_since", &HostView::ready_since, py::arg("context"),
           "Inference: the arrival of the oldest request of the batch that would start; "
           "training: when its data became ready; None without ready work.")
      .def("oldest_ready_inference", &HostView::oldest_ready_inference,
           "The inference context whose ready batch holds the oldest request (ties: the lower "
           "context), or None.")
      .def("is_training_active", &HostView::is_training_active)
      .def("predicted_duration", &HostView::predicted_duration, py::arg("context"),
           "The predicted standalone time of the context's next item, ns.")
      .def("next_ready_bound", &HostView::next_ready_bound, py::arg("context"),
           "Inference contexts: the earliest time from now on at which the stream can next have "
           "a batch ready, ns (at the scenario's gpu_sharing.risk).")
      .def("running", &HostView::running, "The context whose item is on the GPU, or None.");
}

}  // namespace fulcrum::python
