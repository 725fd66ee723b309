"""Per-user SQLite state (WAL): prompt history, attempts, fix tracking, lessons.

The hooks' own modules take the SQLite module from here (`state.sqlite3`).

One database file under `paths.state_dir()`; each subsystem creates its own
tables with `ensure_schema`. Connections use WAL and a busy timeout so that
concurrent sessions and hook processes neither lose writes nor fail on locks.
"""

from __future__ import annotations

import os
import time

from reflection_core import paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from pathlib import Path
else:
    try:  # SQLite's engine: the `sqlite3` package adds date adapters (deprecated since 3.12)
        # and imports `datetime` for them, about 2 ms of every prompt; no table stores dates
        import _sqlite3 as sqlite3

        if not all(hasattr(sqlite3, n) for n in ("connect", "Error", "OperationalError")):
            raise ImportError("_sqlite3 lacks what the hooks use")
    except ImportError:  # another interpreter or version lays the engine out anew
        import sqlite3

DB_NAME = "state.db"
BUSY_TIMEOUT_S = 10.0


def db_path() -> Path:
    return paths.state_dir() / DB_NAME


def connect(path: Path | None = None) -> sqlite3.Connection:
    """Open (creating if needed) the state database in WAL mode."""
    target = os.fspath(path) if path else os.path.join(paths.state_directory(), DB_NAME)
    os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
    conn = sqlite3.connect(target, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    _enable_wal(conn)
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
    return conn


def _enable_wal(conn: sqlite3.Connection) -> None:
    """Switch to WAL, waiting out other first openers: SQLite answers this pragma with
    "database is locked" at once, without its busy handler, while another connection
    holds the lock (two hooks opening a new database together)."""
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    delay = 0.005
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.1)


def ensure_schema(conn: sqlite3.Connection, ddl: str) -> None:
    """Run idempotent `CREATE ... IF NOT EXISTS` statements."""
    conn.executescript(ddl)
