"""Concurrent sessions writing prompt history: separate processes, nothing lost."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

WRITER = """
import sys
from reflection_core.prompt import history
session, count = sys.argv[1], int(sys.argv[2])
for i in range(count):
    conn = history.connect()
    try:
        history.record(conn, session, 1.0 + (i % 40) / 10, "ask", "backend", ["scope_creep"])
        history.mark_asked(conn, session, ["context", f"k{i % 3}"])
    finally:
        conn.close()
"""


def test_parallel_writers_lose_no_rows(isolated_state: Path) -> None:
    writers, per_writer = 6, 40
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, f"session-{n}", str(per_writer)],
            env={**os.environ, "REFLECTION_STATE_DIR": str(isolated_state)},
            stderr=subprocess.PIPE,
        )
        for n in range(writers)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()

    from reflection_core.prompt import history

    conn = history.connect()
    try:
        entries = history.load_entries(conn)
        assert history.count(conn) == writers * per_writer
        for n in range(writers):
            assert history.asked_keys(conn, f"session-{n}") == {"context", "k0", "k1", "k2"}
    finally:
        conn.close()
    per_session = {e.session_id for e in entries}
    assert per_session == {f"session-{n}" for n in range(writers)}
    summary = history.summarize(entries, writers * per_writer)
    assert summary.smell_histogram == {"scope_creep": writers * per_writer}


def test_parallel_hook_processes_all_record(isolated_state: Path, tmp_path: Path) -> None:
    reflection = Path(sys.executable).parent / "reflection"
    payloads = [
        json.dumps(
            {
                "prompt": f"add caching to service {n} in api/cache.py",
                "session_id": f"s{n}",
                "cwd": "/",
            }
        )
        for n in range(8)
    ]
    procs = [
        subprocess.Popen(
            [str(reflection), "hook", "user-prompt-submit"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={**os.environ, "REFLECTION_STATE_DIR": str(isolated_state)},
        )
        for _ in payloads
    ]
    for proc, payload in zip(procs, payloads, strict=True):
        out, _ = proc.communicate(payload.encode(), timeout=120)
        assert proc.returncode == 0
        # A task with only a tip says nothing; "history unavailable" would have shown a line.
        assert out.strip() == b"", out

    from reflection_core.prompt import history

    conn = history.connect()
    try:
        assert history.count(conn) == len(payloads)
    finally:
        conn.close()
