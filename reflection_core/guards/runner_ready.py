"""Can the project's test command run here, and what to install when it cannot.

The tests-ran gate and `reflection doctor` both name the missing piece instead of
advising a command that fails (`python -m pytest` without pytest: "No module named
pytest"). Rules as data: a command's program -> what provides it.
"""

from __future__ import annotations

import shlex
import sys

# program -> how to get it (shown after "install ...")
PROGRAMS: dict[str, str] = {
    "npm": "Node.js, which brings npm (https://nodejs.org or your package manager)",
    "npx": "Node.js, which brings npx",
    "yarn": "yarn (corepack enable)",
    "pnpm": "pnpm (corepack enable)",
    "bun": "bun",
    "go": "Go (https://go.dev/dl or your package manager)",
    "cargo": "Rust with cargo (https://rustup.rs)",
    "make": "make (e.g. apt-get install make, xcode-select --install)",
    "tox": "tox into the environment you run it from",
    "nox": "nox into the environment you run it from",
}


def program_of(command: str) -> str | None:
    """The program a test command runs, past `reflection run --` and VAR=value words."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if words[:3] == ["reflection", "run", "--"]:
        words = words[3:]
    while words and "=" in words[0] and not words[0].startswith("-"):
        words = words[1:]
    return words[0] if words else None


def uses_pytest(command: str) -> bool:
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    return "pytest" in words or "py.test" in words or any(w.endswith("/pytest") for w in words)


def in_pre_commits_environment(prefix: str) -> bool:
    """The interpreter is one the pre-commit framework built for a pinned hook repository
    (`~/.cache/pre-commit/repo.../py_env-python3.12`): not where the project's tests run."""
    import os

    return os.path.basename(prefix.rstrip(os.sep)).startswith("py_env-")


def missing(command: str | None, python: str | None = None) -> str | None:
    """What to install before `command` can run here, as one line; None when nothing is missing.

    pytest must be importable by this interpreter (the one the hooks run): its runs are
    recorded by the plugin installed beside reflection.
    """
    if not command:
        return None
    import importlib.util  # here: a refused commit or push asks, not every hook that imports this
    import shutil

    python = python or sys.executable
    if uses_pytest(command) and in_pre_commits_environment(sys.prefix):
        return (
            f"this hook runs from pre-commit's own environment ({sys.prefix}), which cannot "
            "record your test runs: install reflection where your tests run (its pytest "
            "plugin records them there), or use the local hooks `reflection init "
            "--pre-commit` writes"
        )
    if uses_pytest(command) and importlib.util.find_spec("pytest") is None:
        quoted = shlex.quote(python)
        return f"pytest is not installed for {python}: {quoted} -m pip install pytest"
    program = program_of(command)
    if program is None or program.startswith(("python", "pytest", "./", "/")):
        return None
    if program in PROGRAMS and shutil.which(program) is None:
        return f"`{program}` is not on PATH, so `{command}` cannot run: install {PROGRAMS[program]}"
    return None
