"""Replay labelled real stops through the stop decision and measure it.

    python -m reflection_core.evals.real_stops DATA_DIR [--min-precision 0.85]
        [--min-recall 0.6] [--max-false-block-rate 0.03] [--worst 10] [--json OUT]

DATA_DIR holds `cases.jsonl` (one labelled stop per line: `transcript`, `should_block`,
`category`, `confidence`, `session_has_tests`) and the transcripts it names. Each stop goes
through the stop hook's own path (read the transcript, gather the context from a repository,
decide) as its first stop. `session_has_tests` picks the repository the replay stands in: one
with a pytest suite or one without tests, since the user's own is not there.

Prints block precision and recall, false blocks by labelled category, the false-block rate
among the stops that were fine, and the worst misses and false blocks with the decision's
own evidence (quotes of the session's words left out). Exits 1 below a threshold, 2 on
bad input.
The data is evaluation-only: nothing here copies it anywhere.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reflection_core import config
from reflection_core.lazyre import lazy
from reflection_core.session.analyze import gather_context, load_session
from reflection_core.session.decide import Decision, decide

_CONFIDENCE_RANK = {"high": 0, "medium": 1, "low": 2}
# The redaction that made the data set replaced some numbers with a bare <REDACTED>,
# which leaves the record invalid JSON; the hook never sees such records, so quote them.
_BARE_REDACTION = lazy(r"(?<=[:\[,])<REDACTED>(?=[,\]}])")


@dataclass
class Replay:
    case_id: str
    category: str
    should_block: bool
    confidence: str
    blocked: bool
    evidence: str
    error: str | None = None


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
            "decisions": [r.__dict__ for r in self.replays],
        }


def make_stand_in_repo(base: Path, with_tests: bool) -> Path:
    """A small git repository standing in for the user's: a pytest suite or no tests."""
    root = base / ("repo-with-tests" if with_tests else "repo-without-tests")
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "README.md").write_text("sample\n", encoding="utf-8")
    if with_tests:
        (root / "pyproject.toml").write_text("[project]\nname = 'sample'\n", encoding="utf-8")
        (root / "tests").mkdir()
        (root / "tests" / "test_sample.py").write_text(
            "def test_sample():\n    assert True\n", encoding="utf-8"
        )
    return root


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
    """`path`, or a copy in `scratch` with bare redaction markers quoted."""
    text = path.read_text(encoding="utf-8", errors="replace")
    fixed = _BARE_REDACTION.sub('"<REDACTED>"', text)
    if fixed == text:
        return path
    target = scratch / path.name
    target.write_text(fixed, encoding="utf-8")
    return target


def replay_case(
    case: dict[str, Any], data_dir: Path, repos: dict[bool, Path], scratch: Path
) -> Replay:
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
        session = load_session(repaired_transcript(data_dir / str(case["transcript"]), scratch))
        root = repos[bool(case.get("session_has_tests"))]
        ctx, _ = gather_context(root, config.Config(root=root), use_ledger=False)
        # Paths in the transcript are relative to the recorded working directory.
        ctx.root = session.cwd or str(root)
        decision = decide(session, ctx)
    except Exception as exc:  # a replay error is counted and shown, never fatal
        base.error = f"{type(exc).__name__}: {exc}"[:300]
        base.evidence = f"error: {base.error}"
        return base
    base.blocked = decision.should_block
    base.evidence = evidence_line(decision)
    return base


def load_cases(data_dir: Path) -> list[dict[str, Any]]:
    path = data_dir / "cases.jsonl"
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def run(data_dir: Path) -> Summary:
    cases = load_cases(data_dir)
    summary = Summary()
    with tempfile.TemporaryDirectory(prefix="real-stops-") as tmp:
        repos = {flag: make_stand_in_repo(Path(tmp), flag) for flag in (True, False)}
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
    errors = [r for r in summary.replays if r.error]
    if errors:
        lines.append("replay errors:")
        lines.extend(f"  {r.case_id}: {r.error}" for r in errors[:worst])
    return "\n".join(lines)


def threshold_failures(
    summary: Summary, min_precision: float, min_recall: float, max_false_block_rate: float
) -> list[str]:
    failures = []
    if summary.precision < min_precision:
        failures.append(f"precision {summary.precision:.3f} < {min_precision}")
    if summary.recall < min_recall:
        failures.append(f"recall {summary.recall:.3f} < {min_recall}")
    if summary.false_block_rate > max_false_block_rate:
        failures.append(f"false-block rate {summary.false_block_rate:.3f} > {max_false_block_rate}")
    return failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data_dir", type=Path, help="folder with cases.jsonl and transcripts/")
    parser.add_argument("--min-precision", type=float, default=0.0)
    parser.add_argument("--min-recall", type=float, default=0.0)
    parser.add_argument("--max-false-block-rate", type=float, default=1.0)
    parser.add_argument("--worst", type=int, default=10, help="rows per worst-cases list")
    parser.add_argument("--json", type=Path, help="also write every decision here")
    args = parser.parse_args(argv)
    if not (args.data_dir / "cases.jsonl").is_file():
        print(f"real stops: no cases.jsonl in {args.data_dir}", file=sys.stderr)
        return 2
    summary = run(args.data_dir)
    print(render(summary, args.worst))
    if args.json:
        args.json.write_text(json.dumps(summary.to_dict(), indent=1), encoding="utf-8")
    failures = threshold_failures(
        summary, args.min_precision, args.min_recall, args.max_false_block_rate
    )
    for failure in failures:
        print(f"FAIL: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
