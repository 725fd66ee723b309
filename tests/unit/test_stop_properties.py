"""Properties that hold for any session: decide never raises, its verdict always fits the schema."""

from __future__ import annotations

import json
from importlib import resources

import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reflection_core import config
from reflection_core.session import verdict
from reflection_core.session.attempts import AttemptState
from reflection_core.session.decide import DecisionContext, decide
from reflection_core.session.model import Session
from tests.unit.sessionbuild import SessionBuilder

SCHEMA = json.loads(
    resources.files("reflection_core.data").joinpath("verdict.schema.json").read_text()
)
COMMANDS = [
    "python -m pytest -q",
    "pytest -k parse",
    "npm test",
    "ruff check .",
    "git push origin HEAD:main",
    "git push -u origin feat",
    "gh pr create --fill",
    "gh pr checks 3",
    "make build",
    "rm -rf .git",
    "ls",
]
TEXTS = st.sampled_from(
    [
        "Done.",
        "All tests pass.",
        "Should I run the tests?",
        "Next steps:\n- wire the CLI",
        "Please enter the 2FA code.",
        "I'm unable to install it: permission denied.",
        "Which do you prefer: A or B?",
        "",
    ]
) | st.text(max_size=300)
STEP = st.one_of(
    st.tuples(st.just("read"), st.sampled_from(["src/a.py", "README.md"])),
    st.tuples(st.just("edit"), st.sampled_from(["src/a.py", "docs/x.md", "tests/test_a.py"])),
    st.tuples(st.just("bash"), st.sampled_from(COMMANDS), st.integers(0, 2)),
    st.tuples(st.just("say"), TEXTS),
)


def build(prompt: str, steps: list[tuple[object, ...]], final: str) -> Session:
    builder = SessionBuilder(prompt)
    for step in steps:
        if step[0] == "read":
            builder.read(str(step[1]))
        elif step[0] == "edit":
            builder.edit(str(step[1]))
        elif step[0] == "bash":
            code = int(str(step[2]))
            builder.bash(str(step[1]), exit=code, output="3 passed" if code == 0 else "1 failed")
        else:
            builder.say(str(step[1]))
    return builder.build(final)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    prompt=st.sampled_from(["Fix the bug", "Explain the cache", "Update the README", ""])
    | st.text(max_size=80),
    steps=st.lists(STEP, max_size=14),
    final=TEXTS,
    used=st.integers(0, 5),
    mode=st.sampled_from([None, "default", "plan"]),
)
def test_any_session_gets_a_valid_bounded_decision(
    prompt: str,
    steps: list[tuple[object, ...]],
    final: str,
    used: int,
    mode: str | None,
) -> None:
    session = build(prompt, steps, final)
    ctx = DecisionContext(
        config=config.defaults(),
        permission_mode=mode,
        attempts=AttemptState(attempts=used),
    )
    d = decide(session, ctx)
    assert d.should_block == (d.feedback is not None)
    if d.should_block:
        assert d.status == "incomplete" and 1 <= d.attempt <= d.max_attempts
        assert used < d.max_attempts and mode != "plan"
    if d.complete:
        assert d.severity == "NONE" and not d.missing
    fields = d.to_dict()
    compact = verdict.compact_verdict(
        fields,
        session_id="s",
        prompt_id=None,
        event="stop",
        record=".reflection/records/s_20260302T090000.000000Z.json",
        created_at="2026-03-02T09:00:00.000Z",
    )
    jsonschema.validate(compact, SCHEMA)
    json.dumps(fields)  # the record is JSON-serializable


def test_a_config_without_stop_keys_uses_the_defaults() -> None:
    session = build("Fix the bug", [("edit", "src/a.py")], "I edited a.py.")
    d = decide(session, DecisionContext(config={}))
    assert not d.should_block and d.max_attempts == 3 and d.gates["tests"].failing
