"""Scope governor: does the prompt fit one session, or is it several tasks?

Deterministic and separate from the score. Several tasks (an embedded list,
"items 3-7", "(1) ... (2) ...", "and also ...", three or more action verbs)
become a numbered task table and a request for the order, unless the user
asked for everything at once ("all together", "in one go").
"""

from __future__ import annotations

import re

from reflection_core.prompt.signals import CHANGE_VERBS, LazyPattern, lazy_words, per_text
from reflection_core.records import NamedTuple

MAX_TASKS = 20
_LIST_LINE = LazyPattern(r"^[ \t]*(?:\d{1,2}[.)]|[-*•+]|\[[ xX]\])[ \t]+(\S[^\n]*)$", re.MULTILINE)
_INLINE_ENUM = LazyPattern(r"\((?:\d{1,2}|[a-h])\)\s+|(?:^|\s)(?:\d{1,2}|[a-h])\)\s+")
_RANGE = LazyPattern(
    r"\b(items?|tasks?|steps?|tickets?|issues?|points?|todos?|stories|story|bugs?)\s+"
    r"(\d{1,3})\s*(?:-|–|to|through|thru|until|a|al|hasta)\s*(\d{1,3})\b",
    # matched against lower-cased text
    needs=("item", "task", "step", "ticket", "issue", "point", "todo", "stor", "bug"),
)
_OVERRIDE = LazyPattern(
    r"\b(?:all together|altogether|in one go|all at once|at once|in (?:a single|one) "
    r"(?:pr|pull request|commit|pass|session|change)|todo junto|de una vez)\b",
    # matched against lower-cased text
    needs=(
        "together",
        "at once",
        "in one go",
        "in a single",
        "in one ",
        "todo junto",
        "de una vez",
    ),
)
_CREEP = lazy_words(
    r"\band also\b|\bwhile you'?re at it\b|\bon top of that\b|\band (?:then )?(?:can|could) you\b"
    r"|(?:^|[.!?]\s+)(?:and|also|plus)\b|,\s*(?:also|plus)\s|\badditionally\b|\bas well as\b",
    re.IGNORECASE | re.MULTILINE,
    needs=(
        *("and also", "and can", "and could", "and then", "also", "plus", "while you"),
        *("on top of that", "additionally", "as well as"),
    ),
    # "and" opening the text, a line or a sentence; a gate per mark finds its literal fast
    gates=(r"^and", r"\nand", r"\.\s+and", r"!\s+and", r"\?\s+and"),
)
# The lookahead names every split's first character: the engine skips other positions
# without trying each alternative there (about three times faster, same splits).
_CLAUSE_SPLIT = LazyPattern(
    r"(?=[\s.!?;,])(?:[.!?;\n]+\s*|,\s*(?:and\s+)?|(?<!\s)\s+(?:and\s+(?:then\s+)?|then\s+))"
)
_FILLER = LazyPattern(
    r"^(?:(?:please|pls|plz|can you|could you|would you|will you|kindly|also|and|then|just"
    r"|now|ok|okay|so|hey|first|finally|next|i want you to|i need you to|we need to|you should"
    r"|let'?s|lets|go ahead and|make sure to)\b[\s,]*)+",
    # matched against lower-cased text
)
# The words _FILLER can open with: a clause opening otherwise has nothing to remove.
_FILLER_OPENERS = (
    "please",
    "pls",
    "plz",
    "can you",
    "could you",
    "would you",
    "will you",
    "kindly",
    "also",
    "and",
    "then",
    "just",
    "now",
    "ok",
    "so",
    "hey",
    "first",
    "finally",
    "next",
    "i want you to",
    "i need you to",
    "we need to",
    "you should",
    "let",
    "go ahead and",
    "make sure to",
)
_TEST_ONLY = LazyPattern(
    r"^(?:(?:add|write|update|extend)\s+)?(?:a |an |the |some |new |more )?(?:\w+ )?"
    r"(?:unit |regression |integration |e2e )?(?:tests?|test cases?|specs?)\b",
    # matched against lower-cased text
)
_WORD = LazyPattern(r"[A-Za-z']+")


class Scope(NamedTuple):
    """The scope governor's finding: one task or a table of several."""

    atomic: bool
    tasks: tuple[str, ...]
    override: bool = False

    def to_dict(self) -> dict[str, object]:
        return {"atomic": self.atomic, "tasks": list(self.tasks), "override": self.override}


_TRAILING_JOINER = LazyPattern(r"(?<![\s,;])(?:[\s,;]+(?:and|also|plus|then|y)){1,8}$")


_JOINERS = ("and", "also", "plus", "then", "y")


def _short(text: str, limit: int = 90) -> str:
    text = " ".join(text.split())
    if text.endswith(_JOINERS):  # what _TRAILING_JOINER removes
        text = _TRAILING_JOINER.sub("", text)
    text = text.strip(" ,;.")
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


@per_text
def _without_filler(clause: str) -> str:
    """The clause lower-cased, without the politeness and joiners before its verb."""
    stripped = clause.strip().lower()
    return _FILLER.sub("", stripped) if stripped.startswith(_FILLER_OPENERS) else stripped


@per_text
def _leading_verb(clause: str) -> str | None:
    stripped = _without_filler(clause)
    match = _WORD.match(stripped)
    if not match:
        return None
    word = match.group(0)
    if stripped.startswith(("look at", "look into")):
        return "investigate"
    return word if word in CHANGE_VERBS else None


def asks_for_action(text: str) -> bool:
    """Does some clause open with an action verb ("can you add ...", "fix ...")?

    Verbs in object position ("why does the cache miss?") do not count.
    """
    return any(_leading_verb(clause) for clause in _CLAUSE_SPLIT.split(text))


def _list_tasks(text: str) -> list[str]:
    """Items of an embedded list, unless they are requirements of one task named before it."""
    if "\n" not in text:
        return []  # a list line opens the text or follows a newline: one line holds one item
    items = [m.group(1) for m in _LIST_LINE.finditer(text)]
    if len(items) < 2:
        return []
    first = _LIST_LINE.search(text)
    intro = text[: first.start()] if first else ""
    intro_verbs = [v for c in _CLAUSE_SPLIT.split(intro) if (v := _leading_verb(c))]
    item_verbs = [v for item in items if (v := _leading_verb(item))]
    if intro_verbs and len(item_verbs) < 2:
        return []  # "Add a signup form with:\n- email\n- password" is one task
    return items


def _verb_clauses(text: str) -> list[tuple[str, str]]:
    clauses = []
    for clause in _CLAUSE_SPLIT.split(text):
        verb = _leading_verb(clause)
        if verb and not _TEST_ONLY.match(_without_filler(clause)):
            clauses.append((verb, clause))
    return clauses


def govern(prompt: str) -> Scope:
    """Pure: split `prompt` into the tasks it asks for."""
    low = prompt.lower()
    override = _OVERRIDE.search(low) is not None
    listed = _list_tasks(prompt)
    if listed:
        tasks = listed
    elif (ranged := _RANGE.search(low)) is not None:
        noun, start, end = ranged.group(1), int(ranged.group(2)), int(ranged.group(3))
        lo, hi = min(start, end), max(start, end)
        label = noun.rstrip("s").lower() if noun.lower() != "stories" else "story"
        tasks = [f"{label} {n}" for n in range(lo, min(hi, lo + MAX_TASKS - 1) + 1)]
    elif (
        _closes_before_space(prompt)
        and len(enum := [p for p in _INLINE_ENUM.split(prompt)[1:] if p.strip()]) >= 2
    ):
        tasks = enum
    else:
        tasks = _conjoined_tasks(prompt)
    tasks = [_short(t) for t in tasks[:MAX_TASKS]]
    return Scope(atomic=len(tasks) <= 1, tasks=tuple(tasks) or (_short(prompt),), override=override)


def _closes_before_space(text: str) -> bool:
    """A ")" followed by white space, which every `_INLINE_ENUM` marker ends with (the
    engine's `\\s` is `str.isspace`): a prompt without one has no inline enumeration."""
    index = text.find(")")
    while index >= 0:
        if text[index + 1 : index + 2].isspace():
            return True
        index = text.find(")", index + 1)
    return False


def _conjoined_tasks(prompt: str) -> list[str]:
    """Tasks joined by "and also"/"while you're at it", or three or more action verbs."""
    pieces = _CREEP.split(prompt)  # one piece (no joiner) makes fewer than two segments
    segments = [
        s
        for s in (pieces if len(pieces) >= 2 else ())
        if s and len(_WORD.findall(s)) >= 2 and not _TEST_ONLY.match(_without_filler(s))
    ]
    if len(segments) >= 2:
        tasks: list[str] = []
        for segment in segments:
            clauses = _verb_clauses(segment)
            if len(clauses) >= 3:
                tasks.extend(clause for _, clause in clauses)
            else:
                tasks.append(segment)
        return tasks
    clauses = _verb_clauses(prompt)
    if len({verb for verb, _ in clauses}) >= 3:
        return [c for _, c in clauses]
    return [prompt]
