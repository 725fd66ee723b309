"""Hand-written verdict files in exactly the compact contract shape, for consumer tests."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from reflection_core.atomic import write_json_atomic
from reflection_core.paths import reflection_dir, safe_session_id
from tests.gitutil import git


def iso_utc(seconds_ago: float = 0.0) -> str:
    moment = datetime.now(timezone.utc) - timedelta(seconds=seconds_ago)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def verdict_data(session_id: str, *, complete: bool = True, **overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "schema_version": 1,
        "session_id": session_id,
        "prompt_id": None,
        "status": "complete" if complete else "incomplete",
        "complete": complete,
        "severity": "NONE" if complete else "HIGH",
        "stop_category": "complete" if complete else "working",
        "missing": [] if complete else ["tests did not run after the latest edit"],
        "next_actions": [] if complete else ["run python -m pytest -q"],
        "requires_human_action": False,
        "attempt": 1,
        "max_attempts": 3,
        "gates": {
            "tests": {"required": True, "satisfied": complete, "evidence": "pytest: 3 passed"}
        },
        "created_at": iso_utc(),
        "record": f".reflection/records/{safe_session_id(session_id)}_20260101T000000.000000Z.json",
    }
    data.update(overrides)
    return data


def position(root: Path) -> dict[str, str | None]:
    """The verdict's `git` field for the work tree at `root`, asked of git itself."""
    branch = git(root, "symbolic-ref", "-q", "--short", "HEAD", check=False).strip()
    head = git(root, "rev-parse", "-q", "--verify", "HEAD", check=False).strip()
    return {"branch": branch or None, "head": head or None}


def write_verdict(root: Path, session_id: str, *, at_head: bool = False, **kwargs: Any) -> Path:
    """Write `.reflection/verdict_<safe id>.json` atomically and return its path;
    `at_head` records the branch and commit checked out at `root`, as the stop hook does."""
    if at_head:
        kwargs["git"] = position(root)
    path = reflection_dir(root) / f"verdict_{safe_session_id(session_id)}.json"
    write_json_atomic(path, verdict_data(session_id, **kwargs))
    return path


def read_json(path: Path) -> dict[str, Any]:
    import json

    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data
