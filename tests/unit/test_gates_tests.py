"""The tests gate: a passing full run AFTER THE LATEST CHANGE, the ledger winning."""

from __future__ import annotations

from typing import Any

import pytest

from reflection_core.session import gates
from reflection_core.session.gates import GateInputs, GateResult, LedgerEvidence
from reflection_core.session.model import Session
from reflection_core.session.task import build_task_context
from tests.unit.sessionbuild import SessionBuilder

IGNORE = ["docs/**", "*.md"]


def gate(session: Session, **kwargs: Any) -> GateResult:
    kwargs.setdefault("ignore_globs", IGNORE)
    kwargs.setdefault("test_command", "python -m pytest -q")
    inputs = GateInputs(task=build_task_context(session), required={"tests"}, **kwargs)
    return gates.tests_gate(session, inputs)


def test_passing_run_after_the_last_edit_satisfies() -> None:
    s = SessionBuilder("Fix it").edit("src/a.py").bash("pytest -q", output="3 passed").build()
    result = gate(s)
    assert result.satisfied and "passed after the latest change" in result.evidence


def test_run_before_the_last_edit_does_not_count() -> None:
    s = (
        SessionBuilder("Fix it")
        .edit("src/a.py")
        .bash("pytest -q", output="3 passed")
        .edit("src/b.py")
        .build()
    )
    result = gate(s)
    assert not result.satisfied
    assert "before the latest change" in result.evidence
    assert result.severity == "MEDIUM"
    assert result.next_action is not None and "python -m pytest -q" in result.next_action


def test_the_unchecked_change_is_named_by_its_file_or_its_command() -> None:
    edited = gate(SessionBuilder("Fix it").read("src/a.py").edit("src/b.py").build())
    assert edited.missing == "tests have not run after the latest change (Edit of `b.py`)"
    command = SessionBuilder("Fix it").bash("sed -i 's/a/b/' src/a.py").build()
    assert "(`sed -i 's/a/b/' src/a.py`)" in (gate(command).missing or "")


def test_a_filter_that_found_nothing_after_a_build_is_no_build_failure() -> None:
    command = "helm template rel charts/api | grep -c 'kind: Ingress'"
    s = SessionBuilder("No ingress").edit("deploy/render.py").bash(command, exit=1, output="0")
    s = s.build()
    build = gates._command_gate(s, gate_inputs(s), "build", "build", None)
    assert build.satisfied and "filter" in build.evidence
    errored = (
        SessionBuilder("x")
        .edit("a.go")
        .bash("go build ./... | grep -v warn", exit=1, output="./a.go:3:1: syntax error")
        .build()
    )
    assert not gates._command_gate(errored, gate_inputs(errored), "build", "build", None).satisfied


def gate_inputs(session: Session) -> GateInputs:
    return GateInputs(task=build_task_context(session), required={"build"})


def _rerun_after(command: str) -> Session:
    """`command` passed, then another file changed: the tests ran before it, not after."""
    builder = SessionBuilder("Fix it").edit("src/a.py").bash(command, output="12 passed")
    return builder.edit("src/b.py").build()


def test_a_rerun_names_the_test_command_that_ran_before_when_the_project_names_none() -> None:
    result = gate(_rerun_after("cd api && npx vitest run"), test_command=None)
    assert result.pattern == "tests:not_rerun"
    assert (
        result.next_action == "Run `cd api && npx vitest run` again now that the code has changed"
    )
    # Too long to name whole: the generic advice, never a cut command.
    long_run = _rerun_after("cd api && " + " && ".join(["npx vitest run"] * 12))
    generic = gate(long_run, test_command=None).next_action
    assert generic == "Run the full test suite now that the code has changed"
    named = gate(_rerun_after("cd api && npx vitest run"))  # the project's own command wins
    assert named.next_action == "Run `python -m pytest -q` now that the code has changed"


def test_failing_run_is_high_severity() -> None:
    s = SessionBuilder("Fix it").edit("src/a.py").bash("pytest", exit=1, output="1 failed").build()
    result = gate(s)
    assert not result.satisfied and result.severity == "HIGH"


def test_failure_dismissed_as_flaky_still_fails() -> None:
    s = (
        SessionBuilder("Fix it")
        .edit("src/a.py")
        .bash("pytest", exit=1, output="1 failed, 9 passed")
        .build("The one failure is a flaky test unrelated to my change. Done.")
    )
    result = gate(s)
    assert not result.satisfied
    assert "flaky" in result.evidence


def test_partial_run_is_a_check_but_not_the_tests_unless_allowed() -> None:
    s = (
        SessionBuilder("Fix it")
        .edit("src/a.py")
        .bash("pytest tests/test_a.py -k parse", output="2 passed")
        .build()
    )
    assert gate(s).satisfied  # stop.require: check
    assert not gate(s, require="tests").satisfied
    assert gate(s, require="tests", allow_partial=True).satisfied


def test_full_pass_then_partial_pass_is_still_satisfied() -> None:
    s = (
        SessionBuilder("Fix it")
        .edit("src/a.py")
        .bash("pytest -q", output="20 passed")
        .bash("pytest -k parse", output="2 passed")
        .build()
    )
    assert gate(s).satisfied


def test_lint_alone_is_not_tests() -> None:
    s = SessionBuilder("Fix it").edit("src/a.py").bash("ruff check .").build()
    result = gate(s)
    assert not result.satisfied and "lint is not tests" in result.evidence


def test_docs_only_change_needs_no_tests() -> None:
    s = SessionBuilder("Update the guide").edit("docs/guide.md").edit("README.md").build()
    assert gate(s).satisfied


def test_masked_exit_code_with_failures_in_output_fails() -> None:
    s = (
        SessionBuilder("Fix it")
        .edit("src/a.py")
        .bash("pytest | tail -5", output="=== 2 failed, 8 passed in 0.4s ===")
        .build()
    )
    assert not gate(s).satisfied


def test_masked_exit_code_without_a_pass_summary_is_not_a_pass() -> None:
    s = (
        SessionBuilder("Fix it")
        .edit("src/a.py")
        .bash("pytest || true", output="collecting ...")
        .build()
    )
    assert not gate(s).satisfied


def test_a_filter_that_hides_both_summaries_leaves_the_outcome_unknown_not_failed() -> None:
    """`| grep Ran` kept neither a pass nor a failure line: not a pass, and not a failure
    to push on (it was read as "tests fail after the latest change")."""
    s = (
        SessionBuilder("Fix it")
        .edit("src/a.ts")
        .bash('bun test 2>&1 | grep -E "^Ran"', output="Ran 86 tests across 5 files. [114.00ms]")
        .build()
    )
    result = gate(s)
    assert not result.satisfied
    assert result.pattern == "tests:outcome_hidden"
    assert gates.run_passed(s.tool_calls[-1]) is None


def test_a_whole_run_failing_only_as_a_stash_baseline_does_leaves_a_filtered_pass_enough() -> None:
    failing = "48 examples, 1 failure\n\nrspec ./spec/mailers/receipt_spec.rb:14"
    session = (
        SessionBuilder("Fix the total")
        .edit("app/models/order.rb")
        .bash("bundle exec rspec", output=failing, exit=1)
        .bash(
            "git stash && bundle exec rspec spec/mailers/receipt_spec.rb; git stash pop",
            output="2 examples, 1 failure",
        )
        .bash(
            "TZ=Europe/Paris bundle exec rspec spec/mailers/receipt_spec.rb",
            output="2 examples, 0 failures",
        )
    )
    result = gate(session.build())
    assert result.satisfied and "fails without it" in result.evidence
    # without the baseline the whole run's failure is the change's: a filtered pass is not enough
    unproven = (
        SessionBuilder("Fix the total")
        .edit("app/models/order.rb")
        .bash("bundle exec rspec", output=failing, exit=1)
        .bash("bundle exec rspec spec/mailers/receipt_spec.rb", output="2 examples, 0 failures")
    )
    assert not gate(unproven.build()).satisfied


def test_a_rerun_hiding_its_outcome_after_a_whole_run_that_passed_leaves_the_pass() -> None:
    rerun = "./gradlew test --rerun-tasks -q 2>&1 | tail -3"
    passed = (
        SessionBuilder("Fix it")
        .edit("src/A.java")
        .bash("./gradlew build", output="BUILD SUCCESSFUL")
    )
    assert gate(passed.bash(rerun, output="").build()).satisfied
    # a rerun selecting no test after the whole run neither
    empty = (
        SessionBuilder("Fix it")
        .edit("src/lib.rs")
        .bash("cargo test --workspace", output="test result: ok. 9 passed")
    )
    assert gate(empty.bash("cargo test -p cli", output="running 0 tests").build()).satisfied
    # a filtered run that passed is no whole run: the hidden rerun stays unknown
    filtered = SessionBuilder("Fix it").edit("src/a.py").bash("pytest -k money", output="2 passed")
    assert (
        gate(filtered.bash("pytest | tail -1", output="").build()).pattern == "tests:outcome_hidden"
    )


@pytest.mark.parametrize("summary", gates.RUN_SUMMARIES, ids=lambda s: s.runners)
def test_each_runners_pass_line_passes_a_run_whose_exit_code_a_pipe_hides(
    summary: gates.RunSummary,
) -> None:
    command = "run-the-tests 2>&1 | tail -5"
    s = SessionBuilder("Fix it").edit("src/a.py").bash(command, output=summary.pass_example)
    call = s.build().tool_calls[-1]
    assert call.command is not None and call.command.exit_masked
    assert gates.run_passed(call) is True


@pytest.mark.parametrize("summary", gates.RUN_SUMMARIES, ids=lambda s: s.runners)
def test_each_runners_failure_line_fails_a_run_even_with_a_zero_exit_code(
    summary: gates.RunSummary,
) -> None:
    s = SessionBuilder("Fix it").edit("src/a.py").bash("pytest", output=summary.fail_example)
    assert gates.run_passed(s.build().tool_calls[-1]) is False


@pytest.mark.parametrize(
    "output",
    [
        "test_retry[3 failed attempts] PASSED\n==== 5 passed in 0.1s ====",
        "  \u2713 returns 2 errors for bad rows\nTests:       5 passed, 5 total",
        "gcc: error: unrecognized option (fsevents, optional)\nok  \texample.com/calc\t0.1s",
    ],
)
def test_failure_words_before_the_runners_pass_summary_leave_a_zero_exit_a_pass(
    output: str,
) -> None:
    s = SessionBuilder("Fix it").edit("src/a.py").bash("make test", output=output)
    assert gates.run_passed(s.build().tool_calls[-1]) is True


@pytest.mark.parametrize(("tool", "pattern", "example"), gates.BUILD_TOOL_ERRORS)
def test_each_build_tools_failure_line_fails_a_build_a_pipe_let_exit_zero(
    tool: str, pattern: str, example: str
) -> None:
    build = "npm run build 2>&1 | tail -30"
    s = SessionBuilder("Fix it").edit("src/a.ts").bash(build, output=example)
    assert gates.run_passed(s.build().tool_calls[-1]) is False


@pytest.mark.parametrize(("compilers", "pattern", "example"), gates.COMPILER_ERRORS)
def test_each_compilers_error_line_fails_a_check_a_pipe_let_exit_zero(
    compilers: str, pattern: str, example: str
) -> None:
    s = (
        SessionBuilder("Fix it")
        .edit("src/a.ts")
        .bash("npx tsc --noEmit 2>&1 | head -30", output=example)
    )
    assert gates.run_passed(s.build().tool_calls[-1]) is False


@pytest.mark.parametrize(
    "output",
    [
        "vite v5.4.0 building for production...\n\u2713 built in 5.70s",
        "   \u25b2 Next.js 16.0.0\n \u2713 Compiled successfully",
        "webpack 5.90.1 compiled successfully in 2013 ms",
        "BUILD SUCCESSFUL in 3s",
        "[INFO] BUILD SUCCESS",
        "Build succeeded.\n    0 Warning(s)\n    0 Error(s)",
        "make: Nothing to be done for 'all'.",
        "npm warn deprecated inflight@1.0.6: not supported",
    ],
)
def test_a_build_that_succeeded_behind_a_pipe_passes(output: str) -> None:
    s = (
        SessionBuilder("Fix it")
        .edit("src/a.ts")
        .bash("npm run build 2>&1 | tail -30", output=output)
    )
    assert gates.run_passed(s.build().tool_calls[-1]) is True


def test_errors_a_passing_test_run_logs_do_not_fail_it() -> None:
    logged = (
        "  console.error\n    Error: boom\n      at Object.<anonymous> (src/a.test.ts:5:11)\n"
        "    main_test.go:12: error: expected in this test\n"
        "Tests:       12 passed, 12 total"
    )
    s = SessionBuilder("Fix it").edit("src/a.ts").bash("npx jest 2>&1 | tail -40", output=logged)
    assert gates.run_passed(s.build().tool_calls[-1]) is True


def test_a_program_run_that_prints_an_error_line_is_not_read_as_a_compile_failure() -> None:
    printed = "error: no config file found, using the defaults\nserved 3 requests"
    s = SessionBuilder("Fix it").edit("src/app.py").bash("python src/app.py", output=printed)
    call = s.build().tool_calls[-1]
    assert call.command is not None and call.command.kinds == {"run"}
    assert gates.run_passed(call) is True


@pytest.mark.parametrize(("runtime", "pattern", "example"), gates.CRASHES)
def test_each_runtimes_crash_fails_a_program_run_a_pipe_let_exit_zero(
    runtime: str, pattern: str, example: str
) -> None:
    s = SessionBuilder("Fix it").edit("src/app.py").bash("python src/app.py | tail", output=example)
    assert gates.run_passed(s.build().tool_calls[-1]) is False


_LOGGED_TRACE = (
    " \u2a2f Failed to patch lockfile, please try uninstalling and reinstalling next\n"
    "TypeError: Cannot read properties of undefined (reading 'os')\n"
    "    at fetchPkgInfo (node_modules/next/dist/lib/patch-incorrect-lockfile.js:73:25)\n"
)


@pytest.mark.parametrize(("tools", "pattern", "example"), gates.BUILD_SUCCESSES)
def test_a_trace_a_build_logged_before_it_reported_success_does_not_fail_it(
    tools: str, pattern: str, example: str
) -> None:
    build = "npm run build 2>&1 | tail -30"
    s = SessionBuilder("Fix it").edit("src/a.ts").bash(build, output=_LOGGED_TRACE + example)
    assert gates.run_passed(s.build().tool_calls[-1]) is True


def test_a_build_that_ends_on_a_trace_fails() -> None:
    build = "npm run build 2>&1 | tail -30"
    s = SessionBuilder("Fix it").edit("src/a.ts").bash(build, output=_LOGGED_TRACE)
    assert gates.run_passed(s.build().tool_calls[-1]) is False


def test_a_test_run_that_shows_a_trace_its_tests_expected_still_passes() -> None:
    shown = '  File "app.py", line 3, in parse\nValueError: bad input\n==== 12 passed in 0.3s ===='
    s = SessionBuilder("Fix it").edit("src/app.py").bash("pytest -s | tail -20", output=shown)
    assert gates.run_passed(s.build().tool_calls[-1]) is True


# Node's test runner summary behind a pipe: (output, passed?)
NODE_SUMMARIES = [
    ("# tests 101\n# pass 101\n# fail 0", True),  # TAP reporter
    ("\u2139 tests 12\n\u2139 pass 12\n\u2139 fail 0", True),  # spec reporter
    ("# tests 101\n# pass 99\n# fail 2", False),
    ("\u2139 tests 12\n\u2139 pass 11\n\u2139 fail 1", False),
]


@pytest.mark.parametrize(("output", "passed"), NODE_SUMMARIES)
def test_node_test_runner_summaries_are_read_behind_a_pipe(output: str, passed: bool) -> None:
    s = (
        SessionBuilder("Fix it")
        .edit("src/a.js")
        .bash('npm test 2>&1 | grep -E "^# (pass|fail)"', output=output)
        .build()
    )
    assert gate(s).satisfied is passed


def test_run_with_no_tests_collected_is_not_a_pass() -> None:
    s = SessionBuilder("Fix it").edit("src/a.py").bash("pytest", output="no tests ran").build()
    assert not gate(s).satisfied


def test_background_run_without_result_is_not_a_pass() -> None:
    s = SessionBuilder("Fix it").edit("src/a.py").running("pytest").build()
    result = gate(s)
    assert not result.satisfied and "no result" in result.evidence


def test_ledger_failure_wins_over_a_transcript_pass() -> None:
    s = SessionBuilder("Fix it").edit("src/a.py").bash("pytest", output="3 passed").build()
    ledger = LedgerEvidence(passed=False, reason="the latest run failed", failed=True)
    result = gate(s, ledger=ledger)
    assert not result.satisfied and result.evidence.startswith("ledger:")


def test_a_ledger_failure_a_stash_baseline_showed_without_the_change_does_not_count() -> None:
    s = (
        SessionBuilder("Add Austria")
        .edit("src/tax.py")
        .bash("pytest -q", exit=1, output="FAILED tests/test_tax.py::test_it\n1 failed, 9 passed")
        .bash("git stash && pytest -q; git stash pop", exit=1, output="1 failed, 8 passed")
        .build()
    )
    ledger = LedgerEvidence(passed=False, reason="the latest run failed", failed=True)
    result = gate(s, ledger=ledger)
    assert result.satisfied and "the ledger records that failure" in result.evidence


@pytest.mark.parametrize(
    ("command", "output"),
    [("npm test", "Tests: 12 passed, 12 total"), ("make test", "===== 3 passed in 0.2s =====")],
)
def test_a_ledger_without_an_entry_never_overrules_a_passing_run_in_the_transcript(
    command: str, output: str
) -> None:
    s = SessionBuilder("Fix it").edit("src/a.py").bash(command, output=output).build()
    ledger = LedgerEvidence(passed=False, reason="no passing test run is recorded for this tree")
    result = gate(s, ledger=ledger)
    assert result.satisfied and "the ledger has no entry" in result.evidence


def test_a_ledger_without_an_entry_still_asks_when_the_transcript_shows_no_run() -> None:
    s = SessionBuilder("Fix it").edit("src/a.py").build()
    ledger = LedgerEvidence(passed=False, reason="no passing test run is recorded for this tree")
    assert not gate(s, ledger=ledger).satisfied


@pytest.mark.parametrize(
    ("session", "pattern"),
    [
        (_rerun_after("npm test"), "tests:not_rerun"),
        (
            SessionBuilder("Fix it").edit("src/a.py").bash("pytest", output="1 failed").build(),
            "tests:failing",
        ),
    ],
)
def test_a_ledger_without_an_entry_leaves_what_is_missing_to_the_transcript(
    session: Session, pattern: str
) -> None:
    ledger = LedgerEvidence(passed=False, reason="no passing test run is recorded for this tree")
    result = gate(session, ledger=ledger)
    assert not result.satisfied and result.pattern == pattern


def test_a_build_or_a_run_checks_the_change_where_no_tests_cover_it() -> None:
    for check in ("go build ./...", "python app.py"):
        s = SessionBuilder("Fix it").edit("src/app.go").bash(check, output="ok").build()
        assert gate(s, has_tests=False).satisfied and check in gate(s, has_tests=False).evidence
        assert not gate(s, has_tests=True).satisfied  # the suite covers it: tests check it
        assert not gate(s, has_tests=False, require="tests").satisfied


def test_a_server_started_in_the_background_is_no_check() -> None:
    s = SessionBuilder("Fix it").edit("src/app.js").bash("node server.js &", output="").build()
    assert not gate(s, has_tests=False).satisfied


CTEST_PASS = "100% tests passed, 0 tests failed out of 3"


def test_ctest_after_a_source_change_with_no_build_ran_the_old_binaries() -> None:
    stale = (
        SessionBuilder("Fix add")
        .edit("src/calc.cpp")
        .bash("ctest --test-dir build", output=CTEST_PASS)
    )
    result = gate(stale.build())
    assert not result.satisfied and "its tests ran the old code" in (result.missing or "")
    for built in (
        SessionBuilder("Fix add")
        .edit("src/calc.cpp")
        .bash("cmake --build build")
        .bash("ctest --test-dir build", output=CTEST_PASS),
        SessionBuilder("Fix add")
        .edit("src/calc.cpp")
        .bash("cmake --build build && ctest --test-dir build", output=CTEST_PASS),
    ):
        assert gate(built.build()).satisfied


def test_a_comment_only_edit_needs_no_check() -> None:
    s = (
        SessionBuilder("Tidy the comment")
        .edit("src/jobs.go", old="x := 1 // old note", new="x := 1 // clearer note")
        .build()
    )
    assert gate(s).satisfied and "comments" in gate(s).evidence


def test_a_stash_round_trip_is_a_baseline_and_no_new_change() -> None:
    s = (
        SessionBuilder("Fix it")
        .edit("src/lib.rs")
        .bash("cargo test", exit=1, output="test result: FAILED. 10 passed; 2 failed")
        .bash("git stash && cargo test && git stash pop", exit=1, output="2 failed")
        .build()
    )
    result = gate(s)
    assert result.satisfied and "without the change" in result.evidence


_TWO_FAILED = (
    "FAILED tests/test_cart.py::test_total - AssertionError: assert 3 == 4\n"
    "FAILED tests/test_tax.py::test_rate - KeyError: 'NL'\n"
    "2 failed, 40 passed in 0.81s"
)


def _failing_before_and_after(after: str, before: str = _TWO_FAILED) -> Session:
    return (
        SessionBuilder("Fix the discount")
        .bash("pytest -q", exit=1, output=before)
        .edit("src/discount.py")
        .bash("pytest -q", exit=1, output=after)
        .build()
    )


def test_failures_that_failed_the_same_way_before_the_first_change_are_a_baseline() -> None:
    after = _TWO_FAILED.replace("0.81s", "0.93s").replace("40 passed", "41 passed")
    result = gate(_failing_before_and_after(after))
    assert result.satisfied and "as before this task's first change" in result.evidence


def test_a_failure_the_run_before_the_change_did_not_show_still_fails() -> None:
    after = _TWO_FAILED + "\nFAILED tests/test_discount.py::test_half - assert 5 == 4"
    result = gate(_failing_before_and_after(after))
    assert not result.satisfied and result.pattern == "tests:failing"


def test_a_failure_after_a_passing_run_before_the_change_still_fails() -> None:
    result = gate(_failing_before_and_after(_TWO_FAILED, before="42 passed in 0.80s"))
    assert not result.satisfied and result.pattern == "tests:failing"


def test_a_failure_that_names_no_error_line_is_no_baseline_match() -> None:
    result = gate(_failing_before_and_after("2 failed, 40 passed", before="2 failed, 40 passed"))
    assert not result.satisfied and result.pattern == "tests:failing"


def test_ledger_pass_wins_over_a_transcript_without_a_run() -> None:
    s = SessionBuilder("Fix it").edit("src/a.py").build()
    result = gate(s, ledger=LedgerEvidence(passed=True, reason="pytest passed on this tree"))
    assert result.satisfied and "ledger" in result.evidence


def test_no_change_means_nothing_to_test() -> None:
    s = SessionBuilder("Explain the cache").read("src/cache.py").build()
    assert gate(s).satisfied


def test_runner_that_found_no_tests_is_not_a_pass_even_with_exit_zero() -> None:
    output = "> jest\n\nNo tests found, exiting with code 0\n  testMatch: **/*.test.js - 0 matches"
    s = SessionBuilder("Add a test").write("src/price.tests.js").bash("npm test", output=output)
    result = gate(s.build())
    assert not result.satisfied and result.pattern == "tests:none_ran"
    assert "ran no tests" in result.evidence and result.severity == "MEDIUM"


@pytest.mark.parametrize(
    ("command", "output"),
    [
        (
            "bundle exec rspec",
            "No examples found.\n\nFinished in 0.001 seconds\n0 examples, 0 failures",
        ),
        ("mix test", "There are no tests to run\nFinished in 0.02 seconds"),
        ("bun test", "Ran 0 tests across 0 files. [12.00ms]"),
    ],
)
def test_other_runners_that_ran_no_tests_do_not_pass(command: str, output: str) -> None:
    s = SessionBuilder("Fix it").edit("lib/a.rb").bash(command, output=output)
    assert gate(s.build()).pattern == "tests:none_ran"


def test_pytest_exit_5_is_no_tests_ran() -> None:
    s = SessionBuilder("Fix it").edit("src/a.py").bash("pytest tests/unit", exit=5, output="")
    assert gate(s.build()).pattern == "tests:none_ran"


def test_go_packages_without_test_files_next_to_tested_ones_still_pass() -> None:
    output = (
        "?   \texample.com/shop/cmd/shop\t[no test files]\n"
        "ok  \texample.com/shop/cart\t0.031s\n"
        "ok  \texample.com/shop/tax\t(cached)\n"
    )
    s = SessionBuilder("Fix it").edit("cart/cart.go").bash("go test ./...", output=output).build()
    assert gate(s).satisfied


@pytest.mark.parametrize(("changed", "covered"), [("calc/calc.go", True), ("util/util.go", False)])
def test_a_go_test_run_of_some_packages_covers_a_change_in_those_packages_only(
    changed: str, covered: bool
) -> None:
    output = "ok  \texample.com/app/calc\t0.004s\n"
    s = SessionBuilder("Fix it").edit(changed).bash("go test ./calc/...", output=output).build()
    result = gate(s)
    assert result.satisfied is covered
    assert covered or result.pattern == "tests:partial"


def test_a_go_test_run_of_the_changed_package_is_not_partial_for_a_script_beside_it() -> None:
    # `go test ./...` would not exercise deploy/start.sh either.
    output = "ok  \texample.com/app/calc\t0.004s\n"
    s = SessionBuilder("Fix it").edit("calc/calc.go").edit("deploy/start.sh")
    assert gate(s.bash("go test ./calc/...", output=output).build()).satisfied


@pytest.mark.parametrize(
    ("command", "output"),
    [
        (
            "go test ./...",
            "--- FAIL: TestAdd (0.00s)\nFAIL\nFAIL\texample.com/app/calc\t0.004s\n"
            "?   \texample.com/app/util\t[no test files]\n",
        ),
        ("cargo test", "running 2 tests\ntest result: FAILED. 0 passed; 2 failed; 0 ignored\n"),
        ("npx mocha", "  0 passing (4ms)\n  1 failing\n"),
        ("deno test", "FAILED | 0 passed | 1 failed (12ms)\n"),
    ],
)
def test_a_run_whose_every_test_failed_is_a_failure_not_a_run_of_none(
    command: str, output: str
) -> None:
    s = SessionBuilder("Fix it").edit("src/a.go").bash(command, exit=1, output=output)
    assert gate(s.build()).pattern == "tests:failing"


def test_go_run_with_no_test_files_anywhere_ran_nothing() -> None:
    output = "?   \texample.com/shop/cmd/shop\t[no test files]\n"
    s = SessionBuilder("Fix it").edit("cmd/shop/main.go").bash("go test ./...", output=output)
    assert gate(s.build()).pattern == "tests:none_ran"


def test_an_empty_section_next_to_tests_that_ran_still_passes() -> None:
    output = "running 12 tests\ntest result: ok. 12 passed\n\nDoc-tests app\nrunning 0 tests\n"
    s = SessionBuilder("Fix it").edit("src/lib.rs").bash("cargo test", output=output).build()
    assert gate(s).satisfied


def test_a_ci_pipeline_change_needs_no_new_test_run_by_default() -> None:
    from reflection_core import config

    default_ignore = config.defaults()["tests"]["ignore"]
    for path in (".gitlab-ci.yml", ".circleci/config.yml", ".github/workflows/ci.yml"):
        s = SessionBuilder("Fix the pipeline").bash("pytest -q", output="3 passed").edit(path)
        result = gate(s.build(), ignore_globs=default_ignore)
        assert result.satisfied, (path, result)
    code = SessionBuilder("Fix it").bash("pytest -q", output="3 passed").edit("ci/run.py")
    assert not gate(code.build(), ignore_globs=default_ignore).satisfied


@pytest.mark.parametrize(
    ("run", "covers"),
    [
        ("pytest tests/test_money.py -q", True),  # names the changed module
        ("pytest tests/common -q", True),  # names its package
        ("pytest tests/billing/test_invoices.py -q", False),  # another package's tests
    ],
)
def test_a_partial_run_checks_the_change_only_where_it_covers_it(run: str, covers: bool) -> None:
    s = SessionBuilder("Fix it").edit("common/money.py").bash(run, output="14 passed").build()
    assert gate(s).satisfied == covers


def test_a_run_of_the_program_after_the_change_covers_what_the_partial_run_does_not() -> None:
    def tested() -> SessionBuilder:
        return (
            SessionBuilder("Validate the orders")
            .write("validation/schema.py", "SCHEMA = 1\n")
            .write("validation/cli.py", "print(1)\n")
            .bash("pytest tests/test_schema.py -q", output="5 passed")
        )

    assert not gate(tested().build()).satisfied  # the CLI is not named by the run
    ran = tested().bash("python -m validation.cli data/sample.csv", output="sample.csv: OK")
    assert gate(ran.build()).satisfied
    failed = tested().bash("python -m validation.cli data/sample.csv", output="Traceback", exit=1)
    assert not gate(failed.build()).satisfied


@pytest.mark.parametrize(
    ("run", "covers"),
    [
        ("./gradlew :app:testDebugUnitTest", True),  # the project in app/
        ("./gradlew :core:data:test", False),  # the project in core/data/
        ("./gradlew :core:data:test :app:test", True),
    ],
)
def test_a_gradle_run_of_one_project_covers_the_change_in_its_folder(
    run: str, covers: bool
) -> None:
    changed = "/home/me/shop/app/src/main/java/shop/Cart.kt"
    s = SessionBuilder("Fix it").edit(changed).bash(run, output="BUILD SUCCESSFUL").build()
    assert gate(s).satisfied == covers


def test_a_changed_manifest_needs_the_whole_suite() -> None:
    s = (
        SessionBuilder("Swap the encoder")
        .edit("src/serializers.py")
        .edit("requirements.txt")
        .bash("pytest tests/test_serializers.py -q", output="8 passed")
        .build()
    )
    assert not gate(s).satisfied


def test_a_failed_check_of_a_change_the_tests_do_not_reach_is_open() -> None:
    s = (
        SessionBuilder("Bump the base image")
        .edit("Dockerfile", old="FROM python:3.11", new="FROM python:3.12")
        .bash("docker build -t app .", exit=1, output="ERROR: failed to solve")
        .build()
    )
    result = gate(s)
    assert not result.satisfied and result.pattern == "check:failing"


@pytest.mark.parametrize(
    ("run", "covers"),
    [("python manage.py test blog", True), ("python manage.py test shop", False)],
)
def test_a_template_is_covered_by_the_run_of_the_app_that_renders_it(
    run: str, covers: bool
) -> None:
    s = (
        SessionBuilder("Fix the N+1 on the authors page")
        .edit("blog/views.py")
        .edit("templates/authors.html")
        .bash(run, output="Ran 2 tests in 0.01s\n\nOK")
        .build()
    )
    assert gate(s).satisfied == covers


def test_ctest_compiles_nothing_so_a_source_change_it_follows_is_uncompiled() -> None:
    from reflection_core.session.evidence import compiles

    stale = SessionBuilder("Fix add").edit("src/calc.cpp").bash("ctest --test-dir build")
    built = SessionBuilder("Fix add").edit("src/calc.cpp").bash("cmake --build build")
    assert not compiles(stale.build().tool_calls[-1])
    assert compiles(built.build().tool_calls[-1])


def test_a_status_the_line_echoes_after_the_test_run_is_its_outcome() -> None:
    def last_run(command: str, output: str) -> bool | None:
        from reflection_core.session.gates import run_passed

        session = SessionBuilder("Fix it").edit("lib/x.ml").bash(command, output=output).build()
        return run_passed(session.tool_calls[-1])

    assert last_run('dune test; echo "exit=$?"', "exit=0") is True
    assert last_run('dune test; echo "exit=$?"', "File tests/x.t\nexit=1") is False
    assert last_run("dune test; echo $?", "0") is True
    assert last_run("dune test; echo done", "done") is None  # no status shown
    assert last_run('dune test | tail -3; echo "exit=$?"', "exit=0") is None  # tail's status
