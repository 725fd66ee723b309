"""The shared hook launcher: what agent hosts' shared settings run instead of anyone's path.

`.claude/settings.json`, `.codex/hooks.json`, `.gemini/settings.json` and the OpenCode
plugin travel through git, so they must not name one person's virtualenv. They run
`.reflection-hook` at the repository root (also shared), which finds the reflection of
whoever runs the agent; the one per-user fact, the interpreter `reflection init` ran
with, is recorded in the git dir (`<git common dir>/reflection/python`), which git
never shares.
"""

from __future__ import annotations

import subprocess
from importlib import resources
from pathlib import Path

LAUNCHER = ".reflection-hook"
MARKER = "# reflection's hook launcher, written by `reflection init`."
# Hosts run hook commands through a shell from somewhere inside the repository.
SHARED_COMMAND = f'sh "$(git rev-parse --show-toplevel)/{LAUNCHER}"'
# The pre-commit framework runs a local hook's entry from the repository root.
FRAMEWORK_COMMAND = f"sh {LAUNCHER} hook"
# The same for hosts that spawn an argv (OpenCode's plugin): the hook's words follow it.
SHARED_ARGV = ["sh", "-c", f'exec {SHARED_COMMAND} "$@"', "reflection"]


def launcher_script() -> str:
    return resources.files("reflection_core.data").joinpath("launcher.sh").read_text("utf-8")


def is_ours(text: str | None) -> bool:
    return text is not None and MARKER in text.split("\n", 3)[1]


def record_path(root: Path) -> Path | None:
    """`<git common dir>/reflection/python`: this clone's per-user record (never shared)."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--path-format=absolute", "--git-common-dir"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return Path(out) / "reflection" / "python"


def hook_words(command: str) -> list[str] | None:
    """The words after the program of a reflection hook command, None when it is not one.

    `reflection hook stop`, `/abs/bin/reflection hook stop`, `/abs/python -m reflection_core
    hook stop` and the launcher form all give `["hook", "stop"]`.
    """
    import shlex

    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if len(words) >= 2 and words[0] == "sh" and words[1].endswith(f"/{LAUNCHER}"):
        return words[2:]
    if words and words[0].rsplit("/", 1)[-1] == "reflection":
        return words[1:]
    if len(words) >= 3 and words[1:3] == ["-m", "reflection_core"]:
        return words[3:]
    return None


def is_shared_form(command: str) -> bool:
    return command.startswith(SHARED_COMMAND + " ")
