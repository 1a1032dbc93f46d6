"""Fulcrum from Python: runs, studies, searches and sweeps of the simulator as tables
(docs/PYTHON.md).

    import fulcrum
    r = fulcrum.run("scenarios/quickstart.yaml", set={"inference[0].batch_size": 8})
    r.summary["training"]["samples_per_s"]
    r.requests.latency_ms.quantile(0.99)        # a pandas DataFrame (dict of arrays without pandas)

The engine runs with the GIL released: runs in several threads proceed at once. Search strategies
(fulcrum.search) and GPU-sharing policies (fulcrum.policy) may be written in Python.
"""

from __future__ import annotations

import csv
import json
import numbers
import os
import tempfile
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence, Union

from . import _core
from . import policy, search
from ._core import Error, InputError, Progress, Rng, RngStreams

try:  # pandas is optional: without it tables are dicts of arrays (numpy) or lists
    import pandas as _pd
except ImportError:  # pragma: no cover - depends on the machine
    _pd = None
try:
    import numpy as _np
except ImportError:  # pragma: no cover - depends on the machine
    _np = None

__all__ = ["run", "study", "optimize", "sweep", "predict", "devices", "workloads", "Result",
           "StudyResult", "OptimizeResult", "SweepResult", "InputError", "Error", "Progress",
           "Rng", "RngStreams", "has_pandas", "search", "policy"]

# The tables of a run, by attribute, and the file each is read from.
_RUN_TABLES = {"requests": "requests.csv", "minibatches": "minibatches.csv",
               "epochs": "epochs.csv", "power": "power.csv"}
_DICT_SCENARIO_NAME = "<scenario dict>"
_DICT_STUDY_NAME = "<study dict>"
_DICT_SWEEP_NAME = "<sweep dict>"


def has_pandas() -> bool:
    """Whether tables come as pandas DataFrames (else dicts of arrays)."""
    return _pd is not None


def _yaml_value(value: Any) -> str:
    """A Python value as the YAML text --set takes (JSON is YAML)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return json.dumps(value)


def _overrides(values: Optional[Mapping[str, Any]]) -> list:
    if values is None:
        return []
    if not isinstance(values, Mapping):
        raise TypeError("set= takes a dict of scenario key paths to values, e.g. "
                        "{'inference[0].batch_size': 8}")
    return [f"{key}={_yaml_value(value)}" for key, value in values.items()]


_SEED_MAX = 2**64 - 1
_THREADS_MAX = 1024  # the CLI's --threads / --jobs bound


def _integer(name: str, value: Any, low: int, high: int, optional: bool = False):
    """An integer argument checked as the CLI checks its option: a clear error naming the
    keyword, not the binding's signature dump."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name}=: expected an integer, got {type(value).__name__} {value!r}")
    if not low <= int(value) <= high:
        raise ValueError(f"{name}=: must be an integer in {low}..{high}, got {int(value)}")
    return int(value)


def _seed(seed: Any) -> Optional[int]:
    return _integer("seed", seed, 0, _SEED_MAX, optional=True)


def _progress(progress: Any) -> Optional[Progress]:
    if progress is not None and not isinstance(progress, Progress):
        raise TypeError(f"progress= takes a fulcrum.Progress(), got {type(progress).__name__}")
    return progress


def _path(value: Any, what: str) -> str:
    if isinstance(value, (str, os.PathLike)):
        return os.fspath(value)
    raise TypeError(f"expected {what}, got {type(value).__name__}")


def _number(text: str) -> Any:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def _read_table(path: Path, skip: int = 0):
    """A CSV written by a run as a DataFrame, or without pandas a dict of column -> array;
    `skip` lines before the header (a sweep CSV's comment line)."""
    if _pd is not None:
        return _pd.read_csv(path, skiprows=skip)
    with open(path, newline="") as f:
        rows = list(csv.reader(f))[skip:]
    header, body = rows[0], rows[1:]
    columns = {}
    for i, name in enumerate(header):
        cells = [_number(r[i]) if r[i] != "" else float("nan") for r in body]
        if _np is not None and all(not isinstance(c, str) for c in cells):
            columns[name] = _np.asarray(cells)
        else:
            columns[name] = cells
    return columns


def _located_for_dict(e: InputError, temp_file: str, display: str) -> InputError:
    """An error in a dict written to a temporary file names the dict and the key, not the file."""
    if temp_file is None or getattr(e, "file", None) != temp_file:
        return e
    key = e.key_path
    message = f"{display}: {key}: {e.problem}" if key else f"{display}: {e.problem}"
    out = InputError(message)
    out.file, out.line, out.column = display, None, None
    out.key_path, out.problem = key, e.problem
    return out


class Result:
    """One run: `summary` (summary.json as a dict) and its tables `requests`, `minibatches`,
    `epochs` and `power` (None where the scenario's `outputs` turned a file off). A table is read
    from the run's file when first used (a run without out= keeps its files in a temporary folder
    for as long as the Result lives), so a run whose tables are not looked at costs no parsing."""

    def __init__(self, summary: dict, files: dict, out_dir: Optional[Path], wall_s: float,
                 keep: Optional[tempfile.TemporaryDirectory] = None):
        self.summary = summary
        self._files = files  # table name -> its CSV
        self._tables: dict = {}
        self._keep = keep  # the temporary folder holding the files, removed with the Result
        self.out_dir = out_dir  # the published folder, or None when run without out=
        self.wall_s = wall_s

    def _table(self, name: str):
        if name not in self._tables:
            path = self._files.get(name)
            self._tables[name] = _read_table(path) if path is not None else None
        return self._tables[name]

    requests = property(lambda self: self._table("requests"), doc="requests.csv")
    minibatches = property(lambda self: self._table("minibatches"), doc="minibatches.csv")
    epochs = property(lambda self: self._table("epochs"), doc="epochs.csv")
    power = property(lambda self: self._table("power"), doc="power.csv")

    def __repr__(self) -> str:
        return f"<fulcrum.Result {self.summary.get('scenario')!r} seed={self.summary.get('seed')}>"


class StudyResult:
    """A study: `runs` (study.csv: one row per run), `summary` (study_summary.csv: the mean and
    95% confidence half-width per point over its seeds) and `latency` (study_latency.csv)."""

    def __init__(self, runs, summary, latency, out_dir: Optional[Path], wall_s: float):
        self.runs = runs
        self.summary = summary
        self.latency = latency
        self.out_dir = out_dir
        self.wall_s = wall_s


def _scenario_file(scenario: Union[str, os.PathLike, Mapping], folder: str, display: str):
    """The path to load: the file given, or a dict written as YAML (JSON) into `folder`."""
    if isinstance(scenario, Mapping):
        path = os.path.join(folder, "input.yaml")
        with open(path, "w") as f:
            json.dump(scenario, f, indent=1)
        return path, path
    return _path(scenario, "a path or a dict"), None


def run(scenario: Union[str, os.PathLike, Mapping], set: Optional[Mapping[str, Any]] = None,
        backend: str = "sim", seed: Optional[int] = None,
        out: Optional[Union[str, os.PathLike]] = None, data_dir: Optional[str] = None,
        progress: Optional[Progress] = None, policy: Optional["policy.Policy"] = None) -> Result:
    """Runs a scenario (a file or a dict of its keys) as `fulcrum run` does.

    set: scenario key paths to values (`--set`), e.g. {"gpu_sharing": "native"}.
    seed: replaces the scenario's seed (`--seed`).
    out: the output folder to publish (as `fulcrum run --out`); without it the files are read
         into the Result and nothing is kept.
    progress: a fulcrum.Progress, updated as the run goes (readable from another thread).
    policy: a GPU-sharing policy written in Python (a fulcrum.policy.Policy) instead of the
         scenario's gpu_sharing; an exception inside it is a fulcrum.Error naming the policy.
    Bad input raises fulcrum.InputError (its message is the CLI's one line; .file, .line,
    .column, .key_path, .problem). A dict scenario's relative file paths (trace files) are
    resolved against a temporary folder: give them as absolute paths.
    """
    seed, progress = _seed(seed), _progress(progress)
    keep = tempfile.TemporaryDirectory(prefix="fulcrum-")
    try:
        path, temp_file = _scenario_file(scenario, keep.name, _DICT_SCENARIO_NAME)
        target = Path(out) if out is not None else Path(keep.name) / "result"
        try:
            r = _core.run(path, _overrides(set), seed, backend, os.fspath(target),
                          data_dir or "", progress, policy)
        except InputError as e:
            raise _located_for_dict(e, temp_file, _DICT_SCENARIO_NAME) from None
        folder = Path(r["out_dir"])
        files = {name: folder / file for name, file in _RUN_TABLES.items()
                 if (folder / file).is_file()}
        summary = json.loads(r["summary_json"])
    except BaseException:
        keep.cleanup()
        raise
    if out is not None:
        keep.cleanup()
        keep = None
    return Result(summary, files, Path(out) if out is not None else None, r["wall_s"], keep)


def study(study: Union[str, os.PathLike, Mapping], out: Optional[Union[str, os.PathLike]] = None,
          jobs: int = 0, data_dir: Optional[str] = None,
          progress: Optional[Progress] = None) -> StudyResult:
    """Runs a study (a file or a dict of its keys; docs/STUDIES.md) as `fulcrum study` does.

    A dict study's `scenario` is resolved against the current folder. jobs: threads (0: every
    core). out: the output folder to publish; without it the tables are read and nothing kept.
    """
    jobs = _integer("jobs", jobs, 0, _THREADS_MAX)
    progress = _progress(progress)
    with tempfile.TemporaryDirectory(prefix="fulcrum-") as tmp:
        temp_file = None
        if isinstance(study, Mapping):
            spec = dict(study)
            if "scenario" in spec and not os.path.isabs(str(spec["scenario"])):
                spec["scenario"] = os.path.abspath(str(spec["scenario"]))
            path, temp_file = _scenario_file(spec, tmp, _DICT_STUDY_NAME)
        else:
            path = _path(study, "a path or a dict")
        target = Path(out) if out is not None else Path(tmp) / "study"
        try:
            r = _core.study(path, os.fspath(target), jobs, data_dir or "", progress)
        except InputError as e:
            raise _located_for_dict(e, temp_file, _DICT_STUDY_NAME) from None
        folder = Path(r["out_dir"])
        return StudyResult(_read_table(folder / "study.csv"),
                           _read_table(folder / "study_summary.csv"),
                           _read_table(folder / "study_latency.csv"),
                           Path(out) if out is not None else None, r["wall_s"])


class OptimizeResult:
    """An optimize: `report` (optimize.json as a dict: the choice, its predicted, closed-form and
    event-driven figures, the profiling cost, the oracle's), `text` (the summary the CLI prints),
    `warnings`, and `file` (the optimize.json written, or None)."""

    def __init__(self, report: dict, text: str, warnings: list, file: Optional[Path]):
        self.report = report
        self.text = text
        self.warnings = warnings
        self.file = file

    @property
    def choice(self) -> dict:
        return self.report["choice"]

    def __repr__(self) -> str:
        return f"<fulcrum.OptimizeResult {self.report.get('scenario')!r}>"


def optimize(scenario: Union[str, os.PathLike, Mapping],
             set: Optional[Mapping[str, Any]] = None, seed: Optional[int] = None,
             out: Optional[Union[str, os.PathLike]] = None, reference: Optional[str] = None,
             data_dir: Optional[str] = None,
             strategies: Optional[Mapping[str, type]] = None) -> OptimizeResult:
    """Searches a scenario's `search:` block as `fulcrum optimize` does (docs/SEARCH.md): the
    strategy chooses a power mode and batch sizes through the Profiler, the choice is judged on
    the ground truth and run with the event-driven runtime.

    set, seed: as for run(). out: the folder to write optimize.json into (the CLI's --out, the
    same bytes); without it nothing is written. reference: the folder holding measurements/
    (the CLI's --reference). `search.strategy` may name a built-in strategy or one registered with
    fulcrum.search.register, and `strategies=` ({name: Strategy subclass}) adds more for this
    call. Bad input raises fulcrum.InputError; a failure of the event-driven run is raised
    (fulcrum.Error) after optimize.json is written, as the CLI does.
    """
    seed = _seed(seed)
    entries = search._entries(strategies)
    with tempfile.TemporaryDirectory(prefix="fulcrum-") as tmp:
        path, temp_file = _scenario_file(scenario, tmp, _DICT_SCENARIO_NAME)
        target = Path(out) if out is not None else Path(tmp) / "optimize"
        try:
            r = _core.search.optimize(path, _overrides(set), seed, os.fspath(target),
                                      out is not None, reference, data_dir or "", entries)
        except InputError as e:
            raise _located_for_dict(e, temp_file, _DICT_SCENARIO_NAME) from None
        return OptimizeResult(json.loads(r["json"]), r["text"], list(r["warnings"]),
                              Path(r["file"]) if r["file"] is not None else None)


class SweepResult:
    """A sweep: `rows` (the CSV: one row per configuration and strategy), `summary` (one row per
    strategy: share of budgets met, mean and p5 throughput / oracle, modes, profiling hours),
    `text` (the summary as the CLI prints it) and `csv` (the file written, or None)."""

    def __init__(self, rows, summary, text: str, document: dict, csv_path: Optional[Path]):
        self.rows = rows
        self.summary = summary
        self.text = text
        self.document = document  # the CLI's --json document
        self.csv = csv_path

    def __repr__(self) -> str:
        return (f"<fulcrum.SweepResult {self.document.get('sweep')!r}: "
                f"{self.document.get('configurations')} configurations>")


def _shard(shard) -> tuple:
    if shard is None:
        return 1, 1
    if isinstance(shard, str):
        k, _, n = shard.partition("/")
        shard = (k, n)
    try:
        k, n = int(shard[0]), int(shard[1])
    except (TypeError, ValueError, IndexError):
        raise ValueError(f"shard= takes (K, N) or 'K/N', got {shard!r}") from None
    if not 1 <= k <= n:
        raise ValueError(f"shard=: expected 1 <= K <= N, got {k}/{n}")
    return k, n


def sweep(sweep_file: Union[str, os.PathLike, Mapping],
          out: Optional[Union[str, os.PathLike]] = None,
          strategies: Optional[Mapping[str, type]] = None, threads: int = 0,
          shard=None, reference: Optional[str] = None, data_dir: Optional[str] = None,
          progress: Optional[Progress] = None) -> SweepResult:
    """Runs a sweep file (or a dict of its keys; docs/SEARCH.md) as `fulcrum sweep` does.

    Its `strategies:` may name the built-in strategies and those registered with
    fulcrum.search.register, and `strategies=` ({name: Strategy subclass}) adds more for this
    call. out: the CSV to write (the CLI's --out, the same bytes); without it nothing is kept.
    threads: 0 = every core. shard: (K, N) or "K/N". reference: the folder holding
    measurements/. An exception inside a Python strategy is a fulcrum.Error naming it.
    """
    k, n = _shard(shard)
    threads = _integer("threads", threads, 0, _THREADS_MAX)
    progress = _progress(progress)
    entries = search._entries(strategies)
    with tempfile.TemporaryDirectory(prefix="fulcrum-") as tmp:
        temp_file = None
        if isinstance(sweep_file, Mapping):
            path, temp_file = _scenario_file(sweep_file, tmp, _DICT_SWEEP_NAME)
        else:
            path = _path(sweep_file, "a path or a dict")
        target = Path(out) if out is not None else Path(tmp) / "sweep.csv"
        try:
            r = _core.search.sweep(path, os.fspath(target), threads, k, n, reference,
                                   data_dir or "", entries, progress)
        except InputError as e:
            raise _located_for_dict(e, temp_file, _DICT_SWEEP_NAME) from None
        document = json.loads(r["json"])
        rows = _read_table(Path(r["csv"]), skip=1)
        summary = _as_table(document["strategies"])
        document["csv"] = os.fspath(out) if out is not None else None
        return SweepResult(rows, summary, r["text"], document,
                           Path(out) if out is not None else None)


def predict(fit: Union[str, os.PathLike], at: Union[str, os.PathLike],
            predictor: str = "powertrain", out: Optional[Union[str, os.PathLike]] = None,
            workload: Optional[str] = None, phase: Optional[str] = None,
            batch_size: Optional[int] = None, sample: Optional[int] = None, seed: int = 1,
            device: str = "orin-agx-64gb", data_dir: Optional[str] = None) -> dict:
    """Fits a time and power predictor to the profile `fit` and predicts every row of `at`, as
    `fulcrum predict --json` does (docs/PREDICT.md). Returns its JSON document as a dict, with
    `rows` as a DataFrame (nested keys flattened: `time_ms.predicted`, ...); `out` writes the
    predictions as a profile CSV, the CLI's bytes. Without pandas `rows` stays a list of dicts."""
    int_max = 2**31 - 1  # the CLI's int options
    text = _core.predict(predictor, _path(fit, "a profile path"), _path(at, "a profile path"),
                         os.fspath(out) if out is not None else None, workload, phase,
                         _integer("batch_size", batch_size, -int_max, int_max, optional=True),
                         _integer("sample", sample, -int_max, int_max, optional=True),
                         _integer("seed", seed, 0, _SEED_MAX), device, data_dir or "")
    report = json.loads(text)
    if _pd is not None:  # time_ms.predicted, time_ms.measured, ... as columns
        report["rows"] = _pd.json_normalize(report["rows"])
    return report


def _as_table(rows: Sequence[dict]):
    if _pd is not None:
        return _pd.DataFrame(rows)
    return list(rows)


def devices(data_dir: Optional[str] = None):
    """The device catalog: one row per device (name, SoC, cores, GPU, memory, presets)."""
    return _as_table(_core.devices(data_dir or ""))


def workloads():
    """The DNN workloads: one row per workload (task, parameters, GFLOPs per sample)."""
    return _as_table(_core.workloads())
