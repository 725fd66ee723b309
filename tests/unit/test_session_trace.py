"""The turn's condensed trace a configured reader gets: one rule per test (the calls and their
result tails, the cap, the latest change kept, redaction). Synthetic sessions."""

from __future__ import annotations

import pytest

from reflection_core.session.model import Session
from reflection_core.session.trace import build_trace
from tests.unit.sessionbuild import SessionBuilder

NOISY = "\n".join(f"src/module_{n}.py:{n}: def handler_{n}(request):" for n in range(40))


def _explored(calls: int) -> SessionBuilder:
    """A task that searched a lot before it changed anything."""
    builder = SessionBuilder("Make the CSV export keep leading zeros in postal codes.")
    for n in range(calls):
        builder.bash(f"grep -rn handler_{n} src", output=NOISY)
    return builder


def _fixed(calls_before: int = 30) -> Session:
    return (
        _explored(calls_before)
        .edit("src/export.py", new="writer.writerow([str(v) for v in row])")
        .bash(
            "python -m pytest -q tests/test_export.py",
            exit=1,
            output="F.\nFAILED tests/test_export.py::test_zip - AssertionError: '1234' != '01234'\n"
            "1 failed, 1 passed in 0.21s",
        )
        .build("The export now keeps leading zeros.")
    )


def test_each_call_shows_its_tool_command_outcome_and_result_tail_then_the_final_message() -> None:
    session = (
        SessionBuilder("Fix the date parser.")
        .read("src/dates.py")
        .edit("src/dates.py", new="return parse(value, dayfirst=True)")
        .bash("python -m pytest -q", exit=1, output="E   ValueError: day is out of range\n1 failed")
        .build("Fixed the parser.")
    )
    trace = build_trace(session, 4000)
    assert trace is not None
    lines = trace.text.splitlines()
    assert lines[1] == "#0 Read: src/dates.py -> ok"  # a read's content is not its outcome
    assert lines[2] == "#1 Edit: src/dates.py (+1 lines): return parse(value, dayfirst=True) -> ok"
    assert lines[3:7] == [
        "#2 Bash: python -m pytest -q -> exit 1",
        "    Exit code 1",
        "    E ValueError: day is out of range",  # runs of whitespace are one space
        "    1 failed",
    ]
    assert lines[-2:] == ["FINAL MESSAGE", "Fixed the parser."]
    assert [c.at for c in trace.calls] == [0, 1, 2] and trace.omitted == 0


def test_a_failed_edit_shows_its_error() -> None:
    session = (
        SessionBuilder("Create the config file.")
        .write("conf/app.toml", ok=False, output="EACCES: permission denied, open 'conf/app.toml'")
        .build("Created it.")
    )
    trace = build_trace(session, 4000)
    assert trace is not None
    assert "-> error\n    EACCES: permission denied" in trace.text


def test_a_result_keeps_only_its_last_lines() -> None:
    trace = build_trace(_explored(1).build("Found it."), 4000)
    assert trace is not None
    tail = trace.calls[0].tail
    assert len(tail) == 6 and tail[-1].startswith("src/module_39.py")


@pytest.mark.parametrize("budget", [100, 300, 800, 1500, 4000])
def test_the_trace_never_exceeds_its_cap(budget: int) -> None:
    trace = build_trace(_fixed(60), budget)
    assert trace is not None
    assert trace.tokens <= budget and len(trace.text) <= budget * 4


def test_the_oldest_calls_are_left_out_first() -> None:
    trace = build_trace(_fixed(60), 1500)
    assert trace is not None
    kept = [c.at for c in trace.calls]
    assert 0 < trace.omitted < 60
    assert kept == list(range(62 - len(kept), 62))  # a run of the newest calls
    assert f"[... {trace.omitted} calls not shown]" in trace.text
    assert trace.calls[0].tail  # dropping old calls came before shortening tails


def test_a_trace_that_fits_is_whole() -> None:
    trace = build_trace(_fixed(3), 4000)
    assert trace is not None and trace.omitted == 0 and "not shown]" not in trace.text


def test_the_latest_change_and_every_call_after_it_are_kept_with_shorter_tails() -> None:
    builder = _explored(5).edit("src/export.py", new="row = [str(v) for v in row]")
    for n in range(20):
        builder.bash(f"python scripts/check_{n}.py", output=NOISY)
    trace = build_trace(builder.build("Done."), 700)
    assert trace is not None and trace.tokens <= 700
    assert {c.at for c in trace.calls} >= set(range(5, 26))  # the edit (#5) and all after it
    assert all(len(c.tail) <= 2 for c in trace.calls)
    whole = build_trace(builder.build("Done."), 40000)
    assert whole is not None and len(whole.calls[-1].tail) == 6  # uncapped: six lines


def test_when_even_headers_do_not_fit_the_latest_change_stays_with_the_newest_calls() -> None:
    builder = _explored(2).edit("src/export.py", new="row = [str(v) for v in row]")
    for n in range(200):
        builder.bash(f"python scripts/check_{n}.py --verbose", output=NOISY)
    trace = build_trace(builder.build("Done."), 400)
    assert trace is not None and trace.tokens <= 400
    kept = [c.at for c in trace.calls]
    assert kept[0] == 2 and kept[-1] == 202  # the edit, then the newest
    assert "#2 Edit: src/export.py" in trace.text
    assert "calls not shown]\n#2 Edit" in trace.text and "calls not shown]\n#" in trace.text


def test_without_a_change_the_newest_calls_are_kept() -> None:
    trace = build_trace(_explored(80).build("Here is where handlers are defined."), 600)
    assert trace is not None and trace.calls[-1].at == 79 and trace.omitted > 0


def test_a_cap_of_zero_builds_no_trace() -> None:
    assert build_trace(_fixed(2), 0) is None


def test_secrets_are_redacted_in_commands_results_and_the_final_message() -> None:
    key = "sk-proj-" + "Q7" * 12
    session = (
        SessionBuilder("Deploy the worker.")
        .bash(f"curl -H 'Authorization: Bearer {key}' https://api.example.test/v1/deploy")
        .bash("cat .env", output=f"DB_HOST=db\nSTRIPE_SECRET_KEY={key}\n")
        .build(f"Deployed with key {key}.")
    )
    trace = build_trace(session, 4000)
    assert trace is not None
    assert key not in trace.text and key[8:] not in trace.text
    assert "[REDACTED]" in trace.text
    assert all(key not in line for c in trace.calls for line in (c.what, *c.tail))


def test_a_secret_block_cut_by_the_tail_is_still_redacted() -> None:
    body = "\n".join(f"MIIEpAIBAAKCAQEA{n:04d}secretbody" for n in range(20))
    block = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"
    session = SessionBuilder("Show the key file.").bash("cat deploy.pem", output=block).build("")
    trace = build_trace(session, 4000)
    assert trace is not None and "secretbody" not in trace.text


def test_paths_under_the_working_directory_are_shown_relative() -> None:
    session = SessionBuilder("Tidy imports.").edit("src/app.py", new="import os").build("Done.")
    trace = build_trace(session, 4000)
    assert trace is not None and "#0 Edit: src/app.py" in trace.text
    assert "/home/dev/project" not in trace.text


def test_a_long_final_message_keeps_its_end() -> None:
    final = "Summary. " + "detail " * 600 + "Two tests still fail."
    session = SessionBuilder("Fix the tests.").bash("make test").build(final)
    trace = build_trace(session, 4000)
    assert trace is not None
    assert trace.final_message.endswith("Two tests still fail.")
    assert len(trace.final_message) <= 1200


def test_the_todo_list_shows_each_item_and_its_status() -> None:
    session = (
        SessionBuilder("Add the export and its docs.")
        .todo(("Add export", "completed"), ("Document export", "pending"))
        .build("Export added.")
    )
    trace = build_trace(session, 4000)
    assert trace is not None
    assert "[completed] Add export; [pending] Document export" in trace.text


def test_without_a_change_the_newest_call_stays_even_under_a_tiny_cap() -> None:
    trace = build_trace(_explored(3).build("Found them."), 40)
    assert trace is not None and trace.tokens <= 40
    assert [c.at for c in trace.calls] == [2] and trace.calls[0].tail == ()


def test_a_turn_without_tool_calls_is_its_final_message() -> None:
    trace = build_trace(SessionBuilder("What does --dry-run do?").build("It prints the plan."), 500)
    assert trace is not None and trace.calls == () and trace.omitted == 0
    assert trace.text.endswith("FINAL MESSAGE\nIt prints the plan.")
