"""Render a PromptScore for people and for the agent: the one visible line and the context.

Pure string building, shared by the hook and `reflection score`. The line is what
`reflection score` prints, and what the hook shows when it asks (or, with
`prompt.show_score`, on a good prompt); context for the agent says what to ask and how,
warmly.
"""

from __future__ import annotations

from reflection_core.prompt.questions import INTRO
from reflection_core.prompt.score import PromptScore


def status_line(result: PromptScore) -> str:
    """The single line the user sees, e.g. `reflection: prompt 4.3/5 · backend`."""
    if result.action == "skip":
        return "reflection: skipped (bypass)"
    if result.action in ("ask", "reformulate") and result.questions:
        # One line for a question, whatever the turn: the score and the class are guesses
        # on a prompt that lacks what it points at, not worth a word.
        count = len(result.questions)
        return f"reflection: {count} question{'s' if count != 1 else ''} passed to the agent"
    if result.skipped or result.classification == "conversational":
        kind = result.turn if result.turn != "task" else "continuation"
        return f"reflection: {kind} · not scored"
    head = f"reflection: prompt {result.score:.1f}/5 · {result.classification}"
    if result.action == "note" and result.note:
        return f"{head} · tip: {result.note}"
    if result.decomposition:
        return f"{head} · {len(result.decomposition)} tasks, taken in the order given"
    return head


def agent_context(result: PromptScore, lesson: str | None = None) -> str | None:
    """What the model reads before acting (hookSpecificOutput.additionalContext).

    Only a prompt that needs clarification adds context: everything else costs
    the model no tokens (a lesson from episodic memory aside). One open question is
    passed on alone; several come with the score and, below 2.0, a fill-in template.
    """
    lines: list[str] = []
    if result.action in ("ask", "reformulate") and result.questions:
        if len(result.questions) == 1 and not result.decomposition:
            # One gap: the question alone, no score, smells or fill-in template around it,
            # and a way out if the hook missed what the message holds.
            lines.append(
                "[reflection] The user's message leaves one thing open. Before acting, ask "
                f"it, in the user's language: {result.questions[0]} If their message "
                "already holds what it points at, go ahead without asking."
            )
        else:
            smells = ", ".join(s.id for s in result.smells) or "none"
            lines.append(
                f"[reflection] Prompt score {result.score:.1f}/5, class "
                f"{result.classification}, smells: {smells}."
            )
            if result.decomposition:
                lines.append("The prompt holds several tasks:")
                lines.extend(result.decomposition)
            lines.append(
                "It is too ambiguous to act on safely. Before changing anything, ask the user "
                f'these questions in their language, briefly and warmly, starting with "{INTRO}" '
                "(or the same in their language)"
            )
            lines.extend(f"{i}. {q}" for i, q in enumerate(result.questions, start=1))
            if result.reformulation:
                lines.append("Offer this template they can fill in:")
                lines.append(result.reformulation)
    if lesson:
        lines.append(f"[reflection] Lesson from a similar past task: {lesson}")
    return "\n".join(lines) if lines else None


def questions_text(result: PromptScore) -> str:
    """The questions as the user would read them."""
    if not result.questions:
        return ""
    body = "\n".join(f"{i}. {q}" for i, q in enumerate(result.questions, start=1))
    return f"{INTRO}\n{body}"


def report(result: PromptScore) -> str:
    """A compact human-readable report for `reflection score`: its first line carries the
    score and class the hook's line leaves out when it asks."""
    dims = result.dimensions.to_dict()
    head = status_line(result)
    if result.action in ("ask", "reformulate") and not result.skipped:
        head = head.replace(
            "reflection: ", f"reflection: prompt {result.score:.1f}/5 · {result.classification} · "
        )
    out = [head]
    if not result.skipped:
        out.append("  " + "  ".join(f"{name} {value}" for name, value in dims.items()))
        out.append(f"  action: {result.action}")
    for smell in result.smells:
        out.append(f"  smell {smell.id}: “{smell.evidence}”")
    if result.decomposition:
        out.append("  tasks:")
        out.extend(f"    {line}" for line in result.decomposition)
    if result.note and result.action != "note":
        out.append(f"  note: {result.note}")
    if result.questions:
        out.append("")
        out.append(questions_text(result))
    if result.reformulation:
        out.append("")
        out.append("Fill in what you know:")
        out.append(result.reformulation)
    if result.truncated:
        out.append("  (prompt truncated to prompt.max_chars before scoring)")
    return "\n".join(out)
