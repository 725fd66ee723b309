"""Post-session memory curator: propose concrete additions to CLAUDE.md / AGENTS.md.

`propose` (pure) turns what a session left behind into proposals: user
corrections ("no, use pnpm"), prompt smells that kept coming back, gates the
agent kept missing across stops, and commits that were reverted. `apply_proposals`
(pure) adds the accepted lines under one "Lessons" section. `gather` is the shell:
verdict and full records, the transcript (through the session reader), the
`prompt_history` table and the git log since the session started. Nothing here
runs anything but reads; the CLI writes only confirmed proposals, atomically.
"""

from __future__ import annotations

import difflib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from reflection_core import paths
from reflection_core.consumers import verdict_files
from reflection_core.lazyre import lazy
from reflection_core.redact import redact

SECTION = "## Lessons from past sessions (reflection curate)"
MEMORY_FILES = ("CLAUDE.md", "AGENTS.md")
REPEAT_THRESHOLD = 2
MAX_LESSON_CHARS = 160

_SENTENCES = lazy(r"(?<=[.!?;])\s+|\n+")
_CORRECTION = lazy(
    r"^\s*(?:(?P<lead>no|nope|wrong|actually|not like that)\b[\s,.!:;-]*)?"
    r"(?P<rule>(?:please\s+)?(?:use|don'?t|do not|never|always|stop|prefer|keep|avoid|only)\b.*)$",
    re.I,
)
_STRONG = lazy(r"^(?:please\s+)?(?:don'?t|do not|never|always|stop|avoid)\b", re.I)
_INSTEAD = lazy(r"\buse\s+\S+.*\b(?:instead of|not|rather than)\b", re.I)

SMELL_LESSONS: dict[str, str] = {
    "bug_without_repro": "When a bug report has no reproduction, ask for the exact steps, input "
    "and error before changing code.",
    "performance_without_metric": "For performance work, agree on a metric and measure a "
    "baseline before optimizing.",
    "vague_improvement": "When asked to 'improve' or 'clean up' something, ask what better means "
    "(a metric or an example) before editing.",
    "implicit_context": "When a request says 'it' or 'the bug' without naming it, ask which file, "
    "error or commit is meant.",
    "scope_creep": "When a request bundles several tasks, do them one at a time, each with its "
    "own check.",
    "total_system": "For whole-system requests, propose a first small slice and how to verify it "
    "before starting.",
    "magic_words": "Urgency words ('quickly', 'just') never skip the checks: run the tests before "
    "saying done.",
}
GATE_LESSONS: dict[str, str] = {
    "tests": "Run the full test suite ({test_command}) after your last change and before you say "
    "you are done.",
    "build": "Run the build after your changes and fix every error before finishing.",
    "lint": "Run the linters after your changes and fix what they report before finishing.",
    "push": "Push your work to a feature branch (never straight to a protected branch) before "
    "finishing.",
    "pr": "Open a pull request when the task asks for one, and link it in your final message.",
    "ci": "Wait for CI on the pull request and fix failures before finishing.",
}


@dataclass
class SessionEvidence:
    """What one session left behind, as plain data."""

    session_id: str | None = None
    user_prompts: list[str] = field(default_factory=list)  # in order; the first is the task
    decisions: list[dict[str, Any]] = field(default_factory=list)  # one per stop (full records)
    prompt_smells: list[list[str]] = field(default_factory=list)  # smell ids per scored prompt
    commit_subjects: list[str] = field(default_factory=list)
    test_command: str | None = None
    warnings: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Proposal:
    """Lines to add to the memory file, and why."""

    title: str
    evidence: str
    lines: tuple[str, ...]


# ---------------------------------------------------------------- pure core


def corrections(prompts: list[str]) -> list[str]:
    """Rules the user stated while correcting the agent (prompts after the first)."""
    found: dict[str, None] = {}
    for prompt in prompts[1:]:
        for sentence in _SENTENCES.split(prompt):
            lesson = _lesson_from(sentence.strip())
            if lesson:
                found.setdefault(lesson, None)
    return list(found)


def _lesson_from(sentence: str) -> str | None:
    """A rule from a correcting sentence; plain requests ("use this file") are not rules."""
    match = _CORRECTION.match(sentence)
    instead = _INSTEAD.search(sentence)
    if match is None:
        if instead is None:
            return None
        rule = sentence[instead.start() :]
    elif match.group("lead") or _STRONG.match(match.group("rule")) or instead:
        rule = match.group("rule")
    else:
        return None
    rule = re.sub(r"^please\s+", "", rule.strip(" .!;,"), flags=re.I)
    words = rule.split()
    if len(words) < 2 or len(rule) > MAX_LESSON_CHARS:
        return None
    return redact(rule[0].upper() + rule[1:] + ".")


def missed_gates(decisions: list[dict[str, Any]]) -> Counter[str]:
    """How many stops left each required gate unsatisfied."""
    counts: Counter[str] = Counter()
    for decision in decisions:
        gates = decision.get("gates")
        if not isinstance(gates, dict):
            continue
        for name, gate in gates.items():
            if isinstance(gate, dict) and gate.get("required") and not gate.get("satisfied"):
                counts[str(name)] += 1
    return counts


def propose(evidence: SessionEvidence, memory_text: str) -> list[Proposal]:
    """Concrete additions, skipping lessons the memory file already holds."""
    proposals: list[Proposal] = []
    for lesson in corrections(evidence.user_prompts):
        proposals.append(Proposal("User correction", f"you told the agent: {lesson!r}", (lesson,)))
    smell_counts = Counter(s for smells in evidence.prompt_smells for s in set(smells))
    for smell, count in sorted(smell_counts.items(), key=lambda kv: (-kv[1], kv[0])):
        if count >= REPEAT_THRESHOLD and smell in SMELL_LESSONS:
            proposals.append(
                Proposal(
                    f"Repeated prompt smell: {smell}",
                    f"{count} prompts of this session had it",
                    (SMELL_LESSONS[smell],),
                )
            )
    command = f"`{evidence.test_command}`" if evidence.test_command else "the project's command"
    for gate, count in sorted(missed_gates(evidence.decisions).items(), key=lambda kv: -kv[1]):
        if count >= REPEAT_THRESHOLD and gate in GATE_LESSONS:
            proposals.append(
                Proposal(
                    f"Gate the agent kept missing: {gate}",
                    f"unsatisfied at {count} stops of this session",
                    (GATE_LESSONS[gate].format(test_command=command),),
                )
            )
    for subject in evidence.commit_subjects:
        match = re.match(r'^Revert "(.+)"$', subject.strip())
        if match:
            lesson = redact(f'"{match.group(1)}" was reverted; ask before redoing that change.')
            proposals.append(Proposal("Reverted commit", f"git log: {subject}", (lesson,)))
    return _unseen(proposals, memory_text)


def _unseen(proposals: list[Proposal], memory_text: str) -> list[Proposal]:
    known = _normalize(memory_text)
    seen: set[str] = set()
    kept = []
    for proposal in proposals:
        key = _normalize(" ".join(proposal.lines))
        if key in seen or key.strip(".") in known:
            continue
        seen.add(key)
        kept.append(proposal)
    return kept


def _normalize(text: str) -> str:
    return " ".join(text.lower().split())


def apply_proposals(memory_text: str, proposals: list[Proposal]) -> str:
    """The memory file with the proposals' lines added at the end of the Lessons section."""
    new_lines = [f"- {line}" for proposal in proposals for line in proposal.lines]
    if not new_lines:
        return memory_text
    lines = memory_text.splitlines()
    if SECTION not in lines:
        prefix = memory_text.rstrip("\n")
        head = f"{prefix}\n\n" if prefix else ""
        return f"{head}{SECTION}\n\n" + "\n".join(new_lines) + "\n"
    start = lines.index(SECTION) + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("#")), len(lines))
    while end > start and not lines[end - 1].strip():
        end -= 1
    if end == start:
        new_lines = ["", *new_lines]
    updated = lines[:end] + new_lines + lines[end:]
    return "\n".join(updated) + "\n"


def render_diff(name: str, before: str, after: str) -> str:
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=f"a/{name}",
            tofile=f"b/{name}",
        )
    )


# ---------------------------------------------------------------- shell


def memory_file(root: Path) -> Path:
    """CLAUDE.md, else an existing AGENTS.md, else a new CLAUDE.md."""
    for name in MEMORY_FILES:
        if (root / name).is_file():
            return root / name
    return root / MEMORY_FILES[0]


def gather(
    root: Path,
    *,
    session_id: str | None = None,
    transcript: Path | None = None,
    test_command: str | None = None,
) -> SessionEvidence:
    """Everything the session left behind, each source read defensively."""
    evidence = SessionEvidence(session_id=session_id, test_command=test_command)
    try:
        verdict = verdict_files.latest_verdict(root, session_id)
    except verdict_files.VerdictError as exc:
        evidence.warnings.append(str(exc))
        verdict = None
    if verdict is not None:
        evidence.session_id = verdict.session_id
    records = _records(root, evidence.session_id, evidence.warnings) if evidence.session_id else []
    evidence.decisions = [r.get("decision") or r.get("verdict") or {} for r in records]
    if transcript is None:
        transcript = _transcript_from_records(records)
    if transcript is not None:
        evidence.user_prompts = _user_prompts(transcript, evidence.warnings)
    elif evidence.session_id:
        evidence.warnings.append("no transcript path in the records; pass --transcript PATH")
    if evidence.session_id:
        evidence.prompt_smells = _prompt_smells(evidence.session_id, evidence.warnings)
    evidence.commit_subjects = _commit_subjects(root, _session_start(records), evidence.warnings)
    return evidence


def _records(root: Path, session_id: str, warnings: list[str]) -> list[dict[str, Any]]:
    directory = paths.reflection_dir(root) / "records"
    out = []
    for path in sorted(directory.glob(f"{paths.safe_session_id(session_id)}_*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8", errors="replace"))
        except (OSError, ValueError) as exc:
            warnings.append(f"skipped record {path.name}: {exc}")
            continue
        if isinstance(data, dict):
            out.append(data)
    return out


def _transcript_from_records(records: list[dict[str, Any]]) -> Path | None:
    """The transcript path the stop hook kept in its record (`hook.transcript_path`)."""
    for record in reversed(records):
        hook = record.get("hook")
        value = hook.get("transcript_path") if isinstance(hook, dict) else None
        if isinstance(value, str) and value:
            return Path(value)
    return None


def _user_prompts(transcript: Path, warnings: list[str]) -> list[str]:
    """Every real user prompt of the transcript, oldest first (through the session reader)."""
    try:
        from reflection_core.session.transcript import read_session

        session = read_session(transcript)
    except ImportError as exc:
        warnings.append(f"the transcript reader is not available: {exc}")
        return []
    except (OSError, ValueError) as exc:
        warnings.append(f"cannot read the transcript {transcript}: {exc}")
        return []
    prompts = [*session.earlier_prompts, session.task_prompt]
    return [p for p in prompts if p.strip()]


def _prompt_smells(session_id: str, warnings: list[str]) -> list[list[str]]:
    """Smell ids per scored prompt from `prompt_history` (absent table: no rows)."""
    import sqlite3

    from reflection_core import state

    if not state.db_path().exists():
        return []
    try:
        conn = state.connect()
        try:
            rows = conn.execute(
                "SELECT smells FROM prompt_history WHERE session_id = ? ORDER BY created_at",
                (session_id,),
            ).fetchall()
        finally:
            conn.close()
    except sqlite3.Error as exc:
        if "no such table" not in str(exc):
            warnings.append(f"prompt history unreadable: {exc}")
        return []
    out = []
    for (raw,) in rows:
        try:
            smells = json.loads(raw)
        except (TypeError, ValueError):
            continue
        if isinstance(smells, list):
            out.append([str(smell) for smell in smells])
    return out


def _session_start(records: list[dict[str, Any]]) -> datetime | None:
    moments = []
    for record in records:
        session = record.get("session")
        verdict = record.get("verdict")
        candidates = (
            session.get("task_started_at") if isinstance(session, dict) else None,
            verdict.get("created_at") if isinstance(verdict, dict) else None,
        )
        for value in candidates:
            try:
                moments.append(verdict_files.parse_timestamp(value))
            except (ValueError, TypeError):
                continue
    return min(moments) if moments else None


def _commit_subjects(root: Path, since: datetime | None, warnings: list[str]) -> list[str]:
    """Commit subjects since the session started (the last 50 when the start is unknown)."""
    try:
        import git
    except ImportError as exc:
        warnings.append(f"gitpython is not available: {exc}")
        return []
    try:
        repo = git.Repo(root)
        kwargs: dict[str, Any] = {"max_count": 200 if since else 50}
        if since is not None:
            kwargs["since"] = since.isoformat()
        return [str(c.summary) for c in repo.iter_commits(**kwargs)]
    except (git.GitError, ValueError) as exc:
        warnings.append(f"git log unavailable: {exc}")
        return []
