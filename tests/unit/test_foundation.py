from __future__ import annotations

import hashlib
import json
import multiprocessing
from pathlib import Path

import pytest

from reflection_core import atomic, globs, paths, redact


@pytest.mark.parametrize(
    "raw",
    ["../../etc/passwd", "a/b", "..", "", None, "x" * 500, "ses_ü", "a b", "/abs"],
)
def test_unsafe_session_ids_become_plain_file_names(raw: object) -> None:
    safe = paths.safe_session_id(raw)
    assert safe and "/" not in safe and "\\" not in safe and ".." not in safe
    assert len(safe) <= 100


def test_safe_session_ids_pass_through_and_unsafe_ones_never_collide() -> None:
    assert paths.safe_session_id("3f2a-9c1d_ok") == "3f2a-9c1d_ok"
    assert paths.safe_session_id("a/b") != paths.safe_session_id("a_b")
    assert paths.safe_session_id("a/b") != paths.safe_session_id("a:b")


def test_state_dir_honours_the_override(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("REFLECTION_STATE_DIR", str(tmp_path / "s"))
    assert paths.state_dir() == tmp_path / "s"


def test_repo_root_is_found_from_a_subdirectory(git_repo: Path) -> None:
    sub = git_repo / "a" / "b"
    sub.mkdir(parents=True)
    assert paths.find_repo_root(sub) == git_repo
    assert paths.git_dir(git_repo) == git_repo / ".git"


def test_atomic_write_replaces_and_leaves_no_temp_files(tmp_path: Path) -> None:
    target = tmp_path / "d" / "v.json"
    atomic.write_json_atomic(target, {"a": 1})
    atomic.write_json_atomic(target, {"a": 2})
    assert json.loads(target.read_text()) == {"a": 2}
    assert [p.name for p in target.parent.iterdir()] == ["v.json"]


def _append_many(path: str, worker: int) -> None:
    for i in range(200):
        atomic.append_line(Path(path), json.dumps({"w": worker, "i": i, "pad": "x" * 300}))


def test_concurrent_appends_lose_and_tear_no_line(tmp_path: Path) -> None:
    target = tmp_path / "ledger.jsonl"
    procs = [multiprocessing.Process(target=_append_many, args=(str(target), w)) for w in range(4)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join()
    lines = target.read_text().splitlines()
    assert len(lines) == 800
    assert {(d["w"], d["i"]) for d in map(json.loads, lines)} == {
        (w, i) for w in range(4) for i in range(200)
    }


@pytest.mark.parametrize(
    "secret",
    [
        "sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345",
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "AKIAIOSFODNN7EXAMPLE",
        "xoxb-1234567890-abcdefghij",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ],
)
def test_known_secret_shapes_are_redacted(secret: str) -> None:
    text = f"export X={secret} and then {secret}"
    assert secret not in redact.redact(text)
    assert "[REDACTED]" in redact.redact(text)


def test_assignments_urls_and_keys_are_redacted_but_prose_is_kept() -> None:
    text = (
        "password = hunter2\nDB_PASSWORD='s3cret'\nhttps://user:pa55@host/x\n"
        "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n"
        "All 12 tests passed."
    )
    out = redact.redact(text)
    for leaked in ("hunter2", "s3cret", "pa55", "MIIE"):
        assert leaked not in out
    assert "All 12 tests passed." in out
    assert redact.redact_obj({"a": ["token: abcdefghijklmnopqrstu"]}) == {
        "a": ["token: [REDACTED]"]
    }


@pytest.mark.parametrize(
    ("path", "patterns", "expected"),
    [
        ("docs/a/b.md", ["docs/**"], True),
        ("README.md", ["*.md"], True),
        ("pkg/notes.md", ["*.md"], True),
        ("src/docs/x.py", ["docs/**"], False),
        ("src/app.py", ["*.md", "docs/**"], False),
        ("a/__pycache__/x.pyc", ["**/__pycache__/**"], True),
        ("CHANGELOG", ["CHANGE?OG"], True),
    ],
)
def test_path_globs_have_gitignore_meaning(path: str, patterns: list[str], expected: bool) -> None:
    assert globs.path_matches(path, patterns) is expected


def test_a_malformed_glob_is_reported_only_once_no_earlier_glob_matched() -> None:
    patterns = ["*.md", "src/[oops", "tests/**"]
    assert globs.path_matches("README.md", patterns) is True
    assert globs.path_matches("a/b.md", []) is False
    with pytest.raises(globs.PatternError):
        globs.path_matches("tests/test_app.py", patterns)


@pytest.mark.parametrize(
    ("branch", "expected"),
    [
        ("main", "main"),
        ("release/1.2", "release/*"),
        ("hotfix-7", "re:^hotfix-\\d+$"),
        ("mainline", None),
        ("feature/main", None),
    ],
)
def test_branch_rules_match_names_globs_and_regexes(branch: str, expected: str | None) -> None:
    rules = ["main", "release/*", "re:^hotfix-\\d+$"]
    assert globs.matching_branch_rule(branch, rules) == expected


def test_malformed_patterns_raise_a_pattern_error() -> None:
    with pytest.raises(globs.PatternError):
        globs.compile_path_glob("docs/[a")
    with pytest.raises(globs.PatternError):
        globs.compile_branch_pattern("re:(")


def test_atomic_write_gives_the_mode_a_plain_write_would(tmp_path: Path) -> None:
    import os

    target = tmp_path / "verdict.json"
    atomic.write_text_atomic(target, "{}")
    plain = tmp_path / "plain.json"
    plain.write_text("{}")
    assert os.stat(target).st_mode & 0o777 == os.stat(plain).st_mode & 0o777


@pytest.mark.parametrize("data", [b"", b"abc", "caf\u00e9 \u2603".encode(), bytes(range(256)) * 40])
def test_sha256_hex_is_hashlibs_digest(data: bytes) -> None:
    assert paths.sha256_hex(data) == hashlib.sha256(data).hexdigest()
