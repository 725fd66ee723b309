"""Prompt hook speed, measured side by side in one run (never a timed test).

Prints:
  1. `reflection hook user-prompt-submit` end to end as agents run it (`python -c` with the
     entry point, what the launcher `reflection init` writes execs; a realistic
     payload with a transcript to tail) vs bare `python -c pass`, interleaved; the CPU
     ratio (user + system) has the target, the wall-clock ratio is printed beside it.
     The same after a stop: the prompt that grades the stop before it (a verdict with no
     outcome yet and its row in the state database), the usual case from a session's
     second prompt on.
  2. `reflection score --jsonl` throughput on a batch of prompts, per CPU second (best of 3).
  3. Scoring a 1 MB prompt vs a 100 KB prompt in-process (linearity: ~10x expected).

Targets live in targets.py. Each measured line that misses its target ends with FAIL,
and the script then exits 1 (with --ci: only on a miss worse than targets.CI_SLACK).
Bytecode caches are on (users have them; PYTHONDONTWRITEBYTECODE is dropped for the
children, the caches go to a temporary PYTHONPYCACHEPREFIX).

Usage: python benchmarks/bench_prompt.py [--runs N] [--batch N] [--ci]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from targets import PROMPT_AFTER_STOP_RATIO, PROMPT_HOOK_RATIO, SCORE_JSONL_RATE, Gate

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "prompts-dev.jsonl"
PROMPT = (
    "In src/billing/invoice.py, `compute_tax` rounds every line item before summing, so "
    "invoices are sometimes off by a cent. Sum the unrounded Decimal amounts and round once at "
    "the end with ROUND_HALF_UP. Add a test to tests/billing/test_invoice.py."
)


def _console_script() -> str:
    found = shutil.which("reflection", path=str(Path(sys.executable).parent))
    return found or "reflection"


# What agents run on every prompt: the launcher `reflection init` writes (.reflection-hook)
# execs the interpreter it recorded with `-c` and the entry point, not the console script.
HOOK_CMD = [
    sys.executable,
    "-c",
    "from reflection_core.entry import run; run()",
    "hook",
    "user-prompt-submit",
]


def _transcript(directory: Path) -> Path:
    """A ~300 KB Claude Code transcript ending with an assistant menu."""
    lines = []
    for index in range(400):
        lines.append({"type": "user", "message": {"role": "user", "content": f"step {index}"}})
        text = "Ran the tests; " + "details " * 80
        lines.append(
            {
                "type": "assistant",
                "message": {"id": f"m{index}", "content": [{"type": "text", "text": text}]},
            }
        )
    menu = "Options:\n1. Round once.\n2. Round per line.\n3. Use banker's rounding."
    lines.append(
        {
            "type": "assistant",
            "message": {"id": "last", "content": [{"type": "text", "text": menu}]},
        }
    )
    path = directory / "transcript.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _time(cmd: list[str], stdin: bytes, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, input=stdin, capture_output=True, env=env, check=True)
    return time.perf_counter() - start


def _cpu(cmd: list[str], stdin: bytes, env: dict[str, str]) -> float:
    """CPU seconds (user + system) of one run: less disturbed by a busy machine than wall time."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, input=stdin, capture_output=True, env=env, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def bench_hook(gate: Gate, runs: int, workdir: Path, env: dict[str, str]) -> None:
    payload = json.dumps(
        {
            "session_id": "bench",
            "transcript_path": str(_transcript(workdir)),
            "cwd": str(ROOT),
            "hook_event_name": "UserPromptSubmit",
            "permission_mode": "default",
            "prompt": PROMPT,
        }
    ).encode()
    hook_cmd = HOOK_CMD
    bare_cmd = [sys.executable, "-c", "pass"]
    for warm in (hook_cmd, bare_cmd):  # bytecode, config cache and OS file cache
        _time(warm, payload if warm is hook_cmd else b"", env)
    for label, measure in (("wall", _time), ("cpu", _cpu)):
        hook, bare = [], []
        for _ in range(runs):  # interleaved so both see the same machine load
            bare.append(measure(bare_cmd, b"", env))
            hook.append(measure(hook_cmd, payload, env))
        h, b = statistics.median(hook), statistics.median(bare)
        print(f"[{label}] hook end to end  median {h * 1000:7.1f} ms  (min {min(hook) * 1000:.1f})")
        print(f"[{label}] python -c pass   median {b * 1000:7.1f} ms  (min {min(bare) * 1000:.1f})")
        print(f"[{label}] ratio  median {h / b:5.2f}x  min/min {min(hook) / min(bare):.2f}x")
        if label == "cpu":
            gate.report(PROMPT_HOOK_RATIO, h / b, "x")


def _stop_to_grade(repo: Path, state_dir: Path, session: str) -> None:
    """A judged stop the next prompt grades: its verdict file and its stored row."""
    from reflection_core import paths
    from reflection_core.outcomes import store

    at = store.now_iso()
    verdict = Path(paths.verdict_file(str(repo), session))
    verdict.parent.mkdir(parents=True, exist_ok=True)
    verdict.write_text(json.dumps({"status": "incomplete", "created_at": at}), encoding="utf-8")
    row = store.StopRow(
        created_at=time.time(),
        verdict_at=at,
        repo=str(repo),
        host="claude",
        session_key=paths.safe_session_id(session),
        status="incomplete",
        pushed=False,
        held=False,
        asked=False,
        tool_calls=3,
    )
    conn = store.connect(state_dir / "state.db")
    try:
        store.record_stop(conn, row)
    finally:
        conn.close()


def bench_hook_after_stop(gate: Gate, runs: int, workdir: Path, env: dict[str, str]) -> None:
    repo = workdir / "after-stop"
    subprocess.run(["git", "init", "-q", str(repo)], check=True, capture_output=True)
    payload = json.dumps(
        {
            "session_id": "bench-after",
            "transcript_path": str(workdir / "transcript.jsonl"),
            "cwd": str(repo),
            "hook_event_name": "UserPromptSubmit",
            "permission_mode": "default",
            "prompt": "That still fails: the total is off by a cent. Fix it and run the tests.",
        }
    ).encode()
    hook_cmd = HOOK_CMD
    bare_cmd = [sys.executable, "-c", "pass"]
    state_dir = Path(env["REFLECTION_STATE_DIR"])
    _stop_to_grade(repo, state_dir, "bench-after")
    _time(hook_cmd, payload, env)  # warm
    hook, bare = [], []
    for _ in range(runs):
        _stop_to_grade(repo, state_dir, "bench-after")
        bare.append(_cpu(bare_cmd, b"", env))
        hook.append(_cpu(hook_cmd, payload, env))
    from reflection_core import paths

    graded = json.loads(Path(paths.verdict_file(str(repo), "bench-after")).read_text())
    assert "outcome" in graded, "the prompt did not grade the stop before it"
    h, b = statistics.median(hook), statistics.median(bare)
    print(f"[cpu] after a stop  median {h * 1000:7.1f} ms  (python -c pass {b * 1000:.1f} ms)")
    gate.report(PROMPT_AFTER_STOP_RATIO, h / b, "x")


def bench_jsonl(gate: Gate, batch: int, workdir: Path, env: dict[str, str]) -> None:
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line]
    path = workdir / "batch.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for index in range(batch):
            row = rows[index % len(rows)]
            item = {
                "prompt": f"{row['prompt']} (#{index})",
                "prev_assistant": row["prev_assistant"],
            }
            handle.write(json.dumps(item) + "\n")
    cmd = [_console_script(), "score", "--jsonl", str(path)]
    wall = _time(cmd, b"", env)
    cpu = min(_cpu(cmd, b"", env) for _ in range(3))  # best of 3: load only adds time
    print(f"score --jsonl     {batch} prompts: {batch / wall:8.0f} prompts/s wall")
    gate.report(SCORE_JSONL_RATE, batch / cpu)


def bench_linearity() -> None:
    from reflection_core.prompt.score import score_prompt

    unit = (
        "Refactor `parse_row` in etl/rows.py; tests/test_rows.py must pass. Traceback: "
        "ValueError at line 3. Also see https://example.invalid/x and the usual way.\n"
    )
    timings = {}
    for size in (100_000, 1_000_000):
        text = (unit * (size // len(unit) + 1))[:size]
        start = time.process_time()
        score_prompt(text)
        timings[size] = time.process_time() - start
    ratio = timings[1_000_000] / timings[100_000]
    print(
        f"1 MB prompt       {timings[1_000_000] * 1000:7.0f} ms CPU vs 100 KB "
        f"{timings[100_000] * 1000:.0f} ms: {ratio:.1f}x for 10x input (linear ~10x)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--batch", type=int, default=5000)
    parser.add_argument("--ci", action="store_true", help="fewer runs; exit 1 on gross misses")
    parser.add_argument(
        "--no-bytecode-cache",
        action="store_true",
        help="measure with PYTHONDONTWRITEBYTECODE=1: an uncached source tree compiles every run",
    )
    args = parser.parse_args()
    runs, batch = (min(args.runs, 9), min(args.batch, 2000)) if args.ci else (args.runs, args.batch)
    gate = Gate(args.ci)
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        env = {
            **os.environ,
            "REFLECTION_STATE_DIR": str(workdir / "state"),
            # Users run with bytecode caches; keep them out of the source tree.
            "PYTHONPYCACHEPREFIX": str(workdir / "pycache"),
        }
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        if args.no_bytecode_cache:  # installed caches are read, the source tree compiles
            env["PYTHONDONTWRITEBYTECODE"] = "1"
            env.pop("PYTHONPYCACHEPREFIX")
        print(f"bytecode caches: {'off' if args.no_bytecode_cache else 'on'}")
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"load average at start: {load:.2f} on {os.cpu_count()} CPUs")
        bench_hook(gate, runs, workdir, env)
        bench_hook_after_stop(gate, runs, workdir, env)
        bench_jsonl(gate, batch, workdir, env)
        bench_linearity()
    return gate.exit_code()


if __name__ == "__main__":
    sys.exit(main())
