// `fulcrum sweep` and `fulcrum study` over the ranks of an MPI job (docs/MPI.md): each rank runs
// a contiguous block of the configurations (or runs) on its threads, with the seeds one process
// gives them; rank 0 gathers the rows in order and publishes exactly the bytes one process
// writes, as it would (locked, staged, renamed into place). Before anything is published every
// rank tells every other how it fared (agree()): a failure on any rank -- bad input, an error,
// a signal -- ends the job on rank 0 with that rank's error and nothing published.
//
//   std::unique_ptr<Communicator> world = open_world();               // under mpirun -n 3
//   std::optional<app::SweepReport> r = sweep_over_ranks(*world, request);  // rank 0: the report
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/app/study.hpp"
#include "sim/app/sweep.hpp"
#include "sim/mpi/communicator.hpp"
#include "sim/report/interrupt.hpp"
#include "sim/report/study_csv.hpp"

namespace fulcrum::sim::mpi {

// The block of [0, total) that rank `rank` of `size` runs: [total*rank/size,
// total*(rank+1)/size), as --shard rank+1/size.
std::pair<std::size_t, std::size_t> rank_block(std::size_t total, int rank, int size);

// Runs `step` on this rank, then every rank learns how every rank fared. When all succeeded it
// returns; else rank 0 throws the error of the lowest failing rank -- the first in run order,
// since blocks are in rank order -- with " (rank R of N)" after its one line (InputError for
// bad input, Interrupted from `interrupted` for a signal, Error for anything else), and the other
// ranks throw RankStopped. Every rank must call it the same number of times. A rank that cannot
// take its part in the exchange ends the job (Communicator::abort).
class RankStopped : public std::exception {
 public:
  const char* what() const noexcept override { return "stopped: another rank failed"; }
};
void agree(Communicator& world, const std::function<void()>& step,
           const std::function<Interrupted(int signal)>& interrupted);

// The sweep of `request` over the ranks. Rank 0: the report (the summary of every
// configuration; shard 1 of 1), or the job's error; other ranks: nullopt, also when the job
// failed (rank 0 reports it). --shard does not combine with ranks (InputError).
// request.threads 0: each rank takes its share of its machine's cores. request.progress is
// called on rank 0 only, with rank 0's count of its block.
std::optional<app::SweepReport> sweep_over_ranks(Communicator& world,
                                                 const app::SweepRequest& request);

// The study of `request` over the ranks, as sweep_over_ranks(); `progress` on rank 0 only.
std::optional<app::StudyReport> study_over_ranks(Communicator& world,
                                                 const app::StudyRequest& request,
                                                 const app::StudyProgress& progress = {});

// A study's rows as bytes and back, exactly (every double by its bits).
std::string encode_rows(const std::vector<StudyRow>& rows);
std::vector<StudyRow> decode_rows(const std::string& bytes);

}  // namespace fulcrum::sim::mpi
