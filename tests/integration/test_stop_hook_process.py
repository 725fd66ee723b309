"""`reflection hook stop|session-end|post-tool-use|session-start` as real processes.

Real git repos, real transcript files in the host's format, real SQLite state
shared across processes; the only thing not real is the agent.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema

from reflection_core.evals.transcript_builder import build_records, write_jsonl
from tests.gitutil import make_repo

REFLECTION = str(Path(sys.executable).with_name("reflection"))
SCHEMA = json.loads(
    resources.files("reflection_core.data").joinpath("verdict.schema.json").read_text()
)
FILES = {
    "src/parser.py": "def parse(s):\n    return s\n",
    "tests/test_parser.py": (
        "from src.parser import parse\n\ndef test_parse():\n    assert parse('a') == 'a'\n"
    ),
}


# The hook's push mechanics are pinned under `stop.require: tests`, where an untested
# change pushes (the default leaves a note, see docs/stop.md).
STRICT = "stop:\n  require: tests\n"


def project(tmp_path: Path, yaml: str = "tests:\n  ledger: false\n") -> Path:
    yaml = yaml if "require:" in yaml or "max_attempts: many" in yaml else STRICT + yaml
    return make_repo(tmp_path / "repo", branch="main", files={**FILES, ".reflection.yaml": yaml})


def transcript(repo: Path, steps: list[dict[str, Any]], final: str, name: str = "t") -> Path:
    spec = {"task": "Fix the parser bug", "cwd": str(repo), "branch": "feature/x", "steps": steps}
    spec["final"] = final
    return write_jsonl(build_records(spec), repo.parent / f"{name}.jsonl")


def hook(event: str, payload: dict[str, Any]) -> tuple[int, dict[str, Any] | None, str]:
    proc = subprocess.run(
        [REFLECTION, "hook", event],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=60,
    )
    out = json.loads(proc.stdout) if proc.stdout.strip() else None
    return proc.returncode, out, proc.stderr


def stop_payload(repo: Path, path: Path, session_id: str = "sess-1", **kw: Any) -> dict[str, Any]:
    return {
        "session_id": session_id,
        "transcript_path": str(path),
        "cwd": str(repo),
        "hook_event_name": "Stop",
        "permission_mode": "default",
        "stop_hook_active": False,
        **kw,
    }


def read_verdict(repo: Path, session_id: str = "sess-1") -> dict[str, Any]:
    data = json.loads((repo / ".reflection" / f"verdict_{session_id}.json").read_text())
    jsonschema.Draft202012Validator(SCHEMA).validate(data)
    return dict(data)


UNTESTED = [{"read": "src/parser.py"}, {"edit": "src/parser.py"}]
TESTED = [*UNTESTED, {"bash": "python -m pytest -q", "output": "1 passed in 0.01s"}]


def test_attempts_escalate_across_processes_then_stop_blocking(tmp_path: Path) -> None:
    repo = project(tmp_path)
    reasons = []
    for n in range(1, 4):
        # Each round the agent answers the feedback, so the transcript grows.
        steps = [*UNTESTED, *({"say": f"Looking again ({k})."} for k in range(n))]
        path = transcript(repo, steps, "I changed the parser.")
        code, out, _ = hook("stop", stop_payload(repo, path, stop_hook_active=n > 1))
        assert code == 0 and out is not None and out["decision"] == "block", out
        reasons.append(out["reason"])
        assert read_verdict(repo)["attempt"] == n
    assert "attempt 1/3" in reasons[0] and "FINAL attempt (3/3)" in reasons[2]
    assert "Still missing (reported before)" in reasons[1]
    code, out, _ = hook("stop", stop_payload(repo, path, stop_hook_active=True))
    assert code == 0 and (out is None or "decision" not in out)
    data = read_verdict(repo)
    assert data["status"] == "incomplete" and data["attempt"] == 3
    record = json.loads((repo / data["record"]).read_text())
    assert "Stopped after 3 reflection attempt(s)" in record["decision"]["status_report"]


def test_stops_on_an_unchanged_transcript_still_count_attempts_one_at_a_time(
    tmp_path: Path,
) -> None:
    # A transcript file that lags the hook looks unchanged; that must not skip attempts.
    repo = project(tmp_path)
    path = transcript(repo, UNTESTED, "I changed the parser.")
    _, first, _ = hook("stop", stop_payload(repo, path))
    _, second, _ = hook("stop", stop_payload(repo, path, stop_hook_active=True))
    _, third, _ = hook("stop", stop_payload(repo, path, stop_hook_active=True))
    assert first is not None and "attempt 1/3" in first["reason"]
    assert second is not None and "attempt 2/3" in second["reason"]
    assert third is not None and "FINAL attempt (3/3)" in third["reason"]
    _, fourth, _ = hook("stop", stop_payload(repo, path, stop_hook_active=True))
    assert fourth is None or "decision" not in fourth


def test_a_new_prompt_gets_a_fresh_budget(tmp_path: Path) -> None:
    repo = project(tmp_path)
    first = transcript(repo, UNTESTED, "Changed it.", name="a")
    for _ in range(3):
        hook("stop", stop_payload(repo, first))
    spec = {
        "task": "Now fix the exporter",
        "history": ["Fix the parser bug"],
        "cwd": str(repo),
        "steps": [{"edit": "src/parser.py"}],
        "final": "Changed it.",
    }
    second = write_jsonl(build_records(spec), repo.parent / "b.jsonl")
    _, out, _ = hook("stop", stop_payload(repo, second))
    assert out is not None and out.get("decision") == "block" and "attempt 1/3" in out["reason"]


def test_complete_task_is_quiet_and_writes_a_complete_verdict(tmp_path: Path) -> None:
    repo = project(tmp_path)
    path = transcript(repo, TESTED, "Fixed the parser; the suite passes.")
    code, out, _ = hook("stop", stop_payload(repo, path, prompt_id="p-9"))
    assert code == 0 and out is None
    data = read_verdict(repo)
    assert data["complete"] is True and data["severity"] == "NONE" and data["prompt_id"] == "p-9"


def test_ledger_never_overrules_an_unrecorded_pass_but_wins_with_a_failure_on_the_tree(
    tmp_path: Path,
) -> None:
    repo = project(tmp_path, yaml="tests:\n  ledger: true\n")
    path = transcript(repo, TESTED, "Fixed; tests pass.")
    _, out, _ = hook("stop", stop_payload(repo, path))
    assert out is None or out.get("decision") != "block", out
    assert "the ledger has no entry" in read_verdict(repo)["gates"]["tests"]["evidence"]
    (repo / "src" / "parser.py").write_text("def parse(s):\n    return s + 'x'\n")
    run = subprocess.run(
        [REFLECTION, "run", "--", sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode != 0, run.stdout + run.stderr
    _, out, _ = hook("stop", stop_payload(repo, path, session_id="sess-2"))
    assert out is not None and out.get("decision") == "block"
    assert read_verdict(repo, "sess-2")["gates"]["tests"]["evidence"].startswith("ledger:")


def test_plan_mode_is_never_blocked(tmp_path: Path) -> None:
    repo = project(tmp_path)
    path = transcript(repo, UNTESTED, "Here is my plan.")
    _, out, _ = hook("stop", stop_payload(repo, path, permission_mode="plan"))
    assert out is None or "decision" not in out
    assert read_verdict(repo)["status"] == "waiting_for_user"


def test_last_assistant_message_from_the_payload_wins(tmp_path: Path) -> None:
    repo = project(tmp_path)
    path = transcript(repo, TESTED, "Working on it...")
    payload = stop_payload(repo, path, last_assistant_message="Done. Next steps:\n- wire the CLI")
    _, out, _ = hook("stop", payload)
    # Checked work with more announced: words alone never push, the user reads a note.
    assert out is not None and out.get("decision") != "block" and out.get("systemMessage")
    assert read_verdict(repo)["stop_category"] == "summary_drift_stop"


def test_corrupt_state_still_judges_from_the_transcript_and_says_what_was_not_stored(
    tmp_path: Path, isolated_state: Path
) -> None:
    repo = project(tmp_path)
    path = transcript(repo, UNTESTED, "Changed it.")
    (isolated_state / "state.db").write_bytes(b"this is not a database" * 100)
    code, out, _ = hook("stop", stop_payload(repo, path))
    assert code == 0 and out is not None and out["decision"] == "block"
    assert "could not store the stop attempts (DatabaseError" in out["systemMessage"]
    assert read_verdict(repo)["status"] == "incomplete"
    # Attempts cannot be counted, so a continued stop is not pushed a second time.
    code, out, _ = hook("stop", stop_payload(repo, path, stop_hook_active=True))
    assert code == 0 and out is not None and "decision" not in out
    assert "cannot count attempts" in out["systemMessage"]


def test_state_dir_under_a_file_still_judges(tmp_path: Path, monkeypatch: Any) -> None:
    repo = project(tmp_path)
    path = transcript(repo, UNTESTED, "Changed it.")
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    monkeypatch.setenv("REFLECTION_STATE_DIR", str(blocker / "state"))
    code, out, _ = hook("stop", stop_payload(repo, path))
    assert code == 0 and out is not None and out["decision"] == "block"
    assert "could not store the stop attempts" in out["systemMessage"]
    assert read_verdict(repo)["status"] == "incomplete"


def test_bad_config_fails_open_and_says_so(tmp_path: Path) -> None:
    repo = project(tmp_path, yaml="stop:\n  max_attempts: many\n")
    path = transcript(repo, UNTESTED, "Changed it.")
    code, out, _ = hook("stop", stop_payload(repo, path))
    assert code == 0 and out is not None and "stop.max_attempts" in out["systemMessage"]
    assert read_verdict(repo)["status"] == "skipped"


def test_missing_transcript_still_leaves_a_verdict(tmp_path: Path) -> None:
    repo = project(tmp_path)
    code, _, _ = hook("stop", stop_payload(repo, tmp_path / "gone.jsonl"))
    assert code == 0
    read_verdict(repo)


def test_parallel_stops_lose_no_verdict_and_tear_no_file(tmp_path: Path) -> None:
    repo = project(tmp_path)
    path = transcript(repo, UNTESTED, "Changed it.")
    ids = [f"s{n}" for n in range(6)] + ["same"] * 4
    with ThreadPoolExecutor(max_workers=5) as pool:
        results = list(pool.map(lambda sid: hook("stop", stop_payload(repo, path, sid)), ids))
    assert all(code == 0 for code, _, _ in results)
    for sid in set(ids):
        read_verdict(repo, sid)  # parses and validates: never torn
    same_attempt = read_verdict(repo, "same")["attempt"]
    assert 1 <= same_attempt <= 3
    records = list((repo / ".reflection" / "records").glob("*.json"))
    assert len(records) == len(ids)


def test_session_end_finalizes_the_last_verdict(tmp_path: Path) -> None:
    repo = project(tmp_path)
    path = transcript(repo, TESTED, "Done and tested.")
    hook("stop", stop_payload(repo, path))
    code, out, _ = hook(
        "session-end", {"session_id": "sess-1", "cwd": str(repo), "reason": "prompt_input_exit"}
    )
    assert code == 0 and out is None
    data = read_verdict(repo)
    assert data["final"] is True and data["end_reason"] == "prompt_input_exit"
    assert data["complete"] is True


def test_session_end_without_a_stop_leaves_a_skipped_final_verdict(tmp_path: Path) -> None:
    repo = project(tmp_path)
    hook("session-end", {"session_id": "early", "cwd": str(repo), "reason": "clear"})
    data = read_verdict(repo, "early")
    assert data["status"] == "skipped" and data["final"] is True


def test_todo_patterns_are_reflected_once_per_lifecycle(tmp_path: Path) -> None:
    repo = project(tmp_path)
    path = transcript(repo, UNTESTED, "")
    todos = [
        {"content": f"Implement step {n}", "status": "pending", "activeForm": "x"} for n in range(8)
    ]
    payload = {
        "session_id": "todo-1",
        "cwd": str(repo),
        "transcript_path": str(path),
        "hook_event_name": "PostToolUse",
        "tool_name": "TodoWrite",
        "tool_input": {"todos": todos},
        "tool_response": {},
    }
    _, out, _ = hook("post-tool-use", payload)
    assert out is not None
    context = out["hookSpecificOutput"]["additionalContext"]
    assert out["hookSpecificOutput"]["hookEventName"] == "PostToolUse"
    assert "8 open items" in context and "no verification item" in context
    _, again, _ = hook("post-tool-use", payload)
    assert again is None
    done = [{**t, "status": "completed"} for t in todos]
    _, finished, _ = hook("post-tool-use", {**payload, "tool_input": {"todos": done}})
    assert finished is not None
    assert "Every todo is marked completed" in finished["hookSpecificOutput"]["additionalContext"]
    _, fresh, _ = hook("post-tool-use", payload)  # a new list: a new lifecycle
    assert fresh is not None and "8 open items" in fresh["hookSpecificOutput"]["additionalContext"]


def test_other_tools_are_ignored_by_the_todo_hook(tmp_path: Path) -> None:
    code, out, _ = hook("post-tool-use", {"session_id": "x", "tool_name": "Bash", "tool_input": {}})
    assert code == 0 and out is None


def test_compaction_restates_the_task_and_open_gates(tmp_path: Path) -> None:
    repo = project(tmp_path)
    path = transcript(repo, [*UNTESTED, {"compact": "We were fixing the parser."}], "")
    payload = {
        "session_id": "c-1",
        "cwd": str(repo),
        "transcript_path": str(path),
        "hook_event_name": "SessionStart",
        "source": "compact",
    }
    code, out, _ = hook("session-start", payload)
    assert code == 0 and out is not None
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    text = out["hookSpecificOutput"]["additionalContext"]
    assert "Fix the parser bug" in text and "tests have not run" in text
    _, startup, _ = hook("session-start", {**payload, "source": "startup"})
    assert startup is None


def test_subagent_stop_records_without_touching_the_session_verdict(tmp_path: Path) -> None:
    repo = project(tmp_path)
    main = transcript(repo, TESTED, "Done and tested.", name="main")
    hook("stop", stop_payload(repo, main))
    before = (repo / ".reflection" / "verdict_sess-1.json").read_text()
    sub = transcript(repo, UNTESTED, "Changed the parser.", name="sub")
    payload = {
        **stop_payload(repo, main),
        "hook_event_name": "SubagentStop",
        "agent_id": "agent-7",
        "agent_transcript_path": str(sub),
    }
    code, out, _ = hook("subagent-stop", payload)
    assert code == 0 and out is not None and out.get("decision") == "block"
    assert (repo / ".reflection" / "verdict_sess-1.json").read_text() == before
    records = sorted((repo / ".reflection" / "records").glob("*.json"))
    assert len(records) == 2
    events = {json.loads(r.read_text())["verdict"]["event"] for r in records}
    assert events == {"stop", "subagent-stop"}


def test_garbage_truncated_and_non_utf8_transcripts_still_get_a_verdict(tmp_path: Path) -> None:
    repo = project(tmp_path)
    good = transcript(repo, UNTESTED, "I changed the parser.").read_bytes()
    broken = tmp_path / "broken.jsonl"
    broken.write_bytes(b"\xff\xfe not json\n" + good + b'{"type": "assistant", "mess')
    code, out, _ = hook("stop", stop_payload(repo, broken))
    assert code == 0 and out is not None and out.get("decision") == "block"
    record = json.loads((repo / read_verdict(repo)["record"]).read_text())
    assert record["session"]["warnings"], "the reader's warnings belong in the record"


def test_malformed_payloads_fail_open(tmp_path: Path) -> None:
    repo = project(tmp_path)
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    for where in (repo, outside):
        for raw in ("", "not json", "[1, 2]", '{"session_id": 5, "cwd": 7}'):
            proc = subprocess.run(
                [REFLECTION, "hook", "stop"],
                input=raw,
                capture_output=True,
                text=True,
                timeout=60,
                cwd=where,  # a payload without a usable cwd is judged where the hook runs
            )
            assert proc.returncode == 0, (raw, proc.stderr)
            out = json.loads(proc.stdout) if proc.stdout.strip() else {}
            assert "decision" not in out, raw
            assert "Traceback" not in proc.stderr
    assert (repo / ".reflection").is_dir()
    assert not (outside / ".reflection").exists()  # never created outside a repository


def test_configured_gates_run_from_the_stop_hook_feed_the_decision(tmp_path: Path) -> None:
    yaml = (
        "tests:\n  ledger: false\n"
        "stop:\n  run_gates: true\n"
        "gates:\n"
        '  - {name: lint, run: "python3 -c \'import sys; print(\\"E501 too long\\"); '
        "sys.exit(1)'\", kind: lint}\n"
    )
    repo = project(tmp_path, yaml=yaml)
    path = transcript(repo, TESTED, "Fixed; the suite passes.")
    trusted = subprocess.run(
        [REFLECTION, "trust"], cwd=repo, capture_output=True, text=True, timeout=60
    )
    assert trusted.returncode == 0 and "E501 too long" in trusted.stdout, trusted
    code, out, _ = hook("stop", stop_payload(repo, path))
    assert code == 0 and out is not None and out.get("decision") == "block", out
    assert "configured gate `lint` failed" in out["reason"]
    record = json.loads((repo / read_verdict(repo)["record"]).read_text())
    assert record["sources"]["gate_run"]["ok"] is False


def test_an_untrusted_repo_config_runs_no_commands_and_says_so_once(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    yaml = (
        "tests:\n  ledger: false\n"
        "stop:\n  run_gates: true\n"
        "gates:\n"
        f'  - {{name: evil, run: "touch {marker}", kind: other}}\n'
    )
    repo = project(tmp_path, yaml=yaml)
    path = transcript(repo, TESTED, "Fixed; the suite passes.")
    notes = []
    for _ in range(2):
        code, out, _ = hook("stop", stop_payload(repo, path))
        assert code == 0 and "decision" not in (out or {})
        notes.append((out or {}).get("systemMessage", ""))
    assert not marker.exists()
    assert "not trusted" in notes[0] and "reflection trust" in notes[0]
    assert "not trusted" not in notes[1]  # told once per config version
    doctor = subprocess.run(
        [REFLECTION, "doctor"], cwd=repo, capture_output=True, text=True, timeout=60
    )
    assert f"touch {marker}" in doctor.stdout + doctor.stderr
    subprocess.run([REFLECTION, "trust"], cwd=repo, check=True, capture_output=True, timeout=60)
    hook("stop", stop_payload(repo, path))
    assert marker.exists()


def test_codex_stop_reads_its_rollout_and_records_the_turn(tmp_path: Path) -> None:
    repo = project(tmp_path)
    rollout = (
        Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "codex_rollout.jsonl"
    )
    session_id = "0199a213-81c0-7800-8aa1-bbab2a035a53"
    payload = {
        "session_id": session_id,
        "turn_id": "turn-2",
        "transcript_path": str(rollout),
        "cwd": str(repo),
        "model": "gpt-5-codex",
        "permission_mode": "default",
        "stop_hook_active": False,
        "last_assistant_message": "Fixed the failing test; the suite passes.",
    }
    code, out, _ = hook("stop", payload)
    assert code == 0 and out is None, out
    data = read_verdict(repo, session_id)
    assert data["complete"] is True and data["prompt_id"] == "turn-2"


def test_an_unwritable_verdict_dir_still_pushes_the_agent_and_says_so(tmp_path: Path) -> None:
    repo = project(tmp_path)
    path = transcript(repo, UNTESTED, "I changed the parser.")
    (repo / ".reflection").write_text("a file where the verdict dir should be\n")
    code, out, _ = hook("stop", stop_payload(repo, path))
    assert code == 0 and out is not None
    assert out.get("decision") == "block"
    assert "could not write the verdict" in out["systemMessage"]


def hook_while_written_late(
    payload: dict[str, Any], path: Path, records: list[dict[str, Any]]
) -> tuple[int, dict[str, Any] | None, str]:
    """The Stop hook, while the host's writer puts the whole transcript at `path` 0.3 s
    after the hook started (what it finds before that is up to the caller)."""

    def write_late() -> None:
        time.sleep(0.3)
        write_jsonl(records, path)

    with ThreadPoolExecutor(1) as pool:
        pool.submit(write_late)
        return hook("stop", payload)


def test_a_failure_the_transcript_writes_after_the_hook_started_is_still_seen(
    tmp_path: Path,
) -> None:
    """The host may call the Stop hook before its transcript writer caught up: the result
    of a failed command lands a moment later, and a "done" must not slip through."""
    repo = project(tmp_path)
    steps = [{"bash": "python -m pip install -e .", "exit": 1, "output": "error: denied"}]
    spec = {"task": "Install the project", "cwd": str(repo), "branch": "feature/x"}
    records = build_records({**spec, "steps": steps, "final": "All done: it is installed."})
    lagging = [r for r in records if "tool_result" not in json.dumps(r)]
    assert len(lagging) == len(records) - 1  # only the command's result is held back
    path = write_jsonl(lagging, repo.parent / "lag.jsonl")
    payload = {"session_id": "s-lag", "transcript_path": str(path), "cwd": str(repo)}
    code, out, _ = hook_while_written_late(payload, path, records)
    assert code == 0 and out is not None and out.get("decision") == "block", out
    assert "install" in out["reason"].lower()


def test_a_test_run_written_after_the_hook_started_is_seen_before_the_stop_is_judged(
    tmp_path: Path,
) -> None:
    """The host can call the Stop hook before it has written the final message, and with it
    the last tool calls: the hook waits until the file holds the message the host handed
    it, so a passing test run a moment late is not taken for no test run at all."""
    repo = project(tmp_path)
    final = "Fixed the parser; the tests pass (1 passed)."
    spec = {"task": "Fix the parser bug", "cwd": str(repo), "branch": "feature/x"}
    records = build_records({**spec, "steps": TESTED, "final": final})
    lagging = records[:-3]  # the test run, its result and the final message not written yet
    assert "1 passed in" not in json.dumps(lagging) and final not in json.dumps(lagging)
    path = write_jsonl(lagging, repo.parent / "lag.jsonl")
    payload = stop_payload(repo, path, "s-late-run", last_assistant_message=final)
    code, out, _ = hook_while_written_late(payload, path, records)
    assert code == 0 and (out is None or out.get("decision") != "block"), out
    assert read_verdict(repo, "s-late-run")["status"] == "complete"


def test_a_transcript_the_host_creates_after_the_hook_started_is_judged(tmp_path: Path) -> None:
    """On a session's first turn the Stop hook can start before the host's writer has
    created the transcript file: the hook waits briefly for it instead of skipping."""
    repo = project(tmp_path)
    steps = [{"bash": "python -m pip install -e .", "exit": 1, "output": "error: denied"}]
    spec = {"task": "Install the project", "cwd": str(repo), "branch": "feature/x"}
    records = build_records({**spec, "steps": steps, "final": "All done: it is installed."})
    path = repo.parent / "late.jsonl"
    payload = {"session_id": "s-late", "transcript_path": str(path), "cwd": str(repo)}
    code, out, _ = hook_while_written_late(payload, path, records)
    assert code == 0 and out is not None and out.get("decision") == "block", out


def test_a_transcript_that_never_appears_is_skipped_not_judged(tmp_path: Path) -> None:
    repo = project(tmp_path)
    payload = {
        "session_id": "s-none",
        "transcript_path": str(repo.parent / "never.jsonl"),
        "cwd": str(repo),
    }
    code, out, _ = hook("stop", payload)
    assert code == 0 and (out is None or out.get("decision") != "block"), out
    verdict = json.loads((repo / ".reflection" / "verdict_s-none.json").read_text())
    assert verdict["status"] == "skipped"
