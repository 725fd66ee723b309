"""The real-prompt evaluation: runs the scorer in this tree over a labelled JSONL it is given."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from reflection_core.evals.real_prompts import evaluate, gate_failures, kind_of, load, per_rule

OFFER = "The export is slow because of the CSV writer. Want me to stream it instead?"
ROWS = [
    {"id": "a", "prompt": "yes", "prev_assistant": OFFER, "kind": "continuation",
     "needs_clarification": False, "confidence": "high"},
    {"id": "b", "prompt": "what does the CSV writer buffer?", "prev_assistant": OFFER,
     "kind": "question", "needs_clarification": False, "confidence": "high"},
    {"id": "c", "prompt": "make slides from this file", "prev_assistant": None,
     "kind": "new_task", "needs_clarification": True, "confidence": "high"},
    {"id": "d", "prompt": "add caching to this file", "prev_assistant": None, "kind": "new_task",
     "needs_clarification": False, "confidence": "low"},
    {"id": "e", "prompt": "stream it but keep the header row", "prev_assistant": OFFER,
     "kind": "follow_up", "needs_clarification": True, "confidence": "medium"},
]  # fmt: skip


def _write(tmp_path: Path, rows: list[dict[str, object]]) -> Path:
    path = tmp_path / "labelled.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reflection_core.evals.real_prompts", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_counts_flags_false_alarms_and_misses_with_the_real_scorer(tmp_path: Path) -> None:
    report = evaluate(load(_write(tmp_path, ROWS)))
    assert report.total == 5
    assert report.positives == 2
    assert report.true_positives == 1  # "this file" with nothing attached
    assert [o.id for o in report.false_alarms] == ["d"]  # a cold, bare request
    assert [o.id for o in report.misses] == ["e"]
    assert report.false_alarm_rate == 0.2
    assert report.precision == 0.5
    assert report.recall == 0.5
    assert report.false_alarms_by_kind() == {"new_task": 1}
    assert report.continuation_false_alarms() == 0
    # A line is shown only where the hook asks: replies and questions get none.
    assert [o.id for o in report.outcomes if o.shown] == ["c", "d"]


def test_prints_every_figure_and_exits_non_zero_below_a_threshold(tmp_path: Path) -> None:
    data = str(_write(tmp_path, ROWS))
    passing = _run(data, "--max-false-alarm-rate", "0.25", "--min-recall", "0.5")
    assert passing.returncode == 0, passing.stdout
    for label in (
        "flag rate",
        "false-alarm rate",
        "precision",
        "recall",
        "F1",
        "visible lines",
        "worst misses",
    ):
        assert label in passing.stdout
    assert "new_task       1 of 2" in passing.stdout
    failing = _run(data, "--max-false-alarm-rate", "0.1", "--min-precision", "0.9")
    assert failing.returncode == 1
    assert "FAIL false-alarm rate 0.200 > 0.100" in failing.stdout
    assert "FAIL precision 0.500 < 0.900" in failing.stdout
    noisy = _run(data, "--max-visible-line-rate", "0.3")  # 2 lines of 5 prompts
    assert noisy.returncode == 1 and "FAIL visible-line rate 0.400 > 0.300" in noisy.stdout
    assert _run(data, "--max-visible-line-rate", "0.4").returncode == 0


def test_a_missing_file_is_an_error_not_a_pass(tmp_path: Path) -> None:
    result = _run(str(tmp_path / "absent.jsonl"))
    assert result.returncode == 2
    assert "cannot read" in result.stderr


def test_the_in_house_format_gets_its_kind_from_its_labels() -> None:
    assert kind_of({"continuation": True}) == "continuation"
    assert kind_of({"classification": "conversational"}) == "question"
    assert kind_of({"classification": "backend"}) == "new_task"
    assert kind_of({"kind": "chat", "continuation": True}) == "chat"


EVALS = Path(__file__).resolve().parents[2] / "evals" / "prompts"


def test_vague_issue_summaries_are_asked_about_and_full_issues_are_not() -> None:
    report = evaluate(load(EVALS / "issue-summaries.jsonl"))
    assert report.false_alarms == ()
    named = sum(1 for o in report.outcomes if o.expected and o.rule)
    assert named == report.positives  # every vague summary's gap is named, asked or held back


def test_spec_variants_never_flag_a_clear_spec_and_hold_back_the_open_choices() -> None:
    rows = load(EVALS / "spec-variants.jsonl")
    report = evaluate(rows)
    assert report.false_alarms == ()
    ambiguous = {row["id"] for row in rows if row["variant"] == "ambiguous"}
    held_back = {o.id for o in report.outcomes if o.rule == "underspecified" and not o.flagged}
    assert ambiguous <= held_back  # a named function with a choice open: known, not asked


def test_per_rule_figures_count_right_and_wrong_flags_and_distinct_users(tmp_path: Path) -> None:
    rows = [
        {**ROWS[2], "id": "alice__shop__s1#1"},
        {**ROWS[2], "id": "alice__shop__s1#2"},
        {**ROWS[2], "id": "bob__cli__s2#1", "needs_clarification": False},
    ]
    report = evaluate(load(_write(tmp_path, rows)))
    (referent,) = [f for f in per_rule(report) if f.rule == "referent_nowhere"]
    assert (referent.right, referent.right_users) == (2, 1)
    assert (referent.wrong, referent.wrong_users) == (1, 1)
    assert referent.precision == 2 / 3


def test_half_keeps_one_half_of_the_users_and_json_has_the_figures(tmp_path: Path) -> None:
    rows = [
        {**ROWS[2], "id": "alice__shop__s1#1"},  # half A
        {**ROWS[0], "id": "dave__web__s2#1"},  # half B
        {**ROWS[1], "id": "dave__web__s2#2"},  # half B
    ]
    data = str(_write(tmp_path, rows))
    out = tmp_path / "figures.json"
    result = _run(data, "--half", "B", "--json", str(out))
    assert result.returncode == 0, result.stdout
    figures = json.loads(out.read_text(encoding="utf-8"))
    assert figures["prompts"] == 2
    assert figures["positives"] == 0
    assert {"precision", "recall", "false_alarm_rate", "rules"} <= set(figures)
    assert "prompts          1" in _run(data, "--half", "A").stdout


def test_the_gate_fails_an_asking_rule_right_on_too_few_users_or_too_often_wrong(
    tmp_path: Path,
) -> None:
    report = evaluate(load(_write(tmp_path, ROWS)))  # "this file" twice: right once, wrong once
    assert gate_failures(report, 1, 0.5) == []
    assert gate_failures(report, 3, 0.6) == [
        "gate: referent_nowhere asks right on 1 users, 0.50 of its flags (needs 3 users, 0.60)"
    ]
    failed = _run(str(_write(tmp_path, ROWS)), "--gate-users", "3")
    assert failed.returncode == 1 and "FAIL gate: referent_nowhere" in failed.stdout
