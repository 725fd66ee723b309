"""`reflection init` and `reflection doctor` run for real in throwaway repos."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from reflection_core.install.launcher import SHARED_COMMAND
from tests.gitutil import git

BIN = Path(sys.executable).parent
CONTRACT_COMMANDS = [
    "init",
    "doctor",
    "hook",
    "score",
    "analyze",
    "run",
    "check",
    "verdict",
    "notify",
    "verify",
    "eval",
    "stats",
    "curate",
    "mcp",
]


def reflection(
    repo: Path, *args: str, home: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "PRE_COMMIT_HOME": str(repo.parent / "pre-commit-home"),
    }
    if home is not None:
        env["HOME"] = str(home)
    return subprocess.run(
        [str(BIN / "reflection"), *args], cwd=repo, env=env, capture_output=True, text=True
    )


def snapshot(repo: Path) -> dict[str, bytes]:
    files = {}
    for path in sorted(repo.rglob("*")):
        rel = path.relative_to(repo).as_posix()
        if path.is_file() and (not rel.startswith(".git/") or rel.startswith(".git/hooks/")):
            files[rel] = path.read_bytes()
    return files


def test_help_lists_every_contract_command(git_repo: Path) -> None:
    out = reflection(git_repo, "--help").stdout
    for name in CONTRACT_COMMANDS:
        assert f"  {name} " in out


def test_init_twice_is_byte_identical(git_repo: Path) -> None:
    first = reflection(
        git_repo, "init", "--claude", "--codex", "--pre-commit", "--pre-push", "--claude-md"
    )
    assert first.returncode == 0, first.stderr
    after_first = snapshot(git_repo)
    second = reflection(
        git_repo, "init", "--claude", "--codex", "--pre-commit", "--pre-push", "--claude-md"
    )
    assert second.returncode == 0, second.stderr
    assert "nothing changed" in second.stdout
    assert snapshot(git_repo) == after_first
    for expected in (
        ".claude/settings.json",
        ".codex/hooks.json",
        ".pre-commit-config.yaml",
        "CLAUDE.md",
        ".git/hooks/pre-push",
        ".git/hooks/pre-commit",
    ):
        assert expected in after_first
    assert b".reflection/" in after_first[".gitignore"]


def test_claude_settings_merge_keeps_unrelated_entries(git_repo: Path) -> None:
    settings = {
        "permissions": {"allow": ["Bash(npm test)"]},
        "hooks": {
            "Stop": [{"hooks": [{"type": "command", "command": "./my-stop.sh"}]}],
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x"}]}],
        },
        "model": "opus",
    }
    path = git_repo / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps(settings), encoding="utf-8")
    assert reflection(git_repo, "init", "--claude").returncode == 0
    merged = json.loads(path.read_text())
    assert merged["permissions"] == settings["permissions"]
    assert merged["model"] == "opus"
    assert merged["hooks"]["PreToolUse"] == settings["hooks"]["PreToolUse"]
    stop_commands = [h["command"] for g in merged["hooks"]["Stop"] for h in g["hooks"]]
    assert "./my-stop.sh" in stop_commands
    assert any(c.endswith("hook stop") for c in stop_commands)
    assert any("notify" in c for c in stop_commands)
    post = merged["hooks"]["PostToolUse"]
    assert post[0]["matcher"] == "TodoWrite"
    assert merged["hooks"]["SessionStart"][0]["matcher"] == "compact"
    assert list(merged) == ["permissions", "hooks", "model"]


def test_malformed_settings_are_reported_and_left_untouched(git_repo: Path) -> None:
    path = git_repo / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text('{"hooks": {,}', encoding="utf-8")
    result = reflection(git_repo, "init", "--claude")
    assert result.returncode == 2
    assert "settings.json is not valid JSON" in result.stderr
    assert "left untouched" in result.stderr
    assert path.read_text() == '{"hooks": {,}'


PRE_COMMIT_CONFIG = """\
# team hooks -- keep this comment
repos:
-   repo: https://github.com/pre-commit/pre-commit-hooks
    rev: v4.6.0
    hooks:
    -   id: trailing-whitespace   # whitespace police

# CI settings below
ci:
    autofix_prs: false
"""


def test_pre_commit_config_merge_keeps_comments_and_repos(git_repo: Path) -> None:
    path = git_repo / ".pre-commit-config.yaml"
    path.write_text(PRE_COMMIT_CONFIG, encoding="utf-8")
    result = reflection(git_repo, "init", "--pre-commit")
    assert result.returncode == 0, result.stderr
    text = path.read_text()
    assert "# team hooks -- keep this comment" in text
    assert "# whitespace police" in text
    assert "# CI settings below" in text
    doc = yaml.safe_load(text)
    assert doc["ci"] == {"autofix_prs": False}
    assert doc["repos"][0]["hooks"][0]["id"] == "trailing-whitespace"
    hooks = doc["repos"][1]["hooks"]
    # The framework runs the commit-stage guards; the push guard is a native hook.
    assert [h["id"] for h in hooks] == ["reflection-protected-commit", "reflection-tests-ran"]
    assert all(h["stages"] == ["pre-commit"] for h in hooks)
    # Shared through git: the entries name nobody's path; the launcher finds each user's
    # installation (no PATH lookup either).
    assert all(h["entry"] == f"sh .reflection-hook hook {h['id']}" for h in hooks)
    assert str(BIN) not in text and (git_repo / ".reflection-hook").is_file()
    validate = subprocess.run(
        [str(BIN / "pre-commit"), "validate-config", str(path)], capture_output=True, text=True
    )
    assert validate.returncode == 0, validate.stdout + validate.stderr
    assert "reflection-native-hook" in (git_repo / ".git" / "hooks" / "pre-push").read_text()
    assert (
        "File generated by pre-commit" in (git_repo / ".git" / "hooks" / "pre-commit").read_text()
    )


def test_the_shared_framework_entries_run_the_guards_through_the_launcher(git_repo: Path) -> None:
    result = reflection(git_repo, "init", "--pre-commit")
    assert result.returncode == 0, result.stderr
    (git_repo / "notes.txt").write_text("x\n")
    subprocess.run(["git", "add", "-A"], cwd=git_repo, check=True)
    env = {
        **os.environ,
        "PATH": os.environ.get("PATH", "").replace(f"{BIN}{os.pathsep}", ""),  # as an IDE
        "PRE_COMMIT_HOME": str(git_repo.parent / "pre-commit-home"),
    }
    commit = subprocess.run(
        ["git", "commit", "-m", "on main"], cwd=git_repo, env=env, capture_output=True, text=True
    )
    assert commit.returncode != 0
    assert "refusing to commit on protected branch" in commit.stdout + commit.stderr


def test_dry_run_prints_diffs_and_changes_nothing(git_repo: Path) -> None:
    before = snapshot(git_repo)
    result = reflection(git_repo, "init", "--dry-run")
    assert result.returncode == 0
    assert "+++ b/.claude/settings.json" in result.stdout
    assert "+++ b/.git/hooks/pre-commit" in result.stdout
    assert "+++ b/.git/hooks/pre-push" in result.stdout
    assert snapshot(git_repo) == before
    framework = reflection(git_repo, "init", "--pre-commit", "--dry-run")
    assert "+++ b/.pre-commit-config.yaml" in framework.stdout
    assert "would run: pre-commit install" in framework.stdout
    assert snapshot(git_repo) == before


def test_claude_md_snippet_is_appended_once_after_existing_text(git_repo: Path) -> None:
    (git_repo / "CLAUDE.md").write_text("# Project notes\nUse uv.\n", encoding="utf-8")
    reflection(git_repo, "init", "--claude-md")
    reflection(git_repo, "init", "--claude-md")
    text = (git_repo / "CLAUDE.md").read_text()
    assert text.startswith("# Project notes\nUse uv.\n")
    assert text.count("reflection:prompt-protocol:start") == 1


def test_native_pre_push_chains_an_existing_hook(git_repo: Path, tmp_path: Path) -> None:
    hooks = git_repo / ".git" / "hooks"
    marker = tmp_path / "old-hook-ran"
    (hooks / "pre-push").write_text(f"#!/bin/sh\ncat > {marker}\nexit 0\n", encoding="utf-8")
    (hooks / "pre-push").chmod(0o755)
    result = reflection(git_repo, "init", "--pre-push")
    assert result.returncode == 0, result.stderr
    assert (hooks / "pre-push.before-reflection").exists()
    assert "reflection-native-hook" in (hooks / "pre-push").read_text()


def test_init_outside_a_repo_is_a_usage_error(tmp_path: Path) -> None:
    result = reflection(tmp_path, "init")
    assert result.returncode == 2
    assert "not inside a git repository" in result.stderr


def test_doctor_reports_a_broken_setup_with_fixes(git_repo: Path, tmp_path: Path) -> None:
    (git_repo / ".reflection.yaml").write_text("stop:\n  max_attempts: many\n", encoding="utf-8")
    settings = git_repo / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text("{oops", encoding="utf-8")
    (git_repo / ".pre-commit-config.yaml").write_text(
        "repos:\n- repo: local\n  hooks:\n  - id: reflection-protected-push\n    name: x\n"
        "    entry: reflection-protected-push\n    language: system\n    stages: [pre-push]\n",
        encoding="utf-8",
    )
    result = reflection(git_repo, "doctor", "--json", home=tmp_path / "home")
    assert result.returncode == 1
    report = json.loads(result.stdout)
    problems = {f["topic"]: f for f in report["findings"] if f["level"] == "problem"}
    assert "stop.max_attempts" in problems["config"]["message"]
    assert problems["claude code"]["fix"]
    assert any(
        f["topic"] == "git hooks" and "pre-push" in f["message"] and f["level"] == "problem"
        for f in report["findings"]
    )


@pytest.mark.parametrize(
    ("text", "fix"),
    [
        (
            "protected_branches: [main\n  foo: : bar\n",
            "correct the YAML syntax in .reflection.yaml at line 2, column 6",
        ),
        (
            "stop:\n  max_attempts: many\n",
            "give `stop.max_attempts` in .reflection.yaml a valid value: expected an integer "
            "(got 'many')",
        ),
        ("stopp: {}\n", "remove or rename `stopp` in .reflection.yaml: it is not a setting"),
        ("- main\n", "edit .reflection.yaml: expected a mapping at the top level"),
    ],
    ids=["yaml-syntax", "bad-value", "unknown-key", "not-a-mapping"],
)
def test_doctors_fix_for_a_broken_config_names_the_problem(
    git_repo: Path, tmp_path: Path, text: str, fix: str
) -> None:
    (git_repo / ".reflection.yaml").write_text(text, encoding="utf-8")
    result = reflection(git_repo, "doctor", "--json", home=tmp_path / "home")
    report = json.loads(result.stdout)
    (problem,) = [f for f in report["findings"] if f["topic"] == "config"]
    assert problem["fix"] == fix


def test_doctor_is_happy_after_init(git_repo: Path, tmp_path: Path) -> None:
    assert reflection(git_repo, "init").returncode == 0
    result = reflection(git_repo, "doctor", home=tmp_path / "home")
    assert result.returncode == 0, result.stdout
    assert "No problems found." in result.stdout


@pytest.mark.parametrize("event", ["UserPromptSubmit", "Stop"])
def test_codex_hooks_use_the_claude_shape(git_repo: Path, event: str) -> None:
    assert reflection(git_repo, "init", "--codex").returncode == 0
    hooks = json.loads((git_repo / ".codex" / "hooks.json").read_text())["hooks"]
    assert hooks[event][0]["hooks"][0]["type"] == "command"
    git(git_repo, "status")


def enable_plugin(home: Path) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"enabledPlugins": {"reflection@team-tools": True}}))


def test_init_never_registers_hooks_the_enabled_plugin_already_runs(
    git_repo: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    enable_plugin(home)
    result = reflection(git_repo, "init", home=home)
    assert result.returncode == 0, result.stderr
    assert not (git_repo / ".claude" / "settings.json").exists()
    assert "the reflection plugin is enabled" in result.stdout
    assert (
        "hooks come from the reflection plugin" in reflection(git_repo, "doctor", home=home).stdout
    )


def test_doctor_finds_double_registration_and_path_dependent_entries(
    git_repo: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    settings = git_repo / ".claude" / "settings.json"
    settings.parent.mkdir()
    bare = {"type": "command", "command": "reflection hook stop"}
    settings.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [bare]}]}}))
    report = reflection(git_repo, "doctor", home=home).stdout
    assert "runs `reflection`: this file is shared through git" in report
    enable_plugin(home)
    doubled = reflection(git_repo, "doctor", home=home)
    assert doubled.returncode == 1
    assert "every hook runs twice" in doubled.stdout


def test_claude_settings_run_the_shared_launcher(git_repo: Path) -> None:
    """The shared settings name no path; this clone's record names this interpreter."""
    assert reflection(git_repo, "init", "--claude").returncode == 0
    settings = json.loads((git_repo / ".claude" / "settings.json").read_text())
    for groups in settings["hooks"].values():
        for group in groups:
            for hook in group["hooks"]:
                assert hook["command"].startswith(SHARED_COMMAND + " "), hook["command"]
    record = git_repo / ".git" / "reflection" / "python"
    assert Path(record.read_text().strip()).is_absolute()


def test_doctor_checks_the_codex_feature_flag_and_trust(git_repo: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert reflection(git_repo, "init", "--codex").returncode == 0
    hooks = json.loads((git_repo / ".codex" / "hooks.json").read_text())["hooks"]
    assert set(hooks) == {"UserPromptSubmit", "Stop"}  # the events Codex has
    report = reflection(git_repo, "doctor", home=home).stdout
    assert "codex_hooks = true" in report and "not trusted" in report
    config = home / ".codex" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        f'[features]\ncodex_hooks = true\n\n[projects."{git_repo}"]\ntrust_level = "trusted"\n'
    )
    fixed = reflection(git_repo, "doctor", home=home).stdout
    assert "codex_hooks = true" not in fixed and "not trusted" not in fixed


def test_init_exits_non_zero_with_the_fix_when_pre_commit_cannot_install(
    git_repo: Path,
) -> None:
    git(git_repo, "config", "core.hooksPath", ".githooks")  # pre-commit refuses to install here
    result = reflection(git_repo, "init", "--pre-commit")
    assert result.returncode == 1
    assert "`pre-commit install` failed" in result.stderr
    assert "Fix: git config --unset-all core.hooksPath" in result.stderr


def test_init_names_config_commands_it_does_not_trust_and_never_trusts_them(
    git_repo: Path,
) -> None:
    (git_repo / ".reflection.yaml").write_text(
        "gates:\n  - name: lint\n    run: make lint\n", encoding="utf-8"
    )
    first = reflection(git_repo, "init")
    assert first.returncode == 0, first.stderr
    assert "`make lint`" in first.stdout and "reflection trust" in first.stdout
    shown = reflection(git_repo, "trust", "--show").stdout
    assert "not trusted" in shown
    assert reflection(git_repo, "trust").returncode == 0
    again = reflection(git_repo, "init")
    assert "reflection trust" not in again.stdout, again.stdout


def test_hooks_in_a_hooks_directory_the_repository_shares_name_nobodys_paths(
    git_repo: Path,
) -> None:
    # `core.hooksPath = .githooks` (committed with the project): the hooks run through the
    # shared launcher, and still refuse a commit on the protected branch.
    git(git_repo, "config", "core.hooksPath", ".githooks")
    result = reflection(git_repo, "init")
    assert result.returncode == 0, result.stderr
    for hook_type in ("pre-commit", "pre-push"):
        script = (git_repo / ".githooks" / hook_type).read_text()
        assert sys.executable not in script and str(BIN) not in script, script
        assert ".reflection-hook" in script
    (git_repo / "notes.txt").write_text("x\n")
    git(git_repo, "add", "notes.txt")
    refused = subprocess.run(
        ["git", "commit", "-q", "-m", "on main"], cwd=git_repo, capture_output=True, text=True
    )
    assert refused.returncode != 0 and "protected branch" in refused.stderr, refused.stderr


def test_hooks_in_the_git_dir_keep_this_clones_interpreter(git_repo: Path) -> None:
    result = reflection(git_repo, "init")
    assert result.returncode == 0, result.stderr
    script = (git_repo / ".git" / "hooks" / "pre-commit").read_text()
    assert "PYTHON=" in script and ".reflection-hook" not in script


def test_a_hooks_directory_every_repository_uses_is_left_alone_with_the_way_out(
    git_repo: Path, tmp_path: Path
) -> None:
    # `core.hooksPath` in the user's global config: hooks written there would guard (and
    # refuse commits in) every repository of the user.
    home = tmp_path / "home"
    home.mkdir()
    shared = tmp_path / "global-hooks"
    (home / ".gitconfig").write_text(f"[core]\n\thooksPath = {shared}\n")
    refused = reflection(git_repo, "init", "--git-hooks", home=home)
    assert refused.returncode != 0
    assert "every repository of yours uses" in refused.stderr
    assert not shared.exists() or not any(shared.iterdir())
    fix = "git config core.hooksPath .git/hooks"
    assert fix in refused.stderr
    git(git_repo, "config", "core.hooksPath", ".git/hooks")
    done = reflection(git_repo, "init", "--git-hooks", home=home)
    assert done.returncode == 0, done.stderr
    assert (git_repo / ".git" / "hooks" / "pre-commit").is_file()


def test_a_relative_hooks_path_in_the_global_config_is_each_repositorys_own(
    git_repo: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[core]\n\thooksPath = .githooks\n")
    result = reflection(git_repo, "init", "--git-hooks", home=home)
    assert result.returncode == 0, result.stderr
    assert (git_repo / ".githooks" / "pre-commit").is_file()
