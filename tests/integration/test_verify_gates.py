"""Gates, quick fixes and escalation on a throwaway project with real ruff and pytest runs."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from reflection_core.config import Config, validate
from reflection_core.verify.runner import run_for_stop, run_gates
from tests.gitutil import make_repo

PY = shlex.quote(sys.executable)
LINT = f"{PY} -m ruff check --no-cache --select F mod.py"
LINT_FIX = f"{PY} -m ruff check --no-cache --select F --fix mod.py"
TESTS = f"{PY} -m pytest -q -p no:cacheprovider tests"

FIXABLE = "import os\nimport sys\n\n\ndef add(a, b):\n    return a + b\n"
UNFIXABLE = "def add(a, b):\n    return a + b + undefined_name\n"
FAILING_TEST = "from mod import add\n\n\ndef test_add():\n    assert add(1, 2) == 4\n"
PASSING_TEST = "from mod import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"


def project(tmp_path: Path, mod: str = FIXABLE, test: str = PASSING_TEST) -> Path:
    return make_repo(
        tmp_path / "proj",
        files={"mod.py": mod, "tests/test_mod.py": test, "tests/__init__.py": ""},
    )


def make_cfg(root: Path, gates: list[dict[str, Any]], **verify: int) -> Config:
    return Config(data=validate({"gates": gates, "verify": verify}, "test"), root=root)


def lint_gate() -> dict[str, Any]:
    return {"name": "lint", "run": LINT, "fix": [LINT_FIX]}


def test_lint_error_fixed_by_ruff_fix_counts_as_success(tmp_path: Path) -> None:
    root = project(tmp_path)
    result = run_gates(root, make_cfg(root, [lint_gate()]), task_key="t1")
    assert result.ok
    assert [(f.fix, f.outcome) for f in result.fixes] == [(LINT_FIX, "success")]
    assert "import os" not in (root / "mod.py").read_text()
    assert [e["type"] for e in result.events] == ["quick_fix_applied"]
    assert result.round == 0  # a passing run consumes no correction round


def test_fix_that_leaves_the_error_is_failed_and_never_repeated(tmp_path: Path) -> None:
    root = project(tmp_path, mod=UNFIXABLE)
    cfg = make_cfg(root, [lint_gate()])
    first = run_gates(root, cfg, task_key="t1")
    assert not first.ok
    assert [f.outcome for f in first.fixes] == ["failed"]
    assert "F821" in first.results[0].summary
    second = run_gates(root, cfg, task_key="t1")
    assert [f.outcome for f in second.fixes] == ["skipped"]
    assert second.events[0]["type"] == "quick_fix_skipped"
    assert second.results[0].signature == first.results[0].signature


def test_fix_patterns_limit_fixes_to_matching_output(tmp_path: Path) -> None:
    root = project(tmp_path)
    gate = {**lint_gate(), "fix_patterns": [r"^E\d{3}"]}  # output has F401, not E...
    result = run_gates(root, make_cfg(root, [gate]), task_key="t1")
    assert not result.ok
    assert result.fixes == []
    assert "import os" in (root / "mod.py").read_text()


def test_same_failing_test_escalates_at_the_limit(tmp_path: Path) -> None:
    root = project(tmp_path, test=FAILING_TEST)
    cfg = make_cfg(root, [{"name": "tests", "run": TESTS}], same_error_limit=3)
    rounds = [run_gates(root, cfg, task_key="t1") for _ in range(3)]
    assert [r.escalation is None for r in rounds] == [True, True, False]
    last = rounds[-1]
    assert last.escalation_reason == "same_error"
    assert "test_mod.py::test_add" in (last.escalation or "")
    assert "persisted 3 times" in (last.escalation or "")
    assert last.events[-1]["type"] == "escalated"


def test_correction_budget_exhausted_escalates(tmp_path: Path) -> None:
    root = project(tmp_path, test=FAILING_TEST)
    cfg = make_cfg(root, [{"name": "tests", "run": TESTS}], same_error_limit=9, max_rounds=2)
    run_gates(root, cfg, task_key="t1")
    second = run_gates(root, cfg, task_key="t1")
    assert second.escalation_reason == "exhausted"
    assert second.events[-1]["type"] == "exhausted"
    assert "2 of 2 rounds" in (second.escalation or "")


def test_a_new_task_starts_with_a_clean_record(tmp_path: Path) -> None:
    root = project(tmp_path, mod=UNFIXABLE)
    cfg = make_cfg(root, [lint_gate()], same_error_limit=2)
    run_gates(root, cfg, task_key="task-a")
    escalated = run_gates(root, cfg, task_key="task-a")
    assert escalated.escalation is not None
    fresh = run_gates(root, cfg, task_key="task-b")
    assert fresh.escalation is None
    assert fresh.round == 1
    assert [f.outcome for f in fresh.fixes] == ["failed"]  # tried again: another task


def test_gate_timeout_kills_the_process_and_reports_it(tmp_path: Path) -> None:
    root = project(tmp_path)
    gate = {"name": "slow", "run": f"{PY} -c 'import time; time.sleep(60)'", "timeout": 1}
    result = run_gates(root, make_cfg(root, [gate]), task_key="t1")
    assert result.results[0].timed_out
    assert result.results[0].exit_code == 124


def test_shell_syntax_runs_under_bash_and_missing_commands_fail(tmp_path: Path) -> None:
    root = project(tmp_path)
    gates = [
        {"name": "piped", "run": "echo boom | grep -q boom && exit 3"},
        {"name": "missing", "run": "no-such-command-here --flag"},
    ]
    result = run_gates(root, make_cfg(root, gates), task_key="t1")
    assert [r.exit_code for r in result.results] == [3, 127]


def test_test_gate_runs_are_stamped_in_the_ledger(tmp_path: Path) -> None:
    ledger = pytest.importorskip(
        "reflection_core.guards.ledger", reason="the test-run ledger has not landed"
    )
    root = project(tmp_path)
    result = run_gates(root, make_cfg(root, [{"name": "tests", "run": TESTS}]), task_key="t1")
    assert result.ok
    stamps = [s for s in ledger.read(root) if s.source == "verify"]
    assert [(s.command, s.exit_code, s.passed) for s in stamps] == [(TESTS, 0, True)]
    assert stamps[0].counts.get("passed") == 1
    # One run, one stamp: the pytest plugin in the gate's child process stays quiet.
    assert len(ledger.read(root)) == 1
    from reflection_core.guards.fingerprint import worktree_tree

    assert stamps[0].tree == worktree_tree(root)


def test_run_for_stop_formats_failures_and_keeps_agent_output(tmp_path: Path) -> None:
    root = project(tmp_path, test=FAILING_TEST)
    cfg = make_cfg(root, [lint_gate(), {"name": "tests", "run": TESTS}])
    outcome = run_for_stop(root, cfg, "stop-task", last_agent_output="All done, tests pass!")
    assert not outcome.ok
    assert outcome.fixed == [f"lint: `{LINT_FIX}`"]
    (failure,) = outcome.failures
    assert failure.name == "tests" and failure.message.startswith("tests:")
    assert failure.escalate is False
    assert "Quick fixes changed files" in outcome.feedback
    assert "assert 3 == 4" in outcome.feedback
    assert outcome.escalate is False and outcome.question is None
    assert outcome.last_agent_output == "All done, tests pass!"
    assert outcome.lesson == {
        "outcome": "failing",
        "failed_gates": ["lint", "tests"],
        "fixes_worked": [LINT_FIX],
    }
    record = json.loads(json.dumps(outcome.to_dict()))
    assert record["result"]["results"][1]["signature"] == failure.signature


def test_run_for_stop_marks_the_persisting_failure_for_escalation(tmp_path: Path) -> None:
    root = project(tmp_path, test=FAILING_TEST)
    cfg = make_cfg(root, [{"name": "tests", "run": TESTS}], same_error_limit=2)
    assert run_for_stop(root, cfg, "k").escalate is False
    outcome = run_for_stop(root, cfg, "k")
    assert outcome.escalate and outcome.failures[0].escalate
    assert outcome.question is not None and "persisted 2 times" in outcome.question
    assert outcome.lesson["outcome"] == "escalated"


def run_cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("reflection")
    return subprocess.run(
        [str(exe), "verify", *args], cwd=root, capture_output=True, text=True, env=os.environ
    )


def write_config(root: Path, gates: list[dict[str, Any]]) -> None:
    (root / ".reflection.yaml").write_text(json.dumps({"gates": gates}), encoding="utf-8")


def test_cli_exit_codes_and_json(tmp_path: Path) -> None:
    root = project(tmp_path, test=FAILING_TEST)
    write_config(root, [lint_gate(), {"name": "tests", "run": TESTS}])
    failing = run_cli(root, "--json")
    assert failing.returncode == 1, failing.stderr
    data = json.loads(failing.stdout)
    assert [(r["name"], r["ok"]) for r in data["results"]] == [("lint", True), ("tests", False)]
    assert data["fixes"][0]["outcome"] == "success"
    (root / "tests/test_mod.py").write_text(PASSING_TEST, encoding="utf-8")
    passing = run_cli(root)
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert "PASS tests" in passing.stdout


def test_cli_config_errors_and_missing_gates_exit_2(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / ".reflection.yaml").write_text("gates:\n  - {name: x}\n", encoding="utf-8")
    bad = run_cli(root)
    assert bad.returncode == 2
    assert "'run' must be a non-empty command string" in bad.stderr
    empty = make_repo(tmp_path / "empty")
    none = run_cli(empty)
    assert none.returncode == 2
    assert "no gates configured" in none.stderr


def test_non_utf8_and_huge_output_is_summarized_not_fatal(tmp_path: Path) -> None:
    root = project(tmp_path)
    script = (
        "import sys; sys.stdout.buffer.write(b'x' * 600000 + b'\\n\\xff\\xfe bad bytes\\n'"
        " + b'error: broken thing\\n'); sys.exit(2)"
    )
    (root / "noisy.py").write_text(script, encoding="utf-8")
    gate = {"name": "noisy", "run": f"{PY} noisy.py"}
    result = run_gates(root, make_cfg(root, [gate]), task_key="t1")
    (gate_result,) = result.results
    assert gate_result.exit_code == 2
    assert "error: broken thing" in gate_result.summary
    assert len(gate_result.summary) <= 1200 and len(gate_result.output_tail) <= 8000
