// Entry point of the `fulcrum` executable: the only place that catches. Exit status 0 success,
// 2 bad input or an environment that refuses the output (one line on stderr), 1 internal failure,
// 128 + N after signal N stopped a run (SIGINT 130, SIGTERM 143, SIGHUP 129; one line on stderr).
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "models/error.hpp"
#include "sim/cli/cli.hpp"
#include "sim/config/input_text.hpp"
#include "sim/mpi/communicator.hpp"
#include "sim/report/interrupt.hpp"

namespace {

// What reaches the terminal is one line of text: a byte the message echoes from a file (a binary
// CSV header, a control sequence) is written escaped, never raw.
std::string terminal_line(const char* what) {
  return fulcrum::sim::printable(what, std::string::npos);
}

// Under an MPI launcher every rank meets a bad option before MPI starts, and after it starts a
// failing rank's error reaches rank 0 (sim/mpi/mpi_runner.hpp): the other ranks print nothing
// and exit with the same status, so the job says it once.
bool quiet_rank() {
  const std::optional<int> rank = fulcrum::sim::mpi::launcher_rank();
  return rank && *rank != 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    const int status = fulcrum::sim::run_cli(args, std::cout, std::cerr);
    // A full disk or a closed pipe on standard output is not a success: what was asked for did not
    // arrive. (The files a verb writes are published whole or not at all; stdout is the one
    // stream that can fail late.)
    if (!std::cout.flush()) {
      std::cerr << "fulcrum: cannot write to standard output (disk full, or its reader went "
                   "away); the output printed there is incomplete\n";
      return 2;
    }
    return status;
  } catch (const fulcrum::sim::Interrupted& e) {
    std::cout.flush();
    std::cerr << terminal_line(e.what()) << '\n';
    return e.exit_status();
  } catch (const fulcrum::InputError& e) {
    std::cout.flush();
    if (!quiet_rank()) std::cerr << terminal_line(e.what()) << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cout.flush();
    if (!quiet_rank()) std::cerr << "fulcrum: internal error: " << terminal_line(e.what()) << '\n';
    return 1;
  } catch (...) {
    std::cerr << "fulcrum: internal error: unknown exception\n";
    return 1;
  }
}
