// Entry point of the `fulcrum` executable: the only place that catches. Exit status 0 success,
// 2 bad input (one line on stderr), 1 internal failure, 128 + N after signal N stopped a run
// (SIGINT 130, SIGTERM 143, SIGHUP 129; one line on stderr).
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "models/error.hpp"
#include "sim/cli/cli.hpp"
#include "sim/report/interrupt.hpp"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    return fulcrum::sim::run_cli(args, std::cout, std::cerr);
  } catch (const fulcrum::sim::Interrupted& e) {
    std::cout.flush();
    std::cerr << e.what() << '\n';
    return e.exit_status();
  } catch (const fulcrum::InputError& e) {
    std::cout.flush();
    std::cerr << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cout.flush();
    std::cerr << "fulcrum: internal error: " << e.what() << '\n';
    return 1;
  } catch (...) {
    std::cerr << "fulcrum: internal error: unknown exception\n";
    return 1;
  }
}
