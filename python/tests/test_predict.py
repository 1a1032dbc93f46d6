"""fulcrum.predict: the CLI's report and the CLI's bytes for the predictions file."""

import json

import pytest

import fulcrum

HEADER = ("model,dataset,phase,minibatch_size,cores,cpu_freq_khz,gpu_freq_hz,mem_freq_hz,"
          "minibatch_time_ms,power_w\n")


def profile(n, offset=0):
    """A made-up smooth workload over modes offset..offset+n-1 of a 216-mode grid."""
    gpus = [114750000, 318750000, 522750000, 726750000, 930750000, 1300500000]
    emcs = [665600000, 2133000000, 3199000000]
    lines = [HEADER]
    for k in range(offset, offset + n):
        i = (k * 97) % 216
        cores = 4 + 4 * (i % 3)
        cpu = 729600 + 300000 * ((i // 3) % 4)
        gpu, emc = gpus[(i // 12) % 6], emcs[(i // 72) % 3]
        t = 40 + 30e9 / gpu + 20e9 / emc + 1e8 / cpu / cores
        p = 8 + 20 * (gpu / 1.3e9) ** 2 + 3 * emc / 3.2e9
        lines.append(f"mobilenet_v3,x,train,16,{cores},{cpu},{gpu},{emc},{t!r},{p!r}\n")
    return "".join(lines)


def test_predict_gives_the_clis_report_and_bytes(tmp_path, cli):
    fit, at = tmp_path / "fit.csv", tmp_path / "at.csv"
    fit.write_text(profile(40))
    at.write_text(profile(60, 20))  # 20 modes also in fit, 40 held out
    r = fulcrum.predict(fit, at, predictor="nn", seed=3, out=tmp_path / "py.csv")
    status, out, err = cli("predict", "--predictor", "nn", "--fit", fit, "--at", at, "--seed",
                           "3", "--out", tmp_path / "cli.csv", "--json")
    assert status == 0, err
    assert (tmp_path / "py.csv").read_bytes() == (tmp_path / "cli.csv").read_bytes()
    from_cli = json.loads(out)
    assert len(r["rows"]) == len(from_cli["rows"]) == 60
    assert sum(bool(x["held_out"]) for x in from_cli["rows"]) == 40
    for key in ("predictor", "workload", "phase", "batch_size", "seed", "held_out"):
        assert r[key] == from_cli[key], key
    if fulcrum.has_pandas():
        predicted = [x["time_ms"]["predicted"] for x in from_cli["rows"]]
        assert list(r["rows"]["time_ms.predicted"]) == predicted


def test_a_missing_profile_is_an_input_error(tmp_path):
    with pytest.raises(fulcrum.InputError):
        fulcrum.predict(tmp_path / "absent.csv", tmp_path / "absent.csv", predictor="nn")
