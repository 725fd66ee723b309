"""Pure: what `reflection stats` shows, over a window, per repository and host.

Stops judged, pushed on and held for the user; the outcome counts; prompts flagged;
test runs from the repositories' ledgers; and the hook's estimated precision and recall
on this machine: a push that paid off was right, a wasted push was wrong, a let-through
stop the user then had to push on (`premature`) was a miss.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from reflection_core.outcomes.grade import OUTCOMES
from reflection_core.outcomes.store import StopRow

DAY = 86400.0
MAX_DAYS = 366


@dataclass(frozen=True)
class Window:
    since: float
    until: float

    @property
    def days(self) -> list[str]:
        """Every UTC day in the window, oldest first (at most MAX_DAYS)."""
        first = int(self.since // DAY)
        last = int(self.until // DAY)
        return [day_of(d * DAY) for d in range(max(first, last - MAX_DAYS + 1), last + 1)]


@dataclass(frozen=True)
class LedgerRun:
    at: float
    repo: str
    passed: bool


def day_of(moment: float) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(moment))


def iso(moment: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(moment))


def estimate(outcomes: dict[str, int]) -> dict[str, Any]:
    """Precision and recall of the pushes as this machine's outcomes show them."""
    paid, wasted = outcomes.get("block_paid_off", 0), outcomes.get("block_wasted", 0)
    missed = outcomes.get("premature", 0)
    return {
        "precision": round(paid / (paid + wasted), 3) if paid + wasted else None,
        "recall": round(paid / (paid + missed), 3) if paid + missed else None,
        "pushes_paid_off": paid,
        "pushes_wasted": wasted,
        "premature_let_through": missed,
    }


def _counts(stops: list[StopRow]) -> dict[str, Any]:
    outcomes = Counter(s.outcome for s in stops if s.outcome)
    counts = {name: outcomes.get(name, 0) for name in OUTCOMES}
    return {
        "stops": len(stops),
        "pushes": sum(1 for s in stops if s.pushed),
        "holds": sum(1 for s in stops if s.held),
        "graded": sum(counts.values()),
        "outcomes": counts,
        "estimate": estimate(counts),
    }


def _daily(
    days: list[str], stops: list[StopRow], flags: list[float], runs: list[LedgerRun]
) -> dict[str, list[int]]:
    index = {day: i for i, day in enumerate(days)}
    series = {
        name: [0] * len(days)
        for name in ("stops", "pushes", "holds", "flagged", "tests_passed", "tests_failed")
    }

    def add(name: str, moment: float) -> None:
        slot = index.get(day_of(moment))
        if slot is not None:
            series[name][slot] += 1

    for stop in stops:
        add("stops", stop.created_at)
        if stop.pushed:
            add("pushes", stop.created_at)
        if stop.held:
            add("holds", stop.created_at)
    for moment in flags:
        add("flagged", moment)
    for run in runs:
        add("tests_passed" if run.passed else "tests_failed", run.at)
    return series


def _group(
    repo: str, host: str, stops: list[StopRow], flags: list[float], runs: list[LedgerRun]
) -> dict[str, Any]:
    return {
        "repository": PurePath(repo).name or repo,
        "path": repo,
        "host": host,
        **_counts(stops),
        "prompts_flagged": len(flags),
        "tests": {
            "passed": sum(1 for r in runs if r.passed),
            "failed": sum(1 for r in runs if not r.passed),
        },
    }


def summarize(
    stops: Iterable[StopRow],
    flags: Iterable[tuple[float, str, str]],
    runs: Iterable[LedgerRun],
    window: Window,
) -> dict[str, Any]:
    """The whole report: totals, one group per repository and host, daily series."""
    inside = [s for s in stops if window.since <= s.created_at <= window.until]
    flagged = [f for f in flags if window.since <= f[0] <= window.until]
    tests = [r for r in runs if window.since <= r.at <= window.until]
    keys = sorted({(s.repo, s.host) for s in inside} | {(f[1], f[2]) for f in flagged})
    groups = []
    for repo, host in keys:
        mine = [s for s in inside if (s.repo, s.host) == (repo, host)]
        my_flags = [f[0] for f in flagged if (f[1], f[2]) == (repo, host)]
        my_runs = [r for r in tests if r.repo == repo] if host == _first_host(keys, repo) else []
        group = _group(repo, host, mine, my_flags, my_runs)
        group["daily"] = _daily(window.days, mine, my_flags, my_runs)
        groups.append(group)
    return {
        "window": {"since": iso(window.since), "until": iso(window.until), "days": window.days},
        **_counts(inside),
        "prompts_flagged": len(flagged),
        "tests": {
            "passed": sum(1 for r in tests if r.passed),
            "failed": sum(1 for r in tests if not r.passed),
        },
        "repositories": groups,
        "rules": dict(Counter(rule for s in inside for rule in s.rules).most_common()),
        "outcome_rules": dict(
            Counter(f"{s.outcome}:{s.outcome_rule}" for s in inside if s.outcome).most_common()
        ),
    }


def _first_host(keys: list[tuple[str, str]], repo: str) -> str:
    """A repository's test runs are counted once, under its first host."""
    return next(host for r, host in keys if r == repo)


def export(summary: dict[str, Any]) -> dict[str, Any]:
    """What a team may pool: counts and rule ids, no repository, path or text."""
    return {
        "window": {k: summary["window"][k] for k in ("since", "until")},
        "stops": summary["stops"],
        "pushes": summary["pushes"],
        "holds": summary["holds"],
        "outcomes": dict(summary["outcomes"]),
        "estimate": dict(summary["estimate"]),
        "hosts": dict(_stops_per_host(summary["repositories"])),
        "rules": dict(summary["rules"]),
        "outcome_rules": dict(summary["outcome_rules"]),
    }


def _stops_per_host(groups: list[dict[str, Any]]) -> Counter[str]:
    hosts: Counter[str] = Counter()
    for group in groups:
        hosts[group["host"]] += group["stops"]
    return hosts
