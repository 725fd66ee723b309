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


SLOW_LIST = Path(__file__).with_name("slow.txt")


def slow_tests() -> dict[str, str]:
    """tests/slow.txt: one test function per line (`path::name`), then why it is slow."""
    table = {}
    for line in SLOW_LIST.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            test_id, _, why = line.partition("  ")
            table[test_id.strip()] = why.strip()
    return table


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests listed in tests/slow.txt `slow` (the default run deselects them).

    A listed test missing from its collected module fails the run, so the list cannot
    rot silently when a test is renamed."""
    table = slow_tests()
    modules = {}
    for item in items:
        function_id = item.nodeid.split("[", 1)[0]
        modules.setdefault(function_id.split("::", 1)[0], getattr(item, "module", None))
        if function_id in table:
            item.add_marker(pytest.mark.slow)
    stale = [
        test_id
        for test_id in table
        if (module := modules.get(test_id.split("::", 1)[0])) is not None
        and not hasattr(module, test_id.split("::")[1])
    ]
    if stale:
        raise pytest.UsageError(f"tests/slow.txt lists tests that do not exist: {stale}")
