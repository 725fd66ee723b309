"""The state database: hooks opening a new one at the same moment all get a connection."""

from __future__ import annotations

import threading
from pathlib import Path

from reflection_core import state

OPENERS = 8
ROUNDS = 60  # the race lost about one round in fifteen before WAL waited for the lock


def test_hooks_opening_a_new_database_together_all_get_wal_connections(tmp_path: Path) -> None:
    errors: list[BaseException] = []
    modes: list[str] = []
    for round_no in range(ROUNDS):
        target = tmp_path / f"round{round_no}" / state.DB_NAME
        start = threading.Barrier(OPENERS, timeout=30)

        def open_it(target: Path = target, start: threading.Barrier = start) -> None:
            try:
                start.wait()
                conn = state.connect(target)
                try:
                    state.ensure_schema(conn, "CREATE TABLE IF NOT EXISTS t (x INTEGER);")
                    modes.append(conn.execute("PRAGMA journal_mode").fetchone()[0])
                finally:
                    conn.close()
            except BaseException as exc:  # collected and asserted below
                errors.append(exc)

        threads = [threading.Thread(target=open_it) for _ in range(OPENERS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert errors == []
    assert modes == ["wal"] * (OPENERS * ROUNDS)
