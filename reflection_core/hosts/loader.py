"""The one way a hook finds its footing: event -> working dir -> repo root -> config -> session.

Every handler uses this, so they agree on where the config comes from: the repo
that contains the host's `cwd` (else the hook process's own directory), or the
defaults outside any repo.
"""

from __future__ import annotations

import os

from reflection_core import paths
from reflection_core.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from reflection_core.config import Config
    from reflection_core.hosts.events import HostEvent
    from reflection_core.session.model import Session


@record(frozen=True)
class Workspace:
    """Where an event happened and the config that applies there."""

    root: Path | None  # the git repo containing it, if any
    config: Config


def _workdir(event: HostEvent) -> str:
    cwd = event.cwd
    return cwd if cwd and os.path.isdir(cwd) else os.getcwd()


# Configs the hook process loaded before its handler ran (for its deadline); the handler's
# open_workspace takes each over once instead of reading the file a second time.
_PRELOADED: dict[str, Config] = {}


def preload_config(root: str) -> Config:
    """`config.load(root)`, kept for this process's next open_workspace at `root`."""
    from reflection_core import config

    cfg = _PRELOADED[root] = config.load(root)
    return cfg


def open_workspace(event: HostEvent) -> Workspace:
    """Raises config.ConfigError for a broken config; handlers say so and fail open."""
    cfg = workspace_config(event)
    return Workspace(root=cfg.root, config=cfg)


def workspace_config(event: HostEvent) -> Config:
    """`open_workspace(event).config` (its `root_dir` is the repo), without pathlib."""
    from reflection_core import config

    root = paths.repo_root_dir(_workdir(event))
    if root is None:
        return config.Config()
    cfg = _PRELOADED.pop(root, None)
    return cfg if cfg is not None else config.load(root)


def read_session(
    event: HostEvent,
    *,
    last_assistant_message: str | None = None,
    max_task_bytes: int | None = None,
) -> Session:
    """The current task as the host recorded it (empty, with a warning, when it has no file).
    `max_task_bytes` caps what is read for one task (`stop.max_transcript_bytes`)."""
    if event.transcript is not None:
        return event.transcript.read_session(
            last_assistant_message=last_assistant_message,
            session_id=event.session_id,
            max_task_bytes=max_task_bytes,
        )
    from reflection_core.session.model import Session

    return Session(session_id=event.session_id, last_assistant_message=last_assistant_message or "")
