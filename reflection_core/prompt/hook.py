"""`reflection hook user-prompt-submit`: score the prompt, add context, say one line.

Imperative shell around `score_prompt`: takes the host's typed event, reads the
config, the transcript tail and the per-user history; writes nothing but SQLite
rows. Fails open: a broken config, transcript or database costs the context,
never the prompt. The host adapter renders the `Reply`.
"""

from __future__ import annotations

from reflection_core.hosts.events import SILENT, PromptSubmitted, Reply
from reflection_core.prompt import render
from reflection_core.prompt.score import PromptScore, is_bypassed, score_prompt

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from typing import Any


def handle(event: PromptSubmitted) -> Reply:
    from reflection_core import config
    from reflection_core.hosts.loader import workspace_config

    prompt = event.prompt
    if prompt is None:
        return _message("reflection: the hook input has no prompt text; nothing was scored.")
    try:
        cfg = workspace_config(event)
    except config.ConfigError as exc:
        return _message(f"reflection: prompt not scored, configuration error: {exc}")
    if is_bypassed(prompt, tuple(p for p in cfg.get("prompt.bypass_prefix") if p)):
        # Not scored, but still the next prompt after a stop: a `/command` grades it
        # `unknown` (docs/stats.md), else a later typed prompt would grade it instead.
        from reflection_core.outcomes.hook import on_prompt

        graded = on_prompt(event, prompt, cfg, flagged=False)
        return _message(f"reflection: {graded}") if graded else SILENT

    prev, earlier = event.transcript.previous_assistant_turn() if event.transcript else (None, "")
    result = score_prompt(prompt, prev, cfg, earlier_turn=earlier)
    # Replies, questions and chat leave nothing to record or to de-duplicate: no SQLite.
    recorded = result.questions or (not result.skipped and result.turn == "task")
    conn, warning = _open_history() if recorded and cfg.get("prompt.history") else (None, "")
    try:
        if conn is not None:
            result, warning = _with_history(conn, result, event.session_id)
        # Recalled for new tasks only, while our connection is open (one WAL checkpoint).
        use_memory = not result.skipped and result.turn == "task" and cfg.get("memory.enabled")
        lesson = _recall(cfg, prompt, conn) if use_memory else None
        from reflection_core.outcomes.hook import on_prompt

        graded = on_prompt(event, prompt, cfg, flagged=bool(result.questions), conn=conn)
    finally:
        if conn is not None:
            conn.close()
    return build_response(
        result,
        mode=cfg.get("prompt.mode"),
        block_below=float(cfg.get("prompt.block_below")),
        plan_mode=event.permission_mode == "plan",
        lesson=lesson,
        warning=warning or graded,
        tips=bool(cfg.get("prompt.tips")),
        show_score=bool(cfg.get("prompt.show_score")),
    )


def build_response(
    result: PromptScore,
    mode: str = "advise",
    block_below: float = 2.0,
    plan_mode: bool = False,
    lesson: str | None = None,
    warning: str = "",
    tips: bool = False,
    show_score: bool = False,
) -> Reply:
    """Pure: the answer for a scored prompt (block it, or add context), host-neutral.

    Conversation (a reply, a go-ahead, a question to the agent, chat) gets no answer at
    all unless it leaves something to ask: the user is talking, not handing over a task.
    Nor does a task whose gap the gate holds back (`rules.ASKS`), or one that scores
    below the pass threshold with no gap that asks (a tip, shown only with `tips`): when
    unsure, silence. On the dev set's real prompts tips were shown on 157 of 522, and 10
    of those prompts needed clarification. A good prompt gets no answer either: its score
    line (`show_score`) is one more thing to read on a prompt that needed nothing.
    """
    conversation = result.skipped or result.classification == "conversational"
    held_back = bool(result.rule) and not result.needs_clarification
    tip_only = result.action == "note" and not tips
    score_only = result.action == "pass" and not show_score
    quiet = conversation or held_back or tip_only or score_only
    if quiet and not result.questions and not warning and lesson is None:
        return SILENT
    line = render.status_line(result) + (f" ({warning})" if warning else "")
    blocks = (
        mode == "block"
        and not plan_mode
        and not result.skipped
        and result.needs_clarification
        and result.score < block_below
    )
    if blocks:
        reason = "\n".join(
            [
                f"reflection: this prompt scored {result.score:.1f}/5, below {block_below:.1f}, "
                "so it was not sent.",
                render.questions_text(result),
                "Add the details and send it again, or start it with `*` to skip the check.",
            ]
        )
        return Reply(block=reason, message=line)
    return Reply(context=render.agent_context(result, lesson) or None, message=line)


def _open_history() -> tuple[sqlite3.Connection | None, str]:
    from reflection_core.prompt import history
    from reflection_core.state import sqlite3

    try:
        return history.connect(), ""
    except (sqlite3.Error, OSError) as exc:
        return None, f"history unavailable: {type(exc).__name__}"


def _with_history(
    conn: sqlite3.Connection, result: PromptScore, raw_session: object
) -> tuple[PromptScore, str]:
    """Drop questions already asked this session and record the score; never raise."""
    from reflection_core.paths import safe_session_id
    from reflection_core.prompt import history
    from reflection_core.state import sqlite3

    session = safe_session_id(raw_session)
    try:
        if result.questions:
            result = result.without_questions(history.asked_keys(conn, session))
        if not result.skipped and result.classification != "conversational":
            smells = [s.id for s in result.smells]
            history.record(
                conn, session, result.score, result.action, result.classification, smells
            )
        if result.question_keys:
            history.mark_asked(conn, session, list(result.question_keys))
    except sqlite3.Error as exc:
        return result, f"history unavailable: {type(exc).__name__}"
    return result, ""


def _recall(cfg: Any, prompt: str, conn: sqlite3.Connection | None) -> str | None:
    """Episodic memory: a lesson from a similar past task, when that feature is installed."""
    root = getattr(cfg, "root_dir", None)
    if not isinstance(root, str):
        return None
    try:
        from reflection_core.verify.memory import recall_lesson
    except (ImportError, AttributeError):
        return None
    try:
        lesson = recall_lesson(root, prompt, conn)
    except Exception:  # memory is a bonus; it never costs the prompt
        return None
    return lesson if isinstance(lesson, str) and lesson.strip() else None


def _message(text: str) -> Reply:
    return Reply(message=text, stderr=text)
