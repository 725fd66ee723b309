"""Hook commands in shared files work for everyone who clones the repository.

A teammate's clone, a recreated virtualenv or nobody's installation at all: the shared
settings run `.reflection-hook`, which finds the user's own reflection or says plainly that
the check did not run. doctor's fixes, followed literally, leave doctor clean.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from reflection_core.guards.registry import HOOK_TYPES, hook_ids
from reflection_core.install.launcher import LAUNCHER, SHARED_COMMAND
from tests.gitutil import fresh_user_env, git, make_bare_remote, make_repo

BIN = Path(sys.executable).parent
TREE = Path(__file__).resolve().parents[2]
SHARED_FILES = (".claude/settings.json", ".codex/hooks.json", ".gemini/settings.json")
ALL_HOSTS = ("init", "--claude", "--codex", "--gemini", "--opencode", "--git-hooks")


def user_env(home: Path, path: str) -> dict[str, str]:
    """A user whose shell PATH is `path`; reflection_core importable only through it."""
    env = fresh_user_env(home, path)
    env.pop("PYTHONPATH", None)
    env.pop("VIRTUAL_ENV", None)
    return env


def run(
    cwd: Path, env: dict[str, str], line: str, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sh", "-c", line], cwd=cwd, env=env, input=stdin, capture_output=True, text=True
    )


def hook_command(repo: Path, rel: str, event: str) -> str:
    settings = json.loads((repo / rel).read_text(encoding="utf-8"))
    return str(settings["hooks"][event][0]["hooks"][0]["command"])


def teammate_installation(tmp_path: Path) -> Path:
    """A second installation of reflection: its own bin dir with its own `reflection`."""
    bin_dir = tmp_path / "teammate-venv" / "bin"
    bin_dir.mkdir(parents=True)
    script = bin_dir / "reflection"
    script.write_text(
        f'#!/bin/sh\nPYTHONPATH={TREE} exec {sys.executable} -m reflection_core "$@"\n'
    )
    script.chmod(0o755)
    return bin_dir


@pytest.fixture
def shared_repo(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "first")
    env = user_env(tmp_path / "home-a", f"{BIN}:/usr/bin:/bin")
    done = run(repo, env, " ".join(["reflection", *ALL_HOSTS]))
    assert done.returncode == 0, done.stderr
    return repo


def test_shared_files_name_nobodys_environment(shared_repo: Path) -> None:
    personal = (str(BIN), sys.prefix, str(Path.home()), "/reflection ")
    for rel in (*SHARED_FILES, ".opencode/plugins/reflection.js", LAUNCHER):
        text = (shared_repo / rel).read_text(encoding="utf-8")
        for fragment in personal:
            assert fragment not in text, f"{rel} names {fragment}"
    for rel in SHARED_FILES:
        settings = json.loads((shared_repo / rel).read_text(encoding="utf-8"))
        for groups in settings["hooks"].values():
            for group in groups:
                for hook in group["hooks"]:
                    assert hook["command"].startswith(SHARED_COMMAND + " "), hook["command"]


def test_a_teammates_clone_runs_the_hooks_with_the_teammates_installation(
    shared_repo: Path, tmp_path: Path
) -> None:
    git(shared_repo, "add", "-A")
    git(shared_repo, "commit", "-q", "--no-verify", "-m", "reflection set up")
    make_bare_remote(tmp_path / "remote.git", shared_repo)
    git(shared_repo, "push", "-q", "--no-verify", "origin", "main")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "-b", "main", str(tmp_path / "remote.git"), str(clone))
    bin_b = teammate_installation(tmp_path)
    env = user_env(tmp_path / "home-b", f"{bin_b}:/usr/bin:/bin")
    payload = json.dumps({"session_id": "t1", "prompt": "*skip", "cwd": str(clone)})
    for rel, event in (
        (".claude/settings.json", "UserPromptSubmit"),
        (".codex/hooks.json", "UserPromptSubmit"),
        (".gemini/settings.json", "BeforeAgent"),
    ):
        ran = run(clone, env, hook_command(clone, rel, event), payload)
        assert ran.returncode == 0, (rel, ran.stderr)
        assert "not installed" not in ran.stdout + ran.stderr, rel


@pytest.mark.parametrize("event", ["user-prompt-submit", "stop", "session-end"])
def test_without_any_installation_the_hook_fails_open_and_says_so(
    shared_repo: Path, tmp_path: Path, event: str
) -> None:
    record = shared_repo / ".git" / "reflection" / "python"
    record.unlink()
    env = user_env(tmp_path / "home-c", "/usr/bin:/bin")
    ran = run(shared_repo, env, f"{SHARED_COMMAND} hook {event}", "{}")
    assert ran.returncode == 0  # never 127, never 2 (which would block a stop)
    message = json.loads(ran.stdout)["systemMessage"]
    assert f"its {event} check did not run" in message
    assert "reflection init" in message


@pytest.mark.parametrize(
    "hook", [*HOOK_TYPES, *(f"{guard_id} " for guard_id in hook_ids())], ids=str.strip
)
def test_without_any_installation_a_git_hook_through_the_launcher_refuses(
    shared_repo: Path, tmp_path: Path, hook: str
) -> None:
    (shared_repo / ".git" / "reflection" / "python").unlink()
    env = user_env(tmp_path / "home-c", "/usr/bin:/bin")
    ran = run(shared_repo, env, f"{SHARED_COMMAND} hook {hook.strip()} origin url", "")
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "refusing" in ran.stderr and "--no-verify" in ran.stderr
    assert ran.stdout == ""  # no agent-host JSON for git


def doctor(repo: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return run(repo, env, "reflection doctor --json")


def test_doctors_fixes_followed_literally_leave_doctor_clean(tmp_path: Path) -> None:
    """The issue's case: settings written by an older init with a venv that is gone."""
    repo = make_repo(tmp_path / "old")
    settings = repo / ".claude" / "settings.json"
    settings.parent.mkdir()
    stale = "/gone/venv/bin/reflection"
    events = {
        "UserPromptSubmit": "hook user-prompt-submit",
        "Stop": "hook stop",
        "SessionEnd": "hook session-end",
    }
    settings.write_text(
        json.dumps(
            {
                "hooks": {
                    event: [{"hooks": [{"type": "command", "command": f"{stale} {words}"}]}]
                    for event, words in events.items()
                }
            }
        )
    )
    local = repo / ".claude" / "settings.local.json"
    local.write_text(
        json.dumps(
            {
                "hooks": {
                    "Stop": [
                        {
                            "hooks": [
                                {"type": "command", "command": "/gone/bin/reflection hook stop"}
                            ]
                        }
                    ]
                }
            }
        )
    )
    env = user_env(tmp_path / "home", f"{BIN}:/usr/bin:/bin")
    before = doctor(repo, env)
    assert before.returncode == 1
    fixes = {f["fix"] for f in json.loads(before.stdout)["findings"] if f["level"] == "problem"}
    assert fixes and all(fix.startswith("reflection ") for fix in fixes), fixes
    assert "reflection init --claude" in fixes
    for number, fix in enumerate(sorted(fixes, reverse=True)):  # `init --claude` first
        followed = run(repo, env, fix.split(" (")[0])
        assert followed.returncode == 0, (fix, followed.stderr)
        if number == 0:
            assert "already set up" not in followed.stdout, fix  # it repairs stale paths
    after = doctor(repo, env)
    report = json.loads(after.stdout)
    assert after.returncode == 0, [f for f in report["findings"] if f["level"] == "problem"]
    assert stale not in settings.read_text() and "/gone/" not in local.read_text()


def test_a_recreated_virtualenv_is_repaired_by_init(shared_repo: Path, tmp_path: Path) -> None:
    record = shared_repo / ".git" / "reflection" / "python"
    record.write_text("/gone/venv/bin/python\n")
    env = user_env(tmp_path / "home", f"{BIN}:/usr/bin:/bin")
    assert doctor(shared_repo, env).returncode == 1
    assert run(shared_repo, env, "reflection init --claude").returncode == 0
    assert Path(record.read_text().strip()).resolve() == Path(sys.executable).resolve()
    assert doctor(shared_repo, env).returncode == 0


def test_the_plugin_launcher_without_python_fails_open_and_says_so(tmp_path: Path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    for tool in ("sh", "dirname"):
        (empty / tool).symlink_to(
            Path("/bin") / tool if Path("/bin", tool).exists() else f"/usr/bin/{tool}"
        )
    ran = subprocess.run(
        ["/bin/sh", str(TREE / "hooks" / "reflection-hook"), "stop"],
        env={"PATH": str(empty), "HOME": str(tmp_path)},
        input="{}",
        capture_output=True,
        text=True,
    )
    assert ran.returncode == 0
    assert "its stop check did not run" in json.loads(ran.stdout)["systemMessage"]
