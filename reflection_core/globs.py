"""Path globs with gitignore-like meaning, and branch patterns (names, globs, `re:` regexes).

`*` and `?` stay inside one path segment, `**` crosses segments, and a pattern
without a slash matches the base name at any depth (`*.md` matches `docs/a.md`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from reflection_core import lazyre


class PatternError(ValueError):
    """A glob or regex that cannot be compiled; the message says why."""


def _translate(pattern: str) -> str:
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "*":
            if pattern.startswith("**", i):
                i += 2
                if i < n and pattern[i] == "/":
                    i += 1
                    out.append("(?:.*/)?")
                else:
                    out.append(".*")
                continue
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            end = pattern.find("]", i + 2 if pattern[i + 1 : i + 2] in ("!", "]") else i + 1)
            if end == -1:
                raise PatternError(f"unclosed '[' in glob {pattern!r}")
            body = pattern[i + 1 : end]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = end
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


def _path_glob_regex(pattern: str) -> str:
    """A path glob as the source of an anchored regex; PatternError when malformed."""
    if not pattern or not pattern.strip():
        raise PatternError("empty glob")
    body = pattern.lstrip("/")
    if body.endswith("/"):
        body += "**"
    anchored = "/" in pattern.rstrip("/")
    regex = _translate(body)
    prefix = "" if anchored else "(?:.*/)?"
    return f"^{prefix}{regex}$"


@lru_cache(maxsize=512)
def compile_path_glob(pattern: str) -> re.Pattern[str]:
    """Compile a path glob; raises PatternError for an empty or malformed pattern."""
    return lazyre.compile(_path_glob_regex(pattern))


def path_matches(path: str, patterns: tuple[str, ...] | list[str]) -> bool:
    """True when repo-relative `path` (forward slashes) matches any glob in `patterns`."""
    if not patterns:
        return False
    combined = _any_path_glob(tuple(patterns))
    if combined is None:  # a malformed glob: each in turn, up to the first that matches
        return any(compile_path_glob(p).match(path) for p in patterns)
    return combined.match(path) is not None


@lru_cache(maxsize=128)
def _any_path_glob(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    """The globs as one alternation of their anchored regexes: one match per path instead
    of one per glob (a stop matches each changed path's tails against ~25 globs), and one
    pattern to build. None when a glob does not compile."""
    try:
        return lazyre.compile("|".join(_path_glob_regex(p) for p in patterns))
    except (PatternError, re.error):
        return None


@lru_cache(maxsize=512)
def compile_branch_pattern(pattern: str) -> re.Pattern[str]:
    """A branch rule: `re:<regex>`, a glob (`release/*`), or an exact name."""
    if not pattern or not pattern.strip():
        raise PatternError("empty branch pattern")
    if pattern.startswith("re:"):
        try:
            return re.compile(pattern[3:])
        except re.error as exc:
            raise PatternError(f"bad regex {pattern[3:]!r}: {exc}") from exc
    if any(ch in pattern for ch in "*?["):
        return re.compile("^" + _translate(pattern) + "$")
    return re.compile("^" + re.escape(pattern) + "$")


def matching_branch_rule(branch: str, patterns: tuple[str, ...] | list[str]) -> str | None:
    """The first rule in `patterns` that `branch` (short name, no refs/heads/) matches."""
    for pattern in patterns:
        regex = compile_branch_pattern(pattern)
        hit = regex.search(branch) if pattern.startswith("re:") else regex.match(branch)
        if hit:
            return pattern
    return None
