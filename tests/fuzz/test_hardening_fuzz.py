"""Fuzzed inputs of the second hardening round: unreadable transcripts, environment hints
against git's stdin, hostile config files, and secrets in any surrounding text.

Seeds are fixed (`derandomize`), sizes bounded: the suite is part of CI.
"""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reflection_core import config
from reflection_core.guards import protected_push
from reflection_core.hook_dispatch import answer
from reflection_core.redact import redact, redact_obj
from tests.fuzz.conftest import COUNTS
from tests.gitutil import make_repo

FUZZ = settings(
    derandomize=True,
    max_examples=int(os.environ.get("REFLECTION_FUZZ_EXAMPLES", "120")) // 2,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fuzz2") / "repo"
    files = {".reflection.yaml": "tests:\n  ledger: false\nprotected_branches: [main, prod]\n"}
    return make_repo(root, files=files)


@pytest.fixture(scope="module")
def unreadable(tmp_path_factory: pytest.TempPathFactory) -> list[Any]:
    """transcript_path values no hook can read: missing, FIFO, device, directory, wrong types."""
    base = tmp_path_factory.mktemp("unreadable")
    os.mkfifo(base / "pipe.jsonl")
    (base / "dir.jsonl").mkdir()
    (base / "link.jsonl").symlink_to(base / "gone")
    paths = [base / "gone.jsonl", base / "pipe.jsonl", "/dev/zero", base / "dir.jsonl"]
    return [str(p) for p in [*paths, base / "link.jsonl"]] + [7, [1], {"a": 1}, "", True]


@FUZZ
@given(data=st.data())
def test_a_stop_on_an_unreadable_transcript_is_skipped_never_blocked(
    data: st.DataObject, repo: Path, unreadable: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    COUNTS["runs"] += 1
    monkeypatch.setenv("REFLECTION_HOOK_DEADLINE", "10")
    path = data.draw(st.sampled_from(unreadable))
    event = data.draw(st.sampled_from(["stop", "subagent-stop"]))
    key = "agent_transcript_path" if event == "subagent-stop" else "transcript_path"
    payload = {"session_id": "fz", "cwd": str(repo), key: path, "stop_hook_active": False}
    payload["last_assistant_message"] = data.draw(st.text(max_size=60))
    response = answer(event, json.dumps(payload).encode(), timed=True)
    assert "Traceback" not in response.stderr and "deadline" not in response.stderr
    output = response.output or {}
    assert "decision" not in output
    assert output["systemMessage"].startswith("reflection: stop not judged (skipped)")


sha = st.text(alphabet="0123456789abcdef", min_size=40, max_size=40)
branch = st.sampled_from(["main", "prod", "feature", "main2", "release/x"])


@FUZZ
@given(
    pushed=st.lists(st.tuples(branch, sha), min_size=1, max_size=4),
    hint=st.dictionaries(
        st.sampled_from(
            ["PRE_COMMIT_REMOTE_BRANCH", "PRE_COMMIT_LOCAL_BRANCH", "PRE_COMMIT_TO_REF"]
        ),
        st.one_of(branch.map(lambda b: f"refs/heads/{b}"), sha, st.text(max_size=20)),
    ),
)
def test_environment_hints_never_hide_a_protected_ref_git_pushes(
    pushed: list[tuple[str, str]],
    hint: dict[str, str],
    repo: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    COUNTS["runs"] += 1
    lines = "".join(f"refs/heads/x {s} refs/heads/{b} {'0' * 40}\n" for b, s in pushed)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(lines.encode())))
    monkeypatch.chdir(repo)
    for key in ("PRE_COMMIT_REMOTE_BRANCH", "PRE_COMMIT_LOCAL_BRANCH", "PRE_COMMIT_TO_REF"):
        monkeypatch.delenv(key, raising=False)
    for key, value in hint.items():
        if "\0" not in value:
            monkeypatch.setenv(key, value)
    code = protected_push.main(["origin", "https://example.com/o/r"])
    if any(b in ("main", "prod") for b, _ in pushed):
        assert code == 1, (pushed, hint)


yaml_text = st.one_of(
    st.text(max_size=300),
    st.lists(st.sampled_from(["&a ", "*a", "[", "]", "{", "}", ": ", "\n  ", "- ", "x"])).map(
        "".join
    ),
    st.integers(1, 12).map(lambda n: "a: &a [1]\n" + "".join(f"b{i}: *a\n" for i in range(n))),
    st.integers(0, 3000).map(lambda n: "stop: " + "[" * n + "]" * n + "\n"),
    st.sampled_from(["judge:\n  routing:\n    a: &x [1, 2]\n    b: [*x, *x]\n", "\ufeffa: 1"]),
)


@FUZZ
@given(text=yaml_text)
def test_any_config_text_loads_or_is_a_short_config_error(text: str, tmp_path: Path) -> None:
    COUNTS["runs"] += 1
    root = tmp_path / "cfg"
    root.mkdir(exist_ok=True)
    (root / ".reflection.yaml").write_text(text, encoding="utf-8", errors="surrogateescape")
    try:
        config.load_file(root / ".reflection.yaml")
    except config.ConfigError as exc:
        assert len(str(exc)) <= len(str(root)) + 260
    if "*" in text and "&" in text:
        aliased = "*a" in text.split("&a", 1)[-1]
        if aliased:
            with pytest.raises(config.ConfigError):
                config.load_file(root / ".reflection.yaml")


SECRETS = [
    ('"api_key": "{s}"', "zq81{s}"),
    ("db password {s}", "hunter2{s}"),
    ("password: {s}", "swordfish9{s}"),
    ("the token is {s}", "tk-81{s}"),
    ("{s}", "ghp_Zx81abcdefghijklmno{s}"),
    ("aws_secret_access_key = {s}", "wJalrXUtnFEMIK7{s}"),
    ("Authorization: Bearer {s}", "abcdefghijklmnop{s}"),
    ("api_key={s}", "ak4242{s}"),
]


@FUZZ
@given(
    form=st.sampled_from(SECRETS),
    tail=st.text(alphabet="abcdefXYZ0123456789", min_size=4, max_size=12),
    before=st.text(max_size=40).map(lambda t: t.replace("\\", "") + " "),
    after=st.text(max_size=40).map(lambda t: " " + t),
    escaped=st.booleans(),
)
def test_a_secret_survives_no_surrounding_text_or_json_escaping(
    form: tuple[str, str], tail: str, before: str, after: str, escaped: bool
) -> None:
    COUNTS["runs"] += 1
    template, secret_shape = form
    secret = secret_shape.format(s=tail)
    text = before + template.format(s=secret) + after
    shown = json.dumps(text) if escaped else text  # a JSON string inside a record
    assert secret not in redact(shown)
    assert secret not in json.dumps(redact_obj({"k": [text]}))
