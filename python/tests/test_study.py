"""fulcrum.study: the same files as `fulcrum study`, tables of runs and of means with 95% CIs."""

from pathlib import Path

import pytest

import fulcrum

pytest.importorskip("pandas")  # the tables below are read as DataFrames

STUDY = {
    "version": 1,
    "name": "small",
    "scenario": "scenarios/quickstart.yaml",
    "set": {"duration_s": 20, "inference[0].arrivals.process": "poisson",
            "outputs": {"requests": False, "minibatches": False, "power": False,
                        "trace": False}},
    "grid": {"gpu_sharing": ["managed", "sequential"]},
    "seeds": [1, 2, 3],
}


def test_a_study_gives_a_row_per_run_and_a_summary_per_point(tmp_path, cli):
    r = fulcrum.study(STUDY)
    assert len(r.runs) == 6
    assert len(r.summary) == 2
    assert list(r.runs["gpu_sharing"]) == ["managed"] * 3 + ["sequential"] * 3
    assert list(r.runs["seed"]) == [1, 2, 3] * 2
    # The summary's mean is the mean of the point's three runs, computed here by hand.
    managed = r.runs[r.runs["gpu_sharing"] == "managed"]["resnet50.p99_ms"]
    assert r.summary["resnet50.p99_ms_mean"][0] == pytest.approx(sum(managed) / 3, rel=1e-9)
    assert (r.summary["runs"] == 3).all()


def test_a_study_file_writes_the_same_bytes_from_python_and_the_cli(tmp_path, cli):
    study = tmp_path / "small.yaml"
    study.write_text(
        "version: 1\nname: small\nscenario: " + str(Path("scenarios/quickstart.yaml").resolve())
        + "\nset:\n  duration_s: 20\n  inference[0].arrivals.process: poisson\n"
        "grid:\n  gpu_sharing: [managed, native]\nseeds: {from: 1, count: 2}\n")
    fulcrum.study(study, out=tmp_path / "py")
    status, _, err = cli("study", study, "--out", tmp_path / "cli", "-q")
    assert status == 0, err
    for name in ("study.csv", "study_summary.csv", "study_latency.csv"):
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes()


def test_a_bad_study_value_is_an_input_error_and_nothing_is_written(tmp_path):
    study = tmp_path / "bad.yaml"
    study.write_text("version: 1\nname: bad\nscenario: "
                     + str(Path("scenarios/quickstart.yaml").resolve())
                     + "\ngrid:\n  inference[0].batch_size: [8, 0]\n")
    with pytest.raises(fulcrum.InputError) as caught:
        fulcrum.study(study, out=tmp_path / "out")
    # "  inference[0].batch_size: [8, 0]": line 5, the 0 at column 32.
    assert (caught.value.file, caught.value.line, caught.value.column) == (str(study), 5, 32)
    assert not (tmp_path / "out").exists()
