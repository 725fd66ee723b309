"""Questions, notes, reformulation and decomposition: what the user actually reads.

Warm and concrete: at most three questions, multiple choice where possible,
never "I don't understand". Each question carries a key (a smell id or a
dimension) so the hook can avoid asking the same thing twice in one session.
"""

from __future__ import annotations

from reflection_core.prompt.dimensions import DEFAULT_WEIGHTS, Dimensions
from reflection_core.prompt.scope import Scope
from reflection_core.prompt.smells import Smell

# Most blocking first: without a repro or the referenced context nothing can start.
SMELL_PRIORITY = (
    "scope_creep",
    "bug_without_repro",
    "implicit_context",
    "performance_without_metric",
    "vague_improvement",
    "total_system",
    "magic_words",
)
DIMENSION_QUESTIONS: dict[str, str] = {
    "context": (
        "Where should I make this change: which file, module or endpoint? "
        "A path or a function name is enough."
    ),
    "verifiability": (
        "How will we know it's done: (a) a test that should pass, (b) a command and its "
        "expected output, or (c) a behaviour you can see in the app?"
    ),
    "clarity": (
        "What should be different when I'm done? One sentence about the outcome is plenty."
    ),
    "restrictions": (
        "Is there anything I must not change: public API, database schema, dependencies, "
        "or current behaviour?"
    ),
}
# Sharper choices where the class says what "where" and "done" usually mean.
CLASS_QUESTIONS: dict[tuple[str, str], str] = {
    ("context", "frontend"): (
        "Which screen or component is this about? A path like src/components/... or the "
        "page name is enough."
    ),
    ("context", "devops"): (
        "Where does this live: (a) the CI workflow, (b) the Dockerfile or compose file, or "
        "(c) infrastructure code (Terraform, Helm), and for which environment?"
    ),
    ("context", "testing"): "Which code should the tests cover, and where do its tests live?",
    ("verifiability", "frontend"): (
        "How will we know it's done: (a) a component test, (b) a check in the browser "
        "(what should appear or happen), or (c) a screenshot to match?"
    ),
    ("verifiability", "devops"): (
        "How will we know it's done: (a) the pipeline or job passes, (b) a command's output "
        "(e.g. a plan with no unexpected changes), or (c) a health check that responds?"
    ),
    ("verifiability", "testing"): (
        "Which behaviours should the tests pin down: (a) the happy path, (b) edge cases you "
        "name, or (c) a bug that must not come back?"
    ),
}
DIMENSION_NOTES: dict[str, str] = {
    "context": "Naming the file, function or error text would let me start without searching.",
    "verifiability": (
        "Saying how we'll know it's done (a test, a command, an expected output) would make "
        "this unambiguous."
    ),
    "restrictions": "If anything must not change (API, schema, behaviour), say so.",
    "clarity": "Stating the outcome in one sentence would help.",
    "scope": "This is several tasks; I'll take them in the order listed unless you say otherwise.",
}
_DIMENSION_ORDER = ("context", "verifiability", "clarity", "restrictions")
INTRO = "To do this well I need a bit more detail:"
# Nothing to act on, or a step that cannot be undone: one question, then wait.
GAP_QUESTIONS: dict[str, str] = {
    "empty": "What would you like me to do? One sentence about the goal is enough.",
    "fragment": "“{evidence}” on its own doesn't say what to do. What should I do with it?",
    "vanished": (
        "“{evidence}” is the temporary copy of a screenshot thumbnail, which the system "
        "deletes moments after the drop, so I can't open it. Can you paste the image, or "
        "save it first and send that path, or say what it shows?"
    ),
    "irreversible": (
        "Before I run this: the plan includes an irreversible step on production "
        "(“{evidence}”). Is there a fresh backup, and should I run it on production now or on "
        "a test environment first?"
    ),
}


def choose(
    smells: list[Smell],
    dims: Dimensions,
    scope: Scope,
    limit: int,
    klass: str = "backend",
    minimum: int = 2,
) -> list[tuple[str, str]]:
    """(key, question) pairs: smells by priority, then the weakest dimensions."""
    by_id = {smell.id: smell for smell in smells}
    chosen: list[tuple[str, str]] = []
    if not scope.atomic and not scope.override:
        chosen.append(("scope_creep", order_question(scope)))
    for smell_id in SMELL_PRIORITY:
        if smell_id in by_id and smell_id != "scope_creep":
            chosen.append((smell_id, by_id[smell_id].question))
    ratings = dims.to_dict()
    weak = sorted(_DIMENSION_ORDER, key=lambda d: (ratings[d], _DIMENSION_ORDER.index(d)))
    covered = {
        "context": {"implicit_context", "bug_without_repro"},
        "verifiability": {"performance_without_metric", "vague_improvement"},
        "clarity": {"vague_improvement", "magic_words"},
    }
    for dim in weak:
        if len(chosen) >= max(minimum, 1) and ratings[dim] > 2:
            break
        if covered.get(dim, set()) & set(by_id):
            continue
        chosen.append((dim, CLASS_QUESTIONS.get((dim, klass), DIMENSION_QUESTIONS[dim])))
    return chosen[:limit]


def order_question(scope: Scope) -> str:
    return (
        f"This is {len(scope.tasks)} separate tasks. Which order should I take them in "
        f"(e.g. 1, then 2), or should I do them all together in one go?"
    )


def decomposition(scope: Scope) -> list[str]:
    """The numbered task table proposed for a multi-task prompt."""
    return [f"{index}. {task}" for index, task in enumerate(scope.tasks, start=1)]


def note_for(smells: list[Smell], dims: Dimensions) -> str:
    """The single suggestion shown for a 3.0-3.9 prompt."""
    for smell_id in SMELL_PRIORITY:
        for smell in smells:
            if smell.id == smell_id and smell_id != "scope_creep":
                return smell.question
    ratings = dims.to_dict()
    order = (*_DIMENSION_ORDER, "scope")

    def shortfall(dim: str) -> tuple[float, int]:  # the points the prompt loses here
        return (-(5 - ratings[dim]) * DEFAULT_WEIGHTS[dim], order.index(dim))

    return DIMENSION_NOTES[min(order, key=shortfall)]


def reformulation(prompt: str) -> str:
    """A fill-in template that keeps the user's words as the goal."""
    first_line = " ".join(prompt.strip().splitlines()[0].split()) if prompt.strip() else ""
    goal = first_line if len(first_line) <= 160 else first_line[:159] + "…"
    return (
        f"Goal: {goal or '<what should change, in one sentence>'}\n"
        "Where: <file, module or endpoint, e.g. src/...>\n"
        "Current behaviour: <error text, log line, or what you see now>\n"
        "Done when: <test, command or observable result>\n"
        "Constraints: <what must not change>"
    )
