"""What a program printed to a terminal, as plain text.

Runners colour their summaries (`\\x1b[31m7 failed\\x1b[39m`) when they think a terminal
or FORCE_COLOR asks for it; the escape codes split the words every reading of that output
looks for. And the other way round: what reflection prints of an agent's words goes
through `printable`, so those words cannot drive the user's terminal.
"""

from __future__ import annotations

import re

from reflection_core.lazyre import lazy

_ANSI = lazy(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\r")


def strip_ansi(text: str) -> str:
    """Terminal colours, cursor moves and carriage returns removed."""
    if "\x1b" not in text and "\r" not in text:
        return text
    return _ANSI.sub("", text)


# C0 controls except tab and newline, DEL, and the C1 controls (U+0080-U+009F: a UTF-8
# terminal may read U+009B as CSI, U+009D as OSC).
_CONTROLS = lazy(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _escaped(match: re.Match[str]) -> str:
    return f"\\x{ord(match.group()):02x}"


def printable(text: str) -> str:
    """`text` safe to write to a terminal: every control character but newline and tab is
    shown as `\\xNN`, so words an agent wrote cannot drive the terminal (an OSC 52 sequence
    would set the clipboard, OSC 0 the window title)."""
    return _CONTROLS.sub(_escaped, text)


def _json_escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def printable_json(text: str) -> str:
    """JSON text (from `json.dumps`) with the control characters json leaves raw (DEL, C1)
    written as `\\u00NN` escapes: still the same JSON, safe on a terminal. json.dumps already
    escapes C0, so outside strings only ASCII structure is left for the pattern to skip."""
    return _CONTROLS.sub(_json_escaped, text)
