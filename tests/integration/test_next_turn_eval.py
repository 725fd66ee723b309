"""`python -m reflection_core.evals.next_turn` on a small labelled set written for the test."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

CASES = [
    # (user, category, should_block, final_text, next_user)
    ("ann", "unverified_change", True, "Changed the parser. Done.", "it still doesn't work"),
    ("ann", "failed_claimed_done", True, "All fixed!", "TypeError: x is undefined"),
    ("bob", "unverified_change", True, "Updated the form.", "now add a footer"),
    ("bob", "complete_verified", False, "Tests pass. Done.", "thanks! next: the login page"),
    ("cem", "waiting_legit", False, "Should I use UTC or local time?", "UTC please"),
    ("cem", "complete_verified", False, "Done, 3 passed.", "continue"),
    ("dan", "complete_verified", False, "Done.", None),
]


def write_cases(directory: Path) -> None:
    rows = [
        {
            "id": f"{user}__repo__{index}",
            "category": category,
            "should_block": block,
            "final_text": final,
            "next_user": nxt,
        }
        for index, (user, category, block, final, nxt) in enumerate(CASES)
    ]
    directory.mkdir()
    lines = "".join(json.dumps(row) + "\n" for row in rows)
    (directory / "cases.jsonl").write_text(lines, encoding="utf-8")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reflection_core.evals.next_turn", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_precision_and_recall_of_premature_against_the_labels(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_cases(data)
    out = tmp_path / "result.json"
    proc = run(str(data), "--json", str(out))
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text(encoding="utf-8"))
    # premature: ann's two (right) and cem's "continue" after a finished stop (wrong)
    assert (result["premature"], result["true_premature"], result["positives"]) == (3, 2, 3)
    assert result["precision"] == round(2 / 3, 4) and result["recall"] == round(2 / 3, 4)
    assert result["cases"] == 6 and result["skipped_without_next_user"] == 1
    assert result["confusion"]["waiting_legit (fine)"] == {"answered": 1}
    assert "precision 0.667 (2/3)" in proc.stdout


def test_floors_fail_the_run_and_halves_split_by_user(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_cases(data)
    assert run(str(data), "--min-precision", "0.9").returncode == 1
    halves = []
    for half in ("A", "B"):
        out = tmp_path / f"{half}.json"
        assert run(str(data), "--half", half, "--json", str(out)).returncode == 0
        halves.append(json.loads(out.read_text(encoding="utf-8")))
    assert sum(h["cases"] for h in halves) == 6


def test_a_missing_data_dir_is_bad_input(tmp_path: Path) -> None:
    assert run(str(tmp_path / "nowhere")).returncode == 2
