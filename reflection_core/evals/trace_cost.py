"""What a reader that sees the turn costs per stop, measured on labelled real stops.

    python -m reflection_core.evals.trace_cost DATA_DIR [--cap 4000] [--half A|B]
        [--usd-in-per-mtok 1.0] [--usd-out-per-mtok 5.0] [--answer-tokens 300] [--json OUT]

DATA_DIR holds `cases.jsonl` and the transcripts it names (as for `evals.real_stops`). For
each stop it builds what a configured reader would be sent at `reader.trace_tokens: CAP`:
the turn's condensed trace (session/trace.py) and the whole input (the system prompt, the
digest and the trace), 4 characters a token. Prints the median, p90 and max of the trace's
tokens at the cap and uncapped, how often the cap cut the trace, the whole input (and the
input of a digest-only read, for comparison), the time to build the trace, and the cost per
stop at the given prices (input, plus `--answer-tokens` of output: a full answer lists every
kind, ~300 tokens). Nothing of the data is printed or copied: only counts.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from reflection_core.evals.real_stops import load_cases, repaired_transcript
from reflection_core.evals.users import HALVES

UNCAPPED = 10**7


def percentiles(values: list[float]) -> dict[str, float]:
    """Median, p90 (nearest rank) and max of `values`."""
    ordered = sorted(values)
    if not ordered:
        return {"median": 0, "p90": 0, "max": 0}
    rank = max(0, math.ceil(0.9 * len(ordered)) - 1)
    middle = len(ordered) // 2
    median = ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    return {"median": median, "p90": ordered[rank], "max": ordered[-1]}


def measure_stop(transcript: Path, cap: int) -> dict[str, Any]:
    """The sizes a turn reader's input would have for the stop in `transcript`."""
    from reflection_core.reading import prompt
    from reflection_core.session.analyze import load_session
    from reflection_core.session.digest import build_digest
    from reflection_core.session.task import build_task_context
    from reflection_core.session.trace import build_trace, tokens_of

    session = load_session(transcript)
    started = time.perf_counter()
    trace = build_trace(session, cap)
    build_ms = (time.perf_counter() - started) * 1000
    whole = build_trace(session, UNCAPPED)
    assert trace is not None and whole is not None
    digest = build_digest(session, build_task_context(session, session.cwd))
    sent = prompt.system_prompt(trace) + prompt.render_input(digest, trace)
    digest_only = prompt.SYSTEM + prompt.render_digest(digest)
    return {
        "calls": trace.total_calls,
        "trace_tokens": trace.tokens,
        "uncapped_tokens": whole.tokens,
        "cut": trace.omitted > 0 or whole.tokens > trace.tokens,
        "input_tokens": tokens_of(sent),
        "digest_only_tokens": tokens_of(digest_only),
        "build_ms": build_ms,
    }


def run(data_dir: Path, cap: int, half: str | None) -> tuple[list[dict[str, Any]], int]:
    """The measurements of every stop that could be read, and the number that could not."""
    rows, errors = [], 0
    with tempfile.TemporaryDirectory(prefix="trace-cost-") as scratch:
        for case in load_cases(data_dir, half):
            try:
                transcript = repaired_transcript(data_dir / str(case["transcript"]), Path(scratch))
                rows.append(measure_stop(transcript, cap))
            except Exception:  # a transcript the reader cannot parse is counted, never fatal
                errors += 1
    return rows, errors


def summarize(rows: list[dict[str, Any]], errors: int, args: argparse.Namespace) -> dict[str, Any]:
    usd_in, usd_out = args.usd_in_per_mtok, args.usd_out_per_mtok
    costs = [(r["input_tokens"] * usd_in + args.answer_tokens * usd_out) / 1_000_000 for r in rows]
    return {
        "stops": len(rows),
        "errors": errors,
        "cap": args.cap,
        "cut_by_cap": sum(r["cut"] for r in rows),
        "tool_calls": percentiles([r["calls"] for r in rows]),
        "trace_tokens": percentiles([r["trace_tokens"] for r in rows]),
        "uncapped_trace_tokens": percentiles([r["uncapped_tokens"] for r in rows]),
        "input_tokens": percentiles([r["input_tokens"] for r in rows]),
        "digest_only_input_tokens": percentiles([r["digest_only_tokens"] for r in rows]),
        "build_ms": percentiles([round(r["build_ms"], 1) for r in rows]),
        "usd_per_stop": {k: round(v, 6) for k, v in percentiles(costs).items()},
        "prices": {"usd_in_per_mtok": usd_in, "usd_out_per_mtok": usd_out},
        "answer_tokens": args.answer_tokens,
    }


def render(summary: dict[str, Any]) -> str:
    def row(name: str, unit: str = "") -> str:
        p = summary[name]
        return f"  {name}: median {p['median']}{unit}, p90 {p['p90']}{unit}, max {p['max']}{unit}"

    prices = summary["prices"]
    return "\n".join(
        [
            f"turn trace at reader.trace_tokens {summary['cap']}: {summary['stops']} stops "
            f"({summary['errors']} unreadable), cut by the cap on {summary['cut_by_cap']}",
            row("tool_calls"),
            row("trace_tokens"),
            row("uncapped_trace_tokens"),
            row("input_tokens"),
            row("digest_only_input_tokens"),
            row("build_ms", " ms"),
            row("usd_per_stop"),
            f"  (at ${prices['usd_in_per_mtok']}/M input, ${prices['usd_out_per_mtok']}/M "
            f"output tokens, {summary['answer_tokens']} tokens of answer)",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data_dir", type=Path, help="folder with cases.jsonl and transcripts/")
    parser.add_argument("--cap", type=int, default=4000, help="reader.trace_tokens")
    parser.add_argument("--half", choices=HALVES, help="only the users of this half")
    parser.add_argument("--usd-in-per-mtok", type=float, default=1.0)
    parser.add_argument("--usd-out-per-mtok", type=float, default=5.0)
    parser.add_argument("--answer-tokens", type=int, default=300, help="tokens of answer")
    parser.add_argument("--json", type=Path, help="also write the summary here")
    args = parser.parse_args(argv)
    if not (args.data_dir / "cases.jsonl").is_file():
        print(f"trace cost: no cases.jsonl in {args.data_dir}", file=sys.stderr)
        return 2
    if args.cap < 1:
        print("trace cost: --cap must be at least 1 (0 sends no trace)", file=sys.stderr)
        return 2
    rows, errors = run(args.data_dir, args.cap, args.half)
    summary = summarize(rows, errors, args)
    print(render(summary))
    if args.json:
        args.json.write_text(json.dumps(summary, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
