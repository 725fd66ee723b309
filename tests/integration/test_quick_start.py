"""The README's quick start, run verbatim in a fresh virtualenv, protects main.

pip runs offline here: REFLECTION_WHEELHOUSE names a directory holding wheels of the
dependencies and of the build backend (CI fills it once; see the report of how).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gitutil import GIT_ENV, git, make_repo

ROOT = Path(__file__).resolve().parents[2]


def quick_start_commands() -> list[str]:
    """The shell blocks of the README's Quick start section, in order."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)```", section, flags=re.S)


def test_the_quick_start_installs_from_the_source_and_runs_init() -> None:
    first, second = quick_start_commands()[:2]
    assert first.strip() == 'pip install "$REFLECTION_SOURCE" && reflection init'
    assert "python -m pytest" in second


@pytest.mark.slow
def test_the_readme_quick_start_in_a_fresh_venv_refuses_a_commit_on_main(
    tmp_path: Path,
) -> None:
    wheelhouse = os.environ.get("REFLECTION_WHEELHOUSE")
    if not wheelhouse or not Path(wheelhouse).is_dir():
        pytest.skip("REFLECTION_WHEELHOUSE (wheels for an offline pip) is not set")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "PATH": f"{venv / 'bin'}:/usr/bin:/bin",  # as after `source venv/bin/activate`
        "VIRTUAL_ENV": str(venv),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": wheelhouse,
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "REFLECTION_SOURCE": str(ROOT),
        **GIT_ENV,
    }
    repo = make_repo(tmp_path / "project")
    first = quick_start_commands()[0]
    setup = subprocess.run(
        ["sh", "-c", first], cwd=repo, env=env, capture_output=True, text=True, timeout=600
    )
    assert setup.returncode == 0, setup.stdout[-2000:] + setup.stderr[-2000:]
    (repo / "a.txt").write_text("a\n")
    git(repo, "add", "a.txt")
    refused = subprocess.run(
        ["git", "commit", "-q", "-m", "straight to main"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
    )
    assert refused.returncode != 0
    assert "refusing to commit on protected branch 'main'" in refused.stderr
