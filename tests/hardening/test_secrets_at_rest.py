"""Secrets never reach what is stored or printed: one test per secret form per sink.

Sinks: the Stop block reason, the verdict, the full record, the SessionStart context,
`analyze --json`, a notification, and the per-user SQLite (memory terms, signature and
lesson text). Real hook processes on a real repository; the notice and the memory are
called in process (a process would add nothing but time).
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from reflection_core import state
from reflection_core.consumers.notify import choose_notice
from reflection_core.evals.transcript_builder import build_records, write_jsonl
from reflection_core.verify import memory
from tests.gitutil import make_repo

REFLECTION = str(Path(sys.executable).with_name("reflection"))

# form -> (text holding the secret, the secret). All synthetic.
FORMS: dict[str, tuple[str, str]] = {
    "escaped-json": ('{\\"api_key\\": \\"zq81-escaped-key\\"}', "zq81-escaped-key"),
    "prose-password": ("the db password hunter2 works", "hunter2"),
    "password-colon": ("password: swordfish9", "swordfish9"),
    "token-is": ("the deploy token is tk-81ff2a", "tk-81ff2a"),
    "github-token": (
        "push with ghp_Zx81abcdefghijklmnopqrstuvwxyz012345",
        "Zx81abcdefghijklmnopqrstuvwxyz012345",
    ),
    "aws-secret": (
        "aws_secret_access_key = wJalrXUtnFEMIK7MDENGbPxRfiCYzz",
        "wJalrXUtnFEMIK7MDENGbPxRfiCYzz",
    ),
    "bearer": ("Authorization: Bearer abcdefghijklmnop0123zz", "abcdefghijklmnop0123zz"),
    "api-key": ("api_key=ak4242zzqq", "ak4242zzqq"),
    "stripe-live": ("configured sk_live_51HqLyjWDarjtT1zdp7dcXYZabc", "dp7dcXYZabc"),
    "url-empty-user": ("cache at redis://:p4ssw0rdZZq@cache:6379/0", "p4ssw0rdZZq"),
    "gitlab": ("CI uses glpat-Xy9Wv8Ut7Sr6Qp5On4Ml", "Ut7Sr6Qp5On4Ml"),
    "npm": ("publish with npm_Qw3Er4Ty5Ui6Op7As8Df9Gh0Jk1Lz2Xc3Vb4N", "Jk1Lz2Xc3Vb4N"),
    "huggingface": ("login hf_MnBvCxZaSdFgHjKlPoIuYtReWq12345678", "YtReWq12345678"),
}


def hook(event: str, payload: dict[str, Any], env: dict[str, str]) -> str:
    proc = subprocess.run(
        [REFLECTION, "hook", event],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout + proc.stderr


@pytest.fixture(scope="module", params=sorted(FORMS))
def stopped(request: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One blocked stop whose configured gate prints the secret, its task and its output
    holding it too; what each sink received."""
    text, secret = FORMS[request.param]
    base = tmp_path_factory.mktemp(request.param)
    env = {**os.environ, "REFLECTION_STATE_DIR": str(base / "state")}
    yaml = (
        "tests:\n  ledger: false\nstop:\n  run_gates: true\n"
        "gates:\n  - name: check\n    run: sh report.sh\n"
    )
    files = {
        "src/app.py": "x = 1\n",
        "report.sh": "cat said.txt\nexit 1\n",
        "said.txt": text + "\n",
        ".reflection.yaml": yaml,
    }
    repo = make_repo(base / "repo", branch="main", files=files)
    subprocess.run([REFLECTION, "trust"], cwd=repo, env=env, capture_output=True, check=True)
    steps = [
        {"read": "src/app.py"},
        {"edit": "src/app.py"},
        {"bash": f"python -m pytest -q  # {text}", "output": f"{text}\n1 failed in 0.01s"},
    ]
    spec = {"task": f"Fix the app login; {text}", "cwd": str(repo), "branch": "feature/x"}
    spec.update(steps=steps, final=f"Done. {text}")
    transcript = write_jsonl(build_records(spec), base / "t.jsonl")
    payload = {"session_id": "s1", "transcript_path": str(transcript), "cwd": str(repo)}
    block = hook("stop", payload, env)
    verdict = (repo / ".reflection" / "verdict_s1.json").read_text()
    record = (repo / json.loads(verdict)["record"]).read_text()
    started = hook("session-start", {**payload, "source": "compact"}, env)
    analyzed = subprocess.run(
        [REFLECTION, "analyze", "--json", str(transcript), "--cwd", str(repo)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    return {
        "secret": secret,
        "block": block,
        "verdict": verdict,
        "record": record,
        "session-start": started,
        "analyze": analyzed.stdout + analyzed.stderr,
    }


def test_the_stop_block_reason_holds_no_secret(stopped: dict[str, Any]) -> None:
    assert '"decision": "block"' in stopped["block"]  # the gate's output was fed back...
    assert stopped["secret"] not in stopped["block"]  # ...without the secret


def test_the_verdict_holds_no_secret(stopped: dict[str, Any]) -> None:
    assert stopped["secret"] not in stopped["verdict"]


def test_the_record_holds_no_secret(stopped: dict[str, Any]) -> None:
    assert "report.sh" in stopped["record"]
    assert stopped["secret"] not in stopped["record"]


def test_the_session_start_context_holds_no_secret(stopped: dict[str, Any]) -> None:
    assert "additionalContext" in stopped["session-start"]
    assert stopped["secret"] not in stopped["session-start"]


def test_analyze_json_holds_no_secret(stopped: dict[str, Any]) -> None:
    assert '"status"' in stopped["analyze"]
    assert stopped["secret"] not in stopped["analyze"]


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_notification_holds_no_secret(form: str) -> None:
    text, secret = FORMS[form]
    unfinished = {"status": "incomplete", "complete": False, "missing": [text], "next_actions": []}
    done = {"status": "complete", "complete": True, "missing": [], "next_actions": []}
    for verdict in (unfinished, done):
        notice = choose_notice(verdict, on="always", attention=True, last_message=text)
        assert notice is not None
        assert secret not in f"{notice.title} {notice.body} {notice.spoken}"


@pytest.mark.parametrize("form", sorted(FORMS))
def test_the_memory_tables_hold_no_secret(form: str, tmp_path: Path) -> None:
    text, secret = FORMS[form]
    repo = make_repo(tmp_path / "repo", files={".reflection.yaml": "tests:\n  ledger: false\n"})
    prompt = f"Fix the login handler timeout in the session module; {text}"
    lesson = {"outcome": "escalated", "missing": [text], "failed_gates": ["tests"], "note": text}
    memory.store_lesson(repo, prompt, lesson)
    conn = sqlite3.connect(state.db_path())
    stored = conn.execute("SELECT signature, text FROM memory_lessons").fetchall()
    stored += conn.execute("SELECT term, repo FROM memory_terms").fetchall()
    assert stored, "the lesson was stored"
    assert not any(secret.lower() in str(row).lower() for row in stored)
    assert memory.recall_lesson(repo, prompt) is not None  # redacted alike on both sides
