"""Search strategies written in Python (docs/PYTHON.md, "A search strategy").

A strategy chooses a power mode and batch sizes for a `Problem`, learning about modes only
through the `Profiler` it is handed (which charges the profiling cost and enforces the budget,
as for the built-in strategies); its `SearchContext` carries no ground truth. Register it, and a
sweep run with `fulcrum.sweep` may name it in `strategies:` beside the built-in ones:

    import fulcrum
    from fulcrum import search

    @search.register("first-maxn", budget=1)
    class FirstMaxn(search.Strategy):
        def choose(self, problem, profiler, context):
            mode = search.grid_max(context.grid)
            seen = []
            for batches in search.batch_combinations(context):
                state = search.profile_state(problem, profiler, mode, batches)
                if state is not None:
                    seen.append(search.Measured(mode, batches, state))
            return search.choice_from(search.best_feasible(problem, seen), 1,
                                      kind=problem.power_kind)

A strategy object is made for each problem with the sweep's `StrategyOptions` (`self.options`:
max_modes, k, seed); drawing from `fulcrum.RngStreams(seed).stream(name)` keeps it deterministic
for a seed. The objects handed to choose() are valid during the call only.
"""

from __future__ import annotations

from typing import Dict, Optional, Tuple

from ._core.search import (Choice, Measured, MeasuredPoint, ModeSpace, Objective, Phase,
                           PowerConstraint, PowerMode, Problem, Profile, Profiler, ProfilingCost,
                           SearchContext, SearchStream, SteadyState, StrategyOptions,
                           batch_combinations, best_feasible, choice_from, fastest_within,
                           grid_max, pareto_front, profile_state)
from ._core.search import builtin_strategies as _builtin_strategies

__all__ = ["Strategy", "register", "unregister", "registered", "builtin", "Choice", "Measured",
           "MeasuredPoint", "ModeSpace", "Objective", "Phase", "PowerConstraint", "PowerMode",
           "Problem", "Profile", "Profiler", "ProfilingCost", "SearchContext", "SearchStream",
           "SteadyState", "StrategyOptions", "batch_combinations", "best_feasible", "choice_from",
           "fastest_within", "grid_max", "pareto_front", "profile_state"]


class Strategy:
    """Base class of a strategy written in Python: override choose()."""

    def __init__(self, options: StrategyOptions):
        self.options = options

    def choose(self, problem: Problem, profiler: Profiler, context: SearchContext) -> Choice:
        raise NotImplementedError(f"{type(self).__name__}.choose")


# name -> (class, one-line summary, default budget in modes)
_registry: Dict[str, Tuple[type, str, Optional[int]]] = {}


def builtin() -> list:
    """The built-in strategies' names."""
    return [name for name, _, _ in _builtin_strategies()]


def _check(name: str, cls: type, budget: Optional[int]) -> None:
    if not isinstance(name, str) or not name or any(c in name for c in " ,@#\"'\n"):
        raise ValueError(f"a strategy name is a non-empty word, got {name!r}")
    if name in builtin():
        raise ValueError(f"'{name}' is a built-in strategy; choose another name")
    if not (isinstance(cls, type) and issubclass(cls, Strategy)):
        raise TypeError(f"register() takes a subclass of fulcrum.search.Strategy, got {cls!r}")
    if budget is not None and (not isinstance(budget, int) or budget < 1):
        raise ValueError(f"budget must be a positive number of modes or None, got {budget!r}")


def register(name: str, cls: Optional[type] = None, summary: str = "",
             budget: Optional[int] = None):
    """Registers `cls` under `name` (a sweep's `strategies:` names it); `budget` is its default
    profiling budget in distinct modes (None: unlimited), as a built-in's. Usable as a decorator:
    `@register("name", budget=50)`. Registering a name again replaces it."""
    def add(c: type) -> type:
        _check(name, c, budget)
        _registry[name] = (c, summary or (c.__doc__ or "").strip().split("\n")[0], budget)
        return c
    return add if cls is None else add(cls)


def unregister(name: str) -> None:
    _registry.pop(name, None)


def registered() -> Dict[str, type]:
    """The strategies registered from Python, by name."""
    return {name: entry[0] for name, entry in _registry.items()}


def _entries(extra) -> list:
    """The registered strategies and `extra` ({name: class}) as the binding takes them."""
    entries = dict(_registry)
    for name, cls in (extra or {}).items():
        _check(name, cls, None)
        entries[name] = (cls, (cls.__doc__ or "").strip().split("\n")[0], None)
    return [(name, cls, summary, budget) for name, (cls, summary, budget) in entries.items()]
