"""Hostile-input costs as growth ratios: does doubling (or 10x-ing) the input do more
than double (10x) the work? Prints FAIL when growth is super-linear.

Each case runs the real code path in-process on the same adversarial shape at
several sizes, interleaved in one run, and reports time(big) / time(small) against
the size ratio. Linear code gives a ratio near the size ratio; quadratic code gives
its square. A ratio above targets.SUPERLINEAR_SLACK times the size ratio is a FAIL (with
--ci, the 10 KB/100 KB and 1 MB/10 MB steps; exit 1 only beyond CI_SLACK times that).

Cases: the prompt hook's scoring on dash-joined runs (`sk-sk-…`, `-----`), path
runs and comma lists; the stop decision on a final message of those runs; the
redaction applied to every write; and the backward transcript reader on one long
line before the current task.

    python benchmarks/bench_adversarial.py [--rounds 3] [--quick] [--ci]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from targets import SUPERLINEAR_SLACK, gross_miss


def best_time(fn: Callable[[], object], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


def prompt_case(unit: str) -> Callable[[int], Callable[[], object]]:
    from reflection_core.prompt.score import score_prompt

    def build(size: int) -> Callable[[], object]:
        text = unit * (size // len(unit))
        return lambda: score_prompt(text)

    return build


def stop_case(unit: str) -> Callable[[int], Callable[[], object]]:
    from reflection_core.config import defaults
    from reflection_core.session.decide import DecisionContext, decide
    from reflection_core.session.model import Session

    def build(size: int) -> Callable[[], object]:
        text = unit * (size // len(unit))
        session = Session(
            session_id="bench", task_prompt="Fix the parser", last_assistant_message=text
        )
        return lambda: decide(session, DecisionContext(config=defaults()))

    return build


def redact_case(unit: str) -> Callable[[int], Callable[[], object]]:
    from reflection_core.redact import redact

    def build(size: int) -> Callable[[], object]:
        text = unit * (size // len(unit))
        return lambda: redact(text)

    return build


def reader_case(directory: Path) -> Callable[[int], Callable[[], object]]:
    from reflection_core.session import transcript

    def build(size: int) -> Callable[[], object]:
        path = directory / f"long-{size}.jsonl"
        with path.open("wb") as handle:
            handle.write(b'{"type": "user", "message": {"role": "user", "content": "old"}}\n')
            handle.write(b"x" * size + b"\n")
            handle.write(b'{"type": "user", "message": {"role": "user", "content": "task"}}\n')
            handle.write(b'{"type": "assistant", "message": {"content": "ok"}}\n')
        return lambda: transcript.read_session(path)

    return build


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="10 KB and 100 KB only")
    parser.add_argument(
        "--ci", action="store_true", help="--quick, 5 rounds; exit 1 on gross misses"
    )
    args = parser.parse_args(argv)
    if args.ci:  # more rounds: the best of each size is what is compared, stalls only add
        args.quick, args.rounds = True, max(args.rounds, 5)
    os.environ.setdefault("REFLECTION_STATE_DIR", tempfile.mkdtemp(prefix="bench-adv-"))
    text_sizes = [10_000, 100_000] if args.quick else [10_000, 100_000, 1_000_000]
    reader_sizes = [1_000_000, 10_000_000] if args.quick else [1_000_000, 10_000_000, 100_000_000]
    workdir = Path(tempfile.mkdtemp(prefix="bench-adv-"))
    cases: list[tuple[str, Callable[[int], Callable[[], object]], list[int]]] = []
    for unit in ("sk-", "-", "a/", "x.py, ", " ", "http://a:"):
        cases.append((f"prompt score   {unit!r:>10}", prompt_case(unit), text_sizes))
        cases.append((f"stop decision  {unit!r:>10}", stop_case(unit), text_sizes))
        cases.append((f"redaction      {unit!r:>10}", redact_case(unit), text_sizes))
    cases.append(("transcript reader  one long line", reader_case(workdir), reader_sizes))

    failed = gross = 0
    print(f"{'case':<34} {'sizes':<24} {'seconds':<30} ratios (linear = size ratio)")
    for name, build, sizes in cases:
        runners = [build(size) for size in sizes]
        times = [float("inf")] * len(sizes)
        for _ in range(args.rounds):  # interleaved: a busy moment hits every size alike
            for index, run in enumerate(runners):
                times[index] = min(times[index], best_time(run, 1))
        verdicts = []
        for index in range(1, len(sizes)):
            size_ratio = sizes[index] / sizes[index - 1]
            ratio = times[index] / max(times[index - 1], 1e-6)
            growth = ratio / size_ratio if times[index] >= 0.01 else 0.0
            ok = growth <= SUPERLINEAR_SLACK.limit
            failed += not ok
            gross += gross_miss(SUPERLINEAR_SLACK, growth)
            verdicts.append(f"{ratio:6.1f}x/{size_ratio:.0f}x {'ok' if ok else 'FAIL'}")
        shown_sizes = "/".join(_human(size) for size in sizes)
        shown_times = "/".join(f"{t:.4f}" for t in times)
        print(f"{name:<34} {shown_sizes:<24} {shown_times:<30} {'  '.join(verdicts)}")
    print("FAIL: super-linear growth" if failed else "all cases grow linearly")
    return 1 if (gross if args.ci else failed) else 0


def _human(size: int) -> str:
    for unit, scale in (("MB", 1_000_000), ("KB", 1_000)):
        if size >= scale:
            return f"{size // scale}{unit}"
    return str(size)


if __name__ == "__main__":
    sys.exit(main())
