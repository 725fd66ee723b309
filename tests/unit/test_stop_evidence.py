"""Evidence per change: comment-only edits and stash round trips are no new change."""

from __future__ import annotations

import pytest

from reflection_core.session.evidence import COMMENT_SYNTAX, comment_only_edit, is_baseline
from tests.unit.sessionbuild import SessionBuilder

# One sample per COMMENT_SYNTAX entry: (file, old, new with only a comment changed).
COMMENT_EDITS = [
    ("app.py", "x = 1  # old", "x = 1  # new note"),
    ("main.go", "x := 1 // old", "x := 1 /* new */ // note"),
    ("site.css", "a { color: red; } /* old */", "a { color: red; }"),
    ("q.sql", "select 1; -- old", "select 1; -- new"),
    ("page.html", "<p>hi</p><!-- old -->", "<p>hi</p>"),
]


def test_every_language_family_has_a_sample() -> None:
    assert len(COMMENT_EDITS) == len(COMMENT_SYNTAX)


@pytest.mark.parametrize(("path", "old", "new"), COMMENT_EDITS)
def test_an_edit_of_comments_only_is_no_change(path: str, old: str, new: str) -> None:
    call = SessionBuilder("t").edit(path, old=old, new=new).build().tool_calls[0]
    assert comment_only_edit(call)


@pytest.mark.parametrize(
    ("path", "old", "new"),
    [
        ("app.py", "x = 1  # old", "x = 2  # old"),
        ("main.go", 'url := "a"', 'url := "http://b"'),
        ("notes.txt", "a", "a "),  # an unknown language is always a change
    ],
)
def test_an_edit_of_code_is_a_change(path: str, old: str, new: str) -> None:
    call = SessionBuilder("t").edit(path, old=old, new=new).build().tool_calls[0]
    assert not comment_only_edit(call)


def test_a_run_between_stash_and_pop_is_a_baseline() -> None:
    calls = (
        SessionBuilder("t")
        .edit("src/a.rs")
        .bash("git stash")
        .bash("cargo test", exit=1, output="1 failed")
        .bash("git stash pop")
        .bash("cargo test", exit=1, output="1 failed")
        .build()
        .tool_calls
    )
    assert [is_baseline(calls, pos) for pos in range(len(calls))] == [
        False,
        True,
        True,
        False,
        False,
    ]
