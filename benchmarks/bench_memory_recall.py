"""Episodic-memory recall cost on the prompt hook's hot path, side by side in one run.

Fills a throwaway state database with `memory.max_lessons` (500) lessons, then
times `recall_lesson` for a similar prompt (a hit) and an unrelated one (a miss)
against the floor every SQLite-backed hook pays anyway: opening the state
database and running one trivial query. Prints the ratios; no pass/fail timing.

    python benchmarks/bench_memory_recall.py [--ci]   (--ci: 100 rounds instead of 300)
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROUNDS = 300


def timed(fn: Callable[[], object], rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def main() -> None:
    rounds = 100 if "--ci" in sys.argv[1:] else ROUNDS
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["REFLECTION_STATE_DIR"] = tmp
        from reflection_core import state
        from reflection_core.config import Config
        from reflection_core.verify.memory import recall_lesson, store_lesson

        root = Path(tmp) / "repo"
        cfg = Config()
        words = [
            "alpha",
            "beta",
            "gamma",
            "delta",
            "epsilon",
            "zeta",
            "theta",
            "kappa",
            "lambda",
            "sigma",
            "omega",
        ]
        for i in range(500):
            prompt = f"{words[i % 11]} {words[(i * 7) % 11]} service{i} endpoint{i % 37} handler"
            store_lesson(root, prompt, {"note": f"lesson {i}: run the integration tests"}, cfg)
        hit = "alpha beta service0 endpoint0 handler"
        miss = "write release notes for the mobile app"

        def floor() -> None:
            conn = state.connect()
            conn.execute("SELECT 1").fetchone()
            conn.close()

        assert recall_lesson(root, hit) is not None
        base = timed(floor, rounds)
        t_hit = timed(lambda: recall_lesson(root, hit), rounds)
        t_miss = timed(lambda: recall_lesson(root, miss), rounds)
    print(f"open state db + SELECT 1 : {base * 1e3:7.3f} ms (1.00x)")
    print(f"recall_lesson, similar   : {t_hit * 1e3:7.3f} ms ({t_hit / base:.2f}x)")
    print(f"recall_lesson, unrelated : {t_miss * 1e3:7.3f} ms ({t_miss / base:.2f}x)")


if __name__ == "__main__":
    main()
