"""Counts for the fuzz suite: runs, crashes (tracebacks or protocol violations), hangs."""

from __future__ import annotations

from collections import Counter
from typing import Any

COUNTS: Counter[str] = Counter()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if COUNTS["runs"]:
        terminalreporter.write_line(
            f"reflection fuzz: runs {COUNTS['runs']}, crashes {COUNTS['crashes']}, "
            f"hangs {COUNTS['hangs']}"
        )
