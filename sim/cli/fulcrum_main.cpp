// Entry point of the `fulcrum` executable: the only place that catches. Exit status 0 success,
// 2 bad input or an environment that refuses the output (one line on stderr), 1 internal failure,
// 128 + N after signal N stopped a run (SIGINT 130, SIGTERM 143, SIGHUP 129; one line on stderr).
#include <chrono>
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
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

// Under an MPI launcher every rank meets a bad option before MPI starts (after it starts, a
// failing rank's error reaches rank 0 through sim/mpi/mpi_runner.hpp, and the others end quietly).
// A rank that exits non-zero makes mpirun end the others at once, possibly before rank 0 has said
// why; one that exits 0 would leave rank 0, had it not failed, waiting in MPI's start-up for ever.
// So a rank other than 0 first waits a while: rank 0 fails the same way, says it once and mpirun
// ends this rank during the wait. Only a rank still running after it (its error was its own: a
// file its node cannot read) says its error, naming its rank, and exits with its status.
constexpr std::chrono::seconds kRankZeroGrace{5};

void report_failure(const std::string& line) {
  const std::optional<int> rank = fulcrum::sim::mpi::launcher_rank();
  if (rank && *rank != 0) {
    std::this_thread::sleep_for(kRankZeroGrace);
    std::cerr << line << " (rank " << *rank << ")\n";
    return;
  }
  std::cerr << line << '\n';
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
    report_failure(terminal_line(e.what()));
    return 2;
  } catch (const std::exception& e) {
    std::cout.flush();
    report_failure("fulcrum: internal error: " + terminal_line(e.what()));
    return 1;
  } catch (...) {
    std::cerr << "fulcrum: internal error: unknown exception\n";
    return 1;
  }
}
