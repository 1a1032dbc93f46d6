"""GPU-sharing policies written in Python (docs/PYTHON.md, "A GPU-sharing policy").

A policy decides which context's work runs next on the GPU, one item at a time alone at full
speed (as managed and sequential sharing do). The runtime asks `pick_next(host)` whenever the GPU
is idle and work may start -- an inference batch was dispatched, a training minibatch's data
became ready, the running item finished -- and the policy answers a context number with ready
work, or None to leave the GPU idle until the next such moment. `host` (a `Host`) answers the
queries a policy decides with; times are integer nanoseconds of simulated time.

    class Greedy(fulcrum.policy.Policy):
        def pick_next(self, host):
            c = host.oldest_ready_inference()
            if c is not None:
                return c
            t = host.training_context()
            return t if t is not None and host.has_ready_work(t) else None

    fulcrum.run("scenarios/quickstart.yaml", policy=Greedy())

(python/examples/windowed_policy.py is the windowed managed policy, which also waits when a
training minibatch would delay the next inference batch.)

The scenario's gpu_sharing still sets gpu_sharing.risk (next_ready_bound) and is what the summary
records; run.json's command line names the policy that ran.
"""

from __future__ import annotations

from typing import Optional

from ._core.policy import Host

__all__ = ["Policy", "Host"]


class Policy:
    """Base class of a GPU-sharing policy written in Python: override pick_next(). Two optional
    methods, called only where a subclass defines them (so that a policy without them costs no
    call): on_start(host), once before the run starts, and on_item_finished(host, context), when
    the item of `context` has finished, before the next pick_next."""

    def pick_next(self, host: Host) -> Optional[int]:
        """A context with ready work to start now, or None to stay idle."""
        raise NotImplementedError(f"{type(self).__name__}.pick_next")
