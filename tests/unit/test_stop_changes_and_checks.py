"""What a change is and what a check is: config no check exercises, formatter runs and
version bumps, checks read from output wherever they ran (a background shell, a git hook),
runs that cover the changed package, and a task that says not to build."""

from __future__ import annotations

import re

import pytest

from reflection_core import config
from reflection_core.records import replace
from reflection_core.session.commands import (
    HTTP_CLIENTS,
    LOCAL_HOSTS,
    MODIFY_VALUE_OPTIONS,
    classify_command,
)
from reflection_core.session.decide import DecisionContext, decide
from reflection_core.session.evidence import (
    MANIFESTS,
    SETTINGS_SUFFIXES,
    TASK_FILES,
    VERSION_FIELDS,
    holds_behaviour,
    is_change,
    is_settings_file,
    version_only,
)
from reflection_core.session.gates import OUTPUT_READERS, LedgerEvidence, read_outcomes
from reflection_core.session.task import (
    ATOMIC_GENERATORS,
    ATOMIC_INSTALLERS,
    INSTALLED_MANIFESTS,
    WAIVED_CHECKS,
    failed_install,
)
from tests.unit.sessionbuild import SessionBuilder

CTX = DecisionContext(config=config.defaults())
NO_LEDGER_ENTRY = DecisionContext(
    config=config.defaults(),
    ledger=LedgerEvidence(passed=False, reason="no passing test run is recorded for this tree"),
)


# --- config no check exercises -------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        ".github/workflows/ci.yml",
        "docker-compose.yml",
        ".pre-commit-config.yaml",
        "renovate.json",
        ".env.example",
    ],
)
def test_a_config_only_change_with_done_stands_though_the_ledger_has_no_pass(path: str) -> None:
    session = SessionBuilder("Update the config").edit(path, "a: 2", "a: 1")
    decision = decide(session.build("Updated it. Done."), NO_LEDGER_ENTRY)
    assert not decision.should_block, decision.patterns
    assert "tests:ledger" not in decision.open_patterns


@pytest.mark.parametrize("suffix", SETTINGS_SUFFIXES)
def test_every_settings_ending_is_read_as_settings(suffix: str) -> None:
    assert is_settings_file(f"config/app{suffix}")
    assert not holds_behaviour(f"config/app{suffix}")


@pytest.mark.parametrize("name", sorted(MANIFESTS))
def test_a_manifest_is_no_settings_file(name: str) -> None:
    assert not is_settings_file(name) and holds_behaviour(name)


def test_a_settings_change_with_done_is_a_note_not_a_push() -> None:
    session = SessionBuilder("Bump retries").edit(
        "config/settings.yaml", "retries: 5", "retries: 3"
    )
    decision = decide(session.build("Bumped retries to 5. Done."), NO_LEDGER_ENTRY)
    assert not decision.should_block
    assert "tests:not_run_claimed" not in decision.open_patterns


def test_a_code_change_with_done_and_nothing_run_is_still_pushed() -> None:
    session = SessionBuilder("Add a helper").edit("src/app.py", "def f(): return 2")
    assert decide(session.build("Added it. Done."), NO_LEDGER_ENTRY).should_block


def test_a_settings_fix_of_a_pasted_error_is_still_asked_to_show_the_error_gone() -> None:
    session = SessionBuilder("Prod logs show:\n\nTimeoutError: read timed out\n\nRaise it.").edit(
        "config/settings.yaml", "timeout: 15", "timeout: 5"
    )
    assert "error_fix:not_checked" in decide(session.build("Raised it."), CTX).open_patterns


def test_serving_a_page_or_probing_a_server_compiles_no_changed_source() -> None:
    session = (
        SessionBuilder("Add a token contract")
        .write("contracts/Token.sol", "contract Token {}")
        .bash("curl -s http://localhost:8081 | head -5", output="<html>ok</html>")
    )
    assert "build:not_run" in decide(session.build("Added it."), CTX).open_patterns
    compiled = (
        SessionBuilder("Add a main")
        .write("src/main.rs", "fn main() {}")
        .bash("cargo run", output="   Compiling app v0.1.0\n     Running `target/debug/app`")
    )
    assert "build:not_run" not in decide(compiled.build("Added it."), CTX).open_patterns


def test_a_code_fix_of_a_pasted_error_still_needs_a_check() -> None:
    session = SessionBuilder("I get:\n\nTypeError: x is undefined\n\nFix it.").edit("src/a.js")
    assert "error_fix:not_checked" in decide(session.build("Fixed."), CTX).open_patterns


@pytest.mark.parametrize(("runner", "files"), sorted(TASK_FILES.items()))
def test_running_the_task_runner_checks_a_change_to_its_own_file(
    runner: str, files: tuple[str, ...]
) -> None:
    session = (
        SessionBuilder("Add a fmt target")
        .edit(files[0], "fmt:\n\truff format .", "")
        .bash(f"{runner} fmt")
    )
    decision = decide(session.build("Added the target. Done."), NO_LEDGER_ENTRY)
    assert "tests:not_run_claimed" not in decision.open_patterns


# --- formatter runs and version bumps ------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        "ruff format .",
        "black src",
        "npx prettier --write src/a.js",
        "gofmt -l -w .",
        "cargo fmt --all",
        "go fmt ./...",
        "dotnet format",
        "npm run format",
        "make fmt",
    ],
)
def test_a_formatter_run_is_a_rewrite_of_layout_not_a_change(command: str) -> None:
    info = classify_command(command)
    assert {"modify", "format"} <= info.kinds
    assert not is_change(SessionBuilder("x").bash(command).build().tool_calls[0])


@pytest.mark.parametrize("command", ["gofmt -l .", "ruff format --check .", "cargo fmt --check"])
def test_a_formatter_told_only_to_check_is_a_lint(command: str) -> None:
    assert classify_command(command).kinds == {"lint"}


def test_a_formatter_chained_with_a_rewrite_is_a_change() -> None:
    info = classify_command("ruff format . && sed -i 's/a/b/' x.py")
    assert "modify" in info.kinds and "format" not in info.kinds


@pytest.mark.parametrize(
    ("command", "after"),
    [
        ("sed -i 's/a/b/' x.py && python -m pytest -q", True),
        ("python -m pytest -q && sed -i 's/a/b/' x.py", False),
        ("bash -c \"sed -i 's/a/b/' x.py && pytest\"", True),
        ("ruff check --fix .", False),
    ],
)
def test_a_check_chained_after_a_rewrite_is_a_check_of_it(command: str, after: bool) -> None:
    assert classify_command(command).checked_after_change is after


def test_a_rewrite_and_its_chained_test_run_stand() -> None:
    session = (
        SessionBuilder("Rename it")
        .edit("src/a.py")
        .bash("sed -i 's/old/new/g' src/a.py && python -m pytest -q", output="3 passed in 0.1s")
    )
    assert decide(session.build("Renamed; 3 passed. Done."), CTX).status == "complete"


@pytest.mark.parametrize(
    ("name", "old", "new"),
    [
        ("package.json", '"version": "2.1.0",', '"version": "2.1.1",'),
        ("pyproject.toml", "version = '0.3.1'", "version = '0.3.2'"),
        ("Cargo.toml", 'version = "0.2.0"', 'version = "0.3.0"'),
    ],
)
def test_a_version_bump_is_no_behaviour_change(name: str, old: str, new: str) -> None:
    assert name in VERSION_FIELDS
    assert version_only(name, old, new)
    call = SessionBuilder("x").edit(name, new, old).build().tool_calls[0]
    assert not is_change(call)


@pytest.mark.parametrize(
    ("name", "old", "new"),
    [
        ("package.json", '"lodash": "4.17.20"', '"lodash": "4.17.21"'),
        ("pyproject.toml", 'version = "1"\nname = "a"', 'version = "2"\nname = "b"'),
        ("setup.cfg", "version = 1", "version = 2"),
    ],
)
def test_other_manifest_edits_are_changes(name: str, old: str, new: str) -> None:
    assert not version_only(name, old, new)


@pytest.mark.parametrize(
    ("name", "old", "new"),
    [
        ("src/tiles/__init__.py", '__version__ = "0.3.1"', '__version__ = "0.4.0"'),
        ("src/version.js", "export const VERSION = '1.4.0';", "export const VERSION = '1.5.0';"),
        ("charts/api/Chart.yaml", "appVersion: 2.1.0", "appVersion: 2.2.0"),
        ("app/build.gradle.kts", 'versionName = "1.2"', 'versionName = "1.3"'),
    ],
)
def test_a_version_declared_in_any_file_bumped_is_no_behaviour_change(
    name: str, old: str, new: str
) -> None:
    assert version_only(name, old, new)
    assert not is_change(SessionBuilder("x").edit(name, new, old).build().tool_calls[0])


@pytest.mark.parametrize(
    ("name", "old", "new"),
    [
        ("src/compat.py", 'if version >= "1.2.0":', 'if version >= "1.3.0":'),
        ("src/retry.py", "TIMEOUT = 1.5", "TIMEOUT = 2.5"),
        ("src/app.py", 'VERSION = "1.4.0"', 'MIN_VERSION = "1.5.0"'),
        (
            "src/version.py",
            '__version__ = "0.3.1"\nDEBUG = False',
            '__version__ = "0.4.0"\nDEBUG = True',
        ),
    ],
)
def test_a_version_compared_or_beside_other_edits_is_a_change(
    name: str, old: str, new: str
) -> None:
    assert not version_only(name, old, new)


def test_a_version_bump_after_the_passing_run_stands() -> None:
    session = (
        SessionBuilder("Add a helper and bump the version")
        .edit("src/a.py")
        .bash("python -m pytest -q", output="4 passed in 0.1s")
        .edit("pyproject.toml", "version = '0.3.2'", "version = '0.3.1'")
    )
    assert decide(session.build("Added; 4 passed; bumped. Done."), CTX).status == "complete"


# --- outcomes read from output ---------------------------------------------------------


@pytest.mark.parametrize("tool", sorted(OUTPUT_READERS))
def test_every_output_reader_resolves_its_background_shell(tool: str) -> None:
    session = (
        SessionBuilder("x")
        .edit("src/lib.rs")
        .background("cargo test --workspace", "bash_2")
        .read_output("bash_2", "test result: ok. 2 passed", status="completed", exit=0)
        .build()
    )
    read = session.events[-1]
    assert isinstance(read, type(session.tool_calls[0]))
    read.name, read.input = tool, {OUTPUT_READERS[tool][0]: "bash_2"}
    resolved = read_outcomes(session).tool_calls[-2]
    assert resolved.kind == "shell" and resolved.ok is True and not resolved.background
    assert resolved.command is not None and "test" in resolved.command.kinds


def test_a_background_test_run_whose_read_shows_a_pass_is_a_passing_run() -> None:
    session = (
        SessionBuilder("Add mi_to_km with a test")
        .edit("crates/units/src/lib.rs")
        .background("cargo test --workspace", "bash_2")
        .read_output("bash_2", "test result: ok. 2 passed; 0 failed", status="completed", exit=0)
    )
    decision = decide(session.build("Added it; 2 passed. Done."), NO_LEDGER_ENTRY)
    assert decision.status == "complete", decision.patterns


def test_a_background_test_run_still_running_has_no_result() -> None:
    session = (
        SessionBuilder("x")
        .edit("src/a.py")
        .background("python -m pytest", "bash_3")
        .read_output("bash_3", "collected 40 items")
        .build()
    )
    viewed = read_outcomes(session).tool_calls
    assert viewed[-1].kind != "shell" and viewed[-2].ok is None


def test_only_the_first_read_of_a_finished_shell_gives_its_outcome() -> None:
    session = (
        SessionBuilder("x")
        .background("claude doctor", "bash_4")
        .read_output("bash_4", "first", status="completed", exit=0)
        .read_output("bash_4", "second", status="failed", exit=1)
        .build()
    )
    shell = read_outcomes(session).tool_calls[0]
    assert shell.ok is True and shell.output == "first"


def test_a_background_run_started_before_the_change_does_not_check_it() -> None:
    def stop(started_first: bool) -> bool:
        builder = SessionBuilder("Add mi_to_km with a test")
        run = ("cargo test --workspace", "bash_2")
        if started_first:
            builder = builder.background(*run).edit("crates/units/src/lib.rs")
        else:
            builder = builder.edit("crates/units/src/lib.rs").background(*run)
        builder = builder.read_output(
            "bash_2", "test result: ok. 2 passed", status="completed", exit=0
        )
        return decide(builder.build("Added it; 2 passed. Done."), NO_LEDGER_ENTRY).should_block

    assert stop(started_first=True)
    assert not stop(started_first=False)


def test_a_server_probed_with_curl_after_the_change_is_checked() -> None:
    session = (
        SessionBuilder("Make the port configurable with PORT")
        .edit("server.js")
        .background("PORT=3001 node server.js", "bash_1")
        .read_output("bash_1", "listening on 3001")
        .bash("curl -s -i localhost:3001/health", output="HTTP/1.1 200 OK")
    )
    decision = decide(session.build("It listens on PORT; curl returns 200. Done."), CTX)
    assert not decision.should_block, decision.patterns


@pytest.mark.parametrize("host", LOCAL_HOSTS)
def test_a_request_to_this_machine_runs_the_program(host: str) -> None:
    assert "run" in classify_command(f"curl -s http://{host}:8000/health").kinds


@pytest.mark.parametrize("client", sorted(HTTP_CLIENTS))
def test_a_request_elsewhere_runs_nothing_of_ours(client: str) -> None:
    assert "run" not in classify_command(f"{client} https://example.com/x").kinds


def test_tests_a_commit_hook_ran_are_a_test_run() -> None:
    output = "pre-commit: cargo test --workspace\nrunning 2 tests\ntest result: ok. 2 passed;"
    session = (
        SessionBuilder("Add mi_to_km and commit it")
        .edit("crates/units/src/lib.rs")
        .bash("git commit -qam 'units: add mi_to_km'", output=output)
    )
    decision = decide(session.build("Added and committed; the hook's tests passed."), CTX)
    assert "build:not_run" not in decision.open_patterns
    assert decision.gates["tests"].satisfied


def test_a_commit_that_skips_its_hooks_ran_no_tests() -> None:
    session = SessionBuilder("x").bash("git commit -nm x", output="2 passed").build()
    command = read_outcomes(session).tool_calls[0].command
    assert command is not None and "test" not in command.kinds


# --- what a command changes -----------------------------------------------------------


@pytest.mark.parametrize(("program", "options"), sorted(MODIFY_VALUE_OPTIONS.items()))
def test_an_option_value_names_no_changed_file(program: str, options: frozenset[str]) -> None:
    for option in options:
        info = classify_command(f"{program} {option} VALUE target.txt")
        assert info.modified_files == ("target.txt",), (option, info.modified_files)


@pytest.mark.parametrize("program", sorted(ATOMIC_INSTALLERS))
def test_a_failed_install_changes_nothing(program: str) -> None:
    session = SessionBuilder("Use date-fns").bash("npm install date-fns", exit=1).build()
    call = session.tool_calls[0]
    assert call.command is not None
    for manifest in sorted(INSTALLED_MANIFESTS):
        command = replace(call.command, modified_files=(manifest,), programs=(program,))
        assert failed_install(replace(call, command=command)), (program, manifest)
        assert not failed_install(replace(call, command=command, ok=True))


@pytest.mark.parametrize(("program", "subcommand"), sorted(ATOMIC_GENERATORS))
def test_a_failed_generator_changes_nothing(program: str, subcommand: str) -> None:
    line = f"{program} {subcommand} -m 'add a column'"
    session = SessionBuilder("Add the migration").bash(line, exit=1).bash(line).build()
    failed, passed = session.tool_calls
    assert failed_install(failed) and not is_change(failed)
    assert not failed_install(passed) and is_change(passed)
    # chained with a command that changes files itself, the line stays a change
    other = SessionBuilder("t").bash(f"sed -i s/a/b/ models.py && {line}", exit=1).build()
    assert not failed_install(other.tool_calls[0])


def test_a_failed_npm_install_leaves_no_change_to_check() -> None:
    session = SessionBuilder("Use date-fns").bash(
        "npm install date-fns", exit=1, output="ENOTFOUND"
    )
    decision = decide(session.build("I couldn't install it; I made no changes."), NO_LEDGER_ENTRY)
    assert decision.changed_paths == []
    assert "tests:ledger" not in decision.open_patterns


# --- runs that cover the changed package ----------------------------------------------


@pytest.mark.parametrize(
    ("command", "path"),
    [
        ("go test ./pkg/...", "pkg/limiter/limiter.go"),
        ("npm test --prefix packages/web", "packages/web/src/cart.js"),
    ],
)
def test_a_run_of_the_changed_package_is_a_passing_run(command: str, path: str) -> None:
    session = SessionBuilder("x").edit(path).bash(command, output="ok  \tpkg\t0.1s\n# pass 1")
    decision = decide(session.build("Done; it passes."), NO_LEDGER_ENTRY)
    assert decision.gates["tests"].satisfied, decision.gates["tests"].evidence


def test_a_comment_only_edit_needs_no_test_run_though_the_ledger_has_none() -> None:
    session = SessionBuilder("Document New").edit("pkg/a.go", "// New makes one.\nx := 1", "x := 1")
    assert decide(session.build("Comment-only. Done."), NO_LEDGER_ENTRY).status == "complete"


# --- a task that says not to check ---------------------------------------------------

# One prompt per WAIVED_CHECKS entry, in its order.
WAIVERS = [
    "Clamp cos_theta in pbr.cpp. DON'T build, a full build takes 40 minutes.",
    "Clamp cos_theta in pbr.cpp, skip the build, CI builds every push.",
    "Clamp cos_theta in pbr.cpp. Don't run anything, I'll run the suite after.",
    "Klemme cos_theta in pbr.cpp, bitte nicht bauen, das dauert ewig.",
    "Borne cos_theta dans pbr.cpp, pas besoin de compiler, la CI le fait.",
    "Limita cos_theta en pbr.cpp, sin compilar, tarda demasiado.",
    "Limite cos_theta em pbr.cpp, não compile, demora muito.",
    "把 pbr.cpp 里的 cos_theta 限制一下，不要编译，太慢了。",
    "pbr.cpp の cos_theta をクランプして。ビルドはしないで、遅いので。",
    "pbr.cpp에서 cos_theta 범위 제한해줘. 빌드는 하지 마, 너무 오래 걸려.",
    "Ограничь cos_theta в pbr.cpp, не собирай, это долго.",
]


def test_every_waiver_has_an_example() -> None:
    assert len(WAIVERS) == len(WAIVED_CHECKS)
    for pattern, prompt in zip(WAIVED_CHECKS, WAIVERS, strict=True):
        assert re.search(pattern, prompt, re.I), (pattern, prompt)


@pytest.mark.parametrize("prompt", WAIVERS)
def test_a_change_the_user_said_not_to_build_stands_unchecked(prompt: str) -> None:
    session = SessionBuilder(prompt).edit("src/shading/pbr.cpp").build("Done, not built.")
    decision = decide(session, CTX)
    assert not decision.should_block and "build:not_run" not in decision.open_patterns


def test_a_failed_check_still_counts_when_the_user_said_not_to_build() -> None:
    session = (
        SessionBuilder(WAIVERS[0])
        .edit("src/calc.py")
        .bash("python -m pytest -q", exit=1, output="1 failed, 3 passed")
        .build("Done.")
    )
    assert decide(session, CTX).should_block


@pytest.mark.parametrize(
    ("exit_code", "output", "lint_passes"),
    [
        (0, "", True),
        (1, "src/cart.js\n  12:5  error  'total' is not defined  no-undef\n4 problems", False),
    ],
)
def test_a_linters_own_fixes_are_checked_by_the_run_that_made_them(
    exit_code: int, output: str, lint_passes: bool
) -> None:
    session = (
        SessionBuilder("Fix the lint errors in src/")
        .edit("src/cart.js")
        .bash("npx eslint --fix src", exit=exit_code, output=output)
        .build("Fixed the lint errors.")
    )
    gate = decide(session, CTX).gates["lint"]
    assert gate.pattern != "lint:not_run"
    assert gate.satisfied is lint_passes
