"""Random search written in Python: k random modes of the grid, each measured at one combination
of batch sizes (taken in turn), and the best feasible one observed -- the built-in `random`
strategy (sim/search/strategies.cpp) for problems with inference streams, drawing the same numbers
from the same random stream, so that it chooses exactly as the C++ one does
(python/tests/test_search.py)."""

import fulcrum
from fulcrum import search


@search.register("py-random", budget=50)
class RandomSearch(search.Strategy):
    """k random modes, best feasible observed (Python)"""

    def choose(self, problem, profiler, context):
        combos = search.batch_combinations(context)
        k = self.options.k if self.options.k is not None else 10 * len(combos)
        seed = (self.options.seed * 0x9E3779B97F4A7C15 + context.seed) % 2**64
        rng = fulcrum.RngStreams(seed).stream("search/random")
        order, seen = list(range(len(context.grid))), []
        n = min(k, len(order))
        for i in range(n):  # k distinct modes: a partial Fisher-Yates shuffle of the grid
            j = i + rng.uniform_below(len(order) - i)
            order[i], order[j] = order[j], order[i]
            mode, batches = context.grid[order[i]], combos[i % len(combos)]
            state = search.profile_state(problem, profiler, mode, batches)
            if state is not None:
                seen.append(search.Measured(mode, batches, state))
        # A sweep's problems have one or two streams; the C++ strategy's training-only branch
        # (the observed Pareto front: search.pareto_front, search.fastest_within) is left out.
        return search.choice_from(search.best_feasible(problem, seen), n, kind=problem.power_kind)
