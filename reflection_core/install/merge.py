"""Pure merges for `reflection init`: text in, text out, never clobbering what is there.

Each function takes the current file content (None when the file does not exist)
and returns the new content; returning the input unchanged means "nothing to do",
which is what makes `init` idempotent.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from reflection_core.guards import registry
from reflection_core.install.launcher import hook_words
from reflection_core.lazyre import lazy

GITIGNORE_ENTRY = ".reflection/"
SNIPPET_START = "<!-- reflection:prompt-protocol:start -->"
SNIPPET_END = "<!-- reflection:prompt-protocol:end -->"
HOOK_IDS = registry.hook_ids()


class MergeError(ValueError):
    """An existing file cannot be merged safely; it is left untouched."""


@dataclass(frozen=True)
class HookEntry:
    """One Claude Code / Codex hook registration."""

    event: str
    command: str
    matcher: str | None = None
    timeout: int | None = None


def claude_hook_entries(command: str = "reflection") -> list[HookEntry]:
    """The hooks `reflection init --claude` registers (see the README's hook table)."""
    return [
        HookEntry("UserPromptSubmit", f"{command} hook user-prompt-submit", timeout=30),
        HookEntry("Stop", f"{command} hook stop", timeout=60),
        HookEntry("Stop", f"{command} notify --wait 20", timeout=30),
        HookEntry("SubagentStop", f"{command} hook subagent-stop", timeout=60),
        HookEntry("StopFailure", f"{command} hook stop-failure", timeout=10),
        HookEntry("SessionStart", f"{command} hook session-start", matcher="compact", timeout=30),
        HookEntry("SessionEnd", f"{command} hook session-end", timeout=5),
        HookEntry("PostToolUse", f"{command} hook post-tool-use", matcher="TodoWrite", timeout=30),
    ]


def codex_hook_entries(command: str = "reflection") -> list[HookEntry]:
    """Codex runs Claude-compatible hooks; these are the Claude entries whose event Codex has.

    Codex documents SessionStart, PreToolUse, PermissionRequest, PostToolUse,
    UserPromptSubmit and Stop. Left out, with why: SubagentStop and SessionEnd (no
    such events); SessionStart (ours acts on `source: compact` only, which is not
    among the sources Codex documents: startup, resume, clear); PostToolUse on
    TodoWrite (Codex's plan tool is `update_plan`, which the todo handler does not read).
    """
    codex_events = {"UserPromptSubmit", "Stop"}
    return [e for e in claude_hook_entries(command) if e.event in codex_events]


def merge_hook_settings(text: str | None, entries: Iterable[HookEntry], filename: str) -> str:
    """Add each hook entry to a Claude-style settings JSON unless its command is already there.

    Unrelated keys, other hooks and key order are preserved. A file that is not a
    JSON object (or whose `hooks` is malformed) raises MergeError.
    """
    if text is None or not text.strip():
        settings: dict[str, Any] = {}
    else:
        try:
            loaded = json.loads(text)
        except json.JSONDecodeError as exc:
            raise MergeError(
                f"{filename} is not valid JSON ({exc.msg} at line {exc.lineno}); "
                "fix it by hand, then re-run `reflection init`"
            ) from None
        if not isinstance(loaded, dict):
            raise MergeError(f"{filename} must hold a JSON object")
        settings = loaded
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise MergeError(f"{filename}: 'hooks' must be an object keyed by event name")
    changed = False
    for entry in entries:
        groups = hooks.setdefault(entry.event, [])
        if not isinstance(groups, list):
            raise MergeError(f"{filename}: hooks.{entry.event} must be a list")
        existing = _reflection_hook(groups, entry.command)
        if existing is not None:
            if existing["command"] != entry.command:  # another install's path, or PATH lookup
                existing["command"] = entry.command
                changed = True
            continue
        hook: dict[str, Any] = {"type": "command", "command": entry.command}
        if entry.timeout is not None:
            hook["timeout"] = entry.timeout
        target = _group_for(groups, entry.matcher)
        if target is None:
            group: dict[str, Any] = {}
            if entry.matcher is not None:
                group["matcher"] = entry.matcher
            group["hooks"] = [hook]
            groups.append(group)
        else:
            target["hooks"].append(hook)
        changed = True
    if not changed and text is not None and text.strip():
        return text
    return json.dumps(settings, indent=2, ensure_ascii=False) + "\n"


def _reflection_hook(groups: list[Any], command: str) -> dict[str, Any] | None:
    """The registered hook running the same reflection words as `command`, in any form."""
    wanted = hook_words(command)
    for group in groups:
        if not isinstance(group, dict):
            continue
        for hook in group.get("hooks") or []:
            have = hook.get("command") if isinstance(hook, dict) else None
            if not isinstance(have, str):
                continue
            if have == command or (wanted is not None and hook_words(have) == wanted):
                return hook
    return None


def remove_reflection_hooks(text: str | None, filename: str) -> str | None:
    """Drop reflection's hooks from a personal settings file the shared launcher now covers.

    Returns the text unchanged when there is nothing to drop (or no file)."""
    if text is None or not text.strip():
        return text
    try:
        settings = json.loads(text)
    except json.JSONDecodeError as exc:
        raise MergeError(f"{filename} is not valid JSON ({exc.msg} at line {exc.lineno})") from None
    hooks = settings.get("hooks") if isinstance(settings, dict) else None
    if not isinstance(hooks, dict):
        return text
    changed = False
    for event in list(hooks):
        groups = hooks[event] if isinstance(hooks[event], list) else []
        for group in (g for g in groups if isinstance(g, dict)):
            kept = [h for h in group.get("hooks") or [] if not _is_reflection(h)]
            if kept != group.get("hooks"):
                group["hooks"], changed = kept, True
        hooks[event] = [g for g in groups if not isinstance(g, dict) or g.get("hooks")]
        if not hooks[event]:
            del hooks[event]
    if not changed:
        return text
    return json.dumps(settings, indent=2, ensure_ascii=False) + "\n"


def _is_reflection(hook: object) -> bool:
    command = hook.get("command") if isinstance(hook, dict) else None
    words = hook_words(command) if isinstance(command, str) else None
    return bool(words) and words[0] in ("hook", "notify")  # type: ignore[index]


def _group_for(groups: list[Any], matcher: str | None) -> dict[str, Any] | None:
    for group in groups:
        if (
            isinstance(group, dict)
            and group.get("matcher") == matcher
            and isinstance(group.get("hooks"), list)
        ):
            return group
    return None


def ensure_gitignore(text: str | None) -> str:
    """Add `.reflection/` to .gitignore once."""
    current = text or ""
    for line in current.splitlines():
        if line.strip() in (GITIGNORE_ENTRY, ".reflection", "/.reflection", "/.reflection/"):
            return current
    prefix = current if not current or current.endswith("\n") else current + "\n"
    return f"{prefix}# reflection verdicts and records\n{GITIGNORE_ENTRY}\n"


def append_snippet(text: str | None, snippet: str) -> str:
    """Append the prompt-protocol snippet to a memory file once (detected by its marker)."""
    current = text or ""
    if SNIPPET_START in current:
        return current
    body = snippet.strip()
    if SNIPPET_START not in body:
        body = f"{SNIPPET_START}\n{body}\n{SNIPPET_END}"
    if not current:
        return body + "\n"
    if current.endswith("\n\n"):
        separator = ""
    else:
        separator = "\n" if current.endswith("\n") else "\n\n"
    return f"{current}{separator}{body}\n"


def pre_commit_repo_block(
    command: str,
    stages: Sequence[str] = ("pre-commit",),
    indent: str = "  ",
    item_indent: str = "",
) -> str:
    """The `repo: local` entry running the guards through `command` (the shared launcher)."""
    return registry.local_repo_block(command, stages, indent=indent, item_indent=item_indent)


_TOP_KEY = lazy(r"^[A-Za-z_][\w-]*\s*:")
_REPOS_KEY = lazy(r"^repos\s*:\s*(#.*)?$")


def shared_entries(text: str, command: str) -> str:
    """Entries an older `init` wrote with one person's absolute path to a guard's console
    script (`entry: /home/me/.venv/bin/reflection-tests-ran`), rewritten to `command`'s
    form, which names nobody's path. Comments and everything else stay as they are."""
    ids = "|".join(re.escape(hook_id) for hook_id in HOOK_IDS)
    pattern = re.compile(rf"^(\s*(?:-\s+)?entry:\s*)['\"]?/[^'\"\n]*/({ids})['\"]?\s*$", re.M)
    return pattern.sub(lambda m: f"{m.group(1)}{command} {m.group(2)}", text)


def merge_pre_commit_config(
    text: str | None, command: str, stages: Sequence[str] = ("pre-commit",)
) -> str:
    """Add reflection's hooks to .pre-commit-config.yaml, keeping comments and other repos.

    Insertion is textual (so comments survive): the `repo: local` block goes at the
    end of the block-style `repos:` list, indented like its existing items. Flow-style
    or unusual files are re-emitted through YAML, which loses comments; that case is
    reported by `init` before writing.
    """
    import yaml

    wanted = [g.id for g in registry.GUARDS if any(s in g.stages for s in stages)]
    block = pre_commit_repo_block(command, stages)
    if text is None or not text.strip():
        return "# See https://pre-commit.com for more information\nrepos:\n" + block
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise MergeError(f".pre-commit-config.yaml is not valid YAML: {exc}") from None
    if doc is None:
        doc = {}
    if not isinstance(doc, dict):
        raise MergeError(".pre-commit-config.yaml must be a mapping with a 'repos' list")
    repos = doc.get("repos")
    if repos is not None and not isinstance(repos, list):
        raise MergeError(".pre-commit-config.yaml: 'repos' must be a list")
    present = {
        hook.get("id")
        for repo in repos or []
        if isinstance(repo, dict)
        for hook in repo.get("hooks") or []
        if isinstance(hook, dict)
    }
    if all(hook_id in present for hook_id in wanted):
        return shared_entries(text, command)
    if any(hook_id in present for hook_id in HOOK_IDS):
        raise MergeError(
            ".pre-commit-config.yaml already has some reflection hooks; add the missing ones "
            f"({', '.join(h for h in wanted if h not in present)}) by hand"
        )
    merged = _insert_block(text, command, stages)
    if merged is None:
        doc.setdefault("repos", [])
        doc["repos"].append(yaml.safe_load(block)[0])
        merged = yaml.safe_dump(doc, sort_keys=False)
    return merged


def _insert_block(text: str, command: str, stages: Sequence[str]) -> str | None:
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    start = next((i for i, line in enumerate(lines) if _REPOS_KEY.match(line)), None)
    if start is None:
        if any(line.startswith("repos") for line in lines):
            return None  # flow style (`repos: [...]`): let YAML re-emit it
        return "".join(lines) + "repos:\n" + pre_commit_repo_block(command, stages)
    end = len(lines)
    for i in range(start + 1, len(lines)):
        if _TOP_KEY.match(lines[i]):
            end = i
            break
    item_indent, indent = _list_indents(lines[start + 1 : end])
    block = pre_commit_repo_block(command, stages, indent=indent, item_indent=item_indent)
    insert_at = end
    while insert_at > start + 1 and not lines[insert_at - 1].strip():
        insert_at -= 1
    return "".join(lines[:insert_at]) + block + "".join(lines[insert_at:])


def _list_indents(body: list[str]) -> tuple[str, str]:
    """(indent of '- ' items, indent of keys inside an item) as used by the existing file."""
    for line in body:
        match = re.match(r"^(\s*)-(\s+)repo\s*:", line)
        if match:
            item = match.group(1)
            return item, " " * (1 + len(match.group(2)))
    return "", "  "
