"""The parts of the core a suite measures, behind one call per case.

Each target turns a case's inputs into the real inputs of a core API (a
transcript file written in Claude Code's format, a prompt), calls it, and
flattens the answer into the fields cases expect. A core API that cannot be
imported makes the whole suite an ERROR, never a pass.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reflection_core import config as config_mod
from reflection_core.evals.suite import Case
from reflection_core.evals.transcript_builder import build_records, write_jsonl

Target = Callable[[Case, Path, Path], dict[str, Any]]
"""(case, scratch dir for built transcripts, the suite file's dir for fixtures) -> fields."""
NEEDS_CLARIFICATION = ("ask", "reformulate")
DECISION_FIELDS = (
    "status",
    "complete",
    "severity",
    "stop_category",
    "requires_human_action",
    "missing",
    "next_actions",
    "task_type",
    "agent_score",
    "loops",
)


class TargetUnavailable(Exception):
    """The core API a suite needs is missing (not built yet, or broken on import)."""


def _api(module: str, name: str) -> Any:
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise TargetUnavailable(f"{module}.{name} is not available: {exc}") from exc


def resolve(target: str) -> Target:
    """The case runner for a suite target; raises TargetUnavailable before any case runs."""
    if target == "session":
        _api("reflection_core.session.analyze", "analyze_transcript")
        return run_session_case
    if target == "compaction":
        _api("reflection_core.session.compaction", "compaction_nudge")
        _api("reflection_core.session.compaction", "nudge_context")
        _api("reflection_core.session.transcript", "read_session")
        return run_compaction_case
    if target == "prompt":
        _api("reflection_core.prompt.score", "score_prompt")
        return run_prompt_case
    raise TargetUnavailable(f"unknown target {target!r}")


def case_config(case: Case) -> config_mod.Config:
    """Defaults plus the case's own `config:` overrides; never the user's repo config."""
    overrides = case.inputs.get("config")
    if overrides is None:
        return config_mod.Config()
    return config_mod.Config(data=config_mod.validate(overrides, f"case {case.id} config"))


def transcript_for(case: Case, workdir: Path, suite_dir: Path) -> Path:
    """The case's transcript: a committed fixture (`transcript:`) or one built from its steps."""
    fixture = case.inputs.get("transcript")
    if fixture:
        path = Path(str(fixture))
        if not path.is_absolute():
            path = suite_dir / path
        if not path.is_file():
            raise FileNotFoundError(f"transcript {fixture!r} not found (looked at {path})")
        return path
    records = build_records(case.inputs, session_id=None)
    return write_jsonl(records, workdir / f"{case.id}.jsonl")


def decision_fields(decision: Any) -> dict[str, Any]:
    """The verdict fields cases can expect, from a Decision (or its dict)."""
    data = decision.to_dict() if hasattr(decision, "to_dict") else dict(decision)
    return {key: data.get(key) for key in DECISION_FIELDS if key in data}


def run_session_case(case: Case, workdir: Path, suite_dir: Path) -> dict[str, Any]:
    """What the stop hook would conclude from the case's session (no ledger, no side effects)."""
    analyze_transcript = _api("reflection_core.session.analyze", "analyze_transcript")
    path = transcript_for(case, workdir, suite_dir)
    decision = analyze_transcript(
        path,
        cwd=None,
        last_assistant_message=case.inputs.get("final"),
        cfg=case_config(case),
        use_ledger=False,
        permission_mode=case.inputs.get("permission_mode"),
    )
    return decision_fields(decision)


def run_compaction_case(case: Case, workdir: Path, suite_dir: Path) -> dict[str, Any]:
    """The nudge given on SessionStart(compact) for the case's session."""
    read_session = _api("reflection_core.session.transcript", "read_session")
    compaction_nudge = _api("reflection_core.session.compaction", "compaction_nudge")
    path = transcript_for(case, workdir, suite_dir)
    session = read_session(path)
    nudge_context = _api("reflection_core.session.compaction", "nudge_context")
    nudge = compaction_nudge(session, nudge_context(cfg=case_config(case)))
    return {"kind": getattr(nudge, "kind", None), "text": getattr(nudge, "text", "")}


def run_prompt_case(case: Case, workdir: Path, suite_dir: Path) -> dict[str, Any]:
    """The prompt score, flattened to the labels of the prompt data set."""
    score_prompt = _api("reflection_core.prompt.score", "score_prompt")
    prompt = case.inputs.get("prompt")
    if not isinstance(prompt, str):
        raise ValueError("a prompt case needs a 'prompt' string")
    result = score_prompt(prompt, case.inputs.get("prev_assistant"), case_config(case))
    data = result.to_dict()
    scope = data.get("scope") or {}
    asks = data.get("action") in NEEDS_CLARIFICATION
    return {
        # The suite labels the scorer's reading: a gap found, whether the gate lets it ask
        # (prompt.rules, measured on real prompts) or holds it back; `asks` is what is shown.
        "needs_clarification": asks or bool(result.rule),
        "asks": asks,
        "continuation": bool(data.get("skipped")),
        "smells": sorted(s.get("id") for s in data.get("smells") or []),
        "atomic": scope.get("atomic"),
        "classification": data.get("classification"),
        "action": data.get("action"),
        "score": data.get("score"),
    }
