"""Classify a prompt: architectural, review, backend, frontend, testing, devops, mixed or
conversational.

Classification reads words *and* the action: "fix the Dockerfile build error" is
devops because the object is the Dockerfile, "write tests for slugify()" is
testing because tests are the object of the main verb, while "fix X and add a
test" stays with X's area. Several tasks in different areas are "mixed".
"""

from __future__ import annotations

import re

from reflection_core.prompt.scope import Scope
from reflection_core.prompt.signals import CHANGE_VERBS

CLASSES = (
    "architectural",
    "review",
    "backend",
    "frontend",
    "testing",
    "devops",
    "mixed",
    "conversational",
)
_I = re.IGNORECASE
_AREA_PATTERNS: dict[str, re.Pattern[str]] = {
    "frontend": re.compile(
        r"\b(?:react|vue|svelte|angular|next\.js|tsx|jsx|css|scss|tailwind|html|ui|ux|button"
        r"|page|pages|screen|screens|dashboard|dark mode|theme|design system|component"
        r"|components|dropdown|modal|toast|toasts|spinner|form|layout|frontend|front-end|browser"
        r"|android|ios|mobile|swiftui|viewmodel|fragment|activity|optgroup|render|rendering"
        r"|prettier|logo|styles?|responsive|animation|web/src|\.vue|\.tsx|\.jsx|\.css)\b",
        _I,
    ),
    "devops": re.compile(
        r"\b(?:docker|dockerfile|compose|ci|pipeline|deploy|deployment|staging|helm|k8s"
        r"|kubernetes|terraform|infra|nginx|github actions|workflow|workflows|aws|gcp|azure"
        r"|ansible|cron|release|version|bump|pin|requirements\.txt|image|container|env vars"
        r"|environment variables|prod|production|rds|alb|s3|monitoring|alerts?|grafana|\.tf"
        r"|makefile|build|eslint|dependency|dependencies|upgrade)\b",
        _I,
    ),
    "testing": re.compile(
        r"\b(?:tests?|pytest|jest|unittest|spec|specs|coverage|fixtures?|parametri[sz]e|xfail"
        r"|mock|mocks|flaky|test cases?|e2e)\b",
        _I,
    ),
    "backend": re.compile(
        r"\b(?:api|endpoint|endpoints|server|database|db|sql|query|queries|migration|orm|model"
        r"|models|schema|table|index|handler|route|routes|service|services|worker|queue|cache"
        r"|caching|auth|login|signup|users?|admin|role|roles|csv|json|etl|cli|script|function"
        r"|class|module|django|flask|fastapi|rails|express|celery|redis|postgres|mysql|airflow"
        r"|dag|pagination|retries|logging|timezones?|scheduler|webhook|\.py|\.go|\.rb|\.java)\b",
        _I,
    ),
    "architectural": re.compile(
        r"\b(?:architecture|architectural|scalab\w*|microservices?|monolith|event[- ]driven"
        r"|audit logging|multi[- ]tenant\w*|design doc|split \S+ into|into a \S+ package"
        r"|switch \w+ from|migrate (?:\w+ )?from|from \w+ to \w+|domain model|bounded context"
        r"|layering|decouple|message bus|sharding|aggregate)\b",
        _I,
    ),
}
_REVIEW = re.compile(
    r"^\s*(?:please\s+)?(?:\w+\s+)?(?:review|audit)\b|\b(?:code|security|design|pr) review\b"
    r"|\breview (?:the|this|my|our|all)\b|\blook for (?:\w+ )?(?:issues|bugs|problems|race"
    r"|vulnerabilit|path traversal)",
    _I,
)
_EXPLICIT_AREA = {
    "frontend": re.compile(r"\b(?:frontend|front-end|front end|client side)\b", _I),
    "backend": re.compile(r"\b(?:backend|back-end|back end|server side)\b", _I),
}
_RESTRUCTURE = re.compile(
    r"^\s*(?:please\s+)?(?:split|restructure|reorgani[sz]e|decompose|modulari[sz]e)\b[^\n]{0,120}?"
    r"\binto\b",
    _I,
)
_DOCS = re.compile(r"\b(?:docs?|documentation|readme|changelog|docstrings?|wiki)\b", _I)
_QUESTION_START = re.compile(
    r"^\s*(?:what|why|how|where|when|which|who|is|are|does|do|did|should|would|could|can)\b"
    r"(?!\s+you\s+(?:please\s+)?(?:add|fix|make|implement|write|create|remove|update|change|"
    r"improve|refactor|help))",
    _I,
)
_EXPLAIN = re.compile(
    r"\b(?:explain|just (?:tell|explain)|don'?t change anything|no changes|what do you think"
    r"|difference between|thoughts on)\b",
    _I,
)
_TEST_OBJECT = re.compile(
    r"^\s*(?:please\s+)?(?:write|add|create|fix|stabili[sz]e|extend|update)\s+"
    r"(?:\w+\s+){0,3}(?:tests?|test cases?|cases|specs?|coverage)\b|\btests? (?:fail|are failing"
    r"|break|is failing|flak)|^\s*\S*tests?/\S+ has no",
    _I,
)
_WORD = re.compile(r"[A-Za-z']+")


def _area_scores(text: str) -> dict[str, int]:
    return {area: len(pattern.findall(text)) for area, pattern in _AREA_PATTERNS.items()}


def _best_area(text: str) -> str | None:
    if _TEST_OBJECT.search(text):
        return "testing"
    if _REVIEW.search(text):
        return "review"
    scores = _area_scores(text)
    # "add a test" accompanies most changes: tests only lead when they dominate
    scores["testing"] = scores["testing"] // 2 if scores["testing"] >= 3 else 0
    for area, pattern in _EXPLICIT_AREA.items():
        scores[area] += 2 * len(pattern.findall(text))
    if scores["architectural"]:
        scores["architectural"] += 1
    if _RESTRUCTURE.search(text):
        return "architectural"
    best = max(scores, key=lambda area: (scores[area], area != "backend"))
    if _DOCS.search(text) and scores[best] <= 1 and best != "architectural":
        return "mixed"  # documentation work has no class of its own
    return best if scores[best] else None


def area_of(text: str) -> str:
    """The single area a piece of work belongs to; backend when nothing points elsewhere."""
    return _best_area(text) or "backend"


def is_conversational(text: str) -> bool:
    """A question or chat with no change asked for."""
    words = [w.lower() for w in _WORD.findall(text)]
    if not words:
        return True
    asks_change = any(w in CHANGE_VERBS for w in words) and not _EXPLAIN.search(text)
    if _EXPLAIN.search(text) and not _REVIEW.search(text):
        return True
    questions = text.count("?")
    return bool(questions and _QUESTION_START.search(text) and not asks_change)


def classify(text: str, scope: Scope) -> str:
    """Pure: the prompt's class; several tasks in different areas are `mixed`."""
    if is_conversational(text):
        return "conversational"
    if not scope.atomic and len(scope.tasks) >= 2:
        whole = _best_area(text)
        areas = {_best_area(task) or whole for task in scope.tasks}
        return areas.pop() or "mixed" if len(areas) == 1 else "mixed"
    return area_of(text)
