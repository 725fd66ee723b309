"""Which requests in the agent's last message only a human can fulfil.

An agent that stops to ask for a 2FA code is right to stop; one that stops to ask
"Should I run the tests?" is punting on something its own tools can do. The
difference decides whether the stop hook pushes it on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

HUMAN_ONLY: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern, re.I))
    for kind, pattern in (
        ("oauth", r"\boauth\b|authori[sz]e (the |this )?(app|application|access)|consent screen"),
        (
            "2fa",
            r"\b2fa\b|\bmfa\b|two[- ]factor|\botp\b|one[- ]time (code|password)|"
            r"verification code|authenticator app",
        ),
        ("captcha", r"\b(re)?captcha\b"),
        (
            "credentials",
            r"\bapi[ _-]?keys?\b|\bcredentials?\b|\baccess tokens?\b|\bsecret keys?\b|"
            r"\bpassword\b|from (the|your) (dashboard|console|portal|account settings)",
        ),
        (
            "approval",
            r"\b(approve|approval|sign[- ]off)\b.{0,40}\b(pr|pull request|merge|deploy\w*|release|"
            r"request|change|budget|access)\b|\bneeds? (your|an?) (approval|sign[- ]off)\b|"
            r"\breview and merge\b",
        ),
        ("upload", r"\bupload\b"),
        (
            "login",
            r"\b(log|sign) ?in\b.{0,30}\b(browser|account|portal|dashboard|console)\b|\bsso\b",
        ),
        ("payment", r"\b(billing|payment|credit card|purchase)\b"),
        ("physical", r"\b(hardware key|yubikey|security key|plug in|physical device)\b"),
    )
)

_REQUEST = re.compile(
    r"\?|\b(you('ll| will)? need to|you must|you should|please|could you|can you|would you|"
    r"let me know|once you|after you|when you|you can (now )?run|you may want to|"
    r"do you want|shall i|should i|tell me)\b",
    re.I,
)
# A sentence opening with a bare imperative addresses the user ("Enter the code ...");
# list items do not (a "Next steps" list names the agent's own remaining work).
_IMPERATIVE = re.compile(
    r"^(complete|enter|go to|visit|log ?in|sign ?in|click|approve|upload|provide|paste|set|"
    r"create|grant|authori[sz]e|open|run|install|add|check|verify|solve|confirm)\b",
    re.I,
)
_BULLET = re.compile(r"^\s*([-*\u2022]|\d+[.)])\s")
_AGENT_VERBS = re.compile(
    r"\b(run|execute|test|install|commit|push|create|open|fix|implement|edit|update|add|write|"
    r"build|continue|proceed|apply|make|change|refactor|delete|remove|check|verify|try|start|"
    r"go ahead|finish|complete|investigate|look into|rerun|re-run)\b",
    re.I,
)
_CHOICE = re.compile(
    r"\bwhich\b.*\?|\bprefer\b|\b(\w+) or (?!not\b|anything\b|something\b|so\b)(\w+)\b.*\?",
    re.I,
)
# A punt asks permission for, or hands over, work the agent's own tools can do.
_PUNT = re.compile(
    r"\b(should|shall|can|may) i\b|\b(want|like) me to\b|\bme to\b.*\?|"
    r"\byou (can|could|may want to|might want to|should|need to|'ll need to|will need to|"
    r"must) (now |then |also )?(run|execute|test|install|commit|push|create|open|fix|"
    r"implement|edit|update|add|write|build|apply|make|change|refactor|delete|remove|check|"
    r"verify|try|start|rerun|re-run|use)\b|^please (run|execute|test|install|commit|push|"
    r"create|open|fix|implement|edit|update|add|write|build|apply|check|verify|try)\b|"
    r"^(run|execute|install|commit|push|rerun|re-run|check|verify|add|create|open)\b",
    re.I,
)
_INLINE_NUMBER = re.compile(r"(?<=[\s:;])(\d+)\.\s")
_SENTENCE = re.compile(r"(?<=[.?!])\s+|\n+")


@dataclass
class HumanActionAssessment:
    """The requests the agent makes of the user, sorted by who can act on them."""

    human_only: list[tuple[str, str]] = field(default_factory=list)  # (kind, sentence)
    agent_actionable: list[str] = field(default_factory=list)  # tool-doable asks (punts)
    questions: list[str] = field(default_factory=list)  # choices/information only the user has


def requests_in(text: str) -> list[str]:
    """Sentences (and bullet lines) of `text` that ask something of the user."""
    out = []
    # "Plan: 1. add x; 2. run y." is one enumeration, not sentences addressed to the user.
    text = _INLINE_NUMBER.sub(r"\1) ", text or "")
    for piece in _SENTENCE.split(text):
        sentence = piece.strip(" -*\t")
        if not sentence:
            continue
        if _REQUEST.search(sentence) or (not _BULLET.match(piece) and _IMPERATIVE.match(sentence)):
            out.append(sentence[:300])
    return out


def human_only_kind(sentence: str) -> str | None:
    for kind, pattern in HUMAN_ONLY:
        if pattern.search(sentence):
            return kind
    return None


def assess_requests(text: str) -> HumanActionAssessment:
    """Sort every request in the agent's message into human-only, punt, or real question."""
    result = HumanActionAssessment()
    for sentence in requests_in(text):
        kind = human_only_kind(sentence)
        if kind is not None:
            result.human_only.append((kind, sentence))
        elif _CHOICE.search(sentence):
            result.questions.append(sentence)
        elif _PUNT.search(sentence) and _AGENT_VERBS.search(sentence):
            result.agent_actionable.append(sentence)
        elif "?" in sentence:
            result.questions.append(sentence)
    return result
