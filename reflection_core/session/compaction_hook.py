"""`reflection hook session-start`: after a compaction, restate the task (compaction.py)."""

from __future__ import annotations

from reflection_core.hosts.events import SILENT, Reply, SessionStarted
from reflection_core.session.compaction import NudgeContext, compaction_nudge


def handle_session_start(event: SessionStarted) -> Reply:
    """Only a start after compaction gets a nudge; other starts stay silent."""
    if event.source != "compact" or event.transcript is None:
        return SILENT
    from reflection_core.hosts.loader import open_workspace, read_session
    from reflection_core.session.analyze import gather_context

    session = read_session(event)
    workspace = open_workspace(event)
    ctx, _ = gather_context(workspace.root, workspace.config)
    nudge = compaction_nudge(
        session,
        NudgeContext(config=workspace.config.data, repo=ctx.repo, ledger=ctx.ledger, root=ctx.root),
    )
    return Reply(context=nudge.text)
