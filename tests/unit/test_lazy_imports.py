"""Importing the package compiles no regular expression: hooks pay for patterns they use.

After a merge brings back an import-time `re.compile`, run the rewrite script the
speed work documents (it turns them into `reflection_core.lazyre.lazy`).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from reflection_core.lazyre import lazy

# Runs in a fresh interpreter: records every regex compiled (re.compile, re.search, ...)
# whose nearest caller outside the re module is reflection_core code, while every
# module of the package is imported.
_PROBE = r"""
import importlib, json, pkgutil, re, sys
compiled = []
real = re._compile
def spy(pattern, flags):
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename == re.__file__:
        frame = frame.f_back
    if frame is not None and "reflection_core" in frame.f_code.co_filename:
        compiled.append(f"{frame.f_code.co_filename}:{frame.f_lineno}: {str(pattern)[:60]}")
    return real(pattern, flags)
re._compile = spy
import reflection_core
names = [m.name for m in pkgutil.walk_packages(reflection_core.__path__, "reflection_core.")]
for name in names:
    if not name.endswith("__main__"):
        importlib.import_module(name)
print(json.dumps({"modules": len(names), "compiled": compiled}))
"""


def test_importing_every_module_compiles_no_regex() -> None:
    run = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True, timeout=120
    )
    found = json.loads(run.stdout.strip().splitlines()[-1])
    assert found["modules"] > 100
    assert found["compiled"] == []


def test_a_lazy_pattern_matches_as_the_compiled_one_and_keeps_its_source() -> None:
    pattern = lazy(r"(?P<word>b\w+)", re.I)
    assert pattern.pattern == r"(?P<word>b\w+)"
    found = pattern.search("a BIG bang")
    assert found is not None and found["word"] == "BIG"
    assert pattern.findall("a BIG bang") == ["BIG", "bang"]
    assert pattern.sub("x", "a BIG bang") == "a x x"
    assert pattern.flags == re.compile(r"b", re.I).flags
    assert pattern.groupindex == {"word": 1}


def test_a_lazy_pattern_is_compiled_only_when_used() -> None:
    pattern = lazy(r"(unclosed")
    assert pattern.pattern == "(unclosed"
    with pytest.raises(re.error):
        pattern.search("x")
