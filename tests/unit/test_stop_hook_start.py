"""What the Stop hook's process pays before its work: no module it does not need."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from reflection_core import hook_dispatch, state
from reflection_core.evals.transcript_builder import build_records, write_jsonl
from tests.unit.hookprobe import run_probe

# Modules a Stop hook on a short, finished task in a repo with no recorded test run must
# not import: each costs milliseconds on every stop (dataclasses alone pulls in inspect,
# ast, dis and tokenize; subprocess and tempfile come with fingerprinting the tree; the
# `sqlite3` package brings `datetime` for date adapters no table uses).
_HEAVY = (
    "click",
    "yaml",
    "runpy",
    "argparse",
    "urllib.request",
    "http.client",
    "email",
    "dataclasses",
    "inspect",
    "ast",
    "typing",
    "subprocess",
    "tempfile",
    "hashlib",
    "datetime",
)


def _finished_task(repo: Path, tmp_path: Path) -> Path:
    spec = {
        "task": "Rename load_rows in src/app.py",
        "cwd": str(repo),
        "steps": [{"edit": "src/app.py"}, {"bash": "python -m pytest -q", "output": "3 passed"}],
        "final": "Renamed the function; the tests pass.",
    }
    return write_jsonl(build_records(spec), tmp_path / "t.jsonl")


def _stop_payload(repo: Path, tmp_path: Path) -> str:
    """The Stop hook's input for a finished task in `repo`, as Claude Code sends it."""
    payload = {
        "session_id": "s-1",
        "transcript_path": str(_finished_task(repo, tmp_path)),
        "cwd": str(repo),
        "hook_event_name": "Stop",
        "stop_hook_active": False,
    }
    return json.dumps(payload)


def test_the_stop_hook_process_imports_no_heavy_module(git_repo: Path, tmp_path: Path) -> None:
    probe = (
        "import sys, json; from reflection_core.entry import main\n"
        "sys.argv = ['reflection', 'hook', 'stop']\n"
        "code = main()\n"
        f"sys.stderr.write(json.dumps([m for m in {_HEAVY!r} if m in sys.modules]))\n"
    )
    run = run_probe(
        probe, git_repo, tmp_path / "state", _stop_payload(git_repo, tmp_path), check=True
    )
    assert json.loads(run.stderr.strip().splitlines()[-1]) == []


def test_a_stop_opens_the_state_database_once(
    git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REFLECTION_STATE_DIR", str(tmp_path / "state"))
    opened: list[str] = []
    engine = state.sqlite3  # the SQLite module the hooks take (state.py)
    real_connect = engine.connect

    def counting_connect(database: str, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        opened.append(database)
        return real_connect(database, *args, **kwargs)

    monkeypatch.setattr(engine, "connect", counting_connect)
    hook_dispatch.answer("stop", _stop_payload(git_repo, tmp_path).encode())
    assert len(opened) == 1
    stored = real_connect(opened[0]).execute("SELECT status FROM stop_outcomes").fetchall()
    assert stored == [("complete",)]


def test_the_stop_hook_process_keeps_the_collector_but_runs_it_seldom(
    git_repo: Path, tmp_path: Path
) -> None:
    probe = (
        "import atexit, gc, json, sys; from reflection_core.entry import run\n"
        "atexit.register(lambda: print(json.dumps([gc.isenabled(), gc.get_threshold()]),"
        " file=sys.stderr))\n"
        "sys.argv = ['reflection', 'hook', 'stop']\n"
        "run()\n"
    )
    run = run_probe(probe, git_repo, tmp_path / "state", _stop_payload(git_repo, tmp_path))
    enabled, (young, *_) = json.loads(run.stderr.strip().splitlines()[-1])
    assert run.returncode == 0
    assert enabled is True
    assert young >= 10_000


# What the launcher `reflection init` writes runs (`python -c` and the entry point), and
# `python -m reflection_core`: each must run a hook as the console script does.
_LAUNCHER_ENTRY = "from reflection_core.entry import run; run()\n"
_PYTHON_M = "runpy.run_module('reflection_core', run_name='__main__', alter_sys=True)\n"


@pytest.mark.parametrize("entry", [_LAUNCHER_ENTRY, _PYTHON_M], ids=["launcher", "python-m"])
@pytest.mark.parametrize(
    ("event", "collector"), [("stop", [True, 20_000]), ("user-prompt-submit", [False, 700])]
)
def test_the_launcher_and_python_m_run_a_hook_as_the_console_script_does(
    git_repo: Path, tmp_path: Path, event: str, collector: list[object], entry: str
) -> None:
    probe = (
        "import atexit, gc, json, runpy, sys\n"
        "atexit.register(lambda: print(json.dumps([gc.isenabled(), gc.get_threshold()[0]]),"
        " file=sys.stderr))\n"
        f"sys.argv = ['reflection_core', 'hook', {event!r}]\n" + entry
    )
    payload = _stop_payload(git_repo, tmp_path)
    if event == "user-prompt-submit":
        payload = json.dumps({**json.loads(payload), "prompt": "thanks"})
    run = run_probe(probe, git_repo, tmp_path / "state", payload)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stderr.strip().splitlines()[-1]) == collector
