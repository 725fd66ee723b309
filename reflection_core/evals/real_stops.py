"""Replay labelled real stops through the stop decision and measure it.

    python -m reflection_core.evals.real_stops DATA_DIR [--half A|B] [--min-precision 0.85]
        [--min-recall 0.6] [--max-false-block-rate 0.03] [--worst 10] [--json OUT]

DATA_DIR holds `cases.jsonl` (one labelled stop per line: `transcript`, `should_block`,
`category`, `confidence`, `session_has_tests`) and the transcripts it names. Each stop goes
through the stop hook's own path (read the transcript, gather the context from a repository,
decide) as its first stop. The user's repository is not there: each case stands in one
rebuilt from what its transcript shows (manifests and configs the agent read or wrote, test
files it touched, checks that worked; see replay_repo.py). `session_has_tests` picks a suite
only when the transcript shows none of that.

Prints block precision and recall, false blocks by labelled category, the false-block rate
among the stops that were fine, per rule that pushed the agent on its blocks right and wrong
and how many distinct users they come from (the figures behind each `GAP_WEIGHTS` entry in
session/categories.py), and the worst misses and false blocks with the decision's own
evidence (quotes of the session's words left out). `--half` replays only the users of one
half. Exits 1 below a threshold, 2 on bad input.
The data is evaluation-only: nothing here copies it anywhere.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reflection_core import config
from reflection_core.evals import replay_repo
from reflection_core.evals.users import HALVES, in_half, user_of
from reflection_core.lazyre import lazy
from reflection_core.session.analyze import gather_context, load_session
from reflection_core.session.categories import GAP_WEIGHTS, rule_id, rule_pushes
from reflection_core.session.decide import Decision, decide
from reflection_core.session.stop_hook import render_decision

_CONFIDENCE_RANK = {"high": 0, "medium": 1, "low": 2}
# The redaction that made the data set replaced some numbers with a bare <REDACTED>,
# which leaves the record invalid JSON; the hook never sees such records, so quote them.
_BARE_REDACTION = lazy(r"(?<=[:\[,])<REDACTED>(?=[,\]}])")
# A redaction marker where a value stood: the hook saw one word there (`PGPASSWORD=s3cret
# psql ...`), not the `<`/`>` a shell reads as redirections.
_REDACTION_MARKER = lazy(r"<REDACTED(?::[\w.-]*)?>")


@dataclass
class Replay:
    case_id: str
    category: str
    should_block: bool
    confidence: str
    blocked: bool
    evidence: str
    error: str | None = None
    pushed_by: list[str] = field(default_factory=list)  # the rules behind a block
    open_rules: list[str] = field(default_factory=list)  # every rule with an open item
    line: bool = False  # the stop stood and the user read a line from the hook


@dataclass
class RuleFigures:
    """One rule's blocks on the replayed stops, and the users they come from."""

    rule: str
    right: int = 0
    wrong: int = 0
    users_right: set[str] = field(default_factory=set)
    users: set[str] = field(default_factory=set)

    @property
    def precision(self) -> float:
        total = self.right + self.wrong
        return self.right / total if total else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "right": self.right,
            "wrong": self.wrong,
            "users_right": len(self.users_right),
            "users": len(self.users),
            "precision": round(self.precision, 4),
        }


def rule_figures(replays: list[Replay], *, pushed: bool = True) -> dict[str, RuleFigures]:
    """Per rule: blocks right and wrong (or, with `pushed=False`, the stops it found an
    open item on, whether or not it pushed), and the distinct users behind each."""
    table: dict[str, RuleFigures] = {}
    for r in replays:
        if pushed and not r.blocked:
            continue
        for rule in dict.fromkeys(r.pushed_by if pushed else r.open_rules):
            row = table.setdefault(rule, RuleFigures(rule))
            row.users.add(user_of(r.case_id))
            if r.should_block:
                row.right += 1
                row.users_right.add(user_of(r.case_id))
            else:
                row.wrong += 1
    return dict(sorted(table.items(), key=lambda kv: (-(kv[1].right + kv[1].wrong), kv[0])))


@dataclass
class Summary:
    replays: list[Replay] = field(default_factory=list)

    @property
    def true_blocks(self) -> int:
        return sum(1 for r in self.replays if r.blocked and r.should_block)

    @property
    def blocks(self) -> int:
        return sum(1 for r in self.replays if r.blocked)

    @property
    def positives(self) -> int:
        return sum(1 for r in self.replays if r.should_block)

    @property
    def fine(self) -> int:
        return sum(1 for r in self.replays if not r.should_block)

    @property
    def false_blocks(self) -> list[Replay]:
        return [r for r in self.replays if r.blocked and not r.should_block]

    @property
    def misses(self) -> list[Replay]:
        return [r for r in self.replays if r.should_block and not r.blocked]

    @property
    def lines(self) -> list[Replay]:
        return [r for r in self.replays if r.line]

    @property
    def fine_line_rate(self) -> float:
        """Of the stops that were fine, the share that left the user a line anyway."""
        noted = sum(1 for r in self.lines if not r.should_block)
        return noted / self.fine if self.fine else 0.0

    @property
    def precision(self) -> float:
        return self.true_blocks / self.blocks if self.blocks else 1.0

    @property
    def recall(self) -> float:
        return self.true_blocks / self.positives if self.positives else 1.0

    @property
    def false_block_rate(self) -> float:
        return len(self.false_blocks) / self.fine if self.fine else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "cases": len(self.replays),
            "should_block": self.positives,
            "blocks": self.blocks,
            "true_blocks": self.true_blocks,
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "false_blocks": len(self.false_blocks),
            "false_block_rate": round(self.false_block_rate, 4),
            "false_blocks_by_category": dict(Counter(r.category for r in self.false_blocks)),
            "misses_by_category": dict(Counter(r.category for r in self.misses)),
            "errors": sum(1 for r in self.replays if r.error),
            "lines": len(self.lines),
            "lines_on_fine_stops": sum(1 for r in self.lines if not r.should_block),
            "rules": {k: v.to_dict() for k, v in rule_figures(self.replays).items()},
            "open_rules": {
                k: v.to_dict() for k, v in rule_figures(self.replays, pushed=False).items()
            },
            "decisions": [r.__dict__ for r in self.replays],
        }


def make_stand_in_repo(base: Path, transcript: Path, with_tests: bool) -> Path:
    """A git repository standing in for the user's, rebuilt from what the transcript shows
    (replay_repo.py); `with_tests` (the label's session_has_tests) only when it shows
    nothing. Cases that rebuild the same files share one repository under `base`."""
    with transcript.open(encoding="utf-8", errors="replace") as handle:
        facts = replay_repo.scan_transcript(handle)
    return replay_repo.write_repo(base, replay_repo.rebuilt_files(facts, with_tests))


_QUOTED = lazy(r'"[^"\n]{0,400}"')


def evidence_line(decision: Decision) -> str:
    """The decision's own evidence for a stop, in one line: what is missing, the reading's
    fact kinds and the record indexes. Quotes of the session's words are left out."""
    parts = [f"{decision.status}/{decision.stop_category}", f"task={decision.task_type}"]
    if decision.missing:
        shown = [_QUOTED.sub('"..."', m)[:120] for m in decision.missing[:3]]
        parts.append("missing: " + " | ".join(shown))
    if decision.reading is not None and decision.reading.facts:
        facts = ", ".join(f"{f.kind} {f.confidence:.2f}" for f in decision.reading.facts[:4])
        parts.append(f"read: {facts}")
    last = decision.digest.get("last_command") or {}
    if last:
        parts.append(f"last command at {last.get('at')} ok={last.get('ok')}")
    return "; ".join(parts)


def repaired_transcript(path: Path, scratch: Path) -> Path:
    """`path`, or a copy in `scratch` with bare redaction markers quoted and every marker
    made one plain word, as the value it replaced was."""
    text = path.read_text(encoding="utf-8", errors="replace")
    fixed = _REDACTION_MARKER.sub("REDACTED", _BARE_REDACTION.sub('"<REDACTED>"', text))
    if fixed == text:
        return path
    target = scratch / path.name
    target.write_text(fixed, encoding="utf-8")
    return target


def replay_case(case: dict[str, Any], data_dir: Path, repos: Path, scratch: Path) -> Replay:
    """One labelled stop through the hook's gather-and-decide path, as a first stop."""
    base = Replay(
        case_id=str(case.get("id")),
        category=str(case.get("category")),
        should_block=bool(case.get("should_block")),
        confidence=str(case.get("confidence") or "medium"),
        blocked=False,
        evidence="",
    )
    try:
        transcript = repaired_transcript(data_dir / str(case["transcript"]), scratch)
        session = load_session(transcript)
        root = make_stand_in_repo(repos, transcript, bool(case.get("session_has_tests")))
        ctx, _ = gather_context(root, config.Config(root=root), use_ledger=False, session=session)
        # Paths in the transcript are relative to the recorded working directory.
        ctx.root = session.cwd or str(root)
        decision = decide(session, ctx)
    except Exception as exc:  # a replay error is counted and shown, never fatal
        base.error = f"{type(exc).__name__}: {exc}"[:300]
        base.evidence = f"error: {base.error}"
        return base
    base.blocked = decision.should_block
    reply = render_decision(decision)
    base.line = reply.block is None and reply.message is not None
    base.evidence = evidence_line(decision)
    base.pushed_by = [rule_id(p) for p in decision.pushed_by]
    base.open_rules = [rule_id(g) for g in decision.open_patterns]
    return base


def load_cases(data_dir: Path, half: str | None = None) -> list[dict[str, Any]]:
    path = data_dir / "cases.jsonl"
    with path.open(encoding="utf-8") as handle:
        return in_half([json.loads(line) for line in handle if line.strip()], half)


def run(data_dir: Path, half: str | None = None) -> Summary:
    cases = load_cases(data_dir, half)
    summary = Summary()
    with tempfile.TemporaryDirectory(prefix="real-stops-") as tmp:
        repos = Path(tmp) / "repos"
        scratch = Path(tmp) / "transcripts"
        scratch.mkdir()
        for case in cases:
            summary.replays.append(replay_case(case, data_dir, repos, scratch))
    return summary


def _worst(replays: list[Replay], limit: int) -> list[Replay]:
    return sorted(replays, key=lambda r: (_CONFIDENCE_RANK.get(r.confidence, 3), r.case_id))[:limit]


def render(summary: Summary, worst: int) -> str:
    data = summary.to_dict()
    lines = [
        f"real stops: {data['cases']} cases, {data['should_block']} should block, "
        f"{summary.fine} fine, {data['errors']} replay errors",
        f"blocks {data['blocks']} (true {data['true_blocks']}): precision {summary.precision:.3f}"
        f", recall {summary.recall:.3f}",
        f"false blocks {len(summary.false_blocks)} = {summary.false_block_rate:.1%} of fine stops",
        f"lines the user reads on stops that stand: {data['lines']} "
        f"({data['lines_on_fine_stops']} on fine stops)",
    ]
    if data["false_blocks_by_category"]:
        lines.append(
            "false blocks by category: "
            + ", ".join(f"{k} {v}" for k, v in sorted(data["false_blocks_by_category"].items()))
        )
    if data["misses_by_category"]:
        lines.append(
            "misses by category: "
            + ", ".join(f"{k} {v}" for k, v in sorted(data["misses_by_category"].items()))
        )
    for title, rows in (
        ("worst false blocks", _worst(summary.false_blocks, worst)),
        ("worst misses", _worst(summary.misses, worst)),
    ):
        if rows:
            lines.append(f"{title}:")
            lines.extend(
                f"  [{r.confidence}] {r.case_id} ({r.category}): {r.evidence}" for r in rows
            )
    lines.extend(render_rules(summary.replays))
    errors = [r for r in summary.replays if r.error]
    if errors:
        lines.append("replay errors:")
        lines.extend(f"  {r.case_id}: {r.error}" for r in errors[:worst])
    return "\n".join(lines)


def render_rules(replays: list[Replay]) -> list[str]:
    """The per-rule table: blocks right/wrong with distinct users, then the open items each
    rule found (pushed or noted), which is what a rule's push/note entry is judged on."""
    lines = []
    for title, pushed in (("blocks by rule", True), ("open items by rule", False)):
        table = rule_figures(replays, pushed=pushed)
        if not table:
            continue
        lines.append(f"{title} (right/wrong, users right/all, precision; may push alone):")
        lines.extend(
            f"  {row.rule}: {row.right}/{row.wrong}, users {len(row.users_right)}/"
            f"{len(row.users)}, {row.precision:.2f}; push={rule_pushes(row.rule)}"
            for row in table.values()
        )
    return lines


def threshold_failures(
    summary: Summary,
    min_precision: float,
    min_recall: float,
    max_false_block_rate: float,
    max_fine_line_rate: float = 1.0,
) -> list[str]:
    failures = []
    if summary.precision < min_precision:
        failures.append(f"precision {summary.precision:.3f} < {min_precision}")
    if summary.recall < min_recall:
        failures.append(f"recall {summary.recall:.3f} < {min_recall}")
    if summary.false_block_rate > max_false_block_rate:
        failures.append(f"false-block rate {summary.false_block_rate:.3f} > {max_false_block_rate}")
    if summary.fine_line_rate > max_fine_line_rate:
        failures.append(f"lines on fine stops {summary.fine_line_rate:.3f} > {max_fine_line_rate}")
    return failures


# Rules the user configures (their own gate commands): their push is the user's choice.
USER_RULES = frozenset({"gate_run"})


def gate_failures(summary: Summary, min_users: int, min_precision: float) -> list[str]:
    """The gate a pushing rule must meet on the dev stops, checked rather than kept by hand:
    every rule that blocked is right on at least `min_users` users and `min_precision` of
    its blocks, and every rule that may push alone blocked somewhere (else its figures are
    unknown)."""
    table = rule_figures(summary.replays, pushed=True)
    out = [
        f"gate: {row.rule} pushes right on {len(row.users_right)} users, "
        f"{row.precision:.2f} of its blocks (needs {min_users} users, {min_precision:.2f})"
        for row in table.values()
        if row.rule not in USER_RULES
        and (len(row.users_right) < min_users or row.precision < min_precision)
    ]
    alone = {rule_id(prefix) for prefix, weight in GAP_WEIGHTS if weight in ("hard", "once")}
    out += [
        f"gate: {rule} may push alone but blocked no stop here, so its figures are unknown"
        for rule in sorted(alone - set(table) - USER_RULES)
    ]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data_dir", type=Path, help="folder with cases.jsonl and transcripts/")
    parser.add_argument("--half", choices=HALVES, help="only the users of this half")
    parser.add_argument("--min-precision", type=float, default=0.0)
    parser.add_argument("--min-recall", type=float, default=0.0)
    parser.add_argument("--max-false-block-rate", type=float, default=1.0)
    parser.add_argument(
        "--max-fine-line-rate", type=float, default=1.0, help="lines on fine stops, of them"
    )
    parser.add_argument("--worst", type=int, default=10, help="rows per worst-cases list")
    parser.add_argument("--json", type=Path, help="also write every decision here")
    parser.add_argument("--gate-users", type=int, help="fail a pushing rule right on fewer users")
    parser.add_argument("--gate-precision", type=float, default=0.8, help="... or below this")
    args = parser.parse_args(argv)
    if not (args.data_dir / "cases.jsonl").is_file():
        print(f"real stops: no cases.jsonl in {args.data_dir}", file=sys.stderr)
        return 2
    summary = run(args.data_dir, args.half)
    print(render(summary, args.worst))
    if args.json:
        args.json.write_text(json.dumps(summary.to_dict(), indent=1), encoding="utf-8")
    failures = threshold_failures(
        summary,
        args.min_precision,
        args.min_recall,
        args.max_false_block_rate,
        args.max_fine_line_rate,
    )
    if args.gate_users is not None:
        failures += gate_failures(summary, args.gate_users, args.gate_precision)
    for failure in failures:
        print(f"FAIL: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
