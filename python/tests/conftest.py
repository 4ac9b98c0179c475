"""Shared set-up: the package and the examples importable, the binary the package runs."""

import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.dirname(HERE)
REPO = os.path.dirname(PYTHON_DIR)
for path in (PYTHON_DIR, os.path.join(PYTHON_DIR, "examples")):
    if path not in sys.path:
        sys.path.insert(0, path)

import a2a3sim  # noqa: E402


@pytest.fixture(scope="session")
def binary():
    return a2a3sim.binary()


@pytest.fixture(scope="session")
def cli(binary):
    """cli(*args) -> CompletedProcess of the binary itself, run from the repo."""

    def run(*args, check=True):
        done = subprocess.run([binary] + [str(a) for a in args], capture_output=True, text=True, cwd=REPO)
        if check and done.returncode != 0:
            raise AssertionError(f"a2a3sim {' '.join(map(str, args))}: exit {done.returncode}: {done.stderr}")
        return done

    return run


@pytest.fixture(scope="session")
def cli_json(cli):
    def run(*args):
        return json.loads(cli(*args, "--json").stdout)

    return run


@pytest.fixture
def in_repo(monkeypatch):
    """Run the test from the repository root (relative paths as in the docs)."""
    monkeypatch.chdir(REPO)
    return REPO
