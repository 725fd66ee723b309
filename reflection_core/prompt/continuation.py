"""Continuation (mode 1): "1 and 3", "go ahead", "haz el plan" answer the previous turn.

Such prompts are not new tasks and bypass scoring. When the previous assistant
message is known we also check that the answer refers to something: "option 4"
after three options, or a bare "yes" to an either/or question, gets one question
back instead of a silent guess.
"""

from __future__ import annotations

import re

from reflection_core.prompt.signals import LazyPattern
from reflection_core.records import NamedTuple

_MAX_WORDS = 12
_MAX_CHARS = 240  # twelve words never need more; longer prompts skip the patterns

_SEP = r"(?:\s*(?:,|;|&|\+|/|\band\b|\by\b|\be\b|\bet\b|\bor\b|\bo\b|\bplus\b)\s*)"
_ITEM = r"(?:\d{1,2}|[a-h])"
_SELECTION = LazyPattern(
    rf"^(?:(?:the|la|el|las|los)\s+)?(?:(?:option|options|opci[oó]n|opciones|number|numbers|item|items|choice|no\.?|#)\s*)?"
    rf"\(?({_ITEM})\)?(?:{_SEP}\(?({_ITEM})\)?)*$",
    0,  # matched against lower-cased text
)
_ITEMS_IN_SELECTION = LazyPattern(rf"(?<![\w]){_ITEM}(?![\w])")
_ORDINALS = {
    "first": "1",
    "second": "2",
    "third": "3",
    "fourth": "4",
    "fifth": "5",
    "primera": "1",
    "segunda": "2",
    "tercera": "3",
}

# Whole-part phrases: every comma/and-separated part of a continuation matches one.
_APPROVAL = LazyPattern(
    r"^(?:(?:ok(?:ay)?|yes|yeah|yep|yup|sure|sí|si|vale|dale|perfect|great|cool|alright|right"
    r"|please|thanks|thank you|lgtm|looks good|sounds good|good|fine|agreed|correct|exactly"
    r"|go|go ahead|go on|go for it|proceed|continue|carry on|ship it|do it|do that|do this"
    r"|make it so|let'?s do it|let'?s go|hazlo|adelante|haz(?:lo)? el plan|sigue|contin[uú]a"
    r"|venga|de acuerdo|claro|👍|✅|🚀|👌)\s*)+[.!]*$",
    0,  # matched against lower-cased text
)
_ANAPHORIC_ACTION = LazyPattern(
    r"^(?:(?:ok(?:ay)?|yes|sure|then|now|please|and|so)\s+)*"
    r"(?:do|fix|apply|implement|make|go(?: ahead)?(?: with)?|use|try|run|execute|start|take"
    r"|haz|aplica|implementa|sigue con)\s+"
    r"(?:it|that|this|them|those|these|both|everything|all|all (?:of )?(?:them|these|those)"
    r"|all \w+|the (?:plan|fix|fixes|change|changes|rest|list|steps?|same|suggestion"
    r"|recommendation|first|second|third|last)(?: one)?|(?:the )?(?:first|second|third|last) one"
    r"|what you (?:recommended|suggested|said|proposed|described)|your (?:plan|suggestion"
    r"|recommendation|proposal|fix)|(?:el|la|lo) \w+|like you say|as you say(?:id)?"
    r"|as (?:suggested|proposed|planned))"
    r"(?:\s+(?:too|as well|also|then|please|now|first|one|plan))*[.!]*$",
    0,  # matched against lower-cased text
)
_ORDINAL_PICK = LazyPattern(
    r"^(?:(?:ok(?:ay)?|yes|sure|then|let'?s go with|go with|i'?ll take|take|use)\s+)*"
    r"(?:the|la|el)\s+(first|second|third|fourth|fifth|last|primera|segunda|tercera)(?:\s+one)?"
    r"(?:\s+(?:option|opci[oó]n))?[.!]*$",
    0,  # matched against lower-cased text
)
_PARTS = LazyPattern(r"(?<!\s)\s*(?:,|;|\band then\b|\bthen\b|\band\b|\by\b)\s*")

# Markers in the previous assistant message.
_LIST_ITEM = LazyPattern(r"^\s*(?:(\d{1,2})[.)]|\(?([a-h])[.)]|[-*•])\s+(.*)$", re.MULTILINE)
_ALL = LazyPattern(r"\b(?:all|both|every|everything|todos?|todas?|ambos|ambas)\b")
_INLINE_ITEM = LazyPattern(r"\((\d{1,2}|[a-h])\)\s")
_PROPOSAL = LazyPattern(
    r"\b(?:i can|i could|i'?d|i would|i'?ll|i will|i recommend|i suggest|want me to|shall i"
    r"|should i|the (?:simplest|best|easiest|cleanest|safest) (?:fix|option|way) is|the fix is"
    r"|my recommendation|i lean towards|here'?s the plan|plan:|next step|let me know if"
    r"|if you'?d like|if you want|ready to|when you'?re ready|remaining (?:work|steps?|tasks?))"
    r"\b",
    0,  # matched against lower-cased text
)
_CHOICE = LazyPattern(
    r"\b(?:which (?:one|of these|option|approach|do you|would you|should)|either\b[^.?!]{0,300}\bor"
    r"|options?:|(?:a few|several|two|three|four|some) (?:ways|options|directions|approaches"
    r"|alternatives)|depending on|do you prefer|let me know which)",
    0,  # matched against lower-cased text
)
# Numbered things outside list syntax: "**1.** Add", "### Option 2", "方案3", "1️⃣".
_NUMBERED_ANYWHERE = LazyPattern(
    r"(?:^[^\w\n]{0,8}|\b(?:option|opción|opção|choix|choice|variant|approach|step|étape|paso"
    r"|schritt|solution|solución|solução|plan|alternative|proposal)\s*#?|方案|选项|選項)(\d{1,2}|[a-h])(?![\w.]\w)",
    re.MULTILINE | re.IGNORECASE,
)
_GO_AHEAD = LazyPattern(
    r"\b(?:go|do|proceed|fix|apply|implement|ship|make|run|start|execute|haz|hazlo|adelante"
    r"|dale|mach|fais|vas-y)\b"
)
_RECOMMENDATION = LazyPattern(
    r"\b(?:i'?d recommend|i recommend|i would recommend|recommended\b|recommendation\b"
    r"|i lean towards?|i'?d lean|i would lean|i'?d go (?:with|for)|i would go (?:with|for)"
    r"|i(?:'?d| would)? suggest|i'?d pick|i(?:'?d| would)? prefer|my pick"
    r"|is (?:cleaner|simpler|safer|better)|the better (?:option|choice|approach))",
    0,  # matched against lower-cased text
)
# A closing sentence that asks the user to choose ("which one?", "let me know which"), and
# one that lays courses side by side ("A or B", "either ... or", "a few directions"): "or
# not", "or anything else" close a yes/no question.
_CHOICE_REQUEST = LazyPattern(r"\b(?:which|prefer|choose|pick)\b", 0)  # lower-cased text
_ALTERNATIVES = LazyPattern(
    r"\beither\b|\bor\b(?!\s+(?:not|no|nah|so|something|anything|everything|else|otherwise"
    r"|later)\b)|\b(?:a few|several|two|three|four|some) (?:ways|options|directions|approaches"
    r"|alternatives)\b",
    0,  # matched against lower-cased text
)
# Layouts whose options the list readers above do not number: a table whose rows open
# with words, roman numerals, lines opening in bold words ("**Quick fix**: ..."). A pick
# after them is not doubted.
_UNREAD_OPTIONS = LazyPattern(
    r"^\s*(?:\|\s*[^\s|\d#:-]|\(?(?:i|ii|iii|iv|v|vi)[.)]\s|\*\*(?!\s*\(?\d))"
    r"|\((?:i|ii|iii|iv|v|vi)\)\s",
    re.MULTILINE,
)
# A pick this far beyond the options is a value ("8" workers), not a mistyped option.
_PICK_REACH = 3
_SENTENCE_END = LazyPattern(r"[.!?](?=\s)|[。！？\n]")


class Continuation(NamedTuple):
    """Whether a prompt continues the previous turn, and whether its referent is clear."""

    is_continuation: bool
    kind: str = ""  # "selection" | "approval" | "anaphoric"
    selected: tuple[str, ...] = ()
    unresolved: str | None = None  # a question to ask when the referent is unclear
    rule: str = ""  # which check left the referent unclear (see prompt.rules)


def _word_count(text: str) -> int:
    return len(text.split())


def _normalize(prompt: str) -> str:
    return " ".join(prompt.strip().split()).strip(" .!")


def _selection_items(text: str) -> tuple[str, ...] | None:
    if _SELECTION.match(text):
        return tuple(m.group(0).lower() for m in _ITEMS_IN_SELECTION.finditer(text))
    ordinal = _ORDINAL_PICK.match(text)
    if ordinal:
        word = ordinal.group(1).lower()
        return (_ORDINALS.get(word, "last"),)
    return None


def classify_part(part: str) -> tuple[str, tuple[str, ...]] | None:
    """The kind of one comma-separated part, or None when it is new content."""
    part = part.strip(" .!?")
    if not part:
        return ("approval", ())
    items = _selection_items(part)
    if items is not None:
        return ("selection", items)
    if _APPROVAL.match(part):
        return ("approval", ())
    if _ANAPHORIC_ACTION.match(part):
        return ("anaphoric", ())
    return None


def detect(prompt: str) -> Continuation:
    """Pure: is `prompt` only an answer to the previous turn (selection or go-ahead)?"""
    if len(prompt) > _MAX_CHARS:
        return Continuation(False)
    text = _normalize(prompt).lower()
    if not text or _word_count(text) > _MAX_WORDS or "\n" in prompt.strip():
        return Continuation(False)
    whole = classify_part(text)
    if whole is not None:
        return Continuation(True, whole[0], whole[1])
    parts = [p for p in _PARTS.split(text) if p and p.strip()]
    kinds = [classify_part(p) for p in parts]
    if not parts or any(k is None for k in kinds):
        return Continuation(False)
    selected = tuple(item for k in kinds if k for item in k[1])
    if selected:
        kind = "selection"
    elif any(k and k[0] == "anaphoric" for k in kinds):
        kind = "anaphoric"
    else:
        kind = "approval"
    return Continuation(True, kind, selected)


def proposes(prev_assistant: str) -> bool:
    """Does the message propose a step or offer a choice ("I can ...", "options: ...")?"""
    prev = prev_assistant.lower()
    return _PROPOSAL.search(prev) is not None or _CHOICE.search(prev) is not None


def offered_list(prev_assistant: str) -> list[tuple[str, str]]:
    """(marker, text) of each list item in the previous message, bullets numbered 1, 2, ..."""
    items: list[tuple[str, str]] = []
    for index, match in enumerate(_LIST_ITEM.finditer(prev_assistant), start=1):
        marker = (match.group(1) or match.group(2) or str(index)).lower()
        items.append((marker, match.group(3).strip()))
    return items


def selected_tasks(prompt: str, found: Continuation, prev_assistant: str | None) -> list[str]:
    """The list items a continuation takes on: "1 and 3", "all of them", "do all five"."""
    if not found.is_continuation or not prev_assistant:
        return []
    items = offered_list(prev_assistant)
    if found.selected:
        wanted = set(found.selected)
        return [text for marker, text in items if marker in wanted]
    if _ALL.search(prompt.lower()):
        return [text for _, text in items]
    return []


def offered_items(prev_assistant: str) -> set[str]:
    """Numbers and letters the previous message offered as list items."""
    items = {marker for marker, _ in offered_list(prev_assistant)}  # bullets count as 1, 2, ...
    items.update(m.group(1).lower() for m in _INLINE_ITEM.finditer(prev_assistant))
    items.update(m.group(1).lower() for m in _NUMBERED_ANYWHERE.finditer(prev_assistant))
    return items


def resolve(
    found: Continuation, prev_assistant: str | None, prompt: str = "", earlier_turn: str = ""
) -> Continuation:
    """Pure: check the continuation's referent against the previous assistant message.

    A pick ("2") counts the options the whole turn offered (`earlier_turn`: its messages
    before the last), so a list written before a tool call is not taken for none. An
    either/or is read from the last message only: one the turn settled before its end is
    not open. A go-ahead to anything else is not questioned: whether a message proposed
    something is a matter of wording ("Recommendation: ...", "Ready when you are") no
    phrase list reads reliably, and the agent reads its own message better.
    """
    text = prompt.lower()
    if not found.is_continuation or not prev_assistant or not prev_assistant.strip():
        return found
    prev = prev_assistant.lower()
    closing = closing_sentence(prev)
    if found.kind == "selection":
        return _resolve_pick(found, prev, closing, earlier_turn)
    if found.kind == "anaphoric":
        return found
    # A go-ahead is left open only when the message ends on the choice itself ("A or B?",
    # "which one?", "you can either ... or ..."): "ok" to such a statement acknowledges it,
    # and a choice followed by a plan, a recommendation or a yes/no question is settled.
    asks = "?" in closing or "？" in closing or _CHOICE_REQUEST.search(closing) is not None
    chooses = asks and (_CHOICE_REQUEST.search(closing) or _ALTERNATIVES.search(closing))
    laid_out = _ALTERNATIVES.search(closing) is not None and _GO_AHEAD.search(text) is not None
    if (chooses or laid_out) and _RECOMMENDATION.search(prev) is None:
        offered = offered_items(prev)
        listed = ", ".join(sorted(offered, key=lambda s: (len(s), s)))
        which = f" — {listed}?" if len(offered) >= 2 else "?"
        question = f"Glad to go ahead. I offered more than one option: which should I do{which}"
        return Continuation(True, found.kind, found.selected, question, "choice_left_open")
    return found


def _resolve_pick(found: Continuation, prev: str, closing: str, earlier_turn: str) -> Continuation:
    """A pick is doubted only when the message's options are numbered the way the pick is
    (digits or letters) and it is not among them, and the message did not end on a
    question the number answers ("how many workers?")."""
    offered = offered_items(prev)
    picked = [i for i in found.selected if i != "last"]
    if earlier_turn and any(i not in offered for i in picked):
        offered |= offered_items(earlier_turn.lower())
    missing = [i for i in picked if i not in offered]
    if not missing or not offered or _UNREAD_OPTIONS.search(prev):
        return found  # no options read, or laid out in a way the readers do not number
    if any(not any(o.isdigit() == i.isdigit() for o in offered) for i in missing):
        return found  # "b" where the options read are numbered: they may be lettered too
    reach = max((int(o) for o in offered if o.isdigit()), default=0) + _PICK_REACH
    for item in missing:
        if item.isdigit() and (int(item) > reach or _shown(item, prev)):
            return found  # a value ("8" workers, "88" of "black: 88"), not an option
    if closing.isascii() and "?" in closing and not _CHOICE_REQUEST.search(closing):
        return found  # a number answering "how many?", "what timeout?"
    listed = ", ".join(sorted(offered, key=lambda s: (len(s), s)))
    question = f"Which option did you mean? I offered {listed}; there is no {', '.join(missing)}."
    return Continuation(True, found.kind, found.selected, question, "option_not_offered")


def _shown(number: str, prev: str) -> bool:
    """Does the message show `number` as a value, not as a list marker ("black: 88")?"""
    return re.search(rf"(?<![\w.]){number}(?![\w.)]|\.\s)", prev) is not None


def closing_sentence(prev: str) -> str:
    """The message's last sentence, its end mark included: what a short reply answers."""
    text = prev.strip()[-600:]
    body = text.rstrip(".!?。！？ ")
    start = 0
    for match in _SENTENCE_END.finditer(body):
        start = match.end()
    return text[start:].strip()
