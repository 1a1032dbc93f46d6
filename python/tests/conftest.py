"""Shared set-up of the Python tests: run from the checkout's root (ctest does), with the
package on PYTHONPATH (build/python) and the CLI at $FULCRUM_BINARY."""

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _in_checkout_root(monkeypatch):
    monkeypatch.chdir(ROOT)


@pytest.fixture
def cli():
    """Runs the `fulcrum` executable; returns (exit status, stdout, stderr)."""
    binary = os.environ.get("FULCRUM_BINARY", str(ROOT / "build" / "fulcrum"))
    if not Path(binary).is_file():
        pytest.skip(f"no fulcrum executable at {binary}")

    def run(*args):
        p = subprocess.run([binary, *map(str, args)], capture_output=True, text=True,
                           timeout=300)
        return p.returncode, p.stdout, p.stderr

    return run
