"""Regular expressions compiled on first use instead of at import.

Hooks start a fresh Python for every prompt, commit and stop; compiling every
module's patterns at import cost more than the work itself. `lazy(...)` takes
the arguments of `re.compile` and returns an object that behaves as the
compiled pattern (search, match, sub, ...) but compiles only when first used.
`pattern` is answered without compiling, so patterns built from other
patterns' sources stay lazy.
"""

from __future__ import annotations

import re
from typing import Any, cast


class _LazyPattern:
    """Compiles on the first attribute it cannot answer, then caches it on itself."""

    def __init__(self, pattern: str, flags: int) -> None:
        self.pattern = pattern
        self._flags = flags

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        value = getattr(re.compile(self.pattern, self._flags), name)
        setattr(self, name, value)  # later lookups skip __getattr__
        return value

    def __repr__(self) -> str:
        return f"lazy({self.pattern!r}, {self._flags!r})"


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, deferred until the pattern is first used."""
    return cast("re.Pattern[str]", _LazyPattern(pattern, int(flags)))

