"""`reflection eval` as a user runs it: the installed console script, and promptfoo."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REFLECTION = Path(sys.executable).with_name("reflection")


def _run(
    *args: str, cwd: Path = ROOT, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(REFLECTION), "eval", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )


def test_json_run_of_the_shipped_suites_matches_its_exit_code() -> None:
    proc = _run("--json")
    payload = json.loads(proc.stdout)
    assert [s["suite"] for s in payload["suites"]] == [
        "judge",
        "stop",
        "post-compaction",
        "agent",
        "prompts",
    ]
    assert proc.returncode == (0 if payload["ok"] else 1)
    for suite in payload["suites"]:
        assert suite["status"] in ("pass", "fail", "error")
        if suite["status"] != "error":
            assert suite["metrics"]["cases"] == len(suite["cases"])


def test_table_output_is_plain_when_not_on_a_tty() -> None:
    proc = _run("agent")
    assert "\r" not in proc.stderr
    assert "running agent (" in proc.stderr
    assert "== agent (session)" in proc.stdout
    assert "per category:" in proc.stdout


def test_suites_are_found_from_a_subdirectory_of_the_repo() -> None:
    proc = _run("--list", cwd=ROOT / "reflection_core")
    assert proc.returncode == 0
    assert "judge" in proc.stdout and "prompts" in proc.stdout


def test_unknown_suite_is_a_usage_error() -> None:
    proc = _run("nosuch")
    assert proc.returncode == 2
    assert "unknown suite 'nosuch'" in proc.stderr


def _promptfoo_bin() -> Path | None:
    configured = os.environ.get("REFLECTION_PROMPTFOO_BIN")
    candidates = [Path(configured)] if configured else []
    candidates.append(Path.home() / ".cache/reflection-ci/promptfoo/node_modules/.bin")
    for directory in candidates:
        if (directory / "promptfoo").exists() and (directory / "node").exists():
            return directory
    return None


def test_promptfoo_judges_every_case_like_the_runner(tmp_path: Path) -> None:
    bin_dir = _promptfoo_bin()
    if bin_dir is None or shutil.which("npm") is None:
        pytest.skip("promptfoo is not installed (evals/install_promptfoo.sh installs it)")
    suites = "agent post-compaction"
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "PROMPTFOO_PYTHON": sys.executable,
        "PROMPTFOO_DISABLE_TELEMETRY": "1",
        "PROMPTFOO_DISABLE_UPDATE": "1",
        "PROMPTFOO_CONFIG_DIR": str(tmp_path / "home"),
        "PROMPTFOO_FAILED_TEST_EXIT_CODE": "0",
        "REFLECTION_EVAL_SUITES": suites,
    }
    runner = tmp_path / "runner.json"
    _run(*suites.split(), "--report", str(runner))
    out = tmp_path / "promptfoo.json"
    proc = subprocess.run(
        [
            str(bin_dir / "promptfoo"),
            "eval",
            "-c",
            "evals/promptfooconfig.yaml",
            "--no-cache",
            "--no-table",
            "--no-progress-bar",
            "--no-write",
            "-o",
            str(out),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    check = subprocess.run(
        [sys.executable, "-m", "reflection_core.evals.promptfoo_check", str(out), str(runner)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert check.returncode == 0, check.stdout
    rows = json.loads(out.read_text(encoding="utf-8"))["results"]["results"]
    assert len(rows) == len(
        json.loads(runner.read_text(encoding="utf-8"))["suites"][0]["cases"]
    ) + len(json.loads(runner.read_text(encoding="utf-8"))["suites"][1]["cases"])
