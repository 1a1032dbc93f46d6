"""fulcrum.sweep and fulcrum.optimize over the app layer (the CLI's bytes, located errors), and
search strategies written in Python: the Profiler's accounting and budget, no ground truth in
the context, one error naming a strategy that raises, and a Python re-implementation of the
C++ `random` strategy (python/examples/random_search.py) that writes exactly its rows."""

import csv
import sys
from pathlib import Path

import pytest

import fulcrum
from fulcrum import search

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python" / "examples"))
import random_search  # noqa: E402  (registers "py-random")

SWEEP = """version: 1
name: {name}
seed: 3
workloads:
  - {{training: resnet18, inference: mobilenet_v3}}
  - {{training: resnet18, inference: [mobilenet_v3, lstm]}}
arrivals:
  fixed: [30]
  dynamic: [[30, 90]]
latency_budget_s: [0.5, 2.0]
power_budget_w: [20, 40]
profiler: {{noise: 0.05}}
strategies: [{strategies}]
"""


def _sweep_file(folder: Path, strategies: str, name: str = "py") -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(SWEEP.format(name=name, strategies=strategies))
    return path


def _rows(path: Path) -> list:
    with open(path, newline="") as f:
        lines = f.read().splitlines()
    assert lines[0].startswith("# fulcrum sweep ")
    return list(csv.DictReader(lines[1:]))


def test_the_python_random_strategy_writes_exactly_the_rows_of_the_cpp_random(tmp_path):
    path = _sweep_file(tmp_path, "random, py-random, {name: random, max_modes: 12}, "
                                 "{name: py-random, max_modes: 12}")
    fulcrum.sweep(path, out=tmp_path / "s.csv", threads=2)
    rows = _rows(tmp_path / "s.csv")
    by = {}
    for r in rows:
        by.setdefault(r["strategy"], []).append(r)
    # 2 workload sets x 2 arrival cases x 2 latency x 2 power budgets.
    assert {k: len(v) for k, v in by.items()} == {"random": 8 * 2, "py-random": 16,
                                                  "random@12": 16, "py-random@12": 16}
    for cpp, py in (("random", "py-random"), ("random@12", "py-random@12")):
        for a, b in zip(by[cpp], by[py]):
            assert {**a, "strategy": None} == {**b, "strategy": None}
    # Not vacuous: the strategies profiled, within their budgets, and found modes.
    assert all(0 < int(r["modes_profiled"]) <= 12 * 2 for r in by["py-random@12"])
    assert any(r["found"] == "1" and r["mode"] for r in by["py-random"])
    assert any(r["budgets_met"] == "1" for r in by["py-random@12"])


def test_sweep_writes_the_same_bytes_as_the_cli_and_returns_its_tables(tmp_path, cli):
    path = _sweep_file(tmp_path, "maxn, random")
    r = fulcrum.sweep(path, out=tmp_path / "py.csv", threads=2)
    status, _, err = cli("sweep", path, "--out", tmp_path / "cli.csv", "-q")
    assert status == 0, err
    assert (tmp_path / "py.csv").read_bytes() == (tmp_path / "cli.csv").read_bytes()
    assert r.csv == tmp_path / "py.csv"
    assert r.document["configurations"] == 16
    assert [s["strategy"] for s in r.document["strategies"]] == ["maxn", "random"]
    rows = _rows(tmp_path / "py.csv")
    assert len(r.rows["config"]) == len(rows) == 32
    assert "random" in r.text


def test_a_strategy_given_for_one_call_runs_beside_the_registered_ones(tmp_path):
    class Maxn(search.Strategy):
        def choose(self, problem, profiler, context):
            mode = search.grid_max(context.grid)
            seen = []
            for batches in search.batch_combinations(context):
                state = search.profile_state(problem, profiler, mode, batches)
                if state is not None:
                    seen.append(search.Measured(mode, batches, state))
            return search.choice_from(search.best_feasible(problem, seen), 1,
                                      kind=problem.power_kind)

    path = _sweep_file(tmp_path, "maxn, my-maxn")
    fulcrum.sweep(path, out=tmp_path / "s.csv", strategies={"my-maxn": Maxn})
    rows = _rows(tmp_path / "s.csv")
    cpp = [r for r in rows if r["strategy"] == "maxn"]
    py = [r for r in rows if r["strategy"] == "my-maxn"]
    assert len(cpp) == len(py) == 16
    # The same mode and batch sizes as the built-in maxn (which profiles one mode).
    for a, b in zip(cpp, py):
        assert (a["mode"], a["batch_sizes"], a["budgets_met"]) == \
               (b["mode"], b["batch_sizes"], b["budgets_met"])
        # One mode per segment: a dynamic case (30>90) re-optimises once.
        assert b["modes_profiled"] == ("1" if b["arrival_per_s"] == "30" else "2")


def test_a_python_strategy_is_held_to_its_budget_and_never_sees_the_ground_truth(tmp_path):
    seen = []

    class Greedy(search.Strategy):
        def choose(self, problem, profiler, context):
            statuses = []
            for i in range(len(context.grid)):
                p = profiler.profile(problem.training, search.Phase.training,
                                     problem.training_batch, context.grid[i])
                statuses.append(p.status)
                if p.status == "over_budget":
                    break
            seen.append((statuses, profiler.cost.modes, profiler.max_modes,
                         profiler.can_profile_new_mode(), sorted(dir(context))))
            return search.Choice()

    path = _sweep_file(tmp_path, "{name: greedy, max_modes: 5}")
    fulcrum.sweep(path, out=tmp_path / "s.csv", strategies={"greedy": Greedy}, threads=1)
    assert seen
    for statuses, modes, max_modes, more, names in seen:
        assert statuses == ["ok"] * 5 + ["over_budget"]
        assert (modes, max_modes, more) == (5, 5, False)
        assert not any("truth" in n for n in names)
    rows = _rows(tmp_path / "s.csv")
    assert {r["modes_profiled"] for r in rows if r["arrival_per_s"] == "30"} == {"5"}
    assert {r["found"] for r in rows} == {"0"}


def test_an_exception_in_choose_is_one_error_naming_the_strategy_and_nothing_is_written(tmp_path):
    class Broken(search.Strategy):
        def choose(self, problem, profiler, context):
            raise ValueError("no idea\nat all")

    path = _sweep_file(tmp_path, "maxn, broken")
    with pytest.raises(fulcrum.Error) as caught:
        fulcrum.sweep(path, out=tmp_path / "s.csv", strategies={"broken": Broken})
    assert str(caught.value) == "strategy 'broken': ValueError: no idea at all"
    assert not isinstance(caught.value, fulcrum.InputError)
    assert not (tmp_path / "s.csv").exists()
    assert not (tmp_path / "s.csv.partial").exists()

    class Wrong(search.Strategy):
        def choose(self, problem, profiler, context):
            return 42

    path = _sweep_file(tmp_path, "wrong")
    with pytest.raises(fulcrum.Error, match=r"^strategy 'wrong': choose\(\) returned 42, not a"):
        fulcrum.sweep(path, out=tmp_path / "w.csv", strategies={"wrong": Wrong})

    class Short(search.Strategy):
        def choose(self, problem, profiler, context):
            return search.Choice(found=True, mode=search.grid_max(context.grid), batch_sizes=[])

    path = _sweep_file(tmp_path, "short")
    with pytest.raises(fulcrum.Error, match=r"^strategy 'short': choose\(\) found a choice with "
                                            r"0 batch sizes for [12] inference streams$"):
        fulcrum.sweep(path, out=tmp_path / "w.csv", strategies={"short": Short})
    assert not (tmp_path / "w.csv").exists()


def test_a_sweep_naming_an_unknown_strategy_is_the_clis_located_error(tmp_path, cli):
    path = _sweep_file(tmp_path, "maxn, nowhere")
    with pytest.raises(fulcrum.InputError) as caught:
        fulcrum.sweep(path, out=tmp_path / "s.csv")
    e = caught.value
    assert (e.file, e.line) == (str(path), 13)
    assert "nowhere" in e.problem and "py-random" in e.problem
    status, _, err = cli("sweep", path, "--out", tmp_path / "cli.csv", "-q")
    assert status == 2
    # The CLI knows only the built-ins; the rest of the line is the same.
    assert err.strip().split(" (known:")[0] == str(e).split(" (known:")[0]
    assert not (tmp_path / "s.csv").exists()


def test_register_refuses_a_built_in_name_and_what_is_not_a_strategy():
    with pytest.raises(ValueError, match="built-in"):
        search.register("random", random_search.RandomSearch)
    with pytest.raises(TypeError):
        search.register("not-a-strategy", object)
    assert search.registered()["py-random"] is random_search.RandomSearch


def _splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) % 2**64
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % 2**64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % 2**64
    return x, z ^ (z >> 31)


def test_rng_streams_draw_the_published_xoshiro256starstar_sequence():
    # An independent transcription of the published algorithms (SplitMix64 seeding, FNV-1a of
    # the stream's name, xoshiro256**), as models/random/rng_streams.hpp documents them.
    seed, name = 12345, "search/random"
    h = 0xCBF29CE484222325
    for c in name.encode():
        h = ((h ^ c) * 0x100000001B3) % 2**64
    _, mix = _splitmix64(seed)
    _, stream_seed = _splitmix64(mix ^ h)
    s, x = [], stream_seed
    for _ in range(4):
        x, v = _splitmix64(x)
        s.append(v)

    def rotl(v, k):
        return ((v << k) | (v >> (64 - k))) % 2**64

    expected = []
    for _ in range(5):
        expected.append((rotl((s[1] * 5) % 2**64, 7) * 9) % 2**64)
        t = (s[1] << 17) % 2**64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
    rng = fulcrum.RngStreams(seed).stream(name)
    assert [rng.next() for _ in range(5)] == expected


def test_optimize_writes_the_same_optimize_json_as_the_cli(tmp_path, cli):
    scenario = "scenarios/optimize-measured.yaml"
    r = fulcrum.optimize(scenario, set={"duration_s": 20}, out=tmp_path / "py")
    status, _, err = cli("optimize", scenario, "--set", "duration_s=20", "--out",
                         tmp_path / "cli")
    assert status == 0, err
    assert (tmp_path / "py" / "optimize.json").read_bytes() == \
           (tmp_path / "cli" / "optimize.json").read_bytes()
    assert r.file == tmp_path / "py" / "optimize.json"
    assert r.report["choice"]["found"] is True
    assert r.report["scenario"] == "optimize-measured"
    # Without out= nothing is written.
    r2 = fulcrum.optimize(scenario, set={"duration_s": 20})
    assert r2.file is None and r2.report == r.report


def test_optimize_without_a_search_block_is_the_clis_located_error(tmp_path, cli):
    with pytest.raises(fulcrum.InputError) as caught:
        fulcrum.optimize("scenarios/quickstart.yaml", out=tmp_path / "o")
    status, _, err = cli("optimize", "scenarios/quickstart.yaml", "--out", tmp_path / "c")
    assert status == 2
    assert err.strip() == str(caught.value)
    assert caught.value.file == "scenarios/quickstart.yaml"
    assert not (tmp_path / "o").exists()


def test_optimize_runs_a_python_strategy_as_it_runs_the_built_in_one(tmp_path):
    scenario = "scenarios/optimize-measured.yaml"
    common = {"duration_s": 20, "search.max_modes": 30}
    cpp = fulcrum.optimize(scenario, set={**common, "search.strategy": "random"})
    py = fulcrum.optimize(scenario, set={**common, "search.strategy": "py-random"})
    # For this call only, under a name of its own.
    once = fulcrum.optimize(scenario, set={**common, "search.strategy": "once-random"},
                            strategies={"once-random": random_search.RandomSearch})
    assert cpp.report["choice"]["found"] is True
    assert cpp.report["profiling"]["modes"] > 0
    for r, name in ((py, "py-random"), (once, "once-random")):
        assert r.report["search"]["strategy"] == name
        same = {**r.report, "search": {**r.report["search"], "strategy": None}}
        assert same == {**cpp.report, "search": {**cpp.report["search"], "strategy": None}}
    with pytest.raises(fulcrum.InputError, match="search.strategy"):
        fulcrum.optimize(scenario, set={**common, "search.strategy": "once-random"})
