"""Hostile repositories, hostile agent output and faults: each item of the hardening issue.

Real hook processes on real git repos and real transcript files; in-process calls only
where a process would add nothing but time.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from reflection_core import atomic, config, paths
from reflection_core.consumers import speech
from reflection_core.evals.transcript_builder import build_records, write_jsonl
from reflection_core.session import transcript, verdict
from tests.gitutil import make_repo

REFLECTION = str(Path(sys.executable).with_name("reflection"))
UNTESTED = [{"read": "src/app.py"}, {"edit": "src/app.py"}]
TESTED = [*UNTESTED, {"bash": "python -m pytest -q", "output": "1 passed in 0.01s"}]


# `stop.require: tests`: an untested change pushes, so a judged stop is visible as a block.
def project(
    tmp_path: Path, yaml: str = "stop:\n  require: tests\ntests:\n  ledger: false\n"
) -> Path:
    files = {
        "src/app.py": "x = 1\n",
        "tests/test_app.py": "def test_app():\n    assert True\n",
        ".reflection.yaml": yaml,
    }
    return make_repo(tmp_path / "repo", branch="main", files=files)


def transcript_file(repo: Path, steps: list[dict[str, Any]], final: str, **extra: Any) -> Path:
    spec = {"task": "Fix the app", "cwd": str(repo), "branch": "feature/x", "steps": steps}
    spec.update(final=final, **extra)
    return write_jsonl(build_records(spec), repo.parent / "t.jsonl")


def hook(
    event: str, payload: Any, cwd: Path, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    raw = payload if isinstance(payload, str) else json.dumps(payload)
    return subprocess.run(
        [REFLECTION, "hook", event],
        cwd=cwd,
        input=raw,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


def stop_payload(repo: Path, path: Path | str, session_id: str = "s1", **kw: Any) -> dict[str, Any]:
    return {
        "session_id": session_id,
        "transcript_path": str(path),
        "cwd": str(repo),
        "hook_event_name": "Stop",
        "stop_hook_active": False,
        **kw,
    }


def out_of(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    return json.loads(proc.stdout) if proc.stdout.strip() else {}


def fields(status: str = "incomplete") -> dict[str, Any]:
    data = verdict.skipped_fields("test", 3)
    data["status"] = status
    return data


# ------------------------------------------------ 1. no writes through symlinks


def test_a_records_symlink_never_lets_pruning_delete_files_elsewhere(tmp_path: Path) -> None:
    repo = project(tmp_path)
    victim = tmp_path / "victim"
    victim.mkdir()
    for name in ("a.json", "b.json", "c.json"):
        (victim / name).write_text("{}")
    (repo / ".reflection").mkdir()
    (repo / ".reflection" / "records").symlink_to(victim)
    (repo / ".reflection.yaml").write_text("tests:\n  ledger: false\nverdict: {keep_records: 1}\n")
    path = transcript_file(repo, TESTED, "Done.")
    out = out_of(hook("stop", stop_payload(repo, path), repo))
    assert "could not write the verdict" in out["systemMessage"]
    assert sorted(p.name for p in victim.iterdir()) == ["a.json", "b.json", "c.json"]


def test_a_reflection_symlink_is_refused_visibly(tmp_path: Path) -> None:
    repo = project(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (repo / ".reflection").symlink_to(elsewhere)
    path = transcript_file(repo, TESTED, "Done.")
    out = out_of(hook("stop", stop_payload(repo, path), repo))
    assert "symlink" in out["systemMessage"]
    assert list(elsewhere.iterdir()) == []
    end = out_of(hook("session-end", {"session_id": "s1", "cwd": str(repo)}, repo))
    assert "did not block" in end.get("systemMessage", "") and list(elsewhere.iterdir()) == []


def test_a_lock_symlink_never_creates_its_target(tmp_path: Path) -> None:
    repo = project(tmp_path)
    target = tmp_path / "created-by-lock"
    (repo / ".reflection").mkdir()
    (repo / ".reflection" / "verdict_s1.json.lock").symlink_to(target)
    with pytest.raises(paths.UnsafePathError):
        verdict.write_fields(
            repo, fields(), session_id="s1", prompt_id=None, event="stop", record_body={}
        )
    assert not target.exists()


def test_pruning_deletes_only_regular_files_never_links(tmp_path: Path) -> None:
    outside = tmp_path / "keep.json"
    outside.write_text("{}")
    records = tmp_path / "records"
    records.mkdir()
    (records / "0-link.json").symlink_to(outside)
    os.utime(records / "0-link.json", (1, 1), follow_symlinks=False)
    for index in range(3):
        (records / f"{index + 1}.json").write_text("{}")
    verdict.prune_records(records, 1)
    assert outside.read_text() == "{}" and (records / "0-link.json").is_symlink()
    assert atomic.unlink_own_file(records / "0-link.json") is False


@pytest.mark.parametrize("where", ["not-a-repo", "/"])
def test_no_reflection_dir_outside_a_repository(tmp_path: Path, where: str) -> None:
    cwd = tmp_path / where if where != "/" else Path("/")
    cwd.mkdir(exist_ok=True)
    existed = (cwd / ".reflection").exists()
    proc = hook("stop", {"session_id": "s1", "cwd": str(cwd), "transcript_path": ""}, tmp_path)
    out_of(proc)
    hook("session-end", {"session_id": "s1", "cwd": str(cwd)}, tmp_path)
    assert (cwd / ".reflection").exists() == existed


# ------------------------------------------------ 2. redaction at every write edge


def test_push_url_credentials_and_end_reason_never_reach_the_compact_verdict(
    tmp_path: Path,
) -> None:
    repo = project(tmp_path)
    push = {
        "bash": "git push https://dev:s3cr3tT0kenValue@example.com/o/r feature/x",
        "output": "To https://example.com/o/r\n * [new branch] feature/x -> feature/x",
    }
    path = transcript_file(repo, [*TESTED, push], "Pushed with password=hunter2x9.")
    out_of(hook("stop", stop_payload(repo, path), repo))
    end = {"session_id": "s1", "cwd": str(repo), "reason": "logout token=abcd1234efgh"}
    out_of(hook("session-end", end, repo))
    text = (repo / ".reflection" / "verdict_s1.json").read_text()
    assert "s3cr3tT0kenValue" not in text and "abcd1234efgh" not in text
    data = json.loads(text)
    record = (repo / data["record"]).read_text()
    assert "s3cr3tT0kenValue" not in record and "hunter2x9" not in record


def test_the_ledger_never_keeps_secrets_from_a_recorded_command(tmp_path: Path) -> None:
    repo = project(tmp_path, yaml="")
    code = "import sys; sys.exit(0)"
    cmd = [REFLECTION, "run", "--", sys.executable, "-c", code, "--password", "hunter2x9"]
    proc = subprocess.run(
        cmd, cwd=repo, capture_output=True, text=True, timeout=60, env={**os.environ}
    )
    assert proc.returncode == 0, proc.stderr
    ledger = (paths.git_dir(repo) / "reflection" / "ledger.jsonl").read_text()
    assert "--password" in ledger and "hunter2x9" not in ledger


# ------------------------------------------------ 3. hangs


@pytest.mark.parametrize("event", ["stop", "subagent-stop", "session-start"])
def test_a_fifo_transcript_never_blocks_a_hook(tmp_path: Path, event: str) -> None:
    repo = project(tmp_path)
    fifo = tmp_path / "t.jsonl"
    os.mkfifo(fifo)
    payload = stop_payload(repo, fifo, agent_transcript_path=str(fifo), source="compact")
    proc = hook(event, payload, repo, timeout=20)
    out_of(proc)
    if event == "stop":
        assert json.loads((repo / ".reflection" / "verdict_s1.json").read_text())


def _reader_seconds(line_bytes: int, path: Path) -> float:
    with path.open("wb") as handle:
        handle.write(b'{"type": "user", "message": {"role": "user", "content": "hi"}}\n')
        handle.write(b"x" * line_bytes + b"\n")
        handle.write(b'{"type": "assistant", "message": {"content": "ok"}}\n')
    started = time.perf_counter()
    transcript.read_session(path)
    return time.perf_counter() - started


def test_the_backward_reader_is_linear_in_one_long_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Small blocks make a quadratic join show at test sizes; a growth ratio, not a time.
    monkeypatch.setattr(transcript, "BLOCK_BYTES", 1024)
    path = tmp_path / "long.jsonl"
    _reader_seconds(64 * 1024, path)  # warm up
    small = min(_reader_seconds(256 * 1024, path) for _ in range(3))
    large = min(_reader_seconds(8 * 256 * 1024, path) for _ in range(3))
    assert large / small < 24, (small, large)  # linear: ~8; quadratic: ~64


def test_the_reader_reads_at_most_the_configured_bytes_for_one_task(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    with path.open("wb") as handle:
        handle.write(b'{"type": "user", "message": {"role": "user", "content": "first"}}\n')
        for _ in range(4096):
            handle.write(b'{"type": "assistant", "message": {"content": "' + b"y" * 1000 + b'"}}\n')
    session = transcript.read_session(path, max_task_bytes=1024 * 1024)
    assert any("no task start in the last 1048576 bytes" in w for w in session.warnings)
    assert (
        config.load_file(_yaml(tmp_path, "stop: {max_transcript_bytes: 2097152}\n")).get(
            "stop.max_transcript_bytes"
        )
        == 2 * 1024 * 1024
    )


def _yaml(tmp_path: Path, text: str) -> Path:
    path = tmp_path / ".reflection.yaml"
    path.write_text(text)
    return path


def test_the_hook_deadline_writes_a_skipped_verdict_before_the_host_kills_it(
    tmp_path: Path,
) -> None:
    from reflection_core import trust

    yaml = (
        "tests:\n  ledger: false\nstop:\n  run_gates: true\n"
        'gates:\n  - {name: slow, run: "sleep 30", kind: other}\n'
        "hooks: {deadline_seconds: 2}\n"
    )
    repo = project(tmp_path, yaml=yaml)
    trust.trust(repo, config.load(repo))
    path = transcript_file(repo, TESTED, "Done.")
    started = time.monotonic()
    out = out_of(hook("stop", stop_payload(repo, path), repo, timeout=20))
    assert time.monotonic() - started < 15
    assert "deadline" in out["systemMessage"] and "decision" not in out
    data = json.loads((repo / ".reflection" / "verdict_s1.json").read_text())
    assert data["status"] == "skipped"
    record = json.loads((repo / data["record"]).read_text())
    assert record["error"]["class"] == "HookDeadline"


# ------------------------------------------------ 4. malformed input


def test_deeply_nested_input_fails_open_with_a_skipped_verdict(tmp_path: Path) -> None:
    repo = project(tmp_path)
    head = json.dumps({"session_id": "s1", "cwd": str(repo)})[:-1]
    raw = head + ', "x": ' + "[" * 1000 + "]" * 1000 + "}"
    out = out_of(hook("stop", raw, repo))
    assert "did not run" in out["systemMessage"] and "decision" not in out
    assert json.loads((repo / ".reflection" / "verdict_s1.json").read_text())["status"] == (
        "skipped"
    )


@pytest.mark.parametrize("field", ["last_assistant_message", "session_id", "prompt_id"])
def test_lone_surrogates_are_judged_not_crashed(tmp_path: Path, field: str) -> None:
    repo = project(tmp_path)
    path = transcript_file(repo, UNTESTED, "I changed the app.")
    payload = stop_payload(repo, path, last_assistant_message="I changed the app.")
    payload[field] = payload.get(field, "x") + "\ud800"
    raw = json.dumps(payload)  # ASCII escapes: "\ud800" reaches the hook as JSON text
    out = out_of(hook("stop", raw, repo))
    assert out.get("decision") == "block", out
    written = list((repo / ".reflection").glob("verdict_*.json"))
    assert len(written) == 1 and json.loads(written[0].read_text())["status"] == "incomplete"


def test_a_surrogate_in_the_end_reason_still_finalizes(tmp_path: Path) -> None:
    repo = project(tmp_path)
    path = transcript_file(repo, TESTED, "Done.")
    out_of(hook("stop", stop_payload(repo, path), repo))
    end = json.dumps({"session_id": "s1", "cwd": str(repo), "reason": "bye \udc80"})
    out_of(hook("session-end", end, repo))
    assert json.loads((repo / ".reflection" / "verdict_s1.json").read_text())["final"] is True


# ------------------------------------------------ 5. caches validated before use


def test_a_tampered_config_cache_never_weakens_a_guard(tmp_path: Path) -> None:
    repo = project(tmp_path, yaml="protected_branches: [main, release]\n")
    assert config.load(repo).get("protected_branches") == ["main", "release"]
    (cache,) = (paths.state_dir() / "config-cache").glob("*.json")
    entry = json.loads(cache.read_text())
    entry["data"]["protected_branches"] = []
    cache.write_text(json.dumps(entry))
    config._LOADED.clear()  # a new process: only the disk cache is left
    assert config.load(repo).get("protected_branches") == ["main", "release"]
    cache.write_text("{}")
    config._LOADED.clear()
    assert config.load(repo).get("protected_branches") == ["main", "release"]
    assert json.loads(cache.read_text())["data"]["protected_branches"] == ["main", "release"]


# ------------------------------------------------ 7. speech and trust


def test_a_message_starting_with_a_dash_is_never_an_option_of_the_speaker(
    tmp_path: Path,
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "argv.json"
    stub = bin_dir / "espeak-ng"
    stub.write_text(
        f"#!{sys.executable}\nimport json, sys\n"
        f"open({str(log)!r}, 'w').write(json.dumps(sys.argv[1:]))\n"
    )
    stub.chmod(stub.stat().st_mode | stat.S_IEXEC)
    speech.speak(f"{stub} -s 150", "-w /tmp/owned.wav all done", timeout=10)
    argv = json.loads(log.read_text())
    assert argv[:3] == ["-s", "150", "--"]
    assert argv[3] == "w /tmp/owned.wav all done"


# ------------------------------------------------ issue 14 item 5: our bugs are visible


def _stop_answer(payload: dict[str, Any]) -> Any:
    """The Stop hook's answer as Claude Code receives it, in-process."""
    from reflection_core.hosts import claude
    from reflection_core.session import stop_hook

    return claude.HOST.render("stop", stop_hook.handle_stop(claude.HOST.parse("stop", payload)))


def test_a_broken_module_behind_a_fail_open_path_is_shown_not_swallowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reader = f"reader: {{kind: command, when: always, command: [{sys.executable!r}, '-c', '']}}\n"
    repo = project(tmp_path, yaml="tests:\n  ledger: false\n" + reader)
    path = transcript_file(repo, TESTED, "Done; tests pass.")
    import reflection_core.reading as reading_package

    monkeypatch.setitem(sys.modules, "reflection_core.reading.command", None)
    monkeypatch.delattr(reading_package, "command", raising=False)  # imported by earlier tests
    response = _stop_answer(stop_payload(repo, path))
    assert response.output is not None
    message = response.output["systemMessage"]
    assert "internal error" in message and "ModuleNotFoundError" in message


def test_a_broken_evidence_module_is_shown_not_swallowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = project(tmp_path, yaml="")
    path = transcript_file(repo, TESTED, "Done; tests pass.")
    monkeypatch.setitem(sys.modules, "reflection_core.guards.tests_ran", None)
    response = _stop_answer(stop_payload(repo, path))
    assert response.output is not None
    assert "the ledger check did not run (ModuleNotFoundError" in response.output["systemMessage"]
