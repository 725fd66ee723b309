"""The Stop hook's own cost: a short session against bare Python, and one huge task.

Prints, measured in one run:
  1. `reflection hook stop`, as agents run it (`python -c` with the entry point, what the
     launcher `reflection init` writes execs), on a 20-record Claude Code transcript
     (prompt, reads, an edit, a failing then passing test run, the final message) against
     `python -c pass`,
     as CPU time (user + system) of each child, in adjacent pairs that take turns going
     first; the ratio is the median over the pairs (target in targets.py).
  2. `reflection hook stop` on a transcript whose current task alone is about 50 MB
     (many tool calls with large outputs): CPU seconds and peak RSS of the hook process.

Each run gets a fresh state directory (a first stop). Bytecode caches are on.

    python benchmarks/bench_stop_hook.py [--runs 15] [--task-mb 50] [--ci]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_stop import FINAL_MESSAGE, SESSION_ID, _Records
from targets import (
    STOP_BIG_TASK_CPU,
    STOP_BIG_TASK_RSS,
    STOP_HOOK_RATIO,
    Gate,
)

# What agents run on every stop: the launcher `reflection init` writes (.reflection-hook)
# execs the interpreter it recorded with `-c` and the entry point, not the console script.
HOOK_CMD = [sys.executable, "-c", "from reflection_core.entry import run; run()", "hook", "stop"]

# Runs one command in a fresh child and prints its CPU seconds and peak RSS (MB).
_WRAPPER = """
import json, resource, subprocess, sys
proc = subprocess.run(json.loads(sys.argv[1]), input=sys.stdin.buffer.read(), capture_output=True)
use = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"cpu": use.ru_utime + use.ru_stime, "rss_mb": use.ru_maxrss / 1024,
                  "exit": proc.returncode, "stderr": proc.stderr.decode(errors="replace")[-400:]}))
"""


def short_session(rec: _Records) -> str:
    """20 records: a fix with a failing and then a passing test run."""
    out = rec.user("Fix the login redirect bug in src/auth.py and make sure the tests pass")
    out += rec.assistant({"type": "text", "text": "Looking at the redirect handling."})
    out += rec.tool("toolu_1", "Read", {"file_path": f"{rec.cwd}/src/auth.py"}, "x = 1\n" * 40)
    out += rec.tool("toolu_2", "Bash", {"command": "grep -n redirect src/auth.py"}, "12: return")
    edit = {"file_path": f"{rec.cwd}/src/auth.py", "old_string": "a", "new_string": "b"}
    out += rec.tool("toolu_3", "Edit", edit, "updated")
    out += rec.tool(
        "toolu_4", "Bash", {"command": "python -m pytest -q"}, "Exit code 1\n1 failed", True
    )
    out += rec.assistant({"type": "text", "text": "One test still fails; fixing the query."})
    out += rec.tool("toolu_5", "Edit", {**edit, "old_string": "b", "new_string": "c"}, "ok")
    out += rec.tool("toolu_6", "Bash", {"command": "python -m pytest -q"}, "41 passed")
    out += rec.tool("toolu_7", "Bash", {"command": "git diff --stat"}, " src/auth.py | 2 +-")
    out += rec.tool("toolu_8", "Bash", {"command": "ruff check src"}, "All checks passed!")
    out += rec.assistant({"type": "text", "text": FINAL_MESSAGE})
    return out


def huge_task(rec: _Records, size_bytes: int) -> str:
    """One task whose tool outputs add up to `size_bytes`, ending with a passing run."""
    parts = [rec.user("Migrate every module under src/ to the new logging API")]
    written, index = 0, 0
    while written < size_bytes:
        path = f"{rec.cwd}/src/module_{index}.py"
        source = "log.info(x)\n" * 800
        chunk = rec.tool(f"toolu_r{index}", "Read", {"file_path": path}, source)
        # As Claude Code records an Edit: the whole file before it and the patch.
        patch = [{"lines": [" x = 1", "-log.info(x)", "+logger.info(x)", " y = 2"]}]
        chunk += rec.tool(
            f"toolu_e{index}",
            "Edit",
            {"file_path": path, "old_string": "log.info", "new_string": "logger.info"},
            "updated",
            details={"filePath": path, "originalFile": source, "structuredPatch": patch},
        )
        chunk += rec.tool(f"toolu_t{index}", "Bash", {"command": "python -m pytest -q"}, "9 passed")
        parts.append(chunk)
        written += len(chunk)
        index += 1
    parts.append(rec.assistant({"type": "text", "text": FINAL_MESSAGE}))
    return "".join(parts)


def _run(cmd: list[str], stdin: bytes, env: dict[str, str], cwd: Path) -> dict[str, float]:
    proc = subprocess.run(
        [sys.executable, "-c", _WRAPPER, json.dumps(cmd)],
        input=stdin,
        capture_output=True,
        env=env,
        cwd=cwd,
        check=True,
    )
    found = json.loads(proc.stdout.decode().strip().splitlines()[-1])
    if found["exit"] != 0:
        raise SystemExit(f"{cmd[0]} exited {found['exit']}: {found['stderr']}")
    return found


def _payload(transcript: Path, repo: Path) -> bytes:
    return json.dumps(
        {
            "session_id": SESSION_ID,
            "transcript_path": str(transcript),
            "cwd": str(repo),
            "hook_event_name": "Stop",
            "stop_hook_active": False,
            "last_assistant_message": FINAL_MESSAGE,
        }
    ).encode()


def _fresh_state(env: dict[str, str], work: Path) -> dict[str, str]:
    return {**env, "REFLECTION_STATE_DIR": tempfile.mkdtemp(prefix="state-", dir=work)}


def bench_short(gate: Gate, work: Path, repo: Path, env: dict[str, str], runs: int) -> None:
    transcript = work / "short.jsonl"
    transcript.write_text(short_session(_Records(str(repo))), encoding="utf-8")
    records = len(transcript.read_text(encoding="utf-8").splitlines())
    hook_cmd, bare_cmd = HOOK_CMD, [sys.executable, "-c", "pass"]
    payload = _payload(transcript, repo)
    _run(hook_cmd, payload, _fresh_state(env, work), repo)  # warm bytecode and file caches
    hook, bare = [], []
    for index in range(runs):  # interleaved, taking turns going first: both see the same load
        if index % 2:
            hook.append(_run(hook_cmd, payload, _fresh_state(env, work), repo)["cpu"])
        bare.append(_run(bare_cmd, b"", env, repo)["cpu"])
        if not index % 2:
            hook.append(_run(hook_cmd, payload, _fresh_state(env, work), repo)["cpu"])
    # Each ratio from a pair run next to each other: what load drifts through the run
    # adds to both of a pair, and the median drops a pair a burst of it hit.
    ratios = sorted(h / b for h, b in zip(hook, bare, strict=True))
    h, b = statistics.median(hook), statistics.median(bare)
    print(f"stop hook, {records}-record transcript: median {h * 1000:.1f} ms CPU")
    print(f"python -c pass:                   median {b * 1000:.1f} ms CPU")
    quartiles = statistics.quantiles(ratios, n=4)
    print(
        f"ratio over {runs} adjacent pairs: median {statistics.median(ratios):.2f}x, "
        f"middle half {quartiles[0]:.2f}-{quartiles[2]:.2f}x"
    )
    gate.report(STOP_HOOK_RATIO, statistics.median(ratios), "x")


def bench_huge_task(
    gate: Gate, work: Path, repo: Path, env: dict[str, str], size_mb: float, runs: int
) -> None:
    transcript = work / "huge.jsonl"
    text = huge_task(_Records(str(repo)), int(size_mb * 1024 * 1024))
    transcript.write_text(text, encoding="utf-8")
    print(f"\none task of {transcript.stat().st_size / 1024 / 1024:.1f} MB")
    hook_cmd = HOOK_CMD
    found = [
        _run(hook_cmd, _payload(transcript, repo), _fresh_state(env, work), repo)
        for _ in range(runs)
    ]
    cpu = min(run["cpu"] for run in found)
    rss = min(run["rss_mb"] for run in found)
    gate.report(STOP_BIG_TASK_CPU, cpu, " s")
    gate.report(STOP_BIG_TASK_RSS, rss, " MB")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
    )
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--task-mb", type=float, default=50)
    parser.add_argument("--ci", action="store_true", help="fewer runs; exit 1 on gross misses")
    args = parser.parse_args(argv)
    runs = min(args.runs, 15) if args.ci else args.runs
    gate = Gate(args.ci)
    with tempfile.TemporaryDirectory(prefix="bench-stop-hook-") as tmp:
        work = Path(tmp)
        repo = work / "repo"
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        env = {**os.environ, "PYTHONPYCACHEPREFIX": str(work / "pycache")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"load average at start: {load:.2f} on {os.cpu_count()} CPUs")
        bench_short(gate, work, repo, env, runs)
        bench_huge_task(gate, work, repo, env, args.task_mb, 2 if args.ci else 5)
    return gate.exit_code()


if __name__ == "__main__":
    sys.exit(main())
