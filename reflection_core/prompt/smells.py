"""The seven prompt smells, each with its evidence and a question that makes it explicit.

A smell is judged by meaning, not by a trigger word alone: "optimize the query
so EXPLAIN shows an index scan" names its target, so it is no vague improvement;
"the same way `read_csv_rows` does it" names its referent, so it is no implicit
context. Each detector finds a trigger span and then looks for what would
resolve it (a metric, an anchor, a criterion, a repro). Trigger patterns are
lower-case and run on the lower-cased prompt (much faster than IGNORECASE);
evidence is cut from the original text so it keeps the user's casing.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from reflection_core.prompt.scope import Scope
from reflection_core.prompt.signals import LazyPattern, Signals, has_anchor, lazy_words
from reflection_core.records import NamedTuple

SMELL_IDS = (
    "magic_words",
    "scope_creep",
    "implicit_context",
    "vague_improvement",
    "total_system",
    "bug_without_repro",
    "performance_without_metric",
)

_MAGIC = LazyPattern(
    r"\betc\b\.?|\band so (?:on|forth)\b|\bas (?:appropriate|needed|necessary|required|you see fit)"
    r"|\bhowever you (?:think|see fit|like|want|prefer)\b|\bwhatever (?:you think|works|is best"
    r"|makes sense|needs)|\byou (?:should|must|probably) know\b|\bdo the needful\b"
    r"|\byou know what i mean\b|\bmake it (?:work|nice|good|right|pop)\b|\bsomehow\b"
    r"|\bthe right way\b|\bwhere(?:ver)? (?:it )?makes sense\b|\buse your (?:judg(?:e)?ment|best)"
    r"|\bhandle it\b(?! the same)|\bmagic(?:ally)?\b|\bjust works\b",
    needs=(
        "etc",
        "and so ",
        "as appropriate",
        "as needed",
        "as necessary",
        "as required",
        "as you see fit",
        "however you",
        "whatever ",
        "know",
        "needful",
        "make it ",
        "somehow",
        "right way",
        "makes sense",
        "use your",
        "handle it",
        "magic",
        "just works",
    ),
)
_SOFT_MAGIC = lazy_words(
    r"\b(?:properly|robust(?:ly)?|seamless(?:ly)?|production[- ]ready|bulletproof|best practices?"
    r"|clean(?:ly)?|smart(?:ly)?|perfect(?:ly)?|nice(?:ly)?)\b",
)
_IMPLICIT = lazy_words(
    r"\b(?:the|our) usual(?: \w+)?\b|\bas (?:we |you |i )?(?:discussed|agreed|talked about|planned"
    r"|mentioned|before|usual|always|last time)\b|\blike (?:last time|before|we discussed|usual)\b"
    r"|\b(?:do )?the same (?:way|thing|as before|as last time|approach|pattern|fix|for)\b"
    r"|\bsame as (?:before|last time|the other)\b|\bthe (?:thing|stuff) (?:with|in|about|from)\b"
    r"|\bthe (?:\w+ )?(?:module|service|component|page) (?:issue|problem|bug|thing)\b"
    r"|\bfrom (?:the )?(?:sprint board|board|ticket|jira|backlog|slack|meeting|call|standup"
    r"|email|chat)\b|\b(?:that|the) (?:bug|issue|problem|error) (?:we|you|i) (?:saw|had|discussed"
    r"|mentioned|talked)|\bthat (?:thing|one) from\b|\byou know (?:the|which|what)\b",
    needs=(
        "usual",
        "discussed",
        "agreed",
        "talked about",
        "planned",
        "mentioned",
        "before",
        "always",
        "last time",
        "same",
        "thing",
        "stuff",
        "issue",
        "problem",
        "bug",
        "error",
        "from",
        "you know",
    ),
)
_VAGUE_VERB = LazyPattern(
    r"\b(?:improve|refactor|optimi[sz]e|clean(?:\s+\w+)?\s+up|clean|tidy(?: up)?|polish|enhance"
    r"|moderni[sz]e|simplify|rework|streamline|revamp)\b",
    needs=(
        "improve",
        "refactor",
        "optimi",
        "clean",
        "tidy",
        "polish",
        "enhance",
        "moderni",
        "simplify",
        "rework",
        "streamline",
        "revamp",
    ),
)
_VAGUE_GOAL = LazyPattern(
    r"\b(?:make|get) (?:\w+ ){0,3}(?:better|nicer|prettier|cleaner|more readable|more maintainable"
    r"|easier|more elegant|look good|look better|more modern)\b|\b(?:prettier|nicer|messy|a bit"
    r"|easier to (?:work with|read|maintain|understand))\b",
    needs=("make ", "get ", "prettier", "nicer", "messy", "a bit", "easier to"),
)
_CONCRETE_GOAL = lazy_words(
    r"\bby \w+ing\b|\binstead of\b|\bso that\b(?! it'?s (?:easier|nicer|better|cleaner))"
    r"|\bgoal is\b|\bdone when\b|\bzero\b|\bmust\b|\bexpected\b|->|\binto (?:a|two|three|one)\b"
    r"|\bno behaviou?r change\b|\bunchanged\b|:\s*\S",
)
_TOTAL = LazyPattern(
    r"\beverything\b(?! else)|\ball (?:the |of the |our )?(?:code|codebase|files|modules|screens"
    r"|pages|components|endpoints|services|functions|classes|repos|projects|apps|views|tables"
    r"|queries)\b|\b(?:the |our )?(?:whole|entire) (?:app|application|codebase|code base|system"
    r"|project|repo|repository|frontend|backend|site|platform|stack|ui|api|database|laptop"
    r"|machine|computer|server|disk|drive|config|configuration|setup)\b"
    r"|\bevery (?:file|module|screen|page|component|endpoint|service|function|class)\b"
    r"|\bacross the (?:board|codebase|whole)\b|\bthe (?:whole|entire) thing\b",
    needs=("everything", "all ", "whole", "entire", "every ", "across the"),
)
# Substrings one of which every match of _BUG / _PERF holds (the scan is skipped without).
_BUG_WORDS = (
    "broken",
    "work",
    "won",
    "fail",
    "crash",
    "bug",
    "flak",
    "chok",
    "hang",
    "freez",
    "spin",
    "wrong",
    "glitch",
    "random",
    "intermittent",
    "keep",
    "leak",
    "fix ",
)
_PERF_WORDS = (
    "fast",
    "slow",
    "sluggish",
    "speed",
    "performan",
    "latency",
    "lag",
    "take",
    "optimi",
    "efficien",
    "scalab",
    "throughput",
    "memory",
    "eat",
    "too much",
    "cpu",
    "load time",
    "snappier",
    "smoother",
    "heavy",
    "bloated",
)
_BUG = LazyPattern(
    r"\b(?:broken|doesn'?t work|does not work|not working|isn'?t working|stopped working|won'?t"
    r" (?:work|load|start)|fails?|failing|failed|crash(?:es|ing|ed)?|bugs?|buggy|flaky|flakiness"
    r"|choking|chokes|hangs?|hanging|freez(?:es|ing)|spins? forever|wrong|glitch(?:y|es)?"
    r"|randomly|intermittent(?:ly)?|keeps? (?:crashing|failing|growing|breaking|choking|dying"
    r"|timing out|hanging)|memory leak|leaking|fix (?:the|that|this) (?:thing|issue|problem|stuff))"
    r"\b",
    needs=_BUG_WORDS,
)
_PERF = LazyPattern(
    r"\b(?:faster|slow(?:er|ly|ness)?|sluggish|speed (?:\w+ )?up|speedup|performance|performant"
    r"|latency|laggy|lag(?:s|ging)?|takes? (?:forever|ages|too long)|optimi[sz]e|optimi[sz]ation"
    r"|(?:more |less )?efficien(?:t|cy)|scalab(?:le|ility)|throughput"
    r"|memory (?:usage|use|footprint)"
    r"|eats? (?:a lot of |so much |too much )?(?:memory|ram|cpu)|too much (?:memory|ram|cpu)"
    r"|cpu usage|load time|snappier|smoother|heavy|bloated)\b",
    needs=_PERF_WORDS,
)
_SENTENCE_END = LazyPattern(r"[.!?\n]")

QUESTION_TEMPLATES: dict[str, str] = {
    "magic_words": (
        "“{evidence}” leaves the decision to me. Should I (a) list the concrete items I'd "
        "cover for you to confirm, (b) do only the minimum, or (c) follow a list you give me?"
    ),
    "scope_creep": (
        "This asks for {count} separate tasks. Which order should I take them in "
        "(e.g. 1, then 2, ...), or do you want them all together in one go?"
    ),
    "implicit_context": (
        "“{evidence}” refers to something I can't see. Can you paste it, or point me to the "
        "file, commit, ticket or doc it means?"
    ),
    "vague_improvement": (
        "What should “{evidence}” achieve: (a) readability (naming, smaller functions), "
        "(b) structure (split modules, remove duplication), or (c) a measurable target such as "
        "fewer warnings? And what must not change?"
    ),
    "total_system": (
        "“{evidence}” covers the whole system. Which part should I start with (one module, "
        "screen or directory), so the change stays reviewable?"
    ),
    "bug_without_repro": (
        "To reproduce it I need one of: the exact error or log line, the steps that trigger it, "
        "or expected vs actual behaviour. Which can you share, and in which environment "
        "(local, CI, staging, prod) does it happen?"
    ),
    "performance_without_metric": (
        "What target should it hit and how do we measure it: (a) a latency like p95 under N ms, "
        "(b) a load or run time under N s, or (c) memory under N MB?"
    ),
}

OPEN_CHOICE_QUESTION = (
    "“{evidence}” leaves a choice open. Which should it be, and is there an example of the "
    "result you expect?"
)


class Smell(NamedTuple):
    """One smell: its id, the matched span, and the question that resolves it."""

    id: str
    evidence: str
    question: str

    def to_dict(self) -> dict[str, str]:
        return {"id": self.id, "evidence": self.evidence, "question": self.question}


def _sentence_after(text: str, end: int, limit: int = 120) -> str:
    window = text[end : end + limit]
    stop = _SENTENCE_END.search(window)
    return window[: stop.start()] if stop else window


def _sentence_around(text: str, start: int, end: int, limit: int = 160) -> str:
    lo = max(0, start - limit)
    before = text[lo:start]
    cut = max(before.rfind("."), before.rfind("\n"), before.rfind("!"), before.rfind("?"))
    return before[cut + 1 :] + text[start:end] + _sentence_after(text, end, limit)


def _first_unresolved(
    pattern: LazyPattern, low: str, shown: str, resolved: Callable[[re.Match[str]], bool]
) -> str | None:
    for match in pattern.finditer(low):
        if not resolved(match):
            return shown[match.start() : match.end()]
    return None


def detect(text: str, sig: Signals, scope: Scope) -> list[Smell]:
    """Pure: the smells present in `text`, in SMELL_IDS order."""
    low = text.lower()
    shown = text if len(text) == len(low) else low  # evidence keeps the user's casing
    found: dict[str, str] = {}
    templates = QUESTION_TEMPLATES
    magic = _MAGIC.search(low)
    if magic:
        found["magic_words"] = shown[magic.start() : magic.end()]
    elif sig.hedges:  # "either A or B", "maybe": a choice the author left open
        found["magic_words"] = sig.hedges[0]
        templates = {**QUESTION_TEMPLATES, "magic_words": OPEN_CHOICE_QUESTION}
    elif sig.anchors < 1.5 and (soft := _SOFT_MAGIC.search(low)):
        found["magic_words"] = shown[soft.start() : soft.end()]

    if not scope.atomic and not scope.override:
        found["scope_creep"] = f"{len(scope.tasks)} tasks: " + "; ".join(scope.tasks[:3])

    def referent_named(match: re.Match[str]) -> bool:
        after = shown[match.end() : match.end() + 80]
        return has_anchor(after) or ": " in _sentence_after(shown, match.end())

    implicit = _first_unresolved(_IMPLICIT, low, shown, referent_named)
    if implicit:
        found["implicit_context"] = implicit

    vague = not sig.metrics and (_VAGUE_VERB.search(low) or _VAGUE_GOAL.search(low))
    if vague and not _CONCRETE_GOAL.search(low):
        found["vague_improvement"] = _sentence_around(shown, vague.start(), vague.end(), 40).strip()

    def bounded(match: re.Match[str]) -> bool:
        return has_anchor(shown[match.end() : match.end() + 40])

    total = _first_unresolved(_TOTAL, low, shown, bounded)
    if total:
        found["total_system"] = total

    # A bug or a slowness is looked for only where no repro, anchors or metric answer it.
    if not sig.has_repro and sig.anchors < 2.5 and (bug := _BUG.search(low)):
        found["bug_without_repro"] = _sentence_around(shown, bug.start(), bug.end(), 60).strip()

    if not sig.metrics and (perf := _PERF.search(low)):
        found["performance_without_metric"] = shown[perf.start() : perf.end()]

    smells = []
    for smell_id in SMELL_IDS:
        if smell_id in found:
            evidence = " ".join(found[smell_id].split())[:160]
            template = templates[smell_id]
            question = template.format(evidence=evidence, count=len(scope.tasks))
            smells.append(Smell(smell_id, evidence, question))
    return smells


# What to ask for, by what the pointer names (first match wins, one kind a line): an
# error is best pasted whole, with where it shows; an attachment that did not come
# through is sent again. Anything else: the default `implicit_context` question.
REFERENT_QUESTIONS: tuple[tuple[tuple[str, ...], str], ...] = (
    (
        (
            *("error", "fehler", "erreur", "errore", "erro", "błąd", "fout", "hata", "ошибк"),
            *("помилк", "错误", "錯誤", "报错", "エラー", "에러", "오류", "lỗi", "خطأ", "خطا"),
            *("שגיאה", "एरर", "log", "output", "trace"),
        ),
        "“{evidence}” didn't come through. Can you paste the full text, and say where it "
        "shows (the command, the page or the log)?",
    ),
    (
        (
            *("screenshot", "image", "attach", "capture", "bild", "imagen", "截图", "截圖"),
            *("スクショ", "スクリーンショット", "画像", "스크린샷", "이미지", "скриншот", "צילום"),
            *("adjunt", "joint", "прикреп", "mockup", "picture", "photo", "video", "print"),
            *("pasted", "sent", "shared", "uploaded", "mand", "envi", "angehängt", "发的"),
        ),
        "“{evidence}” didn't come through. Can you attach or paste it again?",
    ),
)


def missing_referent(evidence: str) -> Smell:
    """`implicit_context` for a thing pointed at ("this file") that nobody supplied: the
    question asks for what that kind of thing needs (REFERENT_QUESTIONS)."""
    evidence = " ".join(evidence.split())[:160]
    low = evidence.lower()
    template = next(
        (asked for words, asked in REFERENT_QUESTIONS if any(w in low for w in words)),
        QUESTION_TEMPLATES["implicit_context"],
    )
    return Smell("implicit_context", evidence, template.format(evidence=evidence, count=1))


def sorted_smells(found: list[Smell]) -> tuple[Smell, ...]:
    """Smells in SMELL_IDS order, the order the user reads them in."""
    return tuple(sorted(found, key=lambda smell: SMELL_IDS.index(smell.id)))
