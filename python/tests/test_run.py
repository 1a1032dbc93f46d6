"""fulcrum.run: the quickstart as tables, the CLI's bytes, errors as the CLI's one line, and
runs in threads with the GIL released."""

import sys
import threading
import time
from pathlib import Path

import pytest

import fulcrum

QUICKSTART = "scenarios/quickstart.yaml"


def _files(folder: Path) -> dict:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_run_returns_the_summary_and_the_tables_of_the_quickstart():
    r = fulcrum.run(QUICKSTART, set={"duration_s": 20})
    assert r.summary["scenario"] == "quickstart"
    assert r.summary["duration_s"] == 20
    # The scenario's own arithmetic (its header): a batch of 16 fills in 150 ms after its first
    # request and runs in about 54 ms, so the worst latency is about 204 ms.
    assert 199 <= r.requests["latency_ms"].max() <= 209
    # One row per completed request; power sampled every second, from 0 to the end at 20 s.
    stream = r.summary["inference"][0]
    assert len(r.requests["latency_ms"]) == stream["completed"]
    assert list(r.power["time_s"]) == list(range(21))
    assert set(r.minibatches["kind"]) == {"training", "inference"}
    assert fulcrum.has_pandas() == (type(r.requests).__name__ == "DataFrame")
    assert r.out_dir is None


def test_run_into_a_folder_writes_the_same_bytes_as_the_cli(tmp_path, cli):
    overrides = {"duration_s": 30, "inference[0].arrivals.process": "poisson",
                 "gpu_sharing": {"policy": "managed", "variant": "greedy"}}
    fulcrum.run(QUICKSTART, set=overrides, seed=11, out=tmp_path / "py")
    status, _, err = cli("run", QUICKSTART, "--set", "duration_s=30", "--set",
                         "inference[0].arrivals.process=poisson", "--set",
                         "gpu_sharing={policy: managed, variant: greedy}", "--seed", "11",
                         "--out", tmp_path / "cli", "-q")
    assert status == 0, err
    py, cl = _files(tmp_path / "py"), _files(tmp_path / "cli")
    assert sorted(py) == sorted(cl)
    # run.json records the host's wall time and command line: the one file that differs.
    for name in py:
        if name != "run.json":
            assert py[name] == cl[name], name


def test_a_dict_scenario_runs_as_the_same_file_would():
    scenario = {
        "version": 1, "name": "quickstart", "seed": 7, "duration_s": 20,
        "device": {"model": "orin-agx-64gb", "power_mode": "MAXN"},
        "gpu_sharing": "managed",
        "training": {"workload": "mobilenetv3-large", "dataset": "gld23k", "batch_size": 16},
        "inference": [{"name": "resnet50", "workload": "resnet50", "batch_size": 16,
                       "arrivals": {"process": "fixed", "rate_per_s": 100}}],
        "budgets": {"latency_ms": 250, "latency_percentile": 99, "power_w": 30},
        "outputs": {"requests": True, "minibatches": True, "power": True, "trace": True},
    }
    from_dict = fulcrum.run(scenario)
    from_file = fulcrum.run(QUICKSTART, set={"duration_s": 20})
    assert from_dict.summary == from_file.summary


def test_bad_input_raises_input_error_with_the_clis_line_and_its_location(tmp_path, cli):
    text = Path(QUICKSTART).read_text().replace("duration_s: 600", "duration_s: -5")
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(fulcrum.InputError) as caught:
        fulcrum.run(path)
    e = caught.value
    line = text.splitlines().index("duration_s: -5") + 1
    assert (e.file, e.line, e.column) == (str(path), line, len("duration_s: ") + 1)
    assert e.key_path == "duration_s"
    status, _, err = cli("run", path, "--out", tmp_path / "out")
    assert status == 2
    assert err.strip() == str(e)
    assert not (tmp_path / "out").exists()


def test_a_bad_override_is_located_at_set():
    with pytest.raises(fulcrum.InputError) as caught:
        fulcrum.run(QUICKSTART, set={"inference[0].batch_size": 0})
    assert caught.value.file == "--set"
    assert caught.value.key_path == "inference[0].batch_size"
    assert str(caught.value).startswith("--set: inference[0].batch_size: ")


def test_an_error_in_a_dict_scenario_names_the_dict_and_the_key():
    with pytest.raises(fulcrum.InputError) as caught:
        fulcrum.run({"version": 1, "name": "x", "duration_s": "long"})
    assert caught.value.file == "<scenario dict>"
    assert str(caught.value).startswith("<scenario dict>: ")


def test_an_error_of_a_file_scenario_is_not_blamed_on_a_dict():
    # An option's error (no file) of a run from a path keeps the CLI's line.
    with pytest.raises(fulcrum.InputError) as caught:
        fulcrum.run(QUICKSTART, backend="tpu")
    assert str(caught.value).startswith("--backend: 'tpu' is not a backend (backends: sim, cuda")
    assert caught.value.file is None


@pytest.mark.parametrize("call, error, message", [
    (lambda: fulcrum.run(QUICKSTART, seed=-1), ValueError,
     "seed=: must be an integer in 0..18446744073709551615, got -1"),
    (lambda: fulcrum.run(QUICKSTART, seed=2**64), ValueError,
     "seed=: must be an integer in 0..18446744073709551615, got 18446744073709551616"),
    (lambda: fulcrum.run(QUICKSTART, seed=1.5), TypeError, "seed=: expected an integer, got float 1.5"),
    (lambda: fulcrum.run(QUICKSTART, seed=True), TypeError, "seed=: expected an integer, got bool True"),
    (lambda: fulcrum.run(QUICKSTART, progress=5), TypeError,
     "progress= takes a fulcrum.Progress(), got int"),
    (lambda: fulcrum.optimize(QUICKSTART, seed=-2), ValueError, "seed=: must be an integer in 0.."),
    (lambda: fulcrum.study(3), TypeError, "expected a path or a dict, got int"),
    (lambda: fulcrum.study("scenarios/studies/sharing.yaml", jobs=-1), ValueError,
     "jobs=: must be an integer in 0..1024, got -1"),
    (lambda: fulcrum.sweep("scenarios/sweeps/small.yaml", threads=5000), ValueError,
     "threads=: must be an integer in 0..1024, got 5000"),
    (lambda: fulcrum.predict("p.csv", "p.csv", seed=-5), ValueError, "seed=: must be an integer"),
    (lambda: fulcrum.predict("p.csv", "p.csv", batch_size=2**40), ValueError,
     "batch_size=: must be an integer in"),
    (lambda: fulcrum.predict(None, "p.csv"), TypeError, "expected a profile path, got NoneType"),
])
def test_a_bad_argument_is_one_clear_error_naming_the_keyword(call, error, message):
    # Checked before anything runs, as the CLI checks its options, instead of the binding's
    # signature dump.
    with pytest.raises(error) as caught:
        call()
    assert str(caught.value).startswith(message)
    assert "incompatible function arguments" not in str(caught.value)


def test_runs_in_threads_complete_with_the_results_of_runs_one_after_another():
    overrides = {"duration_s": 60, "inference[0].arrivals.process": "poisson"}
    alone = {seed: fulcrum.run(QUICKSTART, set=overrides, seed=seed).summary for seed in (1, 2)}
    together = {}

    def one(seed):
        together[seed] = fulcrum.run(QUICKSTART, set=overrides, seed=seed).summary

    threads = [threading.Thread(target=one, args=(seed,)) for seed in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert together == alone
    assert alone[1] != alone[2]


def test_the_engine_runs_without_the_gil():
    # With a switch interval of 100 s this thread never hands the GIL over while it spins, so
    # the run's progress can only move during the spin if the engine runs without the GIL.
    progress = fulcrum.Progress()
    entered = threading.Event()
    result = {}

    def work():
        entered.set()
        result["r"] = fulcrum.run(QUICKSTART, set={"duration_s": 50000,
                                                   "outputs": {"requests": False,
                                                               "minibatches": False,
                                                               "power": False,
                                                               "trace": False}},
                                  progress=progress)

    old = sys.getswitchinterval()
    thread = threading.Thread(target=work)
    seen = set()
    try:
        thread.start()
        entered.wait()
        # Until the engine has started, sleep (which hands the GIL over) so the worker gets there.
        while progress.fraction == 0 and not progress.finished:
            time.sleep(0.001)
        sys.setswitchinterval(100)
        deadline = time.monotonic() + 120  # a bound against a hang, not a timing assertion
        while not progress.finished and time.monotonic() < deadline:
            f = progress.fraction
            if 0 < f < 1:
                seen.add(f)
    finally:
        sys.setswitchinterval(old)
    thread.join()
    assert progress.finished
    assert result["r"].summary["duration_s"] == 50000
    # Several distinct fractions seen while this thread held the GIL.
    assert len(seen) >= 2


def test_devices_and_workloads_list_the_catalogs():
    devices = fulcrum.devices()
    names = list(devices["name"]) if fulcrum.has_pandas() else [d["name"] for d in devices]
    assert "orin-agx-64gb" in names
    rows = devices.to_dict("records") if fulcrum.has_pandas() else devices
    orin = next(d for d in rows if d["name"] == "orin-agx-64gb")
    xavier = next(d for d in rows if d["name"] == "xavier-agx-32gb")
    # The perf model a scenario naming none gets, as `fulcrum devices NAME` says it, and on a
    # cross-mode calibration its fitted workloads and its recorded zero-shot check per phase.
    assert orin["default_perf_model"] == "analytic-modes"
    assert "resnet18 training" in orin["fitted_workloads"]
    assert len(orin["zero_shot_check"]) == 2
    assert orin["zero_shot_check"][0].startswith("this device's measured training workloads (4)")
    assert len(orin["few_shot_check"]) == 2
    assert "refined from k of its profiled modes" in orin["few_shot_check"][1]
    assert xavier["default_perf_model"] == "analytic"
    assert xavier["fitted_workloads"] == [] and xavier["zero_shot_check"] == []
    assert xavier["few_shot_check"] == []
    workloads = fulcrum.workloads()
    wnames = list(workloads["name"]) if fulcrum.has_pandas() else [w["name"] for w in workloads]
    assert {"resnet50", "mobilenetv3-large"} <= set(wnames)


def test_without_pandas_tables_are_dicts_of_arrays(monkeypatch):
    monkeypatch.setattr(fulcrum, "_pd", None)
    r = fulcrum.run(QUICKSTART, set={"duration_s": 10})
    assert isinstance(r.requests, dict)
    assert len(r.requests["latency_ms"]) == r.summary["inference"][0]["completed"]
    assert isinstance(fulcrum.devices(), list)
