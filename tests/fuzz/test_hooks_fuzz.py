"""Every hook under fuzzed input: no traceback, answers valid for the host, Stop hooks leave
a verdict (possibly `skipped`), pre-push never lets a protected ref through.

Agent hooks run in-process through the same entry the process uses
(`hook_dispatch.answer`), with the hook's own deadline armed; a handful of real
process runs check the bytes on stdout. Seeds are fixed (`derandomize`), sizes
bounded: the suite is part of CI.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reflection_core.guards import git_hooks
from reflection_core.hook_dispatch import AGENT_EVENTS, answer
from tests.fuzz.conftest import COUNTS
from tests.gitutil import git, make_repo

REFLECTION = str(Path(sys.executable).with_name("reflection"))
DEADLINE_S = 10.0
FUZZ = settings(
    derandomize=True,
    # CI default; REFLECTION_FUZZ_EXAMPLES=2000 for a long local run.
    max_examples=int(os.environ.get("REFLECTION_FUZZ_EXAMPLES", "120")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# Text with what hostile input holds: lone surrogates, control characters, dash runs.
hostile_text = st.one_of(
    st.text(max_size=200),
    st.lists(
        st.sampled_from(["\ud800", "\udfff", "\x00", "-", "sk-", "/", "\n", "?", "\u2028"]),
        max_size=40,
    ).map("".join),
    st.tuples(st.sampled_from(["-", "sk-", "a/", "x.py, "]), st.integers(0, 6000)).map(
        lambda unit_count: unit_count[0] * unit_count[1]
    ),
)
json_leaf = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), hostile_text
)
json_value = st.recursive(
    json_leaf,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
KNOWN_KEYS = [
    "session_id",
    "transcript_path",
    "agent_transcript_path",
    "cwd",
    "prompt",
    "last_assistant_message",
    "permission_mode",
    "stop_hook_active",
    "reason",
    "source",
    "tool_name",
    "tool_input",
    "prompt_id",
    "agent_id",
]
record = st.fixed_dictionaries(
    {"type": st.sampled_from(["user", "assistant", "system", "summary", "x"])},
    optional={
        "message": st.fixed_dictionaries(
            {"role": st.sampled_from(["user", "assistant"]), "content": json_value}
        ),
        "isSidechain": st.booleans(),
        "toolUseResult": json_value,
    },
)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fuzz") / "repo"
    return make_repo(root, files={".reflection.yaml": "tests:\n  ledger: false\n"})


def _payload(draw: st.DrawFn, repo: Path, transcript: Path) -> dict[str, Any]:
    payload: dict[str, Any] = draw(st.dictionaries(st.sampled_from(KNOWN_KEYS), json_value))
    payload["cwd"] = draw(st.sampled_from([str(repo), str(repo), payload.get("cwd")]))
    if draw(st.booleans()):
        payload["transcript_path"] = str(transcript)
    if draw(st.booleans()):
        payload["session_id"] = draw(hostile_text)
    return payload


def _check_answer(event: str, raw: bytes) -> dict[str, Any] | None:
    """Run one hook in-process; count and assert what the host would see."""
    COUNTS["runs"] += 1
    started = time.monotonic()
    try:
        response = answer(event, raw, timed=True)
    except BaseException:
        COUNTS["crashes"] += 1
        raise
    if time.monotonic() - started > DEADLINE_S or "deadline" in response.stderr:
        COUNTS["hangs"] += 1
        pytest.fail(f"{event} ran into its deadline")
    if "Traceback" in response.stderr:
        COUNTS["crashes"] += 1
        pytest.fail(response.stderr)
    assert response.exit_code == 0
    if response.output is None:
        return None
    text = json.dumps(response.output, ensure_ascii=True)  # what render() writes
    output = json.loads(text)
    assert isinstance(output, dict)
    if "decision" in output:
        assert output["decision"] == "block" and isinstance(output.get("reason"), str)
    if "systemMessage" in output:
        assert isinstance(output["systemMessage"], str)
    return output


@pytest.fixture(autouse=True)
def own_deadline(monkeypatch: pytest.MonkeyPatch, repo: Path) -> None:
    monkeypatch.setenv("REFLECTION_HOOK_DEADLINE", str(DEADLINE_S))
    # Payloads without a usable cwd are judged where the process runs: the fuzz repo,
    # never the checkout the tests run from.
    monkeypatch.chdir(repo)


@pytest.mark.parametrize("event", list(AGENT_EVENTS))
@FUZZ
@given(data=st.data())
def test_agent_hooks_answer_any_payload(
    event: str, data: st.DataObject, repo: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / "t.jsonl"
    lines = data.draw(st.lists(record, max_size=8))
    garbage = data.draw(st.sampled_from([b"", b"\xff\xfe{", b'{"type": "assistant", "mess']))
    transcript.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in lines) + garbage)
    payload = _payload(data.draw, repo, transcript)
    verdicts = repo / ".reflection"
    before = {p: p.stat().st_mtime_ns for p in verdicts.glob("verdict_*.json")}
    records_before = len(list((verdicts / "records").glob("*.json"))) if verdicts.exists() else 0
    _check_answer(event, json.dumps(payload).encode())
    if event in ("stop", "subagent-stop") and payload.get("cwd") == str(repo):
        after = {p: p.stat().st_mtime_ns for p in verdicts.glob("verdict_*.json")}
        records = len(list((verdicts / "records").glob("*.json")))
        wrote = after != before or records != records_before or records >= 200
        assert wrote, "a Stop hook must leave a verdict or record, possibly skipped"


@pytest.mark.parametrize("event", ["stop", "user-prompt-submit", "session-end"])
@FUZZ
@given(raw=st.one_of(st.binary(max_size=300), st.text(max_size=300).map(str.encode)))
def test_agent_hooks_answer_any_bytes(event: str, raw: bytes) -> None:
    _check_answer(event, raw)


def test_agent_hooks_answer_deep_nesting() -> None:
    for depth in (63, 64, 65, 1000, 100_000):
        for event in AGENT_EVENTS:
            raw = b'{"session_id": "deep", "x": ' + b"[" * depth + b"]" * depth + b"}"
            _check_answer(event, raw)


PROTECTED = "refs/heads/main"
sha = st.text(alphabet="0123456789abcdef", min_size=40, max_size=40)
ref = st.sampled_from(
    [PROTECTED, "refs/heads/feature", "refs/heads/main2", "refs/tags/v1", "HEAD", "(delete)"]
)
push_line = st.one_of(
    st.tuples(ref, sha, ref, sha).map(" ".join),
    st.tuples(ref, st.just("0" * 40), st.just(PROTECTED), sha).map(" ".join),
    st.text(max_size=80).filter(lambda t: "\n" not in t),
)


@FUZZ
@given(lines=st.lists(push_line, min_size=1, max_size=5))
def test_pre_push_never_lets_a_protected_ref_through(
    lines: list[str], repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    COUNTS["runs"] += 1
    raw = ("\n".join(lines) + "\n").encode("utf-8", "surrogateescape")
    stdin = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.chdir(repo)
    try:
        code = git_hooks.pre_push_main(["origin", "https://example.com/o/r"])
    except SystemExit as exc:  # argparse-level refusals are exits, not crashes
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        COUNTS["crashes"] += 1
        raise
    targets_main = any(len(p := line.split()) >= 3 and p[2] == PROTECTED for line in lines)
    if targets_main:
        assert code != 0, lines


@settings(derandomize=True, max_examples=10, deadline=None)
@given(name=st.text(alphabet="abc-/._", min_size=1, max_size=12), content=hostile_text)
def test_pre_commit_never_commits_on_a_protected_branch(
    name: str, content: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    COUNTS["runs"] += 1
    root = make_repo(tmp_path_factory.mktemp("pc") / "repo", branch="main")
    safe = "".join(c for c in name if c.isalnum() or c in "-_.") or "f"
    (root / f"{safe}.txt").write_text(content, encoding="utf-8", errors="replace")
    git(root, "add", "-A")
    proc = subprocess.run(
        [REFLECTION, "hook", "pre-commit"], cwd=root, capture_output=True, text=True, timeout=60
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode != 0, proc.stderr


PROCESS_CASES = [
    ("stop", '{"session_id": "p1", "last_assistant_message": "\\ud800 -w x"}'),
    ("stop", '{"session_id": 5, "cwd": 7, "transcript_path": ["x"]}'),
    ("subagent-stop", '{"session_id": "p2", "agent_transcript_path": "/dev/zero"}'),
    ("session-start", '{"source": "compact", "transcript_path": "/dev/zero"}'),
    ("user-prompt-submit", json.dumps({"prompt": "sk-" * 30000, "session_id": "p3"})),
    ("post-tool-use", '{"tool_name": "TodoWrite", "tool_input": {"todos": [[[["x"]]]]}}'),
    ("session-end", "[" * 5000),
]


@pytest.mark.parametrize(("event", "raw"), PROCESS_CASES)
def test_hook_processes_print_valid_host_json(event: str, raw: str, repo: Path) -> None:
    COUNTS["runs"] += 1
    payload = raw.replace('"session_id"', f'"cwd": {json.dumps(str(repo))}, "session_id"', 1)
    started = time.monotonic()
    proc = subprocess.run(
        [REFLECTION, "hook", event],
        cwd=repo,
        input=payload,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "REFLECTION_HOOK_DEADLINE": str(DEADLINE_S)},
    )
    if time.monotonic() - started > DEADLINE_S + 5:
        COUNTS["hangs"] += 1
    if proc.returncode != 0 or "Traceback" in proc.stderr:
        COUNTS["crashes"] += 1
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    if proc.stdout.strip():
        assert isinstance(json.loads(proc.stdout), dict)
