"""Fulcrum from Python: runs and studies of the simulator as tables (docs/PYTHON.md).

    import fulcrum
    r = fulcrum.run("scenarios/quickstart.yaml", set={"inference[0].batch_size": 8})
    r.summary["training"]["samples_per_s"]
    r.requests.latency_ms.quantile(0.99)        # a pandas DataFrame (dict of arrays without pandas)

The engine runs with the GIL released: runs in several threads proceed at once.
"""

from __future__ import annotations

import csv
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence, Union

from . import _core
from ._core import Error, InputError, Progress

try:  # pandas is optional: without it tables are dicts of arrays (numpy) or lists
    import pandas as _pd
except ImportError:  # pragma: no cover - depends on the machine
    _pd = None
try:
    import numpy as _np
except ImportError:  # pragma: no cover - depends on the machine
    _np = None

__all__ = ["run", "study", "predict", "devices", "workloads", "Result", "StudyResult", "InputError",
           "Error", "Progress", "has_pandas"]

# The tables of a run, by attribute, and the file each is read from.
_RUN_TABLES = {"requests": "requests.csv", "minibatches": "minibatches.csv",
               "epochs": "epochs.csv", "power": "power.csv"}
_DICT_SCENARIO_NAME = "<scenario dict>"
_DICT_STUDY_NAME = "<study dict>"


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


def _number(text: str) -> Any:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def _read_table(path: Path):
    """A CSV written by a run as a DataFrame, or without pandas a dict of column -> array."""
    if _pd is not None:
        return _pd.read_csv(path)
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
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
    if getattr(e, "file", None) != temp_file:
        return e
    key = e.key_path
    message = f"{display}: {key}: {e.problem}" if key else f"{display}: {e.problem}"
    out = InputError(message)
    out.file, out.line, out.column = display, None, None
    out.key_path, out.problem = key, e.problem
    return out


class Result:
    """One run: `summary` (summary.json as a dict) and its tables `requests`, `minibatches`,
    `epochs` and `power` (None where the scenario's `outputs` turned a file off)."""

    def __init__(self, summary: dict, tables: dict, out_dir: Optional[Path], wall_s: float):
        self.summary = summary
        self.requests = tables.get("requests")
        self.minibatches = tables.get("minibatches")
        self.epochs = tables.get("epochs")
        self.power = tables.get("power")
        self.out_dir = out_dir  # the published folder, or None when run without out=
        self.wall_s = wall_s

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
    if isinstance(scenario, (str, os.PathLike)):
        return os.fspath(scenario), None
    raise TypeError(f"expected a path or a dict, got {type(scenario).__name__}")


def run(scenario: Union[str, os.PathLike, Mapping], set: Optional[Mapping[str, Any]] = None,
        backend: str = "sim", seed: Optional[int] = None,
        out: Optional[Union[str, os.PathLike]] = None, data_dir: Optional[str] = None,
        progress: Optional[Progress] = None) -> Result:
    """Runs a scenario (a file or a dict of its keys) as `fulcrum run` does.

    set: scenario key paths to values (`--set`), e.g. {"gpu_sharing": "native"}.
    seed: replaces the scenario's seed (`--seed`).
    out: the output folder to publish (as `fulcrum run --out`); without it the files are read
         into the Result and nothing is kept.
    progress: a fulcrum.Progress, updated as the run goes (readable from another thread).
    Bad input raises fulcrum.InputError (its message is the CLI's one line; .file, .line,
    .column, .key_path, .problem). A dict scenario's relative file paths (trace files) are
    resolved against a temporary folder: give them as absolute paths.
    """
    with tempfile.TemporaryDirectory(prefix="fulcrum-") as tmp:
        path, temp_file = _scenario_file(scenario, tmp, _DICT_SCENARIO_NAME)
        target = Path(out) if out is not None else Path(tmp) / "result"
        try:
            r = _core.run(path, _overrides(set), seed, backend, os.fspath(target),
                          data_dir or "", progress)
        except InputError as e:
            raise _located_for_dict(e, temp_file, _DICT_SCENARIO_NAME) from None
        folder = Path(r["out_dir"])
        tables = {}
        for name, file in _RUN_TABLES.items():
            if (folder / file).is_file():
                tables[name] = _read_table(folder / file)
        summary = json.loads(r["summary_json"])
        return Result(summary, tables, Path(out) if out is not None else None, r["wall_s"])


def study(study: Union[str, os.PathLike, Mapping], out: Optional[Union[str, os.PathLike]] = None,
          jobs: int = 0, data_dir: Optional[str] = None,
          progress: Optional[Progress] = None) -> StudyResult:
    """Runs a study (a file or a dict of its keys; docs/STUDIES.md) as `fulcrum study` does.

    A dict study's `scenario` is resolved against the current folder. jobs: threads (0: every
    core). out: the output folder to publish; without it the tables are read and nothing kept.
    """
    with tempfile.TemporaryDirectory(prefix="fulcrum-") as tmp:
        temp_file = None
        if isinstance(study, Mapping):
            spec = dict(study)
            if "scenario" in spec and not os.path.isabs(str(spec["scenario"])):
                spec["scenario"] = os.path.abspath(str(spec["scenario"]))
            path, temp_file = _scenario_file(spec, tmp, _DICT_STUDY_NAME)
        else:
            path = os.fspath(study)
        target = Path(out) if out is not None else Path(tmp) / "study"
        try:
            r = _core.study(path, os.fspath(target), int(jobs), data_dir or "", progress)
        except InputError as e:
            raise _located_for_dict(e, temp_file, _DICT_STUDY_NAME) from None
        folder = Path(r["out_dir"])
        return StudyResult(_read_table(folder / "study.csv"),
                           _read_table(folder / "study_summary.csv"),
                           _read_table(folder / "study_latency.csv"),
                           Path(out) if out is not None else None, r["wall_s"])


def predict(fit: Union[str, os.PathLike], at: Union[str, os.PathLike],
            predictor: str = "powertrain", out: Optional[Union[str, os.PathLike]] = None,
            workload: Optional[str] = None, phase: Optional[str] = None,
            batch_size: Optional[int] = None, sample: Optional[int] = None, seed: int = 1,
            device: str = "orin-agx-64gb", data_dir: Optional[str] = None) -> dict:
    """Fits a time and power predictor to the profile `fit` and predicts every row of `at`, as
    `fulcrum predict --json` does (docs/PREDICT.md). Returns its JSON document as a dict, with
    `rows` as a DataFrame (nested keys flattened: `time_ms.predicted`, ...); `out` writes the
    predictions as a profile CSV, the CLI's bytes. Without pandas `rows` stays a list of dicts."""
    text = _core.predict(predictor, os.fspath(fit), os.fspath(at),
                         os.fspath(out) if out is not None else None, workload, phase,
                         batch_size, sample, int(seed), device, data_dir or "")
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
