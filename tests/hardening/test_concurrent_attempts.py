"""Concurrent stops of one task each count once: no lost update of the attempt counter.

Real processes: forked writers on the state database, and real Stop hook processes
started together on one session.
"""

from __future__ import annotations

import json
import multiprocessing
import subprocess
import sys
from pathlib import Path

from reflection_core.evals.transcript_builder import build_records, write_jsonl
from reflection_core.session import attempts
from tests.gitutil import make_repo

REFLECTION = str(Path(sys.executable).with_name("reflection"))
WRITERS = 29


def _block_once(start: multiprocessing.synchronize.Event, pattern: str) -> None:
    conn = attempts.connect()
    start.wait()
    attempts.record_block(conn, "s-many", "t", [pattern], attempt=1)
    conn.close()


def test_29_concurrent_blocks_leave_29_attempts_and_every_pattern() -> None:
    attempts.connect().close()
    fork = multiprocessing.get_context("fork")
    start = fork.Event()
    writers = [fork.Process(target=_block_once, args=(start, f"p{n}")) for n in range(WRITERS)]
    for writer in writers:
        writer.start()
    start.set()
    for writer in writers:
        writer.join(120)
        assert writer.exitcode == 0
    state = attempts.load(attempts.connect(), "s-many", "t")
    assert state.attempts == WRITERS
    assert state.sent_patterns == {f"p{n}" for n in range(WRITERS)}


def test_a_block_past_the_budget_is_not_stored() -> None:
    conn = attempts.connect()
    counts = [attempts.record_block(conn, "s", "t", [], attempt=1, max_attempts=2) for _ in "abc"]
    assert counts == [1, 2, None]
    assert attempts.load(conn, "s", "t").attempts == 2


def test_concurrent_stop_hooks_block_no_more_often_than_the_budget(tmp_path: Path) -> None:
    files = {
        "src/app.py": "x = 1\n",
        "tests/test_app.py": "def test_app():\n    assert True\n",
        ".reflection.yaml": "tests:\n  ledger: false\nstop:\n  max_attempts: 3\n  require: tests\n",
    }
    repo = make_repo(tmp_path / "repo", branch="main", files=files)
    steps = [{"read": "src/app.py"}, {"edit": "src/app.py"}]
    spec = {"task": "Fix the app", "cwd": str(repo), "branch": "feature/x", "steps": steps}
    transcript = write_jsonl(build_records({**spec, "final": "Changed it."}), tmp_path / "t.jsonl")
    payload = json.dumps(
        {"session_id": "s-race", "transcript_path": str(transcript), "cwd": str(repo)}
    )
    hooks = [
        subprocess.Popen(
            [REFLECTION, "hook", "stop"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(WRITERS)
    ]
    outputs = [hook.communicate(payload, timeout=300)[0] for hook in hooks]
    blocks = [out for out in outputs if out.strip() and json.loads(out).get("decision") == "block"]
    assert len(blocks) == 3
    conn = attempts.connect()
    (stored,) = conn.execute(
        "SELECT attempts FROM stop_attempts WHERE session_key = 's-race'"
    ).fetchone()
    assert stored == 3
