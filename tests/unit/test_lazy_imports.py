"""Importing the package compiles no regular expression: hooks pay for patterns they use.

After a merge brings back an import-time `re.compile`, run the rewrite script the
speed work documents (it turns them into `reflection_core.lazyre.lazy`).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

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


# Every lazy pattern of the package, built from the cache file by a fresh process, against
# re.compile: same flags, groups, names, and the same matches on sample text.
_CACHE_PROBE = r"""
import importlib, json, pkgutil, re, sys
import reflection_core
from reflection_core import lazyre
made = []
real_init = lazyre._LazyPattern.__init__
def spy(self, pattern, flags):
    real_init(self, pattern, flags)
    made.append((pattern, flags))
lazyre._LazyPattern.__init__ = spy
for info in pkgutil.walk_packages(reflection_core.__path__, "reflection_core."):
    if not info.name.endswith("__main__"):
        importlib.import_module(info.name)
sample = sys.argv[1]
differ = []
for pattern, flags in made:
    ours, theirs = lazyre.compile(pattern, flags), re.compile(pattern, flags)
    same = (ours.flags, ours.groups, ours.groupindex) == (
        theirs.flags, theirs.groups, theirs.groupindex
    ) and [m.span() for m in ours.finditer(sample)] == [m.span() for m in theirs.finditer(sample)]
    if not same:
        differ.append(pattern[:60])
print(json.dumps({"patterns": len(made), "differ": differ}))
"""
_SAMPLE = (
    "Fixed the redirect in src/auth.py; `pytest -q` says 41 passed. Please run npm publish "
    "yourself, I can't. Shall I push? Traceback: ValueError at line 3. git push --force "
    "origin main && rm -rf build/ ; token sk-abc123def456ghi789jkl. 次は何をしますか？"
)


def _probe_cache(prefix: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(prefix)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    run = subprocess.run(
        [sys.executable, "-c", _CACHE_PROBE, _SAMPLE],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
        env=env,
    )
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_patterns_built_from_the_cache_file_match_as_re_compile_does(tmp_path: Path) -> None:
    first = _probe_cache(tmp_path)  # compiles every pattern and writes the cache at exit
    assert list(tmp_path.rglob("regex-*.marshal"))
    second = _probe_cache(tmp_path)  # builds every pattern from the file
    assert first["patterns"] > 300 and first == second
    assert second["differ"] == []


def test_a_corrupt_cache_file_falls_back_to_compiling(tmp_path: Path) -> None:
    _probe_cache(tmp_path)
    for cached in tmp_path.rglob("regex-*.marshal"):
        cached.write_bytes(b"\x00garbage")
    assert _probe_cache(tmp_path)["differ"] == []
