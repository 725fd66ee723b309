"""Classify a prompt: architectural, review, backend, frontend, testing, devops, mixed or
conversational.

Classification reads words *and* the action: "fix the Dockerfile build error" is
devops because the object is the Dockerfile, "write tests for slugify()" is
testing because tests are the object of the main verb, while "fix X and add a
test" stays with X's area. Several tasks in different areas are "mixed".
Patterns are lower-case and run on lower-cased text.
"""

from __future__ import annotations

from reflection_core.prompt.scope import Scope, asks_for_action
from reflection_core.prompt.signals import LazyPattern, lazy_words

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
# Words that point at an area (counted per token), and phrases/suffixes (counted as substrings).
_AREA_WORDS: dict[str, str] = {
    word: area
    for area, words in {
        "frontend": """react vue svelte angular tsx jsx css scss tailwind html ui ux button page
            pages screen screens dashboard theme component components dropdown modal toast toasts
            spinner form layout frontend browser android ios mobile swiftui viewmodel fragment
            activity optgroup render rendering prettier logo style styles responsive animation""",
        "devops": """docker dockerfile compose ci pipeline deploy deployment staging helm k8s
            kubernetes terraform infra nginx workflow workflows aws gcp azure ansible cron pod pods
            release version bump pin image container prod production rds alb s3 monitoring alert
            alerts grafana makefile build eslint dependency dependencies upgrade""",
        "testing": """test tests pytest jest unittest spec specs coverage fixture fixtures
            parametrize parametrise xfail mock mocks flaky e2e""",
        "backend": """api endpoint endpoints server database db sql query queries migration orm
            model models schema table index handler route routes service services worker queue
            cache caching auth login signup user users admin role roles csv json etl cli script
            function class module django flask fastapi rails express celery redis postgres mysql
            airflow dag pagination retries logging timezone timezones scheduler webhook""",
        "architectural": """architecture architectural scalable scalability microservice
            microservices monolith layering decouple sharding aggregate""",
    }.items()
    for word in words.split()
}
_AREA_PHRASES: dict[str, tuple[str, ...]] = {
    "frontend": (
        "dark mode",
        "design system",
        "web/src",
        ".vue",
        ".tsx",
        ".jsx",
        ".css",
        "next.js",
    ),
    "devops": ("github actions", "env vars", "environment variables", "requirements.txt", ".tf"),
    "testing": ("test case",),
    "backend": (".py", ".go", ".rb", ".java"),
    "architectural": (
        "audit logging",
        "design doc",
        "domain model",
        "bounded context",
        "message bus",
    ),
}
# Words without which the patterns below cannot match: a substring test skips the scan.
_ARCH_SHAPE_WORDS = ("split", "into", "switch", "migrate", "event", "multi")
_TEST_OBJECT_WORDS = ("test", "case", "spec", "coverage")
_DOCS_WORDS = ("doc", "readme", "changelog", "wiki")
_EXPLICIT_AREA_WORDS = {"frontend": ("front", "client side"), "backend": ("back", "server side")}
_ARCH_SHAPES = LazyPattern(
    r"\bsplit \S+ into|\binto a \S+ package|\bswitch \w+ from|\bmigrate (?:\w+ )?from"
    r"|\bevent[- ]driven|\bmulti[- ]tenant",
    needs=_ARCH_SHAPE_WORDS,
)
_TOKEN = LazyPattern(r"[a-z0-9]+")
_REVIEW = lazy_words(
    r"^\s*(?:please\s+)?(?:\w+\s+)?(?:review|audit)\b|\b(?:code|security|design|pr) review\b"
    r"|\breview (?:the|this|my|our|all)\b|\blook for (?:\w+ )?(?:issues|bugs|problems|race"
    r"|vulnerabilit|path traversal)",
    needs=("review", "audit", "look for"),
)
_EXPLICIT_AREA = {
    "frontend": LazyPattern(
        r"\b(?:frontend|front-end|front end|client side)\b",
        needs=_EXPLICIT_AREA_WORDS["frontend"],
    ),
    "backend": LazyPattern(
        r"\b(?:backend|back-end|back end|server side)\b", needs=_EXPLICIT_AREA_WORDS["backend"]
    ),
}
_RESTRUCTURE = LazyPattern(
    r"^\s*(?:please\s+)?(?:split|restructure|reorgani[sz]e|decompose|modulari[sz]e)\b[^\n]{0,120}?"
    r"\binto\b",
    needs=("into",),
)
_DOCS = LazyPattern(
    r"\b(?:docs?|documentation|readme|changelog|docstrings?|wiki)\b", needs=_DOCS_WORDS
)
_QUESTION_START = LazyPattern(
    r"^\s*(?:what|why|how|where|when|which|who|is|are|does|do|did|should|would|could|can)\b"
    r"(?!\s+you\s+(?:please\s+)?(?:add|fix|make|implement|write|create|remove|update|change|"
    r"improve|refactor|help))",
)
_EXPLAIN = lazy_words(
    r"(?:^\s*|\b(?:just|please|can you|could you)\s+)explain\b|\bjust tell\b"
    r"|\bdon'?t change anything|\bno changes|\bwhat do you think"
    r"|\bdifference between|\bthoughts on\b",
    needs=(
        "explain",
        "just tell",
        "change anything",
        "no changes",
        "what do you think",
        "difference between",
        "thoughts on",
    ),
)
_TEST_OBJECT = LazyPattern(
    r"^\s*(?:please\s+)?(?:write|add|create|fix|stabili[sz]e|extend|update)\s+"
    r"(?:\w+\s+){0,3}(?:tests?|test cases?|cases|specs?|coverage)\b|\btests? (?:fail|are failing"
    r"|break|is failing|flak)|^\s*(?=\S*tests?/\S)(?=(\S+))\1 has no",
    needs=_TEST_OBJECT_WORDS,
)
_WORD = LazyPattern(r"[A-Za-z']+")


def _area_scores(text: str) -> dict[str, int]:
    """Hits per area in lower-cased `text`: one dict lookup per token, substring phrases."""
    scores = dict.fromkeys(("frontend", "devops", "testing", "backend", "architectural"), 0)
    for area in filter(None, map(_AREA_WORDS.get, _TOKEN.findall(text))):
        scores[area] += 1
    for area, phrases in _AREA_PHRASES.items():
        for phrase in phrases:
            if phrase in text:
                scores[area] += text.count(phrase)
    scores["architectural"] += len(_ARCH_SHAPES.findall(text))
    return scores


def best_area(text: str) -> str | None:
    text = text.lower()
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
    documents = _DOCS.search(text)
    if documents and scores[best] <= 1 and best != "architectural":
        return "mixed"  # documentation work has no class of its own
    return best if scores[best] else None


def area_of(text: str) -> str:
    """The single area a piece of work belongs to; backend when nothing points elsewhere."""
    return best_area(text) or "backend"


def is_conversational(text: str, task_smells: bool = False) -> bool:
    """A question or chat with no change asked for.

    A question that complains ("can the ETL be more efficient? it eats memory")
    carries task smells and is a request, not a conversation.
    """
    text = text.lower()
    if _WORD.search(text) is None:  # no words
        return True
    explains = _EXPLAIN.search(text) is not None
    if explains and not _REVIEW.search(text):
        return True
    if task_smells or "?" not in text or not _QUESTION_START.search(text):
        return False
    return explains or not asks_for_action(text)  # the clause scan, only for a question


def classify(text: str, scope: Scope, task_smells: bool = False) -> str:
    """Pure: the prompt's class; several tasks in different areas are `mixed`."""
    if is_conversational(text, task_smells):
        return "conversational"
    return class_of_work(text, scope)


def class_of_work(text: str, scope: Scope) -> str:
    """The class of the work in `scope`; `text` decides for tasks that name no area.

    A testing task next to code tasks of one area stays in that area: tests
    accompany changes, they do not make a bundle mixed.
    """
    if not scope.atomic and len(scope.tasks) >= 2:
        whole = best_area(text)
        areas = {best_area(task) or whole for task in scope.tasks}
        if len(areas) > 1:
            areas.discard("testing")
        return areas.pop() or "mixed" if len(areas) == 1 else "mixed"
    return area_of(text)
