"""Score a labelled JSONL of real prompts with the prompt scorer and report how often it is wrong.

Each line: `prompt`, `prev_assistant` (or null) and the label `needs_clarification`;
optional `id`, `kind` (new_task, continuation, follow_up, question, chat, other) and
`confidence`. Lines without `kind` (the in-house format) get one from `continuation`
and `classification`. The scorer "speaks" when it asks the user something before
acting (action ask or reformulate); that is a flag. A false alarm is a flag on a
prompt labelled as not needing clarification; its rate is over *all* prompts.

The data path is an argument: the project never reads labelled transcripts at run time.

Rules must hold on users they were not written from: `--half A|B` keeps one half of the
users (`evals.users`), and the per-rule table says, for each rule that asked (the
`rule` of the score, `prompt.rules`), how many of its flags were right and from how
many distinct users. A rule the gate keeps silent is measured too: its would-be
flags are listed with `(silent)`, so the table is the evidence for the gate.

    python -m reflection_core.evals.real_prompts DATA.jsonl [--half A|B] [--json OUT]
        [--max-false-alarm-rate 0.02] [--max-continuation-false-alarms 0]
        [--min-recall 0.6] [--min-precision P]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NamedTuple

from reflection_core.evals.users import HALVES, in_half

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
    rule: str = ""  # the rule that asked, or would have asked had the gate let it
    shown: bool = False  # the hook showed the user a line (systemMessage)


class Report(NamedTuple):
    total: int
    flagged: int
    positives: int
    true_positives: int
    false_alarms: tuple[Outcome, ...]
    misses: tuple[Outcome, ...]
    kinds: Counter[str]
    outcomes: tuple[Outcome, ...] = ()

    @property
    def flag_rate(self) -> float:
        return self.flagged / self.total if self.total else 0.0

    @property
    def false_alarm_rate(self) -> float:
        return len(self.false_alarms) / self.total if self.total else 0.0

    @property
    def visible_lines(self) -> int:
        """Prompts on which the user sees a line (the hook's answer, default config)."""
        return sum(o.shown for o in self.outcomes)

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


class Scored(NamedTuple):
    flagged: bool
    score: float
    rule: str = ""  # the asking rule, also when the gate kept it silent
    shown: bool = False  # a visible line, with the default config


Scorer = Callable[[str, "str | None"], "Scored | tuple[bool, float]"]


def default_scorer(prompt: str, prev_assistant: str | None) -> Scored:
    """Flagged, score, asking rule and whether a line is shown, from the prompt hook's
    scorer and answer with the default config."""
    from reflection_core.prompt.hook import build_response
    from reflection_core.prompt.score import score_prompt

    result = score_prompt(prompt, prev_assistant)
    shown = build_response(result).message is not None
    return Scored(result.needs_clarification, result.score, result.rule, shown)


def evaluate(rows: Iterable[dict[str, Any]], scorer: Scorer = default_scorer) -> Report:
    """Pure over `scorer`: run every row and count."""
    outcomes = []
    for index, row in enumerate(rows):
        prev = row.get("prev_assistant")
        scored = Scored(*scorer(row["prompt"], prev if isinstance(prev, str) else None))
        outcomes.append(
            Outcome(
                id=str(row.get("id", index)),
                kind=kind_of(row),
                expected=bool(row.get("needs_clarification")),
                flagged=scored.flagged,
                score=scored.score,
                confidence=str(row.get("confidence") or "high"),
                prompt=row["prompt"],
                rule=scored.rule,
                shown=scored.shown,
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
        outcomes=tuple(outcomes),
    )


class RuleFigures(NamedTuple):
    """How one asking rule did: flags right and wrong, and from how many distinct users."""

    rule: str
    asks: bool  # False: the gate kept it silent; the figures are what it would have flagged
    right: int
    wrong: int
    right_users: int
    wrong_users: int
    continuation_wrong: int

    @property
    def precision(self) -> float:
        total = self.right + self.wrong
        return self.right / total if total else 0.0


def per_rule(report: Report) -> list[RuleFigures]:
    """One line per rule that asked or would have asked, most flags first."""
    from reflection_core.evals.users import user_of

    by_rule: dict[str, list[Outcome]] = {}
    for o in report.outcomes:
        if o.rule:
            by_rule.setdefault(o.rule, []).append(o)
    figures = []
    for rule, hits in by_rule.items():
        right = [o for o in hits if o.expected]
        wrong = [o for o in hits if not o.expected]
        figures.append(
            RuleFigures(
                rule=rule,
                asks=any(o.flagged for o in hits),
                right=len(right),
                wrong=len(wrong),
                right_users=len({user_of(o.id) for o in right}),
                wrong_users=len({user_of(o.id) for o in wrong}),
                continuation_wrong=sum(1 for o in wrong if o.kind in CONTINUATION_KINDS),
            )
        )
    return sorted(figures, key=lambda f: (-(f.right + f.wrong), f.rule))


def render_rules(figures: list[RuleFigures]) -> list[str]:
    lines = ["per rule (right/wrong flags, distinct users; (silent): kept quiet by the gate):"]
    for f in figures:
        state = "asks" if f.asks else "(silent)"
        lines.append(
            f"  {f.rule:<34} {state:<9} right {f.right:>2} from {f.right_users:>2} users  "
            f"wrong {f.wrong:>2} from {f.wrong_users:>2} users ({f.continuation_wrong} on "
            f"continuations)  precision {f.precision:.2f}"
        )
    return lines


def to_json(report: Report) -> dict[str, Any]:
    """The figures CI and the docs quote, and the per-rule table."""
    return {
        "prompts": report.total,
        "positives": report.positives,
        "flagged": report.flagged,
        "true_positives": report.true_positives,
        "false_alarms": len(report.false_alarms),
        "false_alarm_rate": report.false_alarm_rate,
        "continuation_false_alarms": report.continuation_false_alarms(),
        "precision": report.precision,
        "recall": report.recall,
        "f1": report.f1,
        "visible_lines": report.visible_lines,
        "rules": [{**f._asdict(), "precision": f.precision} for f in per_rule(report)],
    }


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
        f"visible lines    {report.visible_lines}  (prompts the user sees a "
        f"line on; {sum(o.shown for o in report.outcomes if o.kind == 'continuation')} "
        "continuations)",
        "false alarms by kind:",
    ]
    for kind, count in sorted(report.kinds.items(), key=lambda kv: -kv[1]):
        lines.append(f"  {kind:<12} {by_kind.get(kind, 0):>3} of {count}")
    lines.extend(render_rules(per_rule(report)))
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
    line_rate = report.visible_lines / report.total if report.total else 0.0
    if args.max_visible_line_rate is not None and line_rate > args.max_visible_line_rate:
        out.append(f"visible-line rate {line_rate:.3f} > {args.max_visible_line_rate:.3f}")
    return out


def gate_failures(report: Report, min_users: int, min_precision: float) -> list[str]:
    """The gate an asking rule must meet on the dev prompts, checked rather than kept by
    hand: every rule `prompt.rules.ASKS` lets ask is right on at least `min_users` users
    and `min_precision` of its flags."""
    from reflection_core.prompt.rules import ASKS

    figures = {f.rule: f for f in per_rule(report)}
    out = []
    for rule in sorted(r for r, asks in ASKS.items() if asks):
        f = figures.get(rule)
        if f is None:
            out.append(f"gate: {rule} may ask but flagged nothing here, so its figures are unknown")
        elif f.right_users < min_users or f.precision < min_precision:
            out.append(
                f"gate: {rule} asks right on {f.right_users} users, {f.precision:.2f} of its "
                f"flags (needs {min_users} users, {min_precision:.2f})"
            )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="labelled JSONL (prompt, prev_assistant, ...)")
    parser.add_argument("--max-false-alarm-rate", type=float)
    parser.add_argument("--max-continuation-false-alarms", type=int)
    parser.add_argument("--min-recall", type=float)
    parser.add_argument("--min-precision", type=float)
    parser.add_argument("--max-visible-line-rate", type=float, help="prompts shown a line")
    parser.add_argument("--worst", type=int, default=10, help="misses and false alarms listed")
    parser.add_argument("--half", choices=HALVES, help="only the users of this half")
    parser.add_argument("--json", type=Path, metavar="OUT", help="also write the figures here")
    parser.add_argument("--gate-users", type=int, help="fail an asking rule right on fewer users")
    parser.add_argument("--gate-precision", type=float, default=0.6, help="... or below this")
    args = parser.parse_args(argv)
    try:
        rows = in_half(load(args.data), args.half)
    except (OSError, ValueError) as exc:
        print(f"cannot read {args.data}: {exc}", file=sys.stderr)
        return 2
    report = evaluate(rows)
    print(render(report, args.worst))
    if args.json is not None:
        args.json.write_text(json.dumps(to_json(report), indent=2) + "\n", encoding="utf-8")
    missed = failures(report, args)
    if args.gate_users is not None:
        missed += gate_failures(report, args.gate_users, args.gate_precision)
    for line in missed:
        print(f"FAIL {line}")
    if not missed:
        print("OK all thresholds met")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
