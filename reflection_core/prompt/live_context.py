"""Live context (mode 2): a short prompt right after a menu leans on that menu.

When the previous assistant turn ends with a list or table, "the second one but
keep the old name" is well specified although it is short, so it earns a bonus.
"""

from __future__ import annotations

import re

from reflection_core.prompt.signals import LazyPattern

TAIL_CHARS = 1024
MAX_PROMPT_WORDS = 15
BONUS = 1.0

_LIST_MARKER = LazyPattern(r"^[ \t]*(?:\d{1,3}[.)]|\(?[a-hA-H][.)]|[-*•+]|\[[ xX]\])[ \t]+\S", re.M)
_TABLE_ROW = LazyPattern(r"^[ \t]*\|.*\|[ \t]*$", re.MULTILINE)
_TABLE_RULE = LazyPattern(r"^[ \t]*(?:\|[ \t]*)?:?-{3,}", re.MULTILINE)


def ends_with_menu(prev_assistant: str | None) -> bool:
    """Pure: does the last ~1 KB of the previous message hold >= 2 list items or table rows?"""
    if not prev_assistant:
        return False
    tail = prev_assistant[-TAIL_CHARS:]
    items = len(_LIST_MARKER.findall(tail))
    rows = len(_TABLE_ROW.findall(tail)) - len(_TABLE_RULE.findall(tail))
    return items >= 2 or rows >= 2


def applies(prompt_words: int, prev_assistant: str | None) -> bool:
    """The bonus applies to short prompts (<= 15 words) answering a menu."""
    return prompt_words <= MAX_PROMPT_WORDS and ends_with_menu(prev_assistant)
