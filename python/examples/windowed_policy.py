"""Windowed managed interleaving written in Python: the C++ policy of sim/runtime/
managed_policy.cpp as a fulcrum.policy.Policy, writing the same output files
(python/tests/test_policy.py) and counting its decisions (bench/python_run.py).

    import fulcrum, windowed_policy
    r = fulcrum.run("scenarios/quickstart.yaml", policy=windowed_policy.Windowed())
"""

import fulcrum


class Windowed(fulcrum.policy.Policy):
    """Managed, windowed: the oldest ready inference batch; else a ready training minibatch
    that ends before any other context's next batch can be ready; else nothing."""

    def __init__(self):
        self.decisions = 0  # pick_next calls

    def pick_next(self, host):
        self.decisions += 1
        c = host.oldest_ready_inference()
        if c is not None:
            return c
        t = host.training_context()
        if t is None or not host.has_ready_work(t):
            return None
        done = host.now() + host.predicted_duration(t)
        for c in range(host.context_count()):
            if c != t and host.next_ready_bound(c) < done:
                return None
        return t
