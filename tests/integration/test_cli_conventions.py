"""CLI conventions: `--help` only helps, documented options exist, exit codes match output,
and the README's command list is the CLI's."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest

from reflection_core.cli.main import COMMANDS, cli
from reflection_core.hook_dispatch import AGENT_EVENTS, EVENTS

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def reflection(*args: str, cwd: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reflection_core", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("event", [*AGENT_EVENTS, "pre-commit", "pre-push"])
def test_help_on_a_hook_prints_help_and_runs_nothing(event: str, git_repo: Path) -> None:
    result = reflection("hook", event, "--help", cwd=git_repo)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Usage: reflection hook"), result.stdout
    assert "--host NAME" in result.stdout
    assert not (git_repo / ".reflection").exists()  # no verdict, no record
    listed = reflection("verdict", "list", "--json", cwd=git_repo)
    assert "skipped" not in listed.stdout


def test_the_documented_host_option_is_a_real_option(git_repo: Path) -> None:
    unknown = reflection("hook", "--host", "nohost", "stop", cwd=git_repo)
    assert unknown.returncode == 2
    assert "'nohost' is not one of" in unknown.stderr
    payload = {"hook_event_name": "BeforeAgent", "session_id": "s1", "prompt": "*skip me"}
    payload["cwd"] = str(git_repo)
    named = reflection(
        "hook", "--host", "gemini", "user-prompt-submit", cwd=git_repo, stdin=json.dumps(payload)
    )
    assert named.returncode == 0, named.stderr


def test_doctor_outside_a_repository_reports_a_problem_and_exits_1(tmp_path: Path) -> None:
    result = reflection("doctor", cwd=tmp_path)
    assert "not inside a git repository" in result.stdout
    assert "No problems found" not in result.stdout
    assert result.returncode == 1


def test_doctor_exit_status_matches_what_it_printed(tmp_path: Path, git_repo: Path) -> None:
    for cwd in (tmp_path, git_repo):
        result = reflection("doctor", cwd=cwd)
        printed_problems = "[XX]" in result.stdout
        assert result.returncode == (1 if printed_problems else 0), result.stdout


def test_top_level_help_says_what_init_installs_by_default() -> None:
    assert "native git hooks" in COMMANDS["init"][1]
    assert "pre-commit" not in COMMANDS["init"][1]


CTX = click.Context(cli)


def readme_command_lines() -> list[str]:
    block = README.split("## Commands", 1)[1].split("```", 2)[1]
    return [line for line in block.splitlines() if line.startswith("reflection ")]


def cli_command(path: list[str]) -> click.Command:
    command: click.Command = cli
    ctx = click.Context(cli)
    for name in path:
        assert isinstance(command, click.Group), path
        found = command.get_command(ctx, name)
        assert found is not None, f"README names `reflection {' '.join(path)}`, the CLI has not"
        command = found
    return command


def test_every_readme_command_and_option_exists_in_the_cli() -> None:
    for line in readme_command_lines():
        words = line.split("#", 1)[0].split()
        path = [w for w in words[1:3] if re.fullmatch(r"[a-z][a-z-]*", w)]
        if path and path[0] == "check":
            path = path[:2]
        else:
            path = path[:1]
        command = cli_command(path) if path else cli
        known = {opt for param in command.params for opt in getattr(param, "opts", [])}
        for option in re.findall(r"--[a-z][a-z-]*", line.split("#", 1)[0]):
            assert option in known, f"README: `{line.strip()}` documents {option}"


def test_every_cli_command_and_option_is_in_the_readme_list() -> None:
    lines = readme_command_lines()
    for name in COMMANDS:
        command = cli_command([name])
        subs = (
            [(f"{name} {sub}", cli_command([name, sub])) for sub in command.list_commands(CTX)]
            if isinstance(command, click.Group)
            else [(name, command)]
        )
        for shown, sub in subs:
            documented = " ".join(line for line in lines if line.startswith(f"reflection {shown}"))
            assert documented, f"`reflection {shown}` is missing from the README's list"
            for param in sub.params:
                for opt in getattr(param, "opts", []):
                    if opt.startswith("--"):
                        assert opt in documented, f"`reflection {shown}` has {opt}; README lacks it"


def test_the_readme_lists_every_hook_event() -> None:
    block = README.split("## Commands", 1)[1].split("```", 2)[1]
    listed = set(re.findall(r"[a-z]+(?:-[a-z]+)+|stop", block.split("reflection hook", 1)[1]))
    for event in EVENTS:
        assert event in listed, event


def test_eval_in_a_users_project_says_where_the_suites_are(git_repo: Path) -> None:
    result = reflection("eval", cwd=git_repo)
    assert result.returncode == 2
    assert "no suite files" not in result.stderr
    assert "reflection eval --dir" in result.stderr
    assert "REFLECTION_SOURCE" in result.stderr


def test_mcp_without_the_sdk_names_an_install_that_works(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['mcp'] = None; sys.argv = ['reflection', 'mcp']; "
        "from reflection_core.entry import main; sys.exit(main())"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2
    assert "reflection-hooks[mcp]" not in result.stderr
    assert f"{sys.executable} -m pip install 'mcp>=2.0'" in result.stderr
    requirement = re.search(r'mcp = \["([^"]+)"\]', (ROOT / "pyproject.toml").read_text())
    assert requirement is not None and f"'{requirement.group(1)}'" in result.stderr


@pytest.mark.parametrize("check", ["tests", "branch", "verdict"])
def test_every_check_exits_2_outside_a_repository_and_on_a_broken_config(
    check: str, tmp_path: Path, git_repo: Path
) -> None:
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    elsewhere = reflection("check", check, "--ci", cwd=outside)
    assert elsewhere.returncode == 2, elsewhere.stdout + elsewhere.stderr
    assert "not inside a git repository" in elsewhere.stderr
    (git_repo / ".reflection.yaml").write_text("protected_branches: [main\n")
    broken = reflection("check", check, "--ci", cwd=git_repo)
    assert broken.returncode == 2, broken.stdout + broken.stderr
    assert "configuration error" in broken.stderr and ".reflection.yaml" in broken.stderr
