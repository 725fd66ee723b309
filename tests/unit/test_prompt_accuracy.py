"""Accuracy on the labelled dev set, against trivial baselines (not hard-coded results).

The set is split: ids 1-60 were looked at while tuning, 61-90 were held out and
checked only at the end. Floors sit below the measured figures (see
docs/prompt.md) with an honesty margin, and well above what a constant answer
or a length rule achieves.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from reflection_core.prompt.score import score_prompt

DATA = Path(__file__).resolve().parents[1] / "data" / "prompts-dev.jsonl"


def _rows(part: str) -> list[dict]:
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line]
    if part == "all":
        return rows
    tuned = part == "tuning"
    return [r for r in rows if (int(r["id"].split("-")[1]) <= 60) == tuned]


def _f1(predicted: list[bool], actual: list[bool]) -> float:
    tp = sum(p and a for p, a in zip(predicted, actual, strict=True))
    fp = sum(p and not a for p, a in zip(predicted, actual, strict=True))
    fn = sum(a and not p for p, a in zip(predicted, actual, strict=True))
    if not tp:
        return 0.0
    precision, recall = tp / (tp + fp), tp / (tp + fn)
    return 2 * precision * recall / (precision + recall)


def _metrics(rows: list[dict]) -> dict[str, float]:
    results = [score_prompt(r["prompt"], r["prev_assistant"]) for r in rows]
    asks = [res.needs_clarification for res in results]
    gaps = [bool(res.rule) for res in results]  # the gap is named, asked or held back
    labels = [bool(r["needs_clarification"]) for r in rows]
    smell_hits = smell_total = 0
    for res, row in zip(results, rows, strict=True):
        got, want = {s.id for s in res.smells}, set(row["smells"])
        smell_hits += len(got & want)
        smell_total += len(got | want)
    n = len(rows)
    return {
        "f1": _f1(gaps, labels),
        "asks_wrongly": sum(a and not label for a, label in zip(asks, labels, strict=True)),
        "baseline_f1_always_ask": _f1([True] * n, labels),
        "baseline_f1_short": _f1([len(r["prompt"].split()) < 8 for r in rows], labels),
        "continuation": sum(
            res.skipped == r["continuation"] for res, r in zip(results, rows, strict=True)
        )
        / n,
        "classification": sum(
            res.classification == r["classification"] for res, r in zip(results, rows, strict=True)
        )
        / n,
        "majority_class": Counter(r["classification"] for r in rows).most_common(1)[0][1] / n,
        "smell_jaccard": smell_hits / smell_total if smell_total else 1.0,
    }


@pytest.mark.parametrize("part", ["tuning", "held_out"])
def test_gaps_are_found_as_labelled_and_never_asked_where_none_is_needed(part: str) -> None:
    """The scorer names the gap of every vague prompt; the gate (prompt.rules) decides
    which of them reach the user, so asking is pinned by the real-prompt eval instead."""
    m = _metrics(_rows(part))
    print(part, m)
    assert m["asks_wrongly"] == 0
    assert m["f1"] >= 0.85
    assert m["f1"] >= m["baseline_f1_always_ask"] + 0.2
    assert m["f1"] >= m["baseline_f1_short"] + 0.1


@pytest.mark.parametrize("part", ["tuning", "held_out"])
def test_continuation_class_and_smell_accuracy(part: str) -> None:
    m = _metrics(_rows(part))
    assert m["continuation"] >= 0.9
    assert m["classification"] >= 0.8
    assert m["classification"] >= m["majority_class"] + 0.25
    assert m["smell_jaccard"] >= 0.8
