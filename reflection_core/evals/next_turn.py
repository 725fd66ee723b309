"""Grade labelled real stops from what the user wrote next, and measure the grader.

    python -m reflection_core.evals.next_turn DATA_DIR [--half A|B] [--json OUT]
        [--min-precision P] [--min-recall R]

DATA_DIR holds `cases.jsonl`: one labelled stop per line with `should_block`, `category`,
`final_text` and `next_user` (null when the session ended there: those are skipped). Each
stop is graded by the built-in next-turn reader from `next_user`, knowing only whether
the agent's final message ended on a question (what the hook stores). A stop graded
`premature` counts as a positive; the label `should_block` is the truth.

Prints precision and recall of `premature` with their counts and the outcome counts by
labelled category. Exits 1 below a threshold, 2 on bad input. The data is
evaluation-only: nothing here copies or prints its text.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from reflection_core.evals.users import HALVES, in_half
from reflection_core.outcomes.grade import Previous, grade_next_prompt
from reflection_core.reading.builtin import last_line
from reflection_core.session.human_action import ends_as_question


def grade_case(case: dict[str, Any]) -> str:
    """The outcome the built-in reader gives one labelled stop."""
    previous = Previous(asked=ends_as_question(last_line(str(case.get("final_text") or ""))))
    return grade_next_prompt(str(case["next_user"]), previous).outcome


def measure(cases: list[dict[str, Any]]) -> dict[str, Any]:
    """Precision and recall of `premature` against `should_block`, and the confusion."""
    graded = [(c, grade_case(c)) for c in cases if c.get("next_user")]
    flagged = [c for c, outcome in graded if outcome == "premature"]
    hits = sum(1 for c in flagged if c["should_block"])
    positives = sum(1 for c, _ in graded if c["should_block"])
    confusion: dict[str, Counter[str]] = {}
    for case, outcome in graded:
        key = f"{case['category']} ({'block' if case['should_block'] else 'fine'})"
        confusion.setdefault(key, Counter())[outcome] += 1
    return {
        "cases": len(graded),
        "skipped_without_next_user": len(cases) - len(graded),
        "premature": len(flagged),
        "true_premature": hits,
        "positives": positives,
        "precision": round(hits / len(flagged), 4) if flagged else 0.0,
        "recall": round(hits / positives, 4) if positives else 0.0,
        "outcomes": dict(Counter(outcome for _, outcome in graded)),
        "confusion": {k: dict(v) for k, v in sorted(confusion.items())},
    }


def render(result: dict[str, Any]) -> str:
    lines = [
        f"graded {result['cases']} stops ({result['skipped_without_next_user']} skipped: "
        "no next prompt)",
        f"premature precision {result['precision']:.3f} "
        f"({result['true_premature']}/{result['premature']}), "
        f"recall {result['recall']:.3f} ({result['true_premature']}/{result['positives']})",
        "outcomes by labelled category:",
    ]
    for key, counts in result["confusion"].items():
        row = ", ".join(f"{name} {n}" for name, n in sorted(counts.items()))
        lines.append(f"  {key:<34} {row}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reflection_core.evals.next_turn")
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--half", choices=HALVES)
    parser.add_argument("--json", dest="json_out", type=Path)
    parser.add_argument("--min-precision", type=float, default=0.0)
    parser.add_argument("--min-recall", type=float, default=0.0)
    args = parser.parse_args(argv)
    try:
        lines = (args.data_dir / "cases.jsonl").read_text(encoding="utf-8").splitlines()
        cases = in_half([json.loads(line) for line in lines if line.strip()], args.half)
    except (OSError, ValueError) as exc:
        print(f"next_turn: cannot read the cases: {exc}", file=sys.stderr)
        return 2
    result = measure(cases)
    print(render(result))
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    below = result["precision"] < args.min_precision or result["recall"] < args.min_recall
    return 1 if below else 0


if __name__ == "__main__":
    sys.exit(main())
