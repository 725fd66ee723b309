"""`reflection init --gemini / --opencode` and their doctor checks, one entry per host.

Each entry says which files init merges (pure text-in, text-out merges, like
merge.py) and what doctor checks. Claude Code and Codex predate this table and
live in init.py / doctor.py.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from reflection_core.install import merge
from reflection_core.install.doctor import Finding
from reflection_core.install.launcher import SHARED_ARGV, SHARED_COMMAND

Merge = Callable[[str | None], str]
OPENCODE_PLUGIN = Path(".opencode") / "plugins" / "reflection.js"
OPENCODE_MARKER = "// reflection for OpenCode:"
GEMINI_SETTINGS = Path(".gemini") / "settings.json"


def gemini_hook_entries(command: str = "reflection") -> list[merge.HookEntry]:
    """Gemini CLI's events for ours; its timeouts are milliseconds."""
    host = "--host gemini"
    return [
        merge.HookEntry("BeforeAgent", f"{command} hook user-prompt-submit {host}", timeout=30000),
        merge.HookEntry("AfterAgent", f"{command} hook stop {host}", timeout=60000),
        merge.HookEntry("SessionEnd", f"{command} hook session-end {host}", timeout=5000),
        merge.HookEntry(
            "AfterTool",
            f"{command} hook post-tool-use {host}",
            matcher="write_todos",
            timeout=30000,
        ),
    ]


def opencode_plugin(argv: list[str] | None = None) -> str:
    """The plugin, spawning `argv` + the hook's words (default: the shared launcher)."""
    template = (
        resources.files("reflection_core.data")
        .joinpath("opencode_plugin.js")
        .read_text(encoding="utf-8")
    )
    return template.replace("__REFLECTION_COMMAND__", json.dumps(argv or SHARED_ARGV))


def _merge_opencode_plugin(command: str) -> Merge:
    argv = SHARED_ARGV if command == SHARED_COMMAND else shlex.split(command)

    def merge_fn(text: str | None) -> str:
        if text is not None and not text.startswith(OPENCODE_MARKER):
            raise merge.MergeError(
                f"{OPENCODE_PLUGIN} exists and was not written by reflection; move it aside"
            )
        return opencode_plugin(argv)

    return merge_fn


@dataclass(frozen=True)
class HostInstall:
    name: str
    files: Callable[[str], list[tuple[Path, Merge]]]  # command -> (repo-relative path, merge)
    notes: tuple[str, ...] = ()


HOST_INSTALLS: dict[str, HostInstall] = {
    "gemini": HostInstall(
        "gemini",
        lambda command: [
            (
                GEMINI_SETTINGS,
                lambda text: merge.merge_hook_settings(
                    text, gemini_hook_entries(command), str(GEMINI_SETTINGS)
                ),
            )
        ],
        (
            "Gemini CLI fingerprints project hooks and warns before it runs a new or "
            "changed one: accept reflection's hooks once.",
        ),
    ),
    "opencode": HostInstall(
        "opencode",
        lambda command: [(OPENCODE_PLUGIN, _merge_opencode_plugin(command))],
        ("OpenCode loads .opencode/plugins/ at startup: restart it to pick the plugin up.",),
    ),
}


def check_gemini(root: Path, home: Path) -> list[Finding]:
    wanted = {(e.event, " ".join(e.command.split()[1:])) for e in gemini_hook_entries()}
    found: set[tuple[str, str]] = set()
    for path in (root / GEMINI_SETTINGS, home / GEMINI_SETTINGS):
        try:
            settings = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            continue
        except (OSError, ValueError) as exc:
            return [
                Finding(
                    "problem",
                    "gemini cli",
                    f"{path} is unreadable or not JSON ({exc}); Gemini CLI ignores it",
                    f"fix {path} by hand, then `reflection init --gemini`",
                )
            ]
        hooks = settings.get("hooks") if isinstance(settings, dict) else None
        for event, groups in hooks.items() if isinstance(hooks, dict) else []:
            for group in groups if isinstance(groups, list) else []:
                for hook in group.get("hooks") or [] if isinstance(group, dict) else []:
                    command = hook.get("command") if isinstance(hook, dict) else None
                    if isinstance(command, str) and "--host gemini" in command:
                        found.add((event, " ".join(command.split()[1:])))
    if not found:
        return []
    missing = sorted({event for event, _ in wanted - found})
    if missing:
        return [
            Finding(
                "warn",
                "gemini cli",
                f"reflection hooks missing for: {', '.join(missing)}",
                "reflection init --gemini",
            )
        ]
    return [Finding("ok", "gemini cli", "all reflection hooks registered")]


def check_opencode(root: Path, home: Path) -> list[Finding]:
    path = root / OPENCODE_PLUGIN
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except OSError as exc:
        return [Finding("problem", "opencode", f"{path} unreadable: {exc}", None)]
    if not text.startswith(OPENCODE_MARKER):
        return [Finding("warn", "opencode", f"{path} was not written by reflection", None)]
    if text != opencode_plugin():
        return [
            Finding(
                "warn",
                "opencode",
                f"{path} is from another reflection version or install",
                "reflection init --opencode",
            )
        ]
    return [Finding("ok", "opencode", f"{path} present and current")]


def check_hosts(root: Path, home: Path) -> list[Finding]:
    return check_gemini(root, home) + check_opencode(root, home)
