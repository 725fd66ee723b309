"""Combining several judges' verdicts: majority status, mean confidence, and the spread.

Ties go to the more conservative status (a split vote never declares work complete),
and the spread says how much the judges disagreed so a reader can discount a
narrow majority. Pure functions over parsed verdicts.
"""

from __future__ import annotations

import statistics
from collections import Counter
from typing import Any

# Lower wins a tie: disagreement about completeness must not end a task.
CONSERVATIVE_ORDER = {"incomplete": 0, "blocked": 1, "waiting_for_user": 2, "complete": 3}


def majority_status(statuses: list[str]) -> str:
    counts = Counter(statuses)
    return min(counts, key=lambda s: (-counts[s], CONSERVATIVE_ORDER.get(s, 0)))


def aggregate(verdicts: list[dict[str, Any]]) -> dict[str, Any]:
    """One verdict from several valid ones, with `spread` describing their disagreement."""
    if not verdicts:
        raise ValueError("aggregate needs at least one verdict")
    statuses = [v["status"] for v in verdicts]
    status = majority_status(statuses)
    agreeing = [v for v in verdicts if v["status"] == status]
    confidences = [float(v["confidence"]) for v in verdicts]
    merged = dict(agreeing[0])
    merged["status"] = status
    merged["confidence"] = round(statistics.fmean(float(v["confidence"]) for v in agreeing), 3)
    merged["remaining_work"] = list(
        dict.fromkeys(item for v in agreeing for item in v.get("remaining_work", []))
    )[:8]
    for flag in ("needs_user_action", "stuck"):
        merged[flag] = sum(bool(v.get(flag)) for v in verdicts) * 2 > len(verdicts)
    merged["spread"] = {
        "votes": len(verdicts),
        "agreement": round(len(agreeing) / len(verdicts), 3),
        "statuses": dict(Counter(statuses)),
        "mean_confidence": round(statistics.fmean(confidences), 3),
        "confidence_stdev": round(statistics.pstdev(confidences), 3),
    }
    return merged
