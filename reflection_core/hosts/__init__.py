"""Host adapters: one module per coding-agent host, looked up by name.

Adding a host: a module here with a `Host` subclass and `HOST`, a line in `HOSTS`,
its `reflection init --<host>` entry (install/hosts.py) and its tests.
Modules load lazily: the prompt hook imports only the adapter it runs under.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from reflection_core.hosts.base import Host

HOSTS: dict[str, str] = {
    "claude": "reflection_core.hosts.claude",
    "codex": "reflection_core.hosts.codex",
    "gemini": "reflection_core.hosts.gemini",
    "opencode": "reflection_core.hosts.opencode",
}


class UnknownHost(ValueError):
    pass


def get(name: str | None) -> Host:
    """The adapter for `name`; None is a hook line without `--host` (Claude Code or Codex)."""
    if name is None:
        from reflection_core.hosts.claude import UNNAMED

        return UNNAMED
    if name not in HOSTS:
        raise UnknownHost(f"unknown host {name!r}; expected one of: {', '.join(HOSTS)}")
    __import__(HOSTS[name])  # importlib.import_module without importing importlib
    host: Host = sys.modules[HOSTS[name]].HOST
    return host
