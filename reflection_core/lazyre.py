"""Regular expressions compiled on first use, from a cache of their compiled forms.

Hooks start a fresh Python for every prompt, commit and stop, and parsing a
pattern is Python code in the `re` module: the ~250 patterns a stop hook uses
cost about 30 ms of CPU in every process. Two things remove that cost:

* `lazy(...)` takes the arguments of `re.compile` and returns an object that
  behaves as the compiled pattern (search, match, sub, ...) but compiles only
  when first used. `pattern` is answered without compiling.
* `compile(...)` builds the pattern from the regex engine's code kept in a
  cache file beside the bytecode (one per Python build), skipping the parser
  that costs the time; a pattern not yet in the file is compiled as
  usual and added when the process exits (unless bytecode writing is off,
  PYTHONDONTWRITEBYTECODE). Anything unexpected (another Python,
  an unreadable or corrupt file) falls back to `re.compile`; the engine
  validates the code it is given.
"""

from __future__ import annotations

import atexit
import marshal
import os
import re
import sys
from array import array

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

try:  # the engine's parser and code generator: Python 3.11+, then 3.10
    import _sre
    from re import _compiler as _sre_compiler  # type: ignore[attr-defined]
    from re import _parser as _sre_parser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_compile as _sre_compiler
    import sre_parse as _sre_parser

_MAX_ENTRIES = 4096
_DEBUG = int(re.DEBUG)  # an int: `int & RegexFlag` runs enum's Python code, per pattern
_CODE_TYPE = "I" if array("I").itemsize >= 4 else "L"  # 32-bit words
# (pattern, flags) -> the arguments `_sre.compile` takes after the pattern, with the
# engine's code packed as 32-bit words (unpacking only the patterns used is what is fast).
if TYPE_CHECKING:
    _Parts = tuple[int, bytes, int, dict[str, int], tuple[Any, ...]]
_cache: dict[tuple[str, int], _Parts] | None = None
_added: dict[tuple[str, int], _Parts] = {}


def compile(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, from the cache of compiled forms when it has it."""
    flags = int(flags)
    if flags & _DEBUG:
        return re.compile(pattern, flags)
    key = (pattern, flags)
    try:
        parts = _cached().get(key)
        if parts is None:
            parts = _parts(pattern, flags)
            if not _added:
                atexit.register(_save)
            _added[key] = parts
        flags_out, code, groups, groupindex, indexgroup = parts
        words = array(_CODE_TYPE, code).tolist()
        built = _sre.compile(pattern, flags_out, words, groups, groupindex, indexgroup)
        return built
    except (RuntimeError, TypeError, ValueError, AttributeError, OverflowError):
        return re.compile(pattern, flags)


def _parts(pattern: str, flags: int) -> _Parts:
    """What `re.compile` hands the engine, as plain ints, strings and containers."""
    parsed = _sre_parser.parse(pattern, flags)
    code = array(_CODE_TYPE, [int(op) for op in _sre_compiler._code(parsed, flags)]).tobytes()
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    return (
        int(flags | parsed.state.flags),
        code,
        parsed.state.groups - 1,
        groupindex,
        tuple(indexgroup),
    )


def _cache_file() -> str:
    """Beside this module's bytecode (honouring PYTHONPYCACHEPREFIX), per Python build."""
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.pycache_prefix:
        folder = os.path.join(sys.pycache_prefix, os.path.splitdrive(here)[1].lstrip(os.sep))
    else:
        folder = os.path.join(here, "__pycache__")
    version = f"{sys.implementation.cache_tag}-{sys.hexversion:x}-{_sre.MAGIC}-{_sre.CODESIZE}"
    return os.path.join(folder, f"regex-{version}.marshal")


def _cached() -> dict[tuple[str, int], _Parts]:
    global _cache
    if _cache is None:
        _cache = {}
        try:
            with open(_cache_file(), "rb") as handle:
                # One read, then loads: `marshal.load` on a file reads it a few bytes at a
                # time, about 1 ms more of every hook's start.
                loaded = marshal.loads(handle.read())
            if isinstance(loaded, dict):
                _cache = loaded
        except (OSError, EOFError, ValueError, TypeError):
            pass  # no file yet, or one this Python cannot read
    return _cache


def _save() -> None:
    """Add this process's new patterns to the cache file (atomic; best effort)."""
    merged = {**_cached(), **_added}
    if len(merged) > _MAX_ENTRIES:
        merged = dict(_added)
    if sys.dont_write_bytecode:
        return
    path = _cache_file()
    temp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        with open(temp, "wb") as handle:
            marshal.dump(merged, handle)
        os.replace(temp, path)
    except (OSError, ValueError):
        try:
            os.unlink(temp)
        except OSError:
            pass


class _LazyPattern:
    """Compiles on the first attribute it cannot answer, then caches it on itself."""

    def __init__(self, pattern: str, flags: int) -> None:
        self.pattern = pattern
        self._flags = flags

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        value = getattr(compile(self.pattern, self._flags), name)
        setattr(self, name, value)  # later lookups skip __getattr__
        return value

    def __repr__(self) -> str:
        return f"lazy({self.pattern!r}, {self._flags!r})"


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, deferred until the pattern is first used."""
    return _LazyPattern(pattern, int(flags))  # type: ignore[return-value]


def source_and_flags(value: re.Pattern[str]) -> tuple[str, int]:
    """A pattern's source and the flags it was given (a `lazy` one stays uncompiled;
    flags written inline in the source stay there)."""
    if isinstance(value, _LazyPattern):
        return value.pattern, value._flags
    return value.pattern, value.flags


def unwrap(value: object) -> re.Pattern[str] | None:
    """The compiled pattern behind a `lazy` one, None for anything else (for audits)."""
    if isinstance(value, _LazyPattern):
        return compile(value.pattern, value._flags)
    return None
