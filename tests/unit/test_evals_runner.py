"""The runner against the real core: thresholds decide the exit code, broken rules fail it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from reflection_core.cli.eval_cmd import command as eval_command
from reflection_core.evals.runner import run_suite
from reflection_core.evals.suite import load_suite, parse_suite

EVALS = Path(__file__).resolve().parents[2] / "evals"

score_mod = pytest.importorskip(
    "reflection_core.prompt.score", reason="the prompt scorer has not landed"
)


def _write_suite(directory: Path, name: str, doc: dict) -> Path:
    path = directory / f"{name}.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


PROMPT_CASES = [
    {
        "id": "p-clear",
        "category": "clear/backend",
        "prompt": (
            "In src/billing/invoice.py, `compute_tax` rounds each line before summing. Sum the "
            "unrounded Decimal amounts and round once with ROUND_HALF_UP; add a test in "
            "tests/billing/test_invoice.py with three items at 0.335 each."
        ),
        "expect": {"needs_clarification": False, "continuation": False},
    },
    {
        "id": "p-vague",
        "category": "needs_clarification/frontend",
        "prompt": "make this file better",
        "expect": {"needs_clarification": True},
    },
    {
        "id": "p-cont",
        "category": "continuation",
        "prompt": "go ahead",
        "prev_assistant": "Plan:\n1. Add the index\n2. Backfill\nShall I proceed?",
        "expect": {"continuation": True},
    },
]


def test_a_suite_whose_cases_all_match_passes(tmp_path: Path) -> None:
    path = _write_suite(
        tmp_path,
        "prompts",
        {
            "suite": "prompts",
            "target": "prompt",
            "thresholds": {"accuracy": 1.0},
            "cases": PROMPT_CASES,
        },
    )
    report = run_suite(load_suite(path))
    assert [r.status for r in report.results] == ["pass", "pass", "pass"]
    assert report.status == "pass"
    assert report.metrics["accuracy"] == 1.0


def test_a_wrong_label_fails_the_suite_and_shows_expected_vs_got(tmp_path: Path) -> None:
    cases = [dict(PROMPT_CASES[1], expect={"needs_clarification": False})]
    doc = {"suite": "prompts", "target": "prompt", "thresholds": {"accuracy": 0.5}, "cases": cases}
    result = CliRunner().invoke(
        eval_command, ["--dir", str(tmp_path), str(_write_suite(tmp_path, "prompts", doc))]
    )
    assert result.exit_code == 1
    assert "p-vague" in result.output
    assert "needs_clarification: expected false, got true" in result.output
    assert "FAIL accuracy 0.000 >= 0.500" in result.output


def test_a_missing_core_api_makes_the_suite_an_error_not_a_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "reflection_core.session.analyze", None)
    suite = parse_suite(
        {
            "suite": "judge",
            "target": "session",
            "cases": [{"id": "j", "category": "x", "task": "t", "expect": {"complete": True}}],
        },
        tmp_path / "judge.yaml",
    )
    report = run_suite(suite)
    assert report.status == "error"
    assert "analyze_transcript is not available" in (report.error or "")
    result = CliRunner().invoke(eval_command, ["--dir", str(EVALS), "judge"])
    assert result.exit_code == 1
    assert "ERROR" in result.output


def test_a_case_whose_inputs_break_the_target_is_an_error_case(tmp_path: Path) -> None:
    cases = [*PROMPT_CASES, {"id": "p-bad", "category": "x", "expect": {"continuation": False}}]
    path = _write_suite(
        tmp_path, "prompts", {"suite": "prompts", "target": "prompt", "cases": cases}
    )
    report = run_suite(load_suite(path))
    bad = report.results[-1]
    assert bad.status == "error"
    assert "needs a 'prompt' string" in (bad.error or "")
    assert report.metrics["errors"] == 1


def test_shipped_prompt_suite_meets_its_thresholds() -> None:
    result = CliRunner().invoke(eval_command, ["--dir", str(EVALS), "prompts", "--json"])
    payload = json.loads(result.output)
    assert result.exit_code == 0, [t for t in payload["suites"][0]["thresholds"] if not t["ok"]]
    assert payload["ok"] is True


def test_breaking_the_continuation_rule_makes_the_run_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    from reflection_core.prompt import continuation, turn

    real_detect = continuation.detect
    not_a_continuation = "Please refactor the billing module and add tests for the invoice totals"
    monkeypatch.setattr(continuation, "detect", lambda prompt: real_detect(not_a_continuation))
    # The turn reader recognises replies on its own: break it too, every prompt a new task.
    monkeypatch.setattr(turn, "read", lambda prompt, prev: turn.Turn("task", prompt))
    result = CliRunner().invoke(eval_command, ["--dir", str(EVALS), "prompts", "--json"])
    assert result.exit_code == 1
    suite = json.loads(result.output)["suites"][0]
    failed = {t["key"] for t in suite["thresholds"] if not t["ok"]}
    assert "continuation_accuracy" in failed
    assert suite["metrics"]["continuation_accuracy"] < 0.9


def test_min_accuracy_overrides_the_suite_file(tmp_path: Path) -> None:
    cases = [PROMPT_CASES[0], dict(PROMPT_CASES[1], expect={"needs_clarification": False})]
    _write_suite(
        tmp_path,
        "prompts",
        {"suite": "prompts", "target": "prompt", "thresholds": {"accuracy": 0.4}, "cases": cases},
    )
    runner = CliRunner()
    assert runner.invoke(eval_command, ["--dir", str(tmp_path)]).exit_code == 0
    assert (
        runner.invoke(eval_command, ["--dir", str(tmp_path), "--min-accuracy", "0.9"]).exit_code
        == 1
    )


def test_case_filter_runs_only_the_named_cases_and_rejects_unknown_ids(tmp_path: Path) -> None:
    _write_suite(
        tmp_path, "prompts", {"suite": "prompts", "target": "prompt", "cases": PROMPT_CASES}
    )
    runner = CliRunner()
    result = runner.invoke(eval_command, ["--dir", str(tmp_path), "--case", "p-cont", "--json"])
    suite = json.loads(result.output)["suites"][0]
    assert [c["id"] for c in suite["cases"]] == ["p-cont"]
    assert result.exit_code == 0
    assert suite["thresholds"] == []  # a subset is judged case by case, not by rates
    wrong = [dict(PROMPT_CASES[2], expect={"continuation": False})]
    _write_suite(tmp_path, "prompts", {"suite": "prompts", "target": "prompt", "cases": wrong})
    failing = runner.invoke(eval_command, ["--dir", str(tmp_path), "--case", "p-cont"])
    assert failing.exit_code == 1
    unknown = runner.invoke(eval_command, ["--dir", str(tmp_path), "--case", "nope"])
    assert unknown.exit_code == 2
    assert "unknown case id(s): nope" in unknown.output


def test_report_file_gets_the_same_json(tmp_path: Path) -> None:
    _write_suite(
        tmp_path, "prompts", {"suite": "prompts", "target": "prompt", "cases": PROMPT_CASES}
    )
    out = tmp_path / "out" / "results.json"
    result = CliRunner().invoke(eval_command, ["--dir", str(tmp_path), "--report", str(out)])
    assert result.exit_code == 0
    saved = json.loads(out.read_text(encoding="utf-8"))
    assert saved["suites"][0]["metrics"]["cases"] == 3
    assert "prompts" in result.output and "1 of 1 suites met their thresholds" in result.output


def test_a_bad_suite_file_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "judge.yaml").write_text(
        "suite: judge\ntarget: session\ncases: []\n", encoding="utf-8"
    )
    result = CliRunner().invoke(eval_command, ["--dir", str(tmp_path)])
    assert result.exit_code == 2
    assert "'cases' must be a non-empty list" in result.output


def test_a_tests_gate_that_always_passes_makes_the_judge_run_fail(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    gates = pytest.importorskip(
        "reflection_core.session.gates", reason="the session gates have not landed"
    )
    pytest.importorskip(
        "reflection_core.session.analyze", reason="the session analysis has not landed"
    )

    def tests_always_pass(session: object, inputs: object) -> object:
        required = "tests" in getattr(inputs, "required", set())
        return gates.GateResult("tests", required, True, "tests gate replaced in this test")

    baseline = json.loads(
        CliRunner().invoke(eval_command, ["--dir", str(EVALS), "judge", "--json"]).output
    )["suites"][0]["metrics"]
    monkeypatch.setattr(gates, "tests_gate", tests_always_pass)
    result = CliRunner().invoke(eval_command, ["--dir", str(EVALS), "judge", "--json"])
    assert result.exit_code == 1
    suite = json.loads(result.output)["suites"][0]
    assert suite["metrics"]["false_complete_rate"] > baseline["false_complete_rate"]
    assert "false_complete_max" in {t["key"] for t in suite["thresholds"] if not t["ok"]}


def test_keep_writes_the_built_transcripts_for_replay(tmp_path: Path) -> None:
    pytest.importorskip(
        "reflection_core.session.analyze", reason="the session analysis has not landed"
    )
    keep = tmp_path / "kept"
    result = CliRunner().invoke(
        eval_command, ["--dir", str(EVALS), "--case", "judge-001", "--keep", str(keep)]
    )
    assert result.exit_code in (0, 1), result.output
    kept = keep / "judge" / "judge-001.jsonl"
    first = json.loads(kept.read_text(encoding="utf-8").splitlines()[0])
    assert first["message"]["content"].startswith("Fix the off-by-one")


def test_baseline_lists_cases_broken_since_the_previous_report(tmp_path: Path) -> None:
    _write_suite(
        tmp_path, "prompts", {"suite": "prompts", "target": "prompt", "cases": PROMPT_CASES}
    )
    baseline = tmp_path / "before.json"
    runner = CliRunner()
    runner.invoke(eval_command, ["--dir", str(tmp_path), "--report", str(baseline)])
    relabelled = [dict(PROMPT_CASES[0], expect={"needs_clarification": True}), *PROMPT_CASES[1:]]
    _write_suite(tmp_path, "prompts", {"suite": "prompts", "target": "prompt", "cases": relabelled})
    result = runner.invoke(eval_command, ["--dir", str(tmp_path), "--baseline", str(baseline)])
    assert "broken since baseline: p-clear" in result.output
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]", encoding="utf-8")
    refused = runner.invoke(eval_command, ["--dir", str(tmp_path), "--baseline", str(bad)])
    assert refused.exit_code == 2


def test_a_missing_transcript_fixture_is_an_error_case_naming_the_file(tmp_path: Path) -> None:
    pytest.importorskip(
        "reflection_core.session.analyze", reason="the session analysis has not landed"
    )
    case = {"id": "j-1", "category": "x", "transcript": "gone.jsonl", "expect": {"complete": True}}
    path = _write_suite(tmp_path, "judge", {"suite": "judge", "target": "session", "cases": [case]})
    report = run_suite(load_suite(path))
    assert report.results[0].status == "error"
    assert "transcript 'gone.jsonl' not found" in (report.results[0].error or "")
