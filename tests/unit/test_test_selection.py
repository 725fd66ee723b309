"""The README's `python -m pytest` is the newcomer's run; CI runs everything.

pyproject's addopts deselect the e2e and slow markers; the README names how to get them
back; `.ci/run` installs as the README says and runs every test.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
CI_RUN = (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def addopts() -> list[str]:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return shlex.split(pyproject["tool"]["pytest"]["ini_options"]["addopts"])


def test_the_default_run_deselects_e2e_and_slow() -> None:
    opts = addopts()
    assert opts[opts.index("-m") + 1] == "not e2e and not slow"


def test_the_readme_names_the_run_that_includes_them() -> None:
    assert 'python -m pytest -m ""' in README
    assert "-m e2e" in README and "-m slow" in README


def test_ci_runs_every_test() -> None:
    runs = [
        line.strip() for line in CI_RUN.splitlines() if line.strip().startswith("python -m pytest")
    ]
    assert runs == ['python -m pytest -m ""']


def test_ci_installs_as_the_readme_says() -> None:
    assert "python -m pip install '.[test]'" in CI_RUN
    assert "pip install '.[test]'" in README
