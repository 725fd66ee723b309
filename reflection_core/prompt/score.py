"""Score a prompt before an agent acts on it: the pure entry point of the prompt area.

`score_prompt` turns a prompt (and, when known, the previous assistant message)
into a `PromptScore`: five weighted dimensions, smells with evidence, a class,
the scope governor's task table, and what to do (pass, note, ask, reformulate,
skip). No I/O: the hook, the CLI, the eval runner and the MCP server call it.
"""

from __future__ import annotations

from reflection_core.prompt import classify as classify_mod
from reflection_core.prompt import (
    continuation,
    dimensions,
    live_context,
    questions,
    rules,
    scope,
    smells,
    turn,
)
from reflection_core.prompt.dimensions import DEFAULT_WEIGHTS
from reflection_core.prompt.signals import Signals, extract, find_paths
from reflection_core.records import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from reflection_core.config import Config

DEFAULT_THRESHOLDS = {"pass": 4.0, "note": 3.0, "ask": 2.0}
DEFAULT_MAX_CHARS = 1_000_000


class Settings(NamedTuple):
    """The parts of the config the scorer reads."""

    weights: dict[str, float] = DEFAULT_WEIGHTS  # shared defaults, never mutated
    thresholds: dict[str, float] = DEFAULT_THRESHOLDS
    bypass_prefixes: tuple[str, ...] = ("*",)
    max_questions: int = 3
    max_chars: int = DEFAULT_MAX_CHARS

    @classmethod
    def from_config(cls, cfg: Config | None) -> Settings:
        if cfg is None:
            return cls()
        prompt = cfg.get("prompt")
        return cls(
            weights={k: float(v) for k, v in prompt["weights"].items()},
            thresholds={k: float(v) for k, v in prompt["thresholds"].items()},
            bypass_prefixes=tuple(p for p in prompt["bypass_prefix"] if p),
            max_questions=int(prompt["max_questions"]),
            max_chars=int(prompt["max_chars"]),
        )


class PromptScore(NamedTuple):
    """The evaluation of one prompt; `to_dict()` is the `reflection score --json` contract."""

    score: float
    action: str
    skipped: bool
    dimensions: dimensions.Dimensions
    smells: tuple[smells.Smell, ...]
    classification: str
    questions: tuple[str, ...]
    reformulation: str | None
    scope: scope.Scope
    live_context_bonus: bool
    note: str | None = None
    decomposition: tuple[str, ...] = ()
    truncated: bool = False
    question_keys: tuple[str, ...] = ()
    turn: str = "task"
    rule: str = ""  # the rule that asks (see prompt.rules); empty when nothing is asked

    def to_dict(self) -> dict[str, Any]:
        return {
            "score": self.score,
            "action": self.action,
            "skipped": self.skipped,
            "dimensions": self.dimensions.to_dict(),
            "smells": [smell.to_dict() for smell in self.smells],
            "classification": self.classification,
            "questions": list(self.questions),
            "reformulation": self.reformulation,
            "scope": {"atomic": self.scope.atomic, "tasks": list(self.scope.tasks)},
            "live_context_bonus": self.live_context_bonus,
            "note": self.note,
            "decomposition": list(self.decomposition),
            "truncated": self.truncated,
            "turn": self.turn,
        }

    @property
    def needs_clarification(self) -> bool:
        return self.action in ("ask", "reformulate")

    def without_questions(self, keys: set[str]) -> PromptScore:
        """Drop questions already asked this session; never ask the same ambiguity twice."""
        kept = [
            (k, q) for k, q in zip(self.question_keys, self.questions, strict=True) if k not in keys
        ]
        if len(kept) == len(self.questions):
            return self
        result = self._replace(
            questions=tuple(q for _, q in kept),
            question_keys=tuple(k for k, _ in kept),
        )
        if not kept and self.action in ("ask", "reformulate"):
            note = "These points were already asked this session; proceed and state assumptions."
            result = result._replace(action="note", note=note, reformulation=None, rule="")
        return result


def composite(dims: dimensions.Dimensions, weights: dict[str, float]) -> float:
    """(CO*3 + CS*2 + RD*1 + VR*2 + AA*2) / 10 with configurable weights."""
    ratings = dims.to_dict()
    total = sum(weights.values()) or 1.0
    return sum(ratings[name] * weights.get(name, 0.0) for name in ratings) / total


def action_for(score: float, thresholds: dict[str, float]) -> str:
    if score >= thresholds["pass"]:
        return "pass"
    if score >= thresholds["note"]:
        return "note"
    if score >= thresholds["ask"]:
        return "ask"
    return "reformulate"


def is_bypassed(prompt: str, prefixes: tuple[str, ...]) -> bool:
    """Slash commands and the bypass prefix skip evaluation. A path is no command:
    `/var/folders/…/Screenshot.png broken` is a message about a file."""
    stripped = prompt.lstrip()
    if not stripped or any(stripped.startswith(p) for p in prefixes):
        return True
    return stripped.startswith("/") and "/" not in stripped.split(maxsplit=1)[0][1:]


def _skipped(text: str, action: str, bonus: bool, note: str, klass: str) -> PromptScore:
    """Not scored: dimensions are neutral placeholders, the score their composite."""
    neutral = dimensions.Dimensions(3, 3, 3, 3, 5)
    return PromptScore(
        score=3.4,
        action=action,
        skipped=True,
        dimensions=neutral,
        smells=(),
        classification=klass,
        questions=(),
        reformulation=None,
        scope=scope.Scope(atomic=True, tasks=(" ".join(text.split())[:90],) if text else ()),
        live_context_bonus=bonus,
        note=note,
    )


def _one_piece(items: list[str]) -> bool:
    """Picked list items are one task unless they touch different files or areas."""
    if len(items) <= 1:
        return True
    files = {path for item in items for path in find_paths(item)}
    areas = {area for item in items if (area := classify_mod.best_area(item))}
    return len(files) < 2 and len(areas) <= 1


def encodable(text: str) -> str:
    """Lone surrogates (from JSON escapes like "\\ud800") replaced, so the result can be printed."""
    if text.isascii():  # no surrogate: checked without encoding a copy
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")
    return text


def score_prompt(
    prompt: str,
    prev_assistant: str | None = None,
    cfg: Config | None = None,
    *,
    settings: Settings | None = None,
    earlier_turn: str = "",
) -> PromptScore:
    """Pure: evaluate `prompt`, optionally against the previous assistant message.

    `settings` (read from `cfg` when not given) lets a batch read the config once.
    `earlier_turn` is what the agent's turn wrote before that message: an option the
    user picks may have been offered there.
    """
    settings = settings or Settings.from_config(cfg)
    text = encodable(prompt if isinstance(prompt, str) else str(prompt))
    prev_assistant = encodable(prev_assistant) if isinstance(prev_assistant, str) else None
    truncated = len(text) > settings.max_chars
    if truncated:
        text = text[: settings.max_chars]
    if is_bypassed(text, settings.bypass_prefixes):
        note = "Bypassed: slash command or bypass prefix."
        return _skipped(text, "skip", False, note, "conversational")._replace(truncated=truncated)

    read = turn.read(text, prev_assistant)
    cont = continuation.Continuation(False)
    if read.kind in ("task", "reply", "continuation") and any(c.isalnum() for c in read.text):
        found = continuation.detect(read.text)
        cont = continuation.resolve(found, prev_assistant, read.text, earlier_turn)
    if read.kind == "continuation" and cont.kind != "selection":
        cont = cont._replace(unresolved=None)  # "continue" resumes; it needs no referent
    bonus = live_context.applies(len(read.text.split()), prev_assistant)
    vanished = turn.vanished_screenshot(read.text, read.attached) if read.kind != "task" else None
    if vanished:  # a reply or a question too: no conversation brings the picture back
        return _truncated(_gated(_vanished_in_conversation(read, vanished, bonus)), truncated)
    if cont.is_continuation or read.kind in turn.REPLY_KINDS:
        result = _continuation(read, cont, prev_assistant, bonus)
        return _truncated(_gated(result), truncated)
    invited = read.kind in ("task", "question") and turn.invites_questions(read.text)
    asking = read.kind == "question"
    pointer = asking and turn.missing_referent(read.text, read.attached, prev_assistant)
    if pointer:  # "explain this file", with none in sight
        return _truncated(_gated(_pointer_in_question(read, pointer, bonus)), truncated)
    if read.quiet and not invited:
        note = _QUIET_NOTES[read.kind]
        return _skipped(read.text, "pass", bonus, note, "conversational")._replace(
            truncated=truncated, turn=read.kind, skipped=False
        )
    if invited:
        read = read._replace(kind="task")
    result = _scored_task(read, prev_assistant, settings, bonus, invited)
    return _truncated(_gated(result), truncated)


def _truncated(result: PromptScore, truncated: bool) -> PromptScore:
    """Marks a result scored on the cut prompt (results are built unmarked: no copy otherwise)."""
    return result._replace(truncated=True) if truncated else result


def _gated(result: PromptScore) -> PromptScore:
    """Silent unless the gap behind the questions is one that asks (`rules.ASKS`).

    The score and the rule stay, so history and the eval still see what was held back.
    """
    if not result.needs_clarification or rules.asks(result.rule):
        return result
    quiet = result._replace(action="pass", questions=(), question_keys=(), reformulation=None)
    if result.skipped:
        return quiet
    found = list(result.smells)
    return quiet._replace(action="note", note=questions.note_for(found, result.dimensions))


_QUIET_NOTES = {
    "continuation": "Continuation of the previous turn: not scored.",
    "reply": "A reply to the agent's previous message: not scored.",
    "question": "A question, not a task: not scored as one.",
    "chat": "Chat, not a task: not scored.",
    "command": "A shell command, not a task: not scored.",
    "output": "Pasted output, not a task: not scored.",
}


def _continuation(
    read: turn.Turn, cont: continuation.Continuation, prev: str | None, bonus: bool
) -> PromptScore:
    """Takes up the agent's proposal or list: not scored; asks only when the referent is missing
    or the go-ahead would run an irreversible production step."""
    picked = continuation.selected_tasks(read.text, cont, prev)
    taken = scope.Scope(atomic=_one_piece(picked), tasks=tuple(picked) or (read.text[:90],))
    area = classify_mod.class_of_work(prev or "", taken)
    kind = "continuation" if cont.is_continuation else read.kind
    skipped = _skipped(read.text, "pass", bonus, _QUIET_NOTES[kind], area)._replace(
        scope=taken,
        decomposition=tuple(questions.decomposition(taken)) if not taken.atomic else (),
        turn=kind,
    )
    if cont.unresolved:
        return skipped._replace(
            action="ask", questions=(cont.unresolved,), question_keys=("referent",), rule=cont.rule
        )
    go_ahead = cont.kind in ("approval", "anaphoric") or turn.is_go_ahead(read.text)
    step = turn.irreversible_go_ahead(prev) if go_ahead and read.kind != "continuation" else None
    if step:
        question = questions.GAP_QUESTIONS["irreversible"].format(evidence=step)
        return skipped._replace(
            action="ask",
            questions=(question,),
            question_keys=("irreversible",),
            rule="irreversible_step",
        )
    return skipped


def _vanished_in_conversation(read: turn.Turn, vanished: str, bonus: bool) -> PromptScore:
    """A dropped screenshot the system already deleted, in a reply or a question ("sure,
    here: /var/folders/…/Screenshot.png" after the agent asked for one): ask for it."""
    question = questions.GAP_QUESTIONS["vanished"].format(evidence=vanished)
    return _asked_in_conversation(read, question, bonus)


def _pointer_in_question(read: turn.Turn, pointer: str, bonus: bool) -> PromptScore:
    """A question about something nobody supplied ("explain this file" on a cold start):
    the answer needs the thing first."""
    return _asked_in_conversation(read, smells.missing_referent(pointer).question, bonus)


def _asked_in_conversation(read: turn.Turn, question: str, bonus: bool) -> PromptScore:
    """Not scored as a task; the one question about the thing pointed at."""
    skipped = _skipped(read.text, "ask", bonus, _QUIET_NOTES.get(read.kind, ""), "conversational")
    return skipped._replace(
        questions=(question,),
        question_keys=("implicit_context",),
        rule="referent_nowhere",
        turn=read.kind,
    )


def _scored_task(
    read: turn.Turn, prev: str | None, settings: Settings, bonus: bool, invited: bool = False
) -> PromptScore:
    """A new task: rated on specificity; asked about only when a material gap is evident."""
    text = read.text
    sig = extract(text)
    governed = scope.govern(text)
    found, referent = _task_smells(read, sig, governed, prev)
    smell_ids = {s.id for s in found}
    dims = dimensions.rate(text, sig, governed, smell_ids)
    raw = composite(dims, settings.weights) + (live_context.BONUS if bonus else 0.0)
    value = round(max(1.0, min(5.0, raw)), 1)
    bare = turn.bare_request(read, sig.anchors > 0, bool(sig.verbs))
    klass = classify_mod.classify(text, governed, task_smells=bool(smell_ids - {"magic_words"}))
    if klass == "conversational" and bare is None and referent is None and not invited:
        note = _QUIET_NOTES["question"]
        return _skipped(text, "pass", bonus, note, klass)._replace(turn="question", skipped=False)
    if klass == "conversational":
        klass = classify_mod.class_of_work(text, governed)
    evident = _gap_is_evident(read, sig, smell_ids)
    one_gap = bool(bare or referent or (sig.hedges and evident))
    action = _task_action(action_for(value, settings.thresholds), evident, one_gap, invited)
    split = not governed.atomic and not governed.override
    decomposition = tuple(questions.decomposition(governed)) if split else ()
    result = PromptScore(
        score=value,
        action=action,
        skipped=False,
        dimensions=dims,
        smells=tuple(found),
        classification=klass,
        questions=(),
        reformulation=None,
        scope=governed,
        live_context_bonus=bonus,
        decomposition=decomposition,
        turn=read.kind,
    )
    if action == "note":
        return result._replace(note=questions.note_for(found, dims))
    if action not in ("ask", "reformulate"):
        return result
    rule = "invited_questions" if invited else _asking_rule(bare, referent, sig, found)
    result = result._replace(rule=rule)
    if bare:
        evidence = " ".join(text.split())[:120]
        question = questions.GAP_QUESTIONS[bare].format(evidence=evidence)
        return result._replace(action="ask", questions=(question,), question_keys=("clarity",))
    if referent:  # the gap that asks: ask only about it, not the smells the gate holds back
        smell = next(s for s in found if s.id == "implicit_context")
        reform = questions.reformulation(text) if action == "reformulate" else None
        return result._replace(
            questions=(smell.question,),
            question_keys=("implicit_context",),
            reformulation=reform,
        )
    pairs = questions.choose(found, dims, governed, settings.max_questions, klass)
    reform = questions.reformulation(text) if action == "reformulate" else None
    return result._replace(
        questions=tuple(q for _, q in pairs),
        question_keys=tuple(k for k, _ in pairs),
        reformulation=reform,
    )


def _task_action(by_score: str, evident: bool, one_gap: bool, invited: bool) -> str:
    """What to do with a new task: a low score alone never asks, an evident gap does."""
    if invited:  # the user asked to be asked before the agent starts
        return "ask"
    if one_gap:
        # One missing thing: ask about it; the fill-in template is for a prompt low all over.
        return by_score if by_score in ("ask", "reformulate") and evident else "ask"
    if by_score in ("ask", "reformulate") and not evident:
        return "note"
    return by_score


def _task_smells(
    read: turn.Turn, sig: Signals, governed: scope.Scope, prev: str | None
) -> tuple[list[smells.Smell], str | None]:
    """The task's smells in reading order, and the referent it points at that nobody supplied."""
    text = read.text
    found = smells.detect(text, sig, governed)
    referent = turn.missing_referent(text, read.attached, prev)
    vanished = turn.vanished_screenshot(text, read.attached)
    if vanished:  # no file the conversation names brings the picture back
        question = questions.GAP_QUESTIONS["vanished"].format(evidence=vanished)
        found = [s for s in found if s.id != "implicit_context"]
        found.append(smells.Smell("implicit_context", vanished, question))
        referent = vanished
    elif referent and not any(s.id == "implicit_context" for s in found):
        found = [*found, smells.missing_referent(referent)]
    return list(smells.sorted_smells(found)), referent


def _asking_rule(
    bare: str | None, referent: str | None, sig: Signals, found: list[smells.Smell]
) -> str:
    """The gap a new task is asked about (`rules.ASKS`), most specific first. Only a thing
    pointed at and not supplied points nowhere: wording that leans on earlier context ("as
    discussed", "that bug we saw") mostly comes with what it means ("move the cron to 3am")."""
    if referent:
        return "referent_nowhere"
    if bare or _names_nothing(sig):
        return "nothing_to_act_on"
    return "underspecified"


def _gap_is_evident(read: turn.Turn, sig: Signals, gaps: set[str]) -> bool:
    """Is a low score backed by evidence worth a round trip?

    In a conversation, or with a file or image attached, the agent has context the
    words alone do not show: no. On a cold start, in a language the phrase rules
    read, a smell that names a gap (a missing repro, metric, referent or bound), a
    choice left open ("either ... or", "maybe") or a request naming nothing concrete is.
    """
    if read.live or read.attached or turn.latin_share(read.text) < 0.6:
        return False
    if turn.is_command(read.text) or turn.is_analysis(read.text):
        return False
    return bool(gaps - {"scope_creep", "magic_words"}) or bool(sig.hedges) or _names_nothing(sig)


def _names_nothing(sig: Signals) -> bool:
    """No place, no named object, no criterion, no observed behaviour, no example."""
    return not (
        sig.anchors >= 0.75
        or sig.named_objects
        or sig.criteria
        or sig.expected_actual
        or sig.examples
    )
