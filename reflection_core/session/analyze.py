"""What the stop hook would conclude, offline: read a transcript, gather context, decide.

`analyze_transcript` has no side effects (no attempt increments, no files); the
stop hook uses the same `gather_context` so the two never disagree. Optional
sources (the test-run ledger, repo signals) are imported lazily and treated as
"no evidence" when they are not installed or fail.
"""

from __future__ import annotations

import os
from pathlib import Path

from reflection_core import paths
from reflection_core.session.attempts import AttemptState
from reflection_core.session.decide import Decision, DecisionContext, RepoFacts, decide
from reflection_core.session.evidence import ran_scripts
from reflection_core.session.gates import LedgerEvidence
from reflection_core.session.model import Session

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any


def repo_facts(root: Path | None, scripts: Sequence[str] = ()) -> tuple[RepoFacts, dict[str, Any]]:
    """Test/build commands and whether tests exist, from the repo's own files, and what
    its named wrappers and the shell `scripts` the session ran run."""
    if root is None:
        return RepoFacts(), {"available": False}
    try:
        from reflection_core.project import repo_signals
        from reflection_core.project_model import read_scripts

        signals = repo_signals(root)
        wrapped = signals.model.wrapped + read_scripts(root, scripts)
    except (ImportError, AttributeError) as exc:
        return RepoFacts(), {"available": False, "reason": type(exc).__name__}
    facts = RepoFacts(
        test_command=getattr(signals, "test_command", None),
        build_command=getattr(signals, "build_command", None),
        has_tests=getattr(signals, "has_tests", None),
        typecheck_command=next(iter(signals.typecheck_commands), None),
        lint_command=next(iter(signals.lint_commands), None),
        run_command=signals.run_command,
        test_runs=signals.test_runs,
        ecosystems=tuple(signals.ecosystems),
        tested_dirs=signals.tested_dirs,
        wrapped=wrapped,
    )
    return facts, {
        "available": True,
        "test_command": facts.test_command,
        "build_command": facts.build_command,
        "has_tests": facts.has_tests,
        "languages": list(getattr(signals, "languages", []) or []),
        "ecosystems": list(facts.ecosystems),
    }


def ledger_evidence(root: Path | None, cfg: Any) -> tuple[LedgerEvidence | None, dict[str, Any]]:
    """The ledger's word on the current tree, or None when the ledger is off or absent."""
    if root is None or not cfg.get("tests.ledger"):
        return None, {"available": False, "reason": "ledger off or not a git repo"}
    try:
        from reflection_core.guards.tests_ran import current_tree_evidence

        tree = current_tree_evidence(root, cfg)
    except (ImportError, AttributeError, OSError, RuntimeError, ValueError) as exc:
        # git missing or failing (GitError is a RuntimeError): judge from the transcript.
        return None, {"available": False, "reason": f"{type(exc).__name__}: {exc}"[:300]}
    evidence = LedgerEvidence(
        passed=bool(getattr(tree, "passed", False)),
        reason=str(getattr(tree, "reason", "") or ""),
        command_hint=getattr(tree, "command_hint", None),
        ignorable_only=bool(getattr(tree, "ignorable_only", False)),
        failed=bool(getattr(tree, "exact", False)) and not getattr(tree, "passed", False),
    )
    return evidence, {
        "available": True,
        "passed": evidence.passed,
        "exact": bool(getattr(tree, "exact", False)),
        "reason": evidence.reason,
        "stamp": str(getattr(tree, "stamp", "") or "") or None,
        "changed_paths": list(getattr(tree, "changed_paths", []) or [])[:50],
    }


def gather_context(
    root: Path | None,
    cfg: Any,
    *,
    use_ledger: bool = True,
    permission_mode: str | None = None,
    attempts: AttemptState | None = None,
    event: str = "stop",
    session: Session | None = None,
) -> tuple[DecisionContext, dict[str, Any]]:
    """The decision context plus what each source said (for the record); `session`, the
    task judged, names the shell scripts whose text is read."""
    facts, facts_note = repo_facts(root, ran_scripts(session) if session else ())
    ledger, ledger_note = ledger_evidence(root, cfg) if use_ledger else (None, {"used": False})
    ctx = DecisionContext(
        config=cfg.data,
        repo=facts,
        ledger=ledger,
        permission_mode=permission_mode,
        attempts=attempts or AttemptState(),
        event=event,
        root=str(root) if root is not None else None,
    )
    return ctx, {"repo_signals": facts_note, "ledger": ledger_note}


def load_session(
    path: str | os.PathLike[str],
    *,
    last_assistant_message: str | None = None,
    session_id: str | None = None,
) -> Session:
    from reflection_core.session.transcript import read_session

    return read_session(
        Path(path), last_assistant_message=last_assistant_message, session_id=session_id
    )


class NotATranscript(ValueError):
    """The file is not a session transcript (empty, not JSON lines, or no session records)."""


def transcript_problem(path: str | os.PathLike[str], max_lines: int = 200) -> str | None:
    """Why `path` is not a transcript, or None: it must hold JSON-object lines with records.

    A record is an object with a string `type` (Claude Code and Codex rollouts both
    tag every line) or a `message` object. Only the first `max_lines` lines are read.
    """
    import itertools
    import json

    records = 0
    seen = 0
    try:
        with open(path, "rb") as handle:
            for raw in itertools.islice(handle, max_lines):
                if not raw.strip():
                    continue
                seen += 1
                try:
                    data = json.loads(raw)
                except ValueError:
                    continue
                if isinstance(data, dict) and (
                    isinstance(data.get("type"), str) or isinstance(data.get("message"), dict)
                ):
                    records += 1
    except OSError as exc:
        return f"cannot read it: {exc.strerror or exc}"
    if seen == 0:
        return "it is empty"
    if records == 0:
        return "no line is a transcript record (JSON objects with a `type`)"
    return None


def analyze_transcript(
    path: str | os.PathLike[str],
    *,
    cwd: str | os.PathLike[str] | None = None,
    last_assistant_message: str | None = None,
    cfg: Any = None,
    use_ledger: bool = True,
    permission_mode: str | None = None,
) -> Decision:
    """The stop hook's conclusion for a transcript, as if this were the first stop."""
    session = load_session(path, last_assistant_message=last_assistant_message)
    start = cwd or session.cwd
    root = paths.find_repo_root(start) if start and Path(start).exists() else None
    if cfg is None:
        from reflection_core import config

        cfg = config.load(root) if root is not None else config.Config()
    ctx, _ = gather_context(
        root, cfg, use_ledger=use_ledger, permission_mode=permission_mode, session=session
    )
    if root is None and start:
        ctx.root = str(start)
    return decide(session, ctx)
