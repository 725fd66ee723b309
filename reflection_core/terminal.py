"""What a program printed to a terminal, as plain text.

Runners colour their summaries (`\\x1b[31m7 failed\\x1b[39m`) when they think a terminal
or FORCE_COLOR asks for it; the escape codes split the words every reading of that output
looks for.
"""

from __future__ import annotations

from reflection_core.lazyre import lazy

_ANSI = lazy(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\r")


def strip_ansi(text: str) -> str:
    """Terminal colours, cursor moves and carriage returns removed."""
    if "\x1b" not in text and "\r" not in text:
        return text
    return _ANSI.sub("", text)
