from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.gitutil import make_repo

TREE = Path(__file__).resolve().parents[1]
# Every process a test starts (`reflection`, hooks run by git, pre-commit or an agent CLI)
# imports reflection_core from this checkout, not from whatever copy is installed.
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(TREE), *(p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p)]
)


@pytest.fixture(autouse=True)
def isolated_state(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Every test gets its own per-user state dir; nothing touches the real one."""
    state = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("REFLECTION_STATE_DIR", str(state))
    return state


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    """A fresh repo on `main` with one commit."""
    return make_repo(tmp_path / "repo")
