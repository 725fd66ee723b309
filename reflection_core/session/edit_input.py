"""Hosts' edit-tool inputs -> the one shape the core reads: Claude Code's key names.

The core (evidence.py, task.py, security.py, trace.py) reads an edit's text from
`file_path`, `old_string`/`new_string`, or `edits: [{old_string, new_string}]` (an entry
may name its own `file_path`). Each host reader adds that shape beside the host's own
keys, so a comment-only edit, or an edit taken back, reads the same on every host.
A patch (Codex's and OpenCode's `apply_patch`) gets `edits` only when every part of it
gives its old and new text: otherwise it stays a change to every file it names, as
before, never a smaller one. Pure: no I/O.
"""

from __future__ import annotations

import re

from reflection_core.lazyre import lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# A file the patch format names: `*** Update/Add/Delete File: PATH`, `*** Move to: PATH`.
_PATCH_FILE = lazy(
    r"^\*\*\* (?:Update|Add|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$", re.M
)
_UPDATE = "*** Update File: "
# Lines of the format that carry no text of a hunk.
_FRAME = frozenset({"*** Begin Patch", "*** End Patch", "*** End of File"})
# A hunk line's first character -> (in the old text, in the new text). An empty line is
# an empty context line, as Codex's own parser reads it.
_HUNK_LINE: dict[str, tuple[bool, bool]] = {
    " ": (True, True),
    "": (True, True),
    "-": (True, False),
    "+": (False, True),
}


def patch_files(text: str) -> tuple[str, ...]:
    """Every file a patch names (updated, added, deleted, or moved to), in order."""
    return tuple(dict.fromkeys(a or b for a, b in _PATCH_FILE.findall(text)))


def patch_edits(text: str) -> list[dict[str, str]] | None:
    """One `{file_path, old_string, new_string}` per hunk of a patch that only updates
    files; None when any part gives no old text to compare (a file added, deleted or
    moved, a file with no hunk, a line the format does not have), so the whole patch
    stays a change to every file it names."""
    hunks = _update_hunks(text)
    if not hunks or not _every_file_changed(hunks):
        return None
    return [
        {
            "file_path": path,
            "old_string": "\n".join(line[1:] for line in lines if _HUNK_LINE[line[:1]][0]),
            "new_string": "\n".join(line[1:] for line in lines if _HUNK_LINE[line[:1]][1]),
        }
        for path, lines in hunks
        if lines
    ]


def _update_hunks(text: str) -> list[tuple[str, list[str]]] | None:
    """(file, its lines) per hunk, or None at the first line that is not an update's."""
    hunks: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line in _FRAME:
            continue
        if line.startswith(_UPDATE):
            hunks.append((line[len(_UPDATE) :].strip(), []))
        elif line.startswith("*** ") or not hunks:
            if line.strip():
                return None  # Add File, Delete File, Move to, or text before any file
        elif line.startswith("@@"):
            hunks.append((hunks[-1][0], []))
        elif line[:1] in _HUNK_LINE:
            hunks[-1][1].append(line)
        else:
            return None
    return hunks


def _every_file_changed(hunks: list[tuple[str, list[str]]]) -> bool:
    """Each file the patch updates has a line it takes out or puts in."""
    changed = {path for path, lines in hunks if any(line[:1] in ("-", "+") for line in lines)}
    return changed == {path for path, _ in hunks}


def with_patch_edits(args: dict[str, Any], patch: str) -> dict[str, Any]:
    """`args` with the patch's hunks as `edits` when every hunk reads (`patch_edits`)."""
    edits = patch_edits(patch)
    return {**args, "edits": edits} if edits else args


def renamed(args: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """`args` with each host key (`names`: host key -> core key) also under the core's
    name, in each entry of `edits` too; the host's own keys stay."""
    out = _renamed_flat(args, names)
    edits = args.get("edits")
    if isinstance(edits, list):
        out["edits"] = [_renamed_flat(e, names) if isinstance(e, dict) else e for e in edits]
    return out


def _renamed_flat(args: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    out = dict(args)
    for host_key, core_key in names.items():
        if host_key in args and core_key not in args:
            out[core_key] = args[host_key]
    return out
