"""Stop-hook cost must grow with the current task, not with the session.

Builds a 200 MB and a 1 MB Claude Code transcript that end with the same task,
then measures, side by side in one run, each in a fresh child process:

  read      transcript.read_session (the reader alone)
  analyze   session.analyze.analyze_transcript (reader + the whole decision)
  hook      the real `reflection hook stop` process, end to end

and prints the big/small ratio of the median CPU seconds (target in targets.py) and
each child's peak RSS. CPU time (user + system), not wall time: these are 10-300 ms
figures, and on a shared machine a child that waits for a core gains wall time, not
CPU. The sizes take turns going first, so load that drifts hits both alike.

    python benchmarks/bench_stop.py [--big-mb 200] [--small-mb 1] [--repeat 11] [--ci]
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
from typing import Any, NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent))

from targets import STOP_SESSION_GROWTH, Gate

SESSION_ID = "bench-0000-4000-8000-000000000001"
FINAL_MESSAGE = "Fixed the redirect; the full test suite passes."


def _base(kind: str, n: int, cwd: str) -> dict[str, Any]:
    return {
        "parentUuid": f"u-{n - 1}",
        "isSidechain": False,
        "userType": "external",
        "cwd": cwd,
        "sessionId": SESSION_ID,
        "version": "2.1.328",
        "gitBranch": "feat/bench",
        "type": kind,
        "uuid": f"u-{n}",
        "timestamp": "2026-03-02T09:00:00.000Z",
    }


class _Records:
    """Claude Code shaped records with running ids."""

    def __init__(self, cwd: str) -> None:
        self.n = 0
        self.cwd = cwd

    def user(self, content: Any) -> str:
        self.n += 1
        record = _base("user", self.n, self.cwd)
        record["message"] = {"role": "user", "content": content}
        return json.dumps(record) + "\n"

    def assistant(self, block: dict[str, Any]) -> str:
        self.n += 1
        record = _base("assistant", self.n, self.cwd)
        record["message"] = {
            "id": f"msg_{self.n}",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [block],
            "stop_reason": None,
            "usage": {"input_tokens": 4, "output_tokens": 60},
        }
        return json.dumps(record) + "\n"

    def tool(
        self,
        tool_id: str,
        name: str,
        tool_input: dict[str, Any],
        output: str,
        error: bool = False,
        details: dict[str, Any] | None = None,
    ) -> str:
        """A tool call and its result; `details` is the host's `toolUseResult`."""
        use = self.assistant({"type": "tool_use", "id": tool_id, "name": name, "input": tool_input})
        result = {
            "type": "tool_result",
            "tool_use_id": tool_id,
            "content": output,
            "is_error": error,
        }
        record = self.user([result])
        if details is not None:
            record = record[:-2] + ', "toolUseResult": ' + json.dumps(details) + "}\n"
        return use + record


def _old_task(rec: _Records, i: int) -> str:
    """One finished earlier task, about 25 KB."""
    out = rec.user(f"Earlier task {i}: tidy module_{i}.py and keep the tests green")
    out += rec.assistant({"type": "text", "text": f"Looking at module_{i}.py."})
    out += rec.tool(
        f"toolu_r{i}", "Read", {"file_path": f"{rec.cwd}/module_{i}.py"}, "x = 1\n" * 1500
    )
    out += rec.tool(
        f"toolu_e{i}",
        "Edit",
        {"file_path": f"{rec.cwd}/module_{i}.py", "old_string": "x", "new_string": "y"},
        "updated",
    )
    out += rec.tool(
        f"toolu_t{i}", "Bash", {"command": "python -m pytest -q"}, "." * 4000 + "\n40 passed"
    )
    out += rec.assistant({"type": "text", "text": "Done; tests pass."})
    return out


def _final_task(rec: _Records) -> str:
    out = rec.user("Fix the login redirect bug in src/auth.py and make sure the tests pass")
    out += rec.tool(
        "toolu_f1", "Bash", {"command": "grep -n redirect src/auth.py"}, "12: return redirect(u)"
    )
    out += rec.tool(
        "toolu_f2",
        "Edit",
        {"file_path": f"{rec.cwd}/src/auth.py", "old_string": "a", "new_string": "b"},
        "updated",
    )
    out += rec.tool(
        "toolu_f3", "Bash", {"command": "python -m pytest -q"}, "Exit code 1\n1 failed", error=True
    )
    out += rec.tool(
        "toolu_f4",
        "Edit",
        {"file_path": f"{rec.cwd}/src/auth.py", "old_string": "b", "new_string": "c"},
        "updated",
    )
    out += rec.tool(
        "toolu_f5", "Bash", {"command": "python -m pytest -q"}, "." * 200 + "\n41 passed"
    )
    out += rec.assistant({"type": "text", "text": FINAL_MESSAGE})
    return out


def build_transcript(path: Path, size_bytes: int, cwd: str) -> None:
    rec = _Records(cwd)
    with path.open("w", encoding="utf-8") as handle:
        written, i = 0, 0
        while written < size_bytes:
            chunk = _old_task(rec, i)
            handle.write(chunk)
            written += len(chunk)
            i += 1
        handle.write(_final_task(rec))


def _child(mode: str, transcript: str, cwd: str) -> dict[str, Any]:
    """Runs inside a fresh process: one measurement, printed as JSON."""
    import resource

    started = time.process_time()  # the import of the code measured is part of its cost
    if mode == "read":
        from reflection_core.session.transcript import read_session

        session = read_session(transcript, last_assistant_message=FINAL_MESSAGE)
        detail = {"tool_calls": len(session.tool_calls), "task": session.task_prompt[:40]}
    elif mode == "analyze":
        from reflection_core.session.analyze import analyze_transcript

        decision = analyze_transcript(transcript, cwd=cwd, last_assistant_message=FINAL_MESSAGE)
        detail = {"decision": type(decision).__name__}
    else:
        raise SystemExit(f"unknown mode {mode}")
    elapsed = time.process_time() - started
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"seconds": elapsed, "peak_mb": peak_kb / 1024, **detail}


def _measure_in_child(
    mode: str, transcript: Path, cwd: Path, env: dict[str, str]
) -> dict[str, Any]:
    code = (
        "import json, sys; from benchmarks.bench_stop import _child; "
        "print(json.dumps(_child(*sys.argv[1:])))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, mode, str(transcript), str(cwd)],
        capture_output=True,
        text=True,
        env=env,
        cwd=Path(__file__).resolve().parents[1],
        check=True,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def console_script() -> str:
    """The `reflection` script beside this interpreter, as a host runs it."""
    found = shutil.which("reflection", path=str(Path(sys.executable).parent))
    return found or "reflection"


_HOOK_WRAPPER = """
import json, resource, subprocess, sys
proc = subprocess.run([sys.argv[2], "hook", "stop"], input=sys.argv[1], capture_output=True,
                      text=True)
use = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"seconds": use.ru_utime + use.ru_stime, "peak_mb": use.ru_maxrss / 1024,
                  "exit": proc.returncode}))
"""


def _measure_hook(transcript: Path, cwd: Path, env: dict[str, str]) -> dict[str, Any]:
    """The real hook process; a fresh wrapper reports its CPU time and its peak RSS.

    Each run gets its own state dir, so every run is a first stop (no attempts spent).
    """
    env = {**env, "REFLECTION_STATE_DIR": tempfile.mkdtemp(prefix="state-", dir=cwd.parent)}
    payload = {
        "session_id": SESSION_ID,
        "transcript_path": str(transcript),
        "cwd": str(cwd),
        "hook_event_name": "Stop",
        "stop_hook_active": False,
        "last_assistant_message": FINAL_MESSAGE,
    }
    proc = subprocess.run(
        [sys.executable, "-c", _HOOK_WRAPPER, json.dumps(payload), console_script()],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        check=True,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


MODES = ("read", "analyze", "hook")


class Measured(NamedTuple):
    small: dict[str, float]  # median CPU seconds and peak RSS of the small session's runs
    big: dict[str, float]
    ratio: float  # the median of big/small over adjacent runs


def _measure(
    mode: str, files: dict[str, Path], repo: Path, env: dict[str, str], repeat: int
) -> Measured:
    """Each size's median CPU seconds and peak RSS over `repeat` interleaved runs, and
    the median big/small ratio of the runs taken next to each other (what load drifts
    through the run adds to both of a pair; medians drop a run a burst of it hit)."""
    runs: dict[str, list[dict[str, Any]]] = {label: [] for label in files}
    for index in range(-1, repeat):  # run -1 warms the caches and is not counted
        labels = list(files) if index % 2 else list(reversed(files))
        for label in labels:
            if mode == "hook":
                found = _measure_hook(files[label], repo, env)
            else:
                found = _measure_in_child(mode, files[label], repo, env)
            if index >= 0:
                runs[label].append(found)
    summary = {
        label: {
            "seconds": statistics.median(r["seconds"] for r in found),
            "peak_mb": max(r["peak_mb"] for r in found),
        }
        for label, found in runs.items()
    }
    pairs = zip(runs["small"], runs["big"], strict=True)  # measured next to each other
    ratio = statistics.median(b["seconds"] / s["seconds"] for s, b in pairs)
    return Measured(summary["small"], summary["big"], ratio)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--big-mb", type=float, default=200)
    parser.add_argument("--small-mb", type=float, default=1)
    parser.add_argument("--repeat", type=int, default=11)
    parser.add_argument(
        "--ci", action="store_true", help="a 50 MB session, 7 repeats; exit 1 on gross misses"
    )
    args = parser.parse_args(argv)
    if args.ci:
        args.big_mb, args.repeat = min(args.big_mb, 50), min(args.repeat, 7)
    with tempfile.TemporaryDirectory(prefix="bench-stop-") as tmp:
        work = Path(tmp)
        repo = work / "repo"
        repo.mkdir()
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        env = {**os.environ, "REFLECTION_STATE_DIR": str(work / "state")}
        # Bytecode and regex caches on, as an installed hook has them (one warm-up run
        # writes them): compiling the modules would swamp what is measured.
        env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        files = {}
        for label, mb in (("small", args.small_mb), ("big", args.big_mb)):
            path = work / f"{label}.jsonl"
            build_transcript(path, int(mb * 1024 * 1024), str(repo))
            files[label] = path
            print(f"{label}: {path.stat().st_size / 1024 / 1024:.1f} MB transcript")
        results = {mode: _measure(mode, files, repo, env, args.repeat) for mode in MODES}
        header = f"{'small s':>10}{'big s':>10}{'ratio':>8}{'small MB':>10}{'big MB':>9}"
        print(
            f"\nCPU seconds (user + system), median of {args.repeat} interleaved runs; "
            "ratio: the median of big/small over adjacent pairs"
        )
        print(f"{'measure':<10}{header}  verdict")
        worst = 0.0
        for mode, (small, big, ratio) in results.items():
            worst = max(worst, ratio)
            verdict = "ok" if ratio <= STOP_SESSION_GROWTH.limit else "SLOW"
            print(
                f"{mode:<10}{small['seconds']:>10.4f}{big['seconds']:>10.4f}{ratio:>8.2f}"
                f"{small['peak_mb']:>10.1f}{big['peak_mb']:>9.1f}  {verdict}"
            )
        gate = Gate(args.ci)
        print()
        gate.report(STOP_SESSION_GROWTH, worst)
        return gate.exit_code()


if __name__ == "__main__":
    sys.exit(main())
