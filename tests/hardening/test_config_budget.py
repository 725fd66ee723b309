"""Configs cannot hold the hooks: no YAML aliases, no files over 1 MB, short error
messages, one parse per process, and a deadline on the git guards that fails closed.

Bounded behaviour is asserted (refused, with a short message), never a duration.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from reflection_core import config
from tests.gitutil import GIT_ENV, git, make_bare_remote, make_repo

REFLECTION = str(Path(sys.executable).with_name("reflection"))


def alias_bomb() -> str:
    """About 400 bytes that expand to 9**9 strings wherever the structure is walked."""
    lines = ["judge:", "  routing:", '    a: &a ["lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"    {name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def repo_with(tmp_path: Path, yaml: str) -> Path:
    return make_repo(tmp_path / "repo", files={".reflection.yaml": yaml})


def test_the_alias_bomb_under_judge_routing_is_refused_with_a_short_message(
    tmp_path: Path,
) -> None:
    assert len(alias_bomb().encode()) < 450
    repo = repo_with(tmp_path, alias_bomb())
    with pytest.raises(config.ConfigError) as caught:
        config.load(repo)
    message = str(caught.value)
    assert "aliases (*name) are not allowed" in message
    assert len(message) < len(str(repo)) + 260


def test_an_anchor_without_an_alias_still_loads(tmp_path: Path) -> None:
    repo = repo_with(tmp_path, "stop: &stop\n  max_attempts: 4\n")
    assert config.load(repo).get("stop.max_attempts") == 4


def test_a_config_over_one_megabyte_is_refused_before_parsing(tmp_path: Path) -> None:
    big = "tests:\n  ledger: false\n" + "# padding\n" * 110_000
    repo = repo_with(tmp_path, big)
    with pytest.raises(config.ConfigError, match="larger than 1 MB; refused"):
        config.load(repo)


@pytest.mark.parametrize(
    "yaml",
    [
        "judge:\n  routing:\n    a: [" + ", ".join(["x"] * 50_000) + "]\n",
        "gates_by_task:\n  " + "x" * 100_000 + ": [tests]\n",
        "stop:\n  max_attempts: " + "9" * 5000 + "\n",
        "stop: " + "[" * 5000 + "]" * 5000 + "\n",
    ],
    ids=["large-list", "long-key", "long-integer", "deep-nesting"],
)
def test_error_messages_summarise_what_they_got(tmp_path: Path, yaml: str) -> None:
    repo = repo_with(tmp_path, yaml)
    with pytest.raises(config.ConfigError) as caught:
        config.load(repo)
    assert len(str(caught.value)) < len(str(repo)) + 260


def test_a_config_is_parsed_once_per_process(tmp_path: Path, monkeypatch: Any) -> None:
    repo = repo_with(tmp_path, "stop:\n  max_attempts: 4\n")
    parsed: list[Path] = []
    real_parse = config._parse

    def counting_parse(source: Path, raw: bytes | None = None) -> Any:
        parsed.append(source)
        return real_parse(source, raw)

    monkeypatch.setattr(config, "_parse", counting_parse)
    first = config.load(repo, use_cache=True)
    second = config.load(repo)
    assert first.data == second.data and first.data is not second.data
    assert len(parsed) <= 1  # 0 when another process already cached it on disk
    (repo / ".reflection.yaml").write_text("stop:\n  max_attempts: 5\n")
    assert config.load(repo).get("stop.max_attempts") == 5  # an edit is seen


def test_a_broken_config_is_reported_the_same_each_time_it_is_asked(tmp_path: Path) -> None:
    repo = repo_with(tmp_path, alias_bomb())
    messages = []
    for _ in range(2):
        with pytest.raises(config.ConfigError) as caught:
            config.load(repo)
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


def pushed_repo(tmp_path: Path, yaml: str) -> Path:
    repo = make_repo(tmp_path / "repo", files={".reflection.yaml": yaml, "a.txt": "a\n"})
    make_bare_remote(tmp_path / "remote.git", repo)
    git(repo, "push", "-q", "origin", "main")
    for hook in ("pre-commit", "pre-push"):
        script = repo / ".git" / "hooks" / hook
        script.write_text(f'#!/bin/sh\nexec "{REFLECTION}" hook {hook} "$@"\n')
        script.chmod(0o755)
    git(repo, "switch", "-q", "-c", "feature")
    return repo


def git_run(repo: Path, *argv: str, env: dict[str, str] | None = None) -> Any:
    return subprocess.run(
        ["git", *argv],
        cwd=repo,
        env={**os.environ, **GIT_ENV, **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_push_with_the_alias_bomb_in_the_config_is_refused_with_the_reason(
    tmp_path: Path,
) -> None:
    repo = pushed_repo(tmp_path, "tests:\n  ledger: false\n")
    (repo / ".reflection.yaml").write_text(alias_bomb())
    git(repo, "commit", "-qam", "bomb", "--no-verify")
    result = git_run(repo, "push", "origin", "HEAD:feature")
    assert result.returncode != 0
    assert "aliases (*name) are not allowed" in result.stderr
    assert len(result.stderr) < 2000


@pytest.mark.parametrize("action", ["commit", "push"])
def test_the_git_guards_fail_closed_when_their_deadline_passes(tmp_path: Path, action: str) -> None:
    repo = pushed_repo(tmp_path, "tests:\n  ledger: false\n")
    (repo / "b.txt").write_text("b\n")
    git(repo, "add", "b.txt")
    tight = {"REFLECTION_HOOK_DEADLINE": "0.001"}
    if action == "commit":
        result = git_run(repo, "commit", "-qm", "b", env=tight)
    else:
        git(repo, "commit", "-qm", "b", "--no-verify")
        result = git_run(repo, "push", "origin", "HEAD:feature", env=tight)
    assert result.returncode != 0
    assert f"deadline of 0.001s passed; refusing the {action} (fails closed)" in result.stderr
