"""The notifier on the Stop hook, inside the real CLI: one notice when the task is really
done, none while the stop hook is still pushing the agent on."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.conftest import TEST_COMMAND, Project
from tests.e2e.model_server import bash, edit, say
from tests.loopback import json_receiver

pytestmark = pytest.mark.e2e


@pytest.fixture
def inbox() -> Iterator[tuple[list[dict[str, Any]], int]]:
    """A loopback endpoint for apprise's json:// notifications: (received posts, port)."""
    with json_receiver() as (received, port):
        yield received.posts, port


def test_one_notice_when_the_task_is_done_none_while_pushed_on(
    project: Project, inbox: tuple[list[dict[str, Any]], int]
) -> None:
    posts, port = inbox
    project.write_config(f'notify:\n  urls: ["json://127.0.0.1:{port}/"]\n  on: complete\n')
    run = project.run(
        "Add a function sub(a, b) to calc.py that returns a - b. "
        "Done when `python -m pytest -q` passes.",
        [
            edit(
                project.path("calc.py"),
                "    return a + b\n",
                "    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
            ),
            say("I added sub(). Done."),
            bash(TEST_COMMAND),
            say("Tests pass (1 passed). Done."),
        ],
    )
    assert run.blocks == 1, run.describe()
    assert run.verdict()["status"] == "complete"
    assert len(posts) == 1, posts
    assert "complete" in posts[0]["title"], posts[0]
    assert "1 passed" in posts[0]["message"], posts[0]
