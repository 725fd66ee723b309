"""Git-guard costs, measured side by side in one run (prints figures; asserts nothing).

1. The native pre-push hook (`reflection hook pre-push` with one ref line on a small
   repo, protected-branch check plus tests-ran check) against bare `python -c pass`.
2. On a generated 50,000-file repo: the working-tree fingerprint and the tests-ran
   checks, cold (every file's stat data stale, so git rehashes all of them) and warm
   (the index's stat cache is fresh, as after any `git status`).

    python benchmarks/bench_guards.py [--files 50000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

BIN = Path(sys.executable).parent
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str, input: str | None = None) -> str:
    return subprocess.run(
        ["git", *args],
        cwd=repo,
        env={**os.environ, **GIT_ENV},
        input=input,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def median_time(fn: Callable[[], object], rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def make_repo(path: Path, files: int) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    (path / ".gitignore").write_text("__pycache__/\n.pytest_cache/\n")
    per_dir = 100
    for n in range(files):
        directory = path / "src" / f"pkg{n // per_dir:04d}"
        if n % per_dir == 0:
            directory.mkdir(parents=True)
        (directory / f"mod{n % per_dir:03d}.py").write_text(f"VALUE = {n}\n")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "generated")
    git(path, "switch", "-q", "-c", "feature")
    return path


def bench_pre_push(tmp: Path, rounds: int) -> None:
    from reflection_core.guards import ledger

    repo = make_repo(tmp / "small", files=20)
    sha = git(repo, "rev-parse", "HEAD").strip()
    ledger.record_run(repo, "pytest", 0, 0.1, tree=git(repo, "rev-parse", "HEAD^{tree}").strip())
    line = f"refs/heads/feature {sha} refs/heads/feature {'0' * 40}\n"
    hook = [str(BIN / "reflection"), "hook", "pre-push", "origin", "/dev/null"]

    def run_hook() -> None:
        proc = subprocess.run(hook, cwd=repo, input=line, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr

    def bare() -> None:
        subprocess.run([sys.executable, "-c", "pass"], check=True)

    run_hook()  # warm the config cache and the OS file cache
    floor = median_time(bare, rounds)
    hook_s = median_time(run_hook, rounds)
    print(f"pre-push hook, one ref, small repo: {hook_s * 1000:7.1f} ms")
    print(f"python -c pass:                     {floor * 1000:7.1f} ms")
    print(f"ratio hook / bare python:           {hook_s / floor:7.2f}x")


def bench_large(tmp: Path, files: int, rounds: int) -> None:
    from reflection_core import config
    from reflection_core.guards import fingerprint, ledger, tests_ran

    started = time.perf_counter()
    repo = make_repo(tmp / "large", files=files)
    print(f"\ngenerated a {files}-file repo in {time.perf_counter() - started:.1f} s")
    cfg = config.load(repo)
    tree = fingerprint.worktree_tree(repo)
    ledger.record_run(repo, "pytest", 0, 1.0, tree=tree)
    (repo / "docs").mkdir()
    (repo / "docs" / "note.md").write_text("docs only\n")  # ignorable: needs the diff path

    def make_cold() -> None:
        now = time.time() - 1000  # differs from the indexed mtime, so git rehashes
        for path in (repo / "src").rglob("*.py"):
            os.utime(path, (now, now))

    cold: list[float] = []
    for _ in range(max(1, rounds // 3)):
        make_cold()
        started = time.perf_counter()
        fingerprint.worktree_tree(repo)
        cold.append(time.perf_counter() - started)
    git(repo, "status", "--porcelain")  # refreshes the real index's stat cache
    status_s = median_time(lambda: git(repo, "status", "--porcelain"), rounds)
    warm_fp = median_time(lambda: fingerprint.worktree_tree(repo), rounds)
    warm_check = median_time(lambda: tests_ran.current_tree_evidence(repo, cfg), rounds)
    staged = median_time(
        lambda: tests_ran.evidence_for_tree(repo, fingerprint.staged_tree(repo), cfg), rounds
    )
    hook = [str(BIN / "reflection"), "hook", "pre-commit"]
    git(repo, "add", "docs/note.md")

    def run_hook() -> None:
        proc = subprocess.run(hook, cwd=repo, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr

    hook_s = median_time(run_hook, rounds)
    evidence = tests_ran.current_tree_evidence(repo, cfg)
    assert evidence.passed and evidence.ignorable_only, evidence.reason
    cold_ms = statistics.median(cold) * 1000
    print(f"working-tree fingerprint, cold (all stat data stale): {cold_ms:8.1f} ms")
    print(f"working-tree fingerprint, warm:                       {warm_fp * 1000:8.1f} ms")
    print(f"tests-ran check on the working tree, warm:            {warm_check * 1000:8.1f} ms")
    print(f"tests-ran check on the staged tree (pre-commit):      {staged * 1000:8.1f} ms")
    print(f"`reflection hook pre-commit` process, warm:           {hook_s * 1000:8.1f} ms")
    print(f"`git status --porcelain`, warm (reference):           {status_s * 1000:8.1f} ms")
    print(f"ratio warm fingerprint / git status:                  {warm_fp / status_s:8.2f}x")
    print(f"ratio warm working-tree check / 300 ms target:        {warm_check / 0.3:8.2f}")
    print(f"ratio staged-tree check / 300 ms target:              {staged / 0.3:8.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-guards-") as tmp:
        os.environ["REFLECTION_STATE_DIR"] = str(Path(tmp) / "state")
        bench_pre_push(Path(tmp), args.rounds)
        bench_large(Path(tmp), args.files, args.rounds)


if __name__ == "__main__":
    main()
