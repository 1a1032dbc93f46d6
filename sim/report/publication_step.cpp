#include "sim/report/publication_step.hpp"

#include <signal.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <optional>
#include <string>

#include "models/error.hpp"
#include "sim/report/interrupt.hpp"

namespace fulcrum::sim {

namespace {

struct Fault {
  long step = 0;
  std::string action;  // fail | kill | SIGINT | SIGTERM | SIGHUP
};

std::optional<Fault> fault_from_environment() {
  const char* text = std::getenv("FULCRUM_FAULT_AT");
  if (text == nullptr || *text == '\0') return std::nullopt;
  const std::string_view value(text);
  const auto colon = value.find(':');
  const std::string_view number = value.substr(0, colon);
  Fault f;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), f.step);
  f.action = colon == std::string_view::npos ? "fail" : std::string(value.substr(colon + 1));
  const bool known = f.action == "fail" || f.action == "kill" || f.action == "SIGINT" ||
                     f.action == "SIGTERM" || f.action == "SIGHUP";
  if (ec != std::errc() || end != number.data() + number.size() || f.step < 1 || !known) {
    throw InputError(std::nullopt, "FULCRUM_FAULT_AT",
                     "expected K[:fail|kill|SIGINT|SIGTERM|SIGHUP] with K >= 1, got '" +
                         std::string(value) + "'");
  }
  return f;
}

long g_steps = 0;  // publication steps taken by this process

}  // namespace

void publication_step(std::string_view what, StepPhase phase) {
  const long step = ++g_steps;
  if (const std::optional<Fault> fault = fault_from_environment(); fault && fault->step == step) {
    const std::string where =
        "publication step " + std::to_string(step) + " (" + std::string(what) + ")";
    if (fault->action == "kill") {
      const std::string line = "fulcrum: injected SIGKILL at " + where + "\n";
      [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, line.data(), line.size());
      ::raise(SIGKILL);
    } else if (fault->action == "fail") {
      if (phase == StepPhase::staging) throw Error("injected fault at " + where);
    } else {
      ::raise(fault->action == "SIGINT" ? SIGINT : fault->action == "SIGTERM" ? SIGTERM : SIGHUP);
    }
  }
  if (phase == StepPhase::staging) throw_if_interrupted();
}

}  // namespace fulcrum::sim
