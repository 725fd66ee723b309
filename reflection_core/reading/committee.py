"""The committee: a reviewer reads the diff against the task, an auditor checks the reviewer.

Their verdict on the diff is not a stop verdict: when they do not approve, it becomes a
`remaining_work` fact quoting their first finding, and every comment goes to the agent
as review feedback. The diff is the digest's, else `git diff HEAD` of the repo, capped.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from reflection_core.reading.facts import Fact
from reflection_core.reading.model_calls import Asker
from reflection_core.reading.reply import ReplyError, extract_json
from reflection_core.verify import prompts

MAX_DIFF_CHARS = 12000
# How sure a disapproval makes `remaining_work`: both roles, or the reviewer alone.
DISAPPROVED_BY_BOTH = 0.75
DISAPPROVED_BY_ONE = 0.55


def parse_review(text: str) -> dict[str, Any]:
    data = extract_json(text)
    if not isinstance(data, dict) or not isinstance(data.get("approve"), bool):
        raise ReplyError("`approve` must be true or false")
    return {"approve": data["approve"], "comments": _strings(data.get("comments", []))}


def parse_audit(text: str) -> dict[str, Any]:
    data = extract_json(text)
    if not isinstance(data, dict) or not isinstance(data.get("agree"), bool):
        raise ReplyError("`agree` must be true or false")
    return {"agree": data["agree"], "dissent": _strings(data.get("dissent", []))}


def _strings(value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ReplyError("comments must be a list of strings")
    return [v.strip()[:300] for v in value if v.strip()][:10]


def run_committee(asker: Asker, model: str, context: str, diff: str) -> dict[str, Any] | None:
    """The reviewer's and auditor's findings on `diff`; None when the reviewer gave none."""
    from reflection_core.redact import redact

    material = context + "\n\nDIFF:\n" + redact(diff)[:MAX_DIFF_CHARS]
    review = asker.ask(model, "reviewer", prompts.REVIEWER_SYSTEM, material, parse_review)
    if review is None:
        return None
    audit_input = material + "\n\nREVIEWER VERDICT:\n" + json.dumps(review)
    audit = asker.ask(model, "auditor", prompts.AUDITOR_SYSTEM, audit_input, parse_audit)
    dissent = audit["dissent"] if audit else []
    return {
        "approved": bool(review["approve"] and (audit is None or audit["agree"])),
        "reviewer": review,
        "auditor": audit,
        "review_comments": review["comments"] + [f"Auditor: {d}" for d in dissent],
    }


def committee_facts(result: dict[str, Any] | None, source: str) -> tuple[Fact, ...]:
    """A disapproving committee's finding as a `remaining_work` fact (none when approved)."""
    if not result or result["approved"] or not result["review_comments"]:
        return ()
    audit = result["auditor"]
    both = not result["reviewer"]["approve"] and audit is not None and not audit["agree"]
    return (
        Fact(
            kind="remaining_work",
            confidence=DISAPPROVED_BY_BOTH if both else DISAPPROVED_BY_ONE,
            quote=result["review_comments"][0][:200],
            source=source,
        ),
    )


def working_diff(root: str | Path | None) -> str:
    """The uncommitted changes (`git diff HEAD`), capped; '' when unknown."""
    if root is None:
        return ""
    try:
        proc = subprocess.run(
            ["git", "diff", "HEAD", "--no-color", "--no-ext-diff"],
            cwd=root,
            capture_output=True,
            timeout=20,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    if proc.returncode != 0:
        return ""
    return proc.stdout[:MAX_DIFF_CHARS].decode("utf-8", errors="replace")
