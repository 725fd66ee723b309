"""docs/consumers.md's notify table says what `choose_notice` does."""

from __future__ import annotations

from pathlib import Path

import pytest

from reflection_core.consumers.notify import choose_notice
from tests.verdictutil import verdict_data

DOC = Path(__file__).resolve().parents[2] / "docs" / "consumers.md"


@pytest.mark.parametrize("on", ["complete", "incomplete", "always"])
@pytest.mark.parametrize("attention", [False, True])
def test_a_skipped_verdict_is_never_sent(on: str, attention: bool) -> None:
    skipped = verdict_data("s", complete=False, status="skipped", stop_category="skipped")
    assert choose_notice(skipped, on=on, attention=attention) is None


def test_the_notify_table_says_a_skipped_verdict_is_never_sent() -> None:
    rows = [line for line in DOC.read_text("utf-8").splitlines() if line.startswith("| ")]
    skipped = [row for row in rows if "skipped" in row.split("|")[1]]
    assert len(skipped) == 1, skipped
    cells = [cell.strip() for cell in skipped[0].strip("|").split("|")]
    assert cells[1:] == ["nothing", "nothing", "nothing"], skipped[0]
