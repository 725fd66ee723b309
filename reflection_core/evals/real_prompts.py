"""Score a labelled JSONL of real prompts with the prompt scorer and report how often it is wrong.

Each line: `prompt`, `prev_assistant` (or null) and the label `needs_clarification`;
optional `id`, `kind` (new_task, continuation, follow_up, question, chat, other) and
`confidence`. Lines without `kind` (the in-house format) get one from `continuation`
and `classification`. The scorer "speaks" when it asks the user something before
acting (action ask or reformulate); that is a flag. A false alarm is a flag on a
prompt labelled as not needing clarification; its rate is over *all* prompts.

The data path is an argument: the project never reads labelled transcripts at run time.

    python -m reflection_core.evals.real_prompts DATA.jsonl [--max-false-alarm-rate 0.02]
        [--max-continuation-false-alarms 0] [--min-recall 0.6] [--min-precision P]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NamedTuple

CONTINUATION_KINDS = ("continuation",)
_CONFIDENCE_RANK = {"high": 0, "medium": 1, "low": 2}


class Outcome(NamedTuple):
    """One labelled prompt and what the scorer did with it."""

    id: str
    kind: str
    expected: bool
    flagged: bool
    score: float
    confidence: str
    prompt: str


class Report(NamedTuple):
    total: int
    flagged: int
    positives: int
    true_positives: int
    false_alarms: tuple[Outcome, ...]
    misses: tuple[Outcome, ...]
    kinds: Counter[str]

    @property
    def flag_rate(self) -> float:
        return self.flagged / self.total if self.total else 0.0

    @property
    def false_alarm_rate(self) -> float:
        return len(self.false_alarms) / self.total if self.total else 0.0

    @property
    def precision(self) -> float:
        return self.true_positives / self.flagged if self.flagged else 1.0

    @property
    def recall(self) -> float:
        return self.true_positives / self.positives if self.positives else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def false_alarms_by_kind(self) -> Counter[str]:
        return Counter(o.kind for o in self.false_alarms)

    def continuation_false_alarms(self) -> int:
        return sum(1 for o in self.false_alarms if o.kind in CONTINUATION_KINDS)


def kind_of(row: dict[str, Any]) -> str:
    """The row's prompt kind; the in-house format says continuation/classification instead."""
    kind = row.get("kind")
    if isinstance(kind, str) and kind:
        return kind
    if row.get("continuation"):
        return "continuation"
    if row.get("classification") == "conversational":
        return "question"
    return "new_task"


def load(path: Path) -> list[dict[str, Any]]:
    rows = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            row = json.loads(line)
            if not isinstance(row, dict) or not isinstance(row.get("prompt"), str):
                raise ValueError(f"{path}:{number}: expected an object with a string 'prompt'")
            rows.append(row)
    return rows


Scorer = Callable[[str, "str | None"], "tuple[bool, float]"]


def default_scorer(prompt: str, prev_assistant: str | None) -> tuple[bool, float]:
    """(flagged, score) from the prompt hook's scorer with the default config."""
    from reflection_core.prompt.score import score_prompt

    result = score_prompt(prompt, prev_assistant)
    return result.needs_clarification, result.score


def evaluate(rows: Iterable[dict[str, Any]], scorer: Scorer = default_scorer) -> Report:
    """Pure over `scorer`: run every row and count."""
    outcomes = []
    for index, row in enumerate(rows):
        prev = row.get("prev_assistant")
        flagged, score = scorer(row["prompt"], prev if isinstance(prev, str) else None)
        outcomes.append(
            Outcome(
                id=str(row.get("id", index)),
                kind=kind_of(row),
                expected=bool(row.get("needs_clarification")),
                flagged=flagged,
                score=score,
                confidence=str(row.get("confidence") or "high"),
                prompt=row["prompt"],
            )
        )
    return Report(
        total=len(outcomes),
        flagged=sum(o.flagged for o in outcomes),
        positives=sum(o.expected for o in outcomes),
        true_positives=sum(o.flagged and o.expected for o in outcomes),
        false_alarms=tuple(o for o in outcomes if o.flagged and not o.expected),
        misses=tuple(o for o in outcomes if o.expected and not o.flagged),
        kinds=Counter(o.kind for o in outcomes),
    )


def _worst(outcomes: Iterable[Outcome], key: Callable[[Outcome], Any], limit: int) -> list[str]:
    lines = []
    for o in sorted(outcomes, key=key)[:limit]:
        text = " ".join(o.prompt.split())
        text = text if len(text) <= 90 else text[:89] + "…"
        lines.append(f"  {o.id}  {o.kind:<12} {o.confidence:<6} score {o.score:.1f}  {text}")
    return lines


def _most_confident(outcome: Outcome) -> tuple[int, float]:
    return (_CONFIDENCE_RANK.get(outcome.confidence, 3), -outcome.score)


def render(report: Report, worst: int = 10) -> str:
    by_kind = report.false_alarms_by_kind()
    lines = [
        f"prompts          {report.total}  (positives {report.positives})",
        f"flag rate        {report.flag_rate:.3f}  ({report.flagged})",
        f"false-alarm rate {report.false_alarm_rate:.3f}  ({len(report.false_alarms)})",
        f"precision        {report.precision:.3f}",
        f"recall           {report.recall:.3f}  ({report.true_positives}/{report.positives})",
        f"F1               {report.f1:.3f}",
        "false alarms by kind:",
    ]
    for kind, count in sorted(report.kinds.items(), key=lambda kv: -kv[1]):
        lines.append(f"  {kind:<12} {by_kind.get(kind, 0):>3} of {count}")
    if report.misses:
        lines.append("worst misses (needs clarification, not flagged; most confident first):")
        lines.extend(_worst(report.misses, _most_confident, worst))
    if report.false_alarms:
        lines.append("worst false alarms (flagged, not needed; lowest score first):")
        lines.extend(_worst(report.false_alarms, lambda o: o.score, worst))
    return "\n".join(lines)


def failures(report: Report, args: argparse.Namespace) -> list[str]:
    """The thresholds `report` misses, as sentences."""
    out = []
    limit_rate = args.max_false_alarm_rate
    if limit_rate is not None and report.false_alarm_rate > limit_rate:
        out.append(
            f"false-alarm rate {report.false_alarm_rate:.3f} > {args.max_false_alarm_rate:.3f}"
        )
    limit = args.max_continuation_false_alarms
    if limit is not None and report.continuation_false_alarms() > limit:
        out.append(f"{report.continuation_false_alarms()} false alarms on continuations > {limit}")
    if args.min_recall is not None and report.recall < args.min_recall:
        out.append(f"recall {report.recall:.3f} < {args.min_recall:.3f}")
    if args.min_precision is not None and report.precision < args.min_precision:
        out.append(f"precision {report.precision:.3f} < {args.min_precision:.3f}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="labelled JSONL (prompt, prev_assistant, ...)")
    parser.add_argument("--max-false-alarm-rate", type=float)
    parser.add_argument("--max-continuation-false-alarms", type=int)
    parser.add_argument("--min-recall", type=float)
    parser.add_argument("--min-precision", type=float)
    parser.add_argument("--worst", type=int, default=10, help="misses and false alarms listed")
    args = parser.parse_args(argv)
    try:
        rows = load(args.data)
    except (OSError, ValueError) as exc:
        print(f"cannot read {args.data}: {exc}", file=sys.stderr)
        return 2
    report = evaluate(rows)
    print(render(report, args.worst))
    missed = failures(report, args)
    for line in missed:
        print(f"FAIL {line}")
    if not missed:
        print("OK all thresholds met")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
