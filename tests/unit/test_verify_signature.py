"""Error signatures: the same failure on another run, path or line gets the same signature."""

from __future__ import annotations

from reflection_core.verify.runner import command_argv, pytest_counts
from reflection_core.verify.signature import (
    error_lines,
    error_signature,
    normalize_line,
    summarize,
)

RUN_1 = """\x1b[31mFAILED\x1b[0m tests/test_api.py::test_login - AssertionError: assert 401 == 200
E       assert 401 == 200
/tmp/pytest-of-ci/pytest-12/test_login0/app.py:41: AssertionError
object at 0x7f3a2b1c9d40
==== 1 failed, 12 passed in 3.21s ====
"""
RUN_2 = """FAILED tests/test_api.py::test_login - AssertionError: assert 401 == 200
E       assert 401 == 200
/tmp/pytest-of-ci/pytest-57/test_login0/app.py:44: AssertionError
object at 0x55d0c0ffee00
==== 1 failed, 30 passed in 0.98s ====
"""
OTHER = RUN_1.replace("test_login", "test_logout")


def test_same_failure_same_signature_despite_noise() -> None:
    assert error_signature("tests", RUN_1, 1) == error_signature("tests", RUN_2, 1)


def test_different_failure_or_gate_different_signature() -> None:
    assert error_signature("tests", RUN_1, 1) != error_signature("tests", OTHER, 1)
    assert error_signature("tests", RUN_1, 1) != error_signature("lint", RUN_1, 1)


def test_error_lines_are_equal_for_the_same_failure_and_leave_counts_out() -> None:
    assert error_lines(RUN_1) == error_lines(RUN_2)
    assert error_lines(RUN_1) != error_lines(OTHER)
    assert not any("passed" in line for line in error_lines(RUN_1))
    assert error_lines("==== 12 passed in 0.50s ====") == frozenset()


def test_root_prefix_and_line_numbers_are_normalized() -> None:
    a = "/home/u/proj/src/mod.py:12:5: F401 `os` imported but unused"
    b = "src/mod.py:14:5: F401 `os` imported but unused"
    assert normalize_line(a, "/home/u/proj") == normalize_line(b)
    assert error_signature("lint", a, 1, "/home/u/proj") == error_signature("lint", b, 1)


def test_timings_and_timestamps_are_dropped() -> None:
    assert normalize_line("done at 2024-05-01T10:11:12Z took 1.5s") == normalize_line(
        "done at 2025-01-09T00:00:01Z took 20 ms"
    )


def test_summary_keeps_error_lines_without_colours() -> None:
    summary = summarize(RUN_1)
    assert "\x1b" not in summary
    assert summary.startswith("FAILED tests/test_api.py::test_login")
    assert "12 passed" not in summary


def test_summary_of_unrecognized_output_is_its_tail() -> None:
    output = "\n".join(f"line {i}" for i in range(100))
    assert summarize(output).splitlines()[-1] == "line 99"


def test_plain_commands_run_without_a_shell() -> None:
    assert command_argv("python -m pytest -q 'tests dir'") == [
        "python",
        "-m",
        "pytest",
        "-q",
        "tests dir",
    ]
    assert command_argv("ruff check . && ruff format --check .")[:2] == ["bash", "-c"]
    assert command_argv("pytest | tee log")[:2] == ["bash", "-c"]


def test_pytest_counts_are_read_from_the_summary() -> None:
    assert pytest_counts(RUN_1) == {"failed": 1, "passed": 12}
    assert pytest_counts("All checks passed!") is None
