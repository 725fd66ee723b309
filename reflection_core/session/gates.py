"""Gates: each one a yes/no with the evidence behind it, decided from the session alone.

The central question is "did tests run and pass AFTER THE LATEST CHANGE?": a run
before the last edit proves nothing about the code that is there now. When the
test-run ledger has evidence for the current tree it overrides the transcript,
because the ledger fingerprints the tree itself while the transcript only shows
what the agent said it ran.
"""

from __future__ import annotations

import re

from reflection_core.globs import matching_branch_rule
from reflection_core.lazyre import lazy
from reflection_core.records import NamedTuple, field, record, replace
from reflection_core.session.commands import HTTP_CLIENTS
from reflection_core.session.evidence import (
    PREBUILT_RUNNERS,
    checkable,
    file_name,
    ignored_by_tests,
    is_baseline,
    is_change,
    is_check,
    leaves_the_code_as_it_was,
)
from reflection_core.session.model import Event, Session, ToolCall
from reflection_core.session.task import TaskContext, is_dependency_manifest, unnamed_changes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence


class RunSummary(NamedTuple):
    """How a family of test runners sums up a run: a pass and a failure as they print
    them (the tests check each pattern against its example)."""

    runners: str
    passed: str  # pattern of a line that says the run passed
    failed: str  # pattern of a line that says tests failed
    pass_example: str
    fail_example: str


# One family a line. Output showing a failure wins over a zero exit code; a pass line is
# what counts when the command line hides the exit code (`| tail`, `|| true`).
RUN_SUMMARIES: tuple[RunSummary, ...] = (
    RunSummary(
        "pytest, cargo, jest, vitest, mocha, playwright, deno",
        r"\b[1-9]\d* (?:passed|passing)\b",
        r"\b[1-9]\d* (?:failed|failing|errors?)\b",
        "==== 12 passed in 0.41s ====",
        "==== 2 failed, 10 passed in 0.52s ====",
    ),
    RunSummary(
        "unittest, phpunit",
        r"^OK\b",
        r"^FAILED\b",
        "OK (12 tests, 30 assertions)",
        "FAILED (failures=1)",
    ),
    RunSummary(
        "go test, jest files",
        r"^ok\s|\bPASS\b",
        r"^FAIL\b",
        "ok  \texample.com/pkg\t0.12s",
        "FAIL\texample.com/pkg\t0.14s",
    ),
    RunSummary(
        "jest summary",
        r"\bTests?:\s+\d+ passed",
        r"\bTests?:\s+[1-9]\d* failed",
        "Tests:       12 passed, 12 total",
        "Tests:       1 failed, 11 passed, 12 total",
    ),
    RunSummary(
        "node --test (TAP, spec)",
        r"^[#\u2139] pass [1-9]",
        r"^[#\u2139] fail [1-9]",
        "# pass 101",
        "# fail 2",
    ),
    RunSummary(
        "rspec, minitest, mix, XCTest",
        r"\b[1-9]\d* (?:examples?|tests?|runs), (?:\d+ assertions, )?0 failures\b"
        r"|\bExecuted [1-9]\d* tests?, with 0 failures\b",
        r"\b[1-9]\d* failures?\b",
        "12 examples, 0 failures",
        "12 examples, 2 failures",
    ),
    RunSummary(
        "swift testing, zig",
        r"\b[1-9]\d* tests? passed\b",
        r"\b[1-9]\d* tests? failed\b",
        "All 12 tests passed.",
        "Test run with 12 tests failed after 0.2 seconds with 1 issue.",
    ),
    RunSummary(
        "dotnet test",
        r"^\s*Passed!\s",
        r"^\s*Failed!\s",
        "Passed!  - Failed:     0, Passed:    12, Skipped:     0, Total:    12",
        "Failed!  - Failed:     2, Passed:    10, Skipped:     0, Total:    12",
    ),
    RunSummary(
        "maven, phpunit counts",
        r"\bTests run: [1-9]\d*, Failures: 0, Errors: 0\b",
        r"\b(?:Failures|Errors): [1-9]",
        "Tests run: 12, Failures: 0, Errors: 0, Skipped: 0",
        "Tests run: 12, Failures: 2, Errors: 0, Skipped: 0",
    ),
    RunSummary(
        "gradle, maven",
        r"^(?:\[INFO\] )?BUILD SUCCESS(?:FUL)?\b",
        r"^(?:\[INFO\] |\[ERROR\] )?BUILD FAIL(?:ED|URE)\b",
        "BUILD SUCCESSFUL in 4s",
        "BUILD FAILED in 3s",
    ),
    RunSummary(
        "ctest",
        r"\b100% tests passed\b",
        r"\b[1-9]\d* tests? failed out of\b",
        "100% tests passed, 0 tests failed out of 12",
        "83% tests passed, 2 tests failed out of 12",
    ),
    RunSummary(
        "bun test",
        r"^\s*[1-9]\d* pass$",
        r"^\s*[1-9]\d* fail$",
        " 12 pass",
        " 2 fail",
    ),
    RunSummary(
        "sbt, scalatest",
        r"^\[info\] All tests passed\.|^\[info\] Passed: Total [1-9]\d*, Failed 0\b",
        r"\*\*\* [1-9]\d* TESTS? FAILED \*\*\*|^\[error\] Failed: Total \d+, Failed [1-9]",
        "[info] All tests passed.",
        "[error] Failed: Total 12, Failed 1, Errors 0, Passed 11",
    ),
    RunSummary(
        "dart, flutter",
        r"\bAll tests passed!",
        r"\bSome tests failed\.",
        "00:02 +12: All tests passed!",
        "00:02 +10 -2: Some tests failed.",
    ),
    RunSummary(
        "busted (Lua)",
        r"\b[1-9]\d* success(?:es)? / 0 failures / 0 errors\b",
        r"/ [1-9]\d* failures? /|/ [1-9]\d* errors? /",
        "5 successes / 0 failures / 0 errors / 0 pending : 0.012 seconds",
        "4 successes / 1 failure / 0 errors / 0 pending : 0.013 seconds",
    ),
    RunSummary(
        "karma (`ng test`)",
        r"^TOTAL: [1-9]\d* SUCCESS\b|\bExecuted ([1-9]\d*) of \1 SUCCESS\b",
        r"^TOTAL: [1-9]\d* FAILED\b|\bExecuted \d+ of \d+ \([1-9]\d* FAILED\)",
        "Chrome: Executed 22 of 22 SUCCESS (0.187 secs / 0.154 secs)\nTOTAL: 22 SUCCESS",
        "Chrome: Executed 22 of 22 (1 FAILED) (0.2 secs / 0.16 secs)\nTOTAL: 1 FAILED",
    ),
    RunSummary(
        "bazel",
        r"^Executed \d+ out of [1-9]\d* tests?: [1-9]\d* tests? pass(?:es)?\.",
        r"\b[1-9]\d* fails? locally\b|^//\S+\s+(?:\(cached\) )?FAILED in\b",
        "Executed 2 out of 4 tests: 4 tests pass.",
        "Executed 1 out of 3 tests: 2 tests pass and 1 fails locally.",
    ),
    RunSummary(
        "test programs of C, shell and script projects (`make check` running ./test_x)",
        r"^\s*(?:all|ALL|All) (?:[1-9]\d* )?(?:tests|TESTS) (?:passed|PASSED|ok|OK)\b",
        r"^\s*[1-9]\d* (?:of [1-9]\d* )?(?:tests?|TESTS?) (?:failed|FAILED)\b",
        "all tests passed",
        "2 of 14 tests failed",
    ),
)
# A compiler's or type checker's error line, one family a line: (tools, pattern, example).
# A build or type check piped into `head` or `tail` exits 0 whatever it found.
COMPILER_ERRORS: tuple[tuple[str, str, str], ...] = (
    ("tsc", r"\berror TS\d+:", "src/a.ts(3,5): error TS2304: Cannot find name 'x'."),
    ("rustc, cargo", r"^error(?:\[E\d+\])?: ", "error[E0308]: mismatched types"),
    (
        "gcc, clang, javac, mypy, swiftc",
        r"^[^\s:]+:\d+(?::\d+)?: (?:fatal )?error: ",
        "src/main.c:12:3: error: 'x' undeclared (first use in this function)",
    ),
    ("go", r"^\S+\.go:\d+:\d+: \S", "./internal/app/app.go:12:3: undefined: render"),
    (
        "elixir",
        r"^\*\* \((?:CompileError|SyntaxError|TokenMissingError|MismatchedDelimiterError)\)"
        r"|^== Compilation error in file ",
        "** (CompileError) lib/calc.ex:3: undefined function c/0",
    ),
    ("nix", r"^error:\s*$|^\s+error: \S", "       error: undefined variable 'pkgs'"),
    (
        "sbt, scalac",
        r"^\[error\] .*Compilation failed",
        "[error] (Compile / compileIncremental) Compilation failed",
    ),
    (
        "dart analyze",
        r"^\s*error \u2022 ",
        "  error \u2022 lib/calc.dart:2:14 \u2022 Undefined name 'c'.",
    ),
)
# A build tool's line that it failed, one tool a line: (tool, pattern, example). Read for
# builds, type checks and lints run through the tool (`npm run build | tail -3`), each
# printed only on a failure; a test run's failure is its runner's summary.
BUILD_TOOL_ERRORS: tuple[tuple[str, str, str], ...] = (
    ("npm", r"^npm (?:ERR!|error) (?:code [1-9A-Z]|command failed)", "npm error command failed"),
    (
        "pnpm",
        r"\bERR_PNPM_[A-Z_]+\b|^\s*ELIFECYCLE\s+Command failed",
        " ELIFECYCLE  Command failed.",
    ),
    (
        "yarn",
        r"^error Command failed with exit code [1-9]",
        "error Command failed with exit code 1.",
    ),
    (
        "bun",
        r'^error: script "[^"]+" exited with code [1-9]',
        'error: script "build" exited with code 1',
    ),
    ("next", r"^Failed to compile\.|^> Build failed because", "Failed to compile."),
    ("vite, esbuild", r"^error during build:|^\u2718 \[ERROR\]", "error during build:"),
    ("webpack", r"^ERROR in |\bcompiled with [1-9]\d* errors?\b", "webpack compiled with 2 errors"),
    (
        "docker",
        r"^ERROR: failed to (?:build|solve)\b|^COPY failed: ",
        "ERROR: failed to build: failed to solve: process did not complete successfully",
    ),
    ("make", r"^g?make(?:\[\d+\])?: \*\*\* .*Error \d+", "make: *** [Makefile:146: all] Error 2"),
    ("cmake", r"^CMake Error\b", "CMake Error at CMakeLists.txt:12 (find_package):"),
    ("gradle", r"^BUILD FAILED\b|^FAILURE: Build failed", "BUILD FAILED in 3s"),
    ("maven", r"^\[ERROR\] BUILD FAILURE", "[ERROR] BUILD FAILURE"),
    ("dotnet, msbuild", r"^Build FAILED\.|: error [A-Z]{2,}\d{3,5}:", "Build FAILED."),
    ("xcodebuild", r"\*\* BUILD FAILED \*\*", "** BUILD FAILED **"),
)


def _any_line(patterns: Iterable[str]) -> re.Pattern[str]:
    """One multi-line pattern for a table's alternatives, compiled on first use."""
    return lazy("|".join(f"(?:{p})" for p in patterns), re.M)


_FAILED_IN_OUTPUT = _any_line(s.failed for s in RUN_SUMMARIES)
# Only where a compiler runs: a program run may print "error: ..." and still have worked.
_COMPILER_ERROR = _any_line(p for _, p, _ in COMPILER_ERRORS)
_BUILD_TOOL_ERROR = _any_line(p for _, p, _ in BUILD_TOOL_ERRORS)
_COMPILING = frozenset({"test", "build", "typecheck", "lint"})
_BUILDING = frozenset({"build", "typecheck", "lint"})
_RUNS_THE_PROGRAM = frozenset({"run", "build"})  # a build runs the project's build code
# An uncaught error's trace, where the program or the build itself ran (a test run's output
# may show errors its tests expected; a program may print "Error: ..." and carry on):
# (runtime, pattern, example).
CRASHES: tuple[tuple[str, str, str], ...] = (
    (
        "python",
        r"^Traceback \(most recent call last\):|^  File \"[^\"]+\", line \d+",
        '  File "check.py", line 12',
    ),
    (
        "node",
        r"^\w*Error: [^\n]*\n\s+at \S|^node:internal/",
        "TypeError: Cannot read properties of undefined\n    at fetchPkgInfo (x.js:3:9)",
    ),
    ("go", r"^panic: ", "panic: runtime error: index out of range [3] with length 3"),
)
_CRASH = _any_line(p for _, p, _ in CRASHES)
# A build tool's line that it finished: a trace logged on the way (Next.js failing to patch
# its lockfile, then printing its route table) is a warning, not the build's end.
# (tools, pattern, example), one family a line.
BUILD_SUCCESSES: tuple[tuple[str, str, str], ...] = (
    (
        "next",
        r"Compiled successfully|^\+ First Load JS shared by all",
        "+ First Load JS shared by all",
    ),
    ("vite", r"\u2713 built in \d", "\u2713 built in 5.70s"),
    ("webpack", r"\bcompiled successfully\b", "webpack 5.90.1 compiled successfully in 2013 ms"),
    ("gradle", r"^BUILD SUCCESSFUL\b", "BUILD SUCCESSFUL in 3s"),
    ("maven", r"^\[INFO\] BUILD SUCCESS$", "[INFO] BUILD SUCCESS"),
    ("dotnet", r"^Build succeeded\.", "Build succeeded."),
    (
        "cargo",
        r"^\s*Finished [`']?\w+[`']? profile",
        "    Finished `dev` profile [unoptimized] target(s) in 2.1s",
    ),
)
_BUILD_SUCCESS = _any_line(p for _, p, _ in BUILD_SUCCESSES)
_PASSED_IN_OUTPUT = _any_line(s.passed for s in RUN_SUMMARIES)
_NOTHING_RAN = lazy(
    r"\bno tests ran\b|\bcollected 0 items\b|\b0 passed\b|\bno test files\b|\bRan 0 tests\b|"
    r"\bno tests? (files? )?(were )?found\b|\b0 passing\b|\bTests:\s+0 total\b|"
    r"\b0 tests? (ran|run|executed)\b|\b0 examples, 0 failures\b|\bthere are no tests to run\b|"
    r"\bNo tests to run for\b|\bNo tests were executed\b",
    re.I,
)
# A count of tests that did run, or failed: a runner that found nothing in one place
# ("running 0 tests" for doc-tests, "No tests found" for one package) may still have run
# the rest, and "0 passed; 2 failed" or "0 passing, 1 failing" ran tests that all failed.
_RAN_SOME = lazy(
    r"\b[1-9]\d* (passed|passing|failed|failing)\b|\bRan [1-9]\d* tests?\b|"
    r"\bTests:\s+[1-9]\d* (passed|failed)|\bTests run: [1-9]|"
    r"^ok\s+\S+\s+(\(cached\)|[\d.]+s)|"  # go test: one `ok <pkg> <time>` per tested package
    r"^(?-i:(--- )?FAIL[:\s])",  # go test: `--- FAIL: TestX`, `FAIL <pkg>` (a failed build too)
    re.I | re.M,
)
_FLAKY = lazy(
    r"\b(flaky|flake|intermittent\w*|unrelated (to (my|the|these) changes?)?|pre-?existing|"
    r"not (related|caused by) (to )?(my|the|these) change)",
    re.I,
)
_TEXT_TAIL = 20_000
_PR_URL = lazy(r"https?://(?:(?!https?://)\S)+/(?:pull|merge_requests)/\d+")


@record
class LedgerEvidence:
    """What the test-run ledger says about the current tree (converted from TreeEvidence)."""

    passed: bool
    reason: str = ""
    command_hint: str | None = None
    ignorable_only: bool = False
    failed: bool = False  # the latest run recorded on exactly this tree failed


@record
class GateResult:
    """One gate: required or advisory, satisfied or not, and why."""

    name: str
    required: bool
    satisfied: bool
    evidence: str
    missing: str | None = None
    next_action: str | None = None
    severity: str = "NONE"  # severity of the gap when required and not satisfied
    pattern: str = ""  # stable key for "same message not injected twice"

    def to_dict(self) -> dict[str, object]:
        return {"required": self.required, "satisfied": self.satisfied, "evidence": self.evidence}

    @property
    def failing(self) -> bool:
        return self.required and not self.satisfied


@record
class GateInputs:
    """Everything the gates read besides the session."""

    task: TaskContext
    required: set[str]
    protected_branches: list[str] = field(default_factory=lambda: ["main", "master"])
    ignore_globs: list[str] = field(default_factory=list)
    allow_partial: bool = False
    test_command: str | None = None
    build_command: str | None = None
    ledger: LedgerEvidence | None = None
    require: str = "check"  # stop.require: "check" or "tests"
    has_tests: bool | None = None  # the project model: the repo has a test suite


def _has(call: ToolCall, kind: str) -> bool:
    return call.command is not None and kind in call.command.kinds


def ran_tests(calls: Sequence[ToolCall]) -> bool:
    """A test ran in `calls`, whatever its outcome."""
    return any(_has(c, "test") for c in calls)


def untested_packages_only(changed: Sequence[str], tested_dirs: frozenset[str] | None) -> bool:
    """Every changed source is Go in a package with no `_test.go` beside it (`tested_dirs`,
    from the project model): no test reaches the change, so its build checks it. A changed
    test file, or any other kind of source, keeps the tests required."""
    if tested_dirs is None:
        return False
    code = [p.replace("\\", "/") for p in changed if checkable(p)]
    if not code or not all(p.endswith(".go") and not p.endswith("_test.go") for p in code):
        return False
    if any(p.startswith("/") or p[1:3] == ":/" for p in code):
        return False  # outside the repository, or not relative to it: no package known
    return all(p.rpartition("/")[0] not in tested_dirs for p in code)


def suite_shown(has_tests: bool | None, calls: Sequence[ToolCall]) -> bool | None:
    """The project model's word on a test suite, unless tests that ran in the task show
    one its files did not (tests beside the code, a runner it has no table for). A run
    that found no test (`[no test files]`, `running 0 tests`) shows none."""
    if has_tests is False and any(_has(c, "test") and not ran_nothing(c) for c in calls):
        return True
    return has_tests


def last_change_index(session: Session) -> int:
    """Position (in tool_calls) of the latest file change, or -1 when nothing changed."""
    return last_change_at(session.tool_calls)


def last_change_at(calls: Sequence[ToolCall]) -> int:
    """`last_change_index` of a list of tool calls (a stash round trip is no change)."""
    return next((pos for pos in range(len(calls) - 1, -1, -1) if is_change(calls[pos])), -1)


def checked_from(session: Session) -> int:
    """Where the checks of the latest change start: right after it, or at it when the change
    is a linter's own fixes (`eslint --fix`, `ruff check --fix`), whose exit status reports
    what is left on the tree it leaves."""
    latest = last_change_index(session)
    if latest >= 0 and is_check(session.tool_calls[latest]):
        return latest
    return latest + 1


def last_tested_change_index(session: Session, ignore_globs: list[str]) -> int:
    """Position of the latest change that needs tests: a doc written after a passing run
    (a report, a changelog) does not make that run stale. A modifying command whose files
    are unknown counts as a code change."""
    calls = session.tool_calls
    for pos in range(len(calls) - 1, -1, -1):
        call = calls[pos]
        if not is_change(call) or leaves_the_code_as_it_was(call):
            continue
        paths = [p.replace("\\", "/") for p in call.files] if call.kind in ("edit", "write") else []
        if call.command is not None:
            paths = [p.replace("\\", "/") for p in call.command.modified_files]
        if not paths or any(
            is_dependency_manifest(p) or not ignored_by_tests(p, ignore_globs) for p in paths
        ):
            return pos
    return -1


def ran_nothing(call: ToolCall) -> bool:
    """The run finished but no test ran: "No tests found, exiting with code 0",
    "collected 0 items", pytest's exit 5."""
    if call.exit_code == 5 and call.command is not None and call.command.test_runner == "pytest":
        return True
    return bool(_NOTHING_RAN.search(call.output)) and not _RAN_SOME.search(call.output)


def failure_in_output(call: ToolCall) -> bool:
    """A runner's failure summary, a compiler's or build tool's error line in a check that
    compiles, or a crash where the program ran (not a trace a build that then reported
    success logged on the way)."""
    kinds = call.command.kinds if call.command is not None else frozenset()
    return _failure_in(call.output, kinds)


def _failure_in(text: str, kinds: frozenset[str]) -> bool:
    if _FAILED_IN_OUTPUT.search(text):
        return True
    if bool(kinds & _COMPILING) and _COMPILER_ERROR.search(text):
        return True
    if bool(kinds & _BUILDING) and _BUILD_TOOL_ERROR.search(text):
        return True
    crashed = kinds & _RUNS_THE_PROGRAM and "test" not in kinds and _CRASH.search(text)
    return bool(crashed) and not ("build" in kinds and _BUILD_SUCCESS.search(text))


def failure_has_the_last_word(call: ToolCall) -> bool:
    """The output shows a failure and no pass summary after it: the runner's own tally
    ends on the failure (a test named "returns 2 errors" before "5 passed", or a compile
    error of an optional dependency during the install before the tests pass, do not);
    a request to a local server that got no answer or a server error."""
    output = call.output
    passes = list(_PASSED_IN_OUTPUT.finditer(output))
    if passes:
        output = output[output.rfind("\n", 0, passes[-1].start()) + 1 :]  # its whole line on
    kinds = call.command.kinds if call.command is not None else frozenset()
    programs = call.command.programs if call.command is not None else ()
    requested = "run" in kinds and HTTP_CLIENTS.intersection(programs)
    if requested and _HTTP_FAILED_STATUS.search(output):
        return True
    return _failure_in(output, kinds)


# What `curl -w '%{http_code}'` prints for a request that failed, alone on its line: no
# answer at all (000) or a server error (5xx).
_HTTP_FAILED_STATUS = lazy(r"^(000|5\d\d)$", re.M)


def run_passed(call: ToolCall) -> bool | None:
    """Did this run pass? Output showing failures wins over an exit code a pipe masked.
    None when it cannot be told: no result yet, or an outcome the line hides.

    When the command line hides the test's exit status (`pytest | tail`, `|| true`),
    only a pass summary in the output counts as passing, and only a failure in it as
    failing: a filter that kept neither (`| grep Ran`) leaves the outcome unknown.
    """
    if call.ok is None:
        return None
    if call.ok and (failure_has_the_last_word(call) or ran_nothing(call)):
        return False
    if call.ok and call.command is not None and call.command.exit_masked:
        echoed = echoed_status(call.command.status_echoed, call.output)
        if echoed is not None:
            return echoed == 0
        return True if _PASSED_IN_OUTPUT.search(call.output) else None
    if call.ok is False and call.command is not None and call.command.status_of_a_filter:
        # A filter's exit (`| grep -c x` found none), a search's, a publish's: only the
        # output can show a failure, and a runner's own summary says it first.
        passed = _PASSED_IN_OUTPUT.search(call.output)
        if passed and not _FAILED_IN_OUTPUT.search(call.output):
            return True
        if failure_has_the_last_word(call):
            return False
        return True if passed else None
    return call.ok


def echoed_status(prefix: str | None, output: str) -> int | None:
    """The exit status a line's last `echo "...$?"` printed: the last output line that is
    the echo's text and a number; None when the line echoes none or printed none."""
    if prefix is None:
        return None
    wanted = prefix.strip()
    for line in reversed(output.splitlines()):
        line = line.strip()
        if line.startswith(wanted) and line[len(wanted) :].strip().isdigit():
            return int(line[len(wanted) :])
    return None


def _cmd(call: ToolCall) -> str:
    raw = call.command.raw if call.command else str(call.input.get("command", ""))
    return raw if len(raw) <= 80 else raw[:77] + "..."


def dismissed_as_flaky(session: Session, after_index: int) -> bool:
    """The agent waved a failure away as flaky/unrelated after tool call `after_index`."""
    texts = [t.text for t in session.assistant_texts if t.index > after_index]
    texts.append(session.last_assistant_message)
    return any(_FLAKY.search(text[-_TEXT_TAIL:]) for text in texts)


def tests_gate(session: Session, inputs: GateInputs) -> GateResult:
    """Did a check that exercises the latest change run and pass after it? The ledger's
    word on the tree first, then the transcript's runs (see `stop.require`)."""
    required = "tests" in inputs.required
    changed = inputs.task.changed_paths
    unnamed = unnamed_changes(session)
    if not changed and not unnamed:
        # The tree's state before this task is not this task's work to check (a failed
        # last run still contradicts a claim of success: see the reading's claims).
        return GateResult("tests", required, True, "no file changed in this task")
    needs_tests = [
        p
        for p in changed
        if is_dependency_manifest(p) or not ignored_by_tests(p, inputs.ignore_globs)
    ]
    if changed and not needs_tests and not unnamed:
        # Before the ledger: its word on the tree is about tests, which these files skip.
        return _failed_check(session, required) or GateResult(
            "tests", required, True, f"only files that need no tests changed ({changed[0]}...)"
        )
    if inputs.ledger is not None:
        return _ledger_result(session, inputs, required)
    if not changed:
        return GateResult("tests", required, True, "no file changed in this task")
    return _transcript_result(session, inputs, required)


def _failed_check(session: Session, required: bool) -> GateResult | None:
    """The last check after the latest change failed (`docker build` of a changed
    Dockerfile): a failing check is evidence whatever the tests need."""
    after = session.tool_calls[checked_from(session) :]
    last = next((c for c in reversed(after) if is_check(c)), None)
    if last is None or run_passed(last) is not False:
        return None
    return GateResult(
        "tests",
        required,
        False,
        f"`{_cmd(last)}` failed after the latest change",
        missing=f"the check after the latest change fails (`{_cmd(last)}`)",
        next_action=f"Fix what `{_cmd(last)}` reports and run it again",
        severity="HIGH",
        pattern="check:failing",
    )


def _ledger_result(session: Session, inputs: GateInputs, required: bool) -> GateResult:
    """The ledger's verdict on the tree, the transcript's where it has none: the ledger
    never overrules a passing test run the transcript shows after the latest change that
    it has no entry for (no ledger yet, a runner it does not record, `make test`), nor a
    baseline the transcript shows failing the same way without the change."""
    ledger = inputs.ledger
    assert ledger is not None
    if ledger.passed or ledger.ignorable_only:
        why = ledger.reason or "a passing run is recorded for the current tree"
        return GateResult("tests", required, True, f"ledger: {why}")
    if not ledger.failed:
        # No entry for this tree is all such a ledger knows: the transcript decides, and
        # says what is missing more exactly (tests ran before the change, a run failed).
        seen = _transcript_result(session, inputs, required)
        if seen.satisfied and seen.evidence.startswith("`"):
            return replace(seen, evidence=seen.evidence + "; the ledger has no entry for it")
        return seen
    seen = _transcript_result(session, inputs, required)
    if seen.satisfied and _SAME_FAILURE in seen.evidence:
        # The ledger records the failure on this tree; a baseline showed it is not the
        # change's. Failures that exist without the change do not count against it.
        return replace(seen, evidence=seen.evidence + "; the ledger records that failure")
    hint = ledger.command_hint or inputs.test_command
    return GateResult(
        "tests",
        required,
        False,
        f"ledger: {ledger.reason or 'no passing run recorded for the current tree'}",
        missing="no passing test run is recorded for the current tree",
        next_action=f"Run `{hint}` and fix any failures"
        if hint
        else "Run the full test suite so the run is recorded (pytest records itself; "
        "other runners through `reflection run -- <command>`)",
        severity="MEDIUM",
        pattern="tests:ledger",
    )


def _transcript_result(session: Session, inputs: GateInputs, required: bool) -> GateResult:
    """The tests gate from the transcript: the runs after the latest change (baselines on
    a stash left out), or, under `stop.require: check`, another check of the change."""
    calls = session.tool_calls
    last_change = last_tested_change_index(session, inputs.ignore_globs)
    if last_change < 0 and any(c.changes_files for c in calls):
        return GateResult("tests", required, True, _NO_BEHAVIOUR_CHANGED)
    after = [
        (pos, c)
        for pos, c in enumerate(calls)
        if (pos > last_change or (pos == last_change and _checks_own_change(c)))
        and _has(c, "test")
        and not is_baseline(calls, pos)
        and not runs_stale_binaries(calls, pos, last_change)
    ]
    if not after:
        # Tests check the change where they cover it (the repo has a suite, or tests ran
        # in this task); otherwise, under `check`, a build, typecheck or run does.
        covered = suite_shown(inputs.has_tests, calls) is not False
        lenient = inputs.require == "check" and not covered
        checked = _other_check(calls, last_change) if lenient else None
        if checked is not None:
            return GateResult("tests", required, True, f"`{_cmd(checked)}` ran after the change")
        return _not_run(calls, last_change, inputs, required)
    last = after[-1][1]
    if run_passed(last) is False and not ran_nothing(last):
        baseline = _stash_baseline(calls, after[-1][0]) or _original_tree_baseline(calls, last)
        if baseline:
            return GateResult("tests", required, True, f"`{_cmd(last)}` {_SAME_FAILURE} {baseline}")
    return _run_result(session, inputs, required, [c for _, c in after])


_NO_BEHAVIOUR_CHANGED = "only comments, whitespace, formatting or a version field changed"
# The evidence of a failing run that a baseline showed failing the same way without the
# change: the failure is not the change's.
_SAME_FAILURE = "fails the same way"


def _checks_own_change(call: ToolCall) -> bool:
    """A command line that runs its check after its own rewrite (`sed -i ... && pytest`)."""
    return call.command is not None and call.command.checked_after_change


def runs_stale_binaries(calls: Sequence[ToolCall], pos: int, last_change: int) -> bool:
    """The test run at `pos` ran binaries built before the latest change (`ctest` with no
    build since the change, nor in its own command line)."""
    command = calls[pos].command
    if command is None or command.test_runner not in PREBUILT_RUNNERS or "build" in command.kinds:
        return False
    return not any(_has(c, "build") for c in calls[max(last_change, 0) + 1 : pos])


def _other_check(calls: list[ToolCall], last_change: int) -> ToolCall | None:
    """The last passing build, typecheck or run of the program after the latest change."""
    for pos in range(len(calls) - 1, last_change, -1):
        call = calls[pos]
        kinds = call.command.kinds if call.command else frozenset()
        if kinds & {"build", "typecheck", "run"} and is_check(call) and not is_baseline(calls, pos):
            return call if run_passed(call) else None
    return None


def _stash_baseline(calls: list[ToolCall], pos: int) -> str:
    """How a baseline run with the change stashed, after the run at `pos`, showed the
    failure without the change; "" when none failed."""
    return (
        "without the change (a baseline on a stash)" if _baseline_failed_after(calls, pos) else ""
    )


def _baseline_failed_after(calls: list[ToolCall], start: int) -> bool:
    """A test run after position `start`, made with the change stashed, failed."""
    return any(
        _has(c, "test") and is_baseline(calls, p) and run_passed(c) is False
        for p, c in enumerate(calls)
        if p > start
    )


# The failed runs before the first change a later failure is compared with: the latest
# few, so a task that failed a thousand times before its first edit costs no more.
_BASELINE_RUNS = 3


def failure_preexists(calls: list[ToolCall], pos: int) -> bool:
    """The failed test run at `pos` fails the same way without the change: a baseline run
    on a stash since the latest change failed too, or its errors were there before the
    task's first change."""
    stashed = _baseline_failed_after(calls, last_change_at(calls))
    return stashed or bool(_original_tree_baseline(calls, calls[pos]))


def _original_tree_baseline(calls: list[ToolCall], last: ToolCall) -> str:
    """Every error line of the failed run `last` showed in a test run that failed before
    the task's first change: the failures were there on the original tree ("" if not)."""
    first_change = next((pos for pos, c in enumerate(calls) if is_change(c)), -1)
    before = [
        c
        for c in calls[: max(first_change, 0)]
        if _has(c, "test") and run_passed(c) is False and not ran_nothing(c)
    ][-_BASELINE_RUNS:]
    if not before:
        return ""
    from reflection_core.verify.signature import error_lines  # only when a run failed

    seen: frozenset[str] = frozenset().union(*(error_lines(c.output) for c in before))
    now = error_lines(last.output)
    return "as before this task's first change" if now and now <= seen else ""


def change_name(call: ToolCall) -> str:
    """A change as the user knows it: the file an edit changed (`Edit of cart.py`), or the
    command that changed files."""
    if call.command is None and call.files:
        return f"{call.name} of `{file_name(call.files[0])}`"
    return f"`{_cmd(call)}`" if call.command is not None else call.name


def _not_run(
    calls: list[ToolCall], last_change: int, inputs: GateInputs, required: bool
) -> GateResult:
    """No test run after the latest change: what ran before it, and what to run."""
    changed_at = calls[last_change] if last_change >= 0 else None
    label = f"the latest change ({change_name(changed_at)})" if changed_at else ""
    action = f"Run `{inputs.test_command}`" if inputs.test_command else "Run the full test suite"
    pattern = "tests:not_run"
    earlier = [c for c in calls[: max(last_change, 0)] if _has(c, "test")]
    stale = next(
        (
            c
            for p, c in enumerate(calls)
            if p > last_change and runs_stale_binaries(calls, p, last_change)
        ),
        None,
    )
    if stale is not None:
        return GateResult(
            "tests",
            required,
            False,
            f"`{_cmd(stale)}` ran the binaries built before {label or 'the latest change'}",
            missing=f"nothing built {label or 'the latest change'} before `{_cmd(stale)}` ran: "
            "its tests ran the old code",
            next_action=f"{action} now that the code has changed (build first)",
            severity="MEDIUM",
            pattern="tests:not_run",
        )
    if earlier:
        evidence = f"tests ran before {label} but not after it"
        pattern = "tests:not_rerun"
        before = earlier[-1].command.raw.strip() if earlier[-1].command else ""
        if not inputs.test_command and before and len(before) <= 120 and "\n" not in before:
            action = f"Run `{before}` again"  # the project names none: the task's own run
    elif any(_has(c, "lint") for c in calls[last_change + 1 :]):
        evidence = "only lint ran after the latest change; lint is not tests"
    else:
        evidence = "no test run in this task"
    return GateResult(
        "tests",
        required,
        False,
        evidence,
        missing=f"tests have not run after {label or 'the latest change'}",
        next_action=f"{action} now that the code has changed",
        severity="MEDIUM",
        pattern=pattern,
    )


def _run_result(
    session: Session, inputs: GateInputs, required: bool, runs: list[ToolCall]
) -> GateResult:
    """The outcome of the last test run after the latest change."""
    last = runs[-1]
    action = f"Run `{inputs.test_command}`" if inputs.test_command else "Run the full test suite"
    passed = run_passed(last)
    held = [c for c in runs[:-1] if _whole_run_held(c, session.tool_calls)]
    unread = passed is None and last.ok is not None  # it finished; its line hid the outcome
    if held and (unread or (not passed and ran_nothing(last))):
        # A rerun that hides its outcome or selects no test, after a whole run on the same
        # tree that passed (or failed only where it fails without the change).
        return GateResult(
            "tests", required, True, f"`{_cmd(held[-1])}` held after the latest change"
        )
    if passed is None and last.ok is not None:  # it finished; its line hid the outcome
        return GateResult(
            "tests",
            required,
            False,
            f"`{_cmd(last)}` hides its outcome (its exit status is masked and its output "
            "shows no pass or failure summary)",
            missing="the last test run's outcome is not shown",
            next_action=f"{action} without filtering away its summary",
            severity="LOW",
            pattern="tests:outcome_hidden",
        )
    if passed is None:
        return GateResult(
            "tests",
            required,
            False,
            f"`{_cmd(last)}` has no result yet (still running or the transcript lags)",
            missing="the last test run has no result",
            next_action=f"Wait for the test run to finish, or {action.lower()} again",
            severity="MEDIUM",
            pattern="tests:no_result",
        )
    if not passed and ran_nothing(last):
        return GateResult(
            "tests",
            required,
            False,
            f"`{_cmd(last)}` ran no tests (none collected or found)",
            missing="the last test run ran no tests",
            next_action="Make the test runner find the tests (file names, test paths or "
            f"patterns in its config), then {action.lower()} again and check the count",
            severity="MEDIUM",
            pattern="tests:none_ran",
        )
    if not passed:
        return _failing(session, last, action, required)
    return _partial_result(inputs, required, runs, session.tool_calls)


def _failing(session: Session, last: ToolCall, action: str, required: bool) -> GateResult:
    flaky = dismissed_as_flaky(session, last.index)
    evidence = f"`{_cmd(last)}` failed after the latest change" + (
        "; the failure was dismissed as flaky/unrelated, which does not make it pass"
        if flaky
        else ""
    )
    return GateResult(
        "tests",
        required,
        False,
        evidence,
        missing=f"tests fail after the latest change (`{_cmd(last)}`)",
        next_action=f"Fix the failing tests, then {action.lower()} until it passes"
        + (" (a flaky test still has to pass or be fixed)" if flaky else ""),
        severity="HIGH",
        pattern="tests:failing",
    )


# Folder names too generic to say which package a test run covers.
_GENERIC_DIRS = frozenset({"src", "lib", "app", "pkg", "internal", "cmd", "source", "code"})
# The sources a runner's tests can reach: a shell script or a YAML file changed beside Go
# code is no more exercised by `go test ./...` than by `go test ./calc`.
RUNNER_SOURCES: dict[str, tuple[str, ...]] = {
    "go test": (".go",),
    "cargo test": (".rs",),
}


# Templates and stylesheets: no run names them; the code that renders them is what a
# partial run must name. One ending a line.
TEMPLATE_SUFFIXES: tuple[str, ...] = (
    ".html",
    ".htm",
    ".jinja",
    ".jinja2",
    ".j2",
    ".hbs",
    ".ejs",
    ".erb",
    ".twig",
    ".css",
    ".scss",
    ".less",
)


def partial_run_covers(run: ToolCall, changed: list[str], program_runs: Sequence[str] = ()) -> bool:
    """A run of some of the tests covers the change when it, or a run of the program after
    the change (`program_runs`: `python -m validation.cli data.csv`), names every changed
    source file's module or package (`pytest tests/test_money.py` for `common/money.py`); a
    changed dependency manifest reaches every test, so only the whole suite covers it."""
    raw = run.command.raw.lower() if run.command is not None else ""
    raw = " ".join((raw, *(line.lower() for line in program_runs)))
    runner = run.command.test_runner if run.command is not None else None
    reached = RUNNER_SOURCES.get(runner or "")
    folders = _named_folders(raw)
    for path in changed:
        if is_dependency_manifest(path):
            return False
        posix = path.replace("\\", "/").lower()
        parts = posix.split("/")
        name = parts[-1].rsplit(".", 1)[0]
        if "test" in name or not checkable(path) or (reached and not path.endswith(reached)):
            continue
        if path.lower().endswith(TEMPLATE_SUFFIXES):
            continue  # reached through the code that loads it, which the run names or not
        package = parts[-2] if len(parts) > 1 and parts[-2] not in _GENERIC_DIRS else ""
        inside = any(posix.startswith(f"{folder}/") or f"/{folder}/" in posix for folder in folders)
        if name not in raw and not (package and package in raw) and not inside:
            return False
    return True


def _named_folders(raw: str) -> list[str]:
    """The folders a run names by path (`./pkg/...`, `packages/web`) or, for Gradle, by
    project path (`:app:test` tests the project in `app/`, `:core:data:test` the one in
    `core/data/`): it runs the tests of everything under them."""
    words = [w.strip("'\"") for w in raw.split() if not w.startswith("-")]
    paths = (w for w in words if "/" in w)
    folders = [w.removeprefix("./").removesuffix("/...").rstrip("/") for w in paths]
    folders += [_gradle_project_dir(w) for w in words if w.startswith(":") and w.count(":") >= 2]
    return [f for f in folders if f and not f.startswith(("/", ".")) and "." not in f]


def _gradle_project_dir(task_path: str) -> str:
    """`:core:data:test` -> `core/data`: Gradle's default folder for the project path."""
    return "/".join(task_path.strip(":").split(":")[:-1])


def _partial_result(
    inputs: GateInputs, required: bool, runs: list[ToolCall], calls: list[ToolCall]
) -> GateResult:
    """A passing last run: enough, unless it was a filtered subset and the whole suite is
    asked for (`stop.require: tests` without `tests.allow_partial`), and no whole run after
    the latest change passed or failed only as a baseline showed it fails without it."""
    last = runs[-1]
    run_hint = inputs.test_command or "the project's full test suite"
    # Under `check` a run of some of the tests checks the change, unless a dependency
    # manifest changed: that reaches every test.
    after = calls[last_change_at(calls) + 1 :]
    ran = [c.command.raw for c in after if c.command and "run" in c.command.kinds and c.ok]
    covers = partial_run_covers(last, inputs.task.changed_paths, ran)
    partial_ok = inputs.allow_partial or (inputs.require == "check" and covers)
    if last.command is not None and last.command.partial and not partial_ok:
        full = [c for c in runs if _whole_run_held(c, calls)]
        if full:
            held = "passed" if run_passed(full[-1]) else "failed only where it fails without it"
            return GateResult(
                "tests", required, True, f"`{_cmd(full[-1])}` {held} after the latest change"
            )
        return GateResult(
            "tests",
            required,
            False,
            f"only a partial run passed after the latest change (`{_cmd(last)}`)",
            missing="only a filtered/partial test run passed",
            next_action=f"Run {run_hint} (not a filtered subset)",
            severity="MEDIUM",
            pattern="tests:partial",
        )
    return GateResult("tests", required, True, f"`{_cmd(last)}` passed after the latest change")


def _whole_run_held(run: ToolCall, calls: list[ToolCall]) -> bool:
    """A run of the whole suite that passed, or failed only where it fails without the
    change (`failure_preexists`)."""
    if run.command is not None and run.command.partial:
        return False
    passed = run_passed(run)
    if passed is not False:
        return bool(passed)
    pos = next(i for i, call in enumerate(calls) if call is run)
    return failure_preexists(calls, pos)


def runs_after_change(session: Session, kind: str) -> list[ToolCall]:
    """The runs of a `kind` of check (build, lint, typecheck) after the latest change."""
    return [c for c in session.tool_calls[checked_from(session) :] if _has(c, kind)]


def _command_gate(
    session: Session, inputs: GateInputs, name: str, kind: str, configured: str | None
) -> GateResult:
    required = name in inputs.required
    runs = runs_after_change(session, kind)
    action = f"Run `{configured}`" if configured else f"Run the project's {name}"
    if not runs:
        if last_change_index(session) < 0:
            return GateResult(name, required, True, "no file changed in this task")
        return GateResult(
            name,
            required,
            False,
            f"no {name} run after the latest change",
            missing=f"{name} has not run after the latest change",
            next_action=action,
            severity="MEDIUM",
            pattern=f"{name}:not_run",
        )
    last = runs[-1]
    passed = run_passed(last)
    if passed:
        return GateResult(name, required, True, f"`{_cmd(last)}` passed after the latest change")
    if passed is None and last.ok is False:
        return GateResult(
            name,
            required,
            True,
            f"`{_cmd(last)}` exited on its filter's status; its output shows no failure",
        )
    return GateResult(
        name,
        required,
        False,
        f"`{_cmd(last)}` failed after the latest change",
        missing=f"{name} fails",
        next_action=f"Fix the {name} errors, then {action[0].lower()}{action[1:]}",
        severity="HIGH",
        pattern=f"{name}:failing",
    )


def pr_evidence(session: Session) -> str | None:
    """Where the transcript shows a pull request exists, or None."""
    for call in reversed(session.tool_calls):
        if call.ok is False:
            continue
        match = _PR_URL.search(call.output)
        if (_has(call, "pr_create") or _has(call, "pr_view")) and call.ok:
            return f"`{_cmd(call)}` succeeded" + (f" ({match.group(0)})" if match else "")
        if match and call.command is not None:
            return f"pull request {match.group(0)}"
    return None


def pr_gate(session: Session, inputs: GateInputs) -> GateResult:
    required = "pr" in inputs.required
    found = pr_evidence(session)
    if found:
        return GateResult("pr", required, True, found)
    return GateResult(
        "pr",
        required,
        False,
        "no pull request created or found in this task",
        missing="no pull request exists for the change",
        next_action="Push the branch and open a pull request (`gh pr create --fill`)",
        severity="MEDIUM",
        pattern="pr:missing",
    )


def ci_gate(session: Session, inputs: GateInputs) -> GateResult:
    required = "ci" in inputs.required
    calls = session.tool_calls
    last_push = max((pos for pos, c in enumerate(calls) if _has(c, "push") and c.ok), default=-1)
    checks = [c for pos, c in enumerate(calls) if pos > last_push and _has(c, "pr_checks")]
    if not checks:
        return GateResult(
            "ci",
            required,
            False,
            "CI status was not checked after the latest push",
            missing="CI has not been confirmed green",
            next_action="Wait for CI and check it (`gh pr checks --watch`)",
            severity="MEDIUM",
            pattern="ci:unchecked",
        )
    last = checks[-1]
    if run_passed(last):
        return GateResult("ci", required, True, f"`{_cmd(last)}` reported green checks")
    return GateResult(
        "ci",
        required,
        False,
        f"`{_cmd(last)}` reported failing or pending checks",
        missing="CI is not green",
        next_action="Read the failing CI job's log, fix it, push, and check again",
        severity="HIGH",
        pattern="ci:failing",
    )


def asked_to_push(prompt: str | None, branch: str) -> bool:
    """The task asks for a push to `branch` by name ("revert it and push main", "push to
    master"): a direct push there is what the user asked, not a slip."""
    pattern = rf"\bpush(ed|ing)?\b[^.\n]{{0,30}}\b{re.escape(branch)}\b"
    return bool(prompt) and re.search(pattern, prompt or "", re.I) is not None


def push_gate(session: Session, inputs: GateInputs) -> GateResult:
    """No direct push to a protected branch (a refused push is the guard working)."""
    required = "push" in inputs.required
    violations: list[str] = []
    refused: list[str] = []
    for call in session.tool_calls:
        if not _has(call, "push") or call.command is None:
            continue
        refs = list(call.command.push_refs) or ([session.git_branch] if session.git_branch else [])
        for ref in refs:
            short = ref.removeprefix("refs/heads/")
            rule = matching_branch_rule(short, inputs.protected_branches)
            if rule is None:
                continue
            if asked_to_push(session.task_prompt, short):
                continue  # the user's own call: "push main"
            target = f"`{_cmd(call)}` -> {short} (rule {rule!r})"
            (refused if call.ok is False else violations).append(target)
    if violations:
        return GateResult(
            "push",
            required,
            False,
            "direct push to a protected branch: " + "; ".join(violations[:3]),
            missing="the change was pushed straight to a protected branch",
            next_action="Do not force-push or rewrite the protected branch; tell the user which "
            "commits were pushed so they can review them, and do any further work on a feature "
            "branch with a pull request",
            severity="HIGH",
            pattern="push:protected",
        )
    evidence = "no push to a protected branch"
    if refused:
        evidence += "; refused attempt: " + refused[0]
    return GateResult("push", required, True, evidence)


def evaluate_gates(session: Session, inputs: GateInputs) -> dict[str, GateResult]:
    """Every gate, required or not, in a fixed order."""
    return {
        "tests": tests_gate(session, inputs),
        "build": _command_gate(session, inputs, "build", "build", inputs.build_command),
        "lint": _command_gate(session, inputs, "lint", "lint", None),
        "pr": pr_gate(session, inputs),
        "ci": ci_gate(session, inputs),
        "push": push_gate(session, inputs),
    }


# --- outcomes read from output, wherever the check ran ------------------------------
# Tools that read a background shell's output so far, with the key naming the shell.
OUTPUT_READERS: dict[str, tuple[str, ...]] = {
    "BashOutput": ("bash_id", "shell_id"),
    "TaskOutput": ("task_id", "bash_id"),
}
_BACKGROUND_SHELL = lazy(r"running in background with ID: ([\w-]+)")
_READ_STATUS = lazy(r"<status>(\w+)</status>")
_READ_EXIT = lazy(r"<exit_code>(-?\d+)</exit_code>")
_READ_STREAMS = lazy(r"<(stdout|stderr)>\n?(.*?)\n?</\1>", re.S)
# Git commands that run the repository's own hooks, unless told to skip them.
_SKIPS_HOOKS = lazy(r"^--no-verify$|^-[a-zA-Z]*n[a-zA-Z]*$")  # `-n`, `-nm`, `-anm`
_HOOKED = frozenset({"commit", "push"})


def read_outcomes(session: Session) -> Session:
    """The session with each check's outcome where its output shows it: a background
    shell's run, finished as the first read of its output (`BashOutput`) shows it, stays
    where it started (a run started before a change ran on the code before it), and the
    tests a git hook ran inside `git commit` or `git push` count as a test run. The
    session itself when neither occurs."""
    shells = {
        m.group(1): c
        for c in session.tool_calls
        if c.background and c.command is not None and (m := _BACKGROUND_SHELL.search(c.output))
    }
    if not shells and not any(c.command and c.command.kinds & _HOOKED for c in session.tool_calls):
        return session
    ended: dict[str, ToolCall] = {}  # background call id -> that call, finished
    for call in session.tool_calls:
        shell = shells.get(_shell_key(call))
        if shell is not None and shell.tool_use_id not in ended:
            finished = _finished_run(call, shell)
            if finished is not None:
                ended[shell.tool_use_id] = finished
    events: list[Event] = [
        (ended.get(e.tool_use_id) or _hook_tests(e) or e) if isinstance(e, ToolCall) else e
        for e in session.events
    ]
    return replace(session, events=events)


def _shell_key(call: ToolCall) -> str:
    """The background shell an output read names ("" for any other call)."""
    keys = OUTPUT_READERS.get(call.name, ())
    return next((str(v) for k in keys if (v := call.input.get(k))), "")


def _finished_run(read: ToolCall, shell: ToolCall) -> ToolCall | None:
    """The background `shell`, finished with the output and exit status its `read` shows;
    None while it still runs (a server it started is checked by the requests made to it:
    `curl localhost:3000`)."""
    status = _READ_STATUS.search(read.output)
    code = _READ_EXIT.search(read.output)
    state = status.group(1).lower() if status else ""
    exit_code = int(code.group(1)) if code else None
    if state not in ("completed", "failed") and exit_code is None:
        return None
    output = "\n".join(m.group(2) for m in _READ_STREAMS.finditer(read.output))
    ok = state != "failed" and exit_code in (None, 0)
    return replace(shell, output=output, ok=ok, exit_code=exit_code, background=False)


def _hook_tests(call: ToolCall) -> ToolCall | None:
    """A `git commit`/`git push` whose hooks ran tests (their summary in its output): a
    test run, passing or failing as the output says."""
    command = call.command
    if command is None or not command.kinds & _HOOKED or "test" in command.kinds:
        return None
    if any(_SKIPS_HOOKS.match(w) for w in command.raw.split()) or call.ok is None:
        return None
    if not (_PASSED_IN_OUTPUT.search(call.output) or _FAILED_IN_OUTPUT.search(call.output)):
        return None
    tested = replace(command, kinds=command.kinds | {"test"}, test_runner="git hook")
    return replace(call, command=tested)
