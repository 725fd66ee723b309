"""Every regex the prompt and stop hooks run is linear on adversarial text.

A growth-ratio check, not a timing: the same pattern on 10 KB and on 100 KB of one
repeated adversarial unit (`sk-sk-…`, `-----`, `a/a/…`) must take about ten times
as long, not a hundred. Patterns are collected from the modules themselves, so a new
pattern is covered the day it is added.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import time
from collections.abc import Iterable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import reflection_core.outcomes
import reflection_core.prompt
import reflection_core.session
from reflection_core import lazyre, redact

UNITS = ["sk-", "-", "a-", "a/", "a.", "a_", "-a.", "a/b.", "tests/", "/-", "--a", "x.py, "]
UNITS += [
    "a/, ",
    "`a/`, ",
    "a page-",
    " ",
    "a ",
    "\n-",
    "http://a:",
    "password=",
    "Basic ",
    "and, ",
]
# Patterns the code only ever anchors with `.match` on one line: timed with `.match`.
MATCH_ONLY = {"reflection_core.session.categories._NOTHING_LEFT"}


def _collect(value: Any, name: str, found: dict[str, re.Pattern[str]], depth: int = 0) -> None:
    if type(value).__name__ == "LazyPattern":
        value = value.pattern
    value = lazyre.unwrap(value) or value
    if isinstance(value, re.Pattern):
        found.setdefault(name, value)
    elif depth < 3 and isinstance(value, (list, tuple, frozenset, set)):
        for index, item in enumerate(value):
            _collect(item, f"{name}[{index}]", found, depth + 1)
    elif depth < 3 and isinstance(value, dict):
        for key, item in value.items():
            _collect(item, f"{name}[{key!r}]", found, depth + 1)
    elif depth < 2 and _fields(value) and not isinstance(value, type):
        for field in _fields(value):
            _collect(getattr(value, field), f"{name}.{field}", found, depth + 1)


def _fields(value: object) -> Iterable[str]:
    """The field names of a dataclass or of a `records.record` instance (none otherwise)."""
    kind = type(value)
    names = getattr(kind, "__dataclass_fields__", None) or getattr(kind, "_record_fields", None)
    return list(names or ())


def hook_patterns() -> dict[str, re.Pattern[str]]:
    found: dict[str, re.Pattern[str]] = {}
    for package in (reflection_core.prompt, reflection_core.session, reflection_core.outcomes):
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            for attr, value in vars(module).items():
                _collect(value, f"{module.__name__}.{attr}", found)
    for rule in redact.RULES:
        found[f"redact:{rule.name}"] = rule.pattern
    return found


PATTERNS = hook_patterns()


def _seconds(pattern: re.Pattern[str], text: str, anchored: bool, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        if anchored:
            pattern.match(text)
        else:
            for _match in pattern.finditer(text):
                pass
        best = min(best, time.perf_counter() - started)
    return best


def test_the_collection_finds_the_hook_patterns() -> None:
    assert len(PATTERNS) > 100
    assert "reflection_core.prompt.signals._PATH_RE" in PATTERNS


@settings(derandomize=True, max_examples=len(UNITS), deadline=None)
@given(unit=st.sampled_from(UNITS))
def test_every_hook_pattern_grows_linearly(unit: str) -> None:
    small = unit * (10_000 // len(unit))
    large = unit * (100_000 // len(unit))
    slow = []
    for name, pattern in PATTERNS.items():
        anchored = name in MATCH_ONLY
        small_s = _seconds(pattern, small, anchored, 3)
        large_s = _seconds(pattern, large, anchored, 1)
        if large_s > 0.05 and large_s / max(small_s, 1e-6) > 40:
            large_s = _seconds(pattern, large, anchored, 2)  # once more: a GC pause or a busy core
        # Below 50 ms nothing can hang a hook, and timer noise dominates the ratio;
        # linear is ~10, the quadratic patterns this guards against measured ~100.
        if large_s > 0.05 and large_s / max(small_s, 1e-6) > 40:
            slow.append((name, round(small_s, 4), round(large_s, 4)))
    assert not slow, f"super-linear on {unit!r} (name, 10 KB s, 100 KB s): {slow}"
