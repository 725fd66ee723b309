"""Evidence per change: comment-only edits and stash round trips are no new change."""

from __future__ import annotations

import pytest

from reflection_core import config
from reflection_core.records import replace
from reflection_core.session.decide import DecisionContext, RepoFacts, decide
from reflection_core.session.evidence import (
    ARTIFACT_ENDINGS,
    ARTIFACT_NAMES,
    COMMENT_SYNTAX,
    SUITE_BLIND,
    checkable,
    comment_only_edit,
    ignored_by_tests,
    is_baseline,
    project_view,
    ran_scripts,
    runs_only_in_ci,
    scratch_write,
    with_wrapped_checks,
)
from reflection_core.session.model import ToolCall
from tests.unit.sessionbuild import SessionBuilder

# One sample per COMMENT_SYNTAX entry: (file, old, new with only a comment changed).
COMMENT_EDITS = [
    ("app.py", "x = 1  # old", "x = 1  # new note"),
    ("main.go", "x := 1 // old", "x := 1 /* new */ // note"),
    ("site.css", "a { color: red; } /* old */", "a { color: red; }"),
    ("q.sql", "select 1; -- old", "select 1; -- new"),
    ("Calc.hs", "add a b = a + b -- old", "add a b = a + b {- new -}"),
    ("flake.nix", "{ x = 1; } # old", "{ x = 1; /* new */ }"),
    ("page.html", "<p>hi</p><!-- old -->", "<p>hi</p>"),
]


@pytest.mark.parametrize(
    ("path", "old", "new"),
    [
        ("lib/calc.ex", "def add(a, b), do: a + b", "def add(a, b), do: a + b  # sum"),
        ("mix.exs", 'version: "0.1.0"', 'version: "0.1.0" # bump later'),
        ("build.gradle.kts", 'id("java")', 'id("java") // the JVM plugin'),
    ],
)
def test_comments_in_languages_sharing_a_family_are_no_change(
    path: str, old: str, new: str
) -> None:
    call = SessionBuilder("t").edit(path, old=old, new=new).build().tool_calls[0]
    assert comment_only_edit(call)


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


def _with_hunks(call: ToolCall, *hunks: tuple[str, str]) -> ToolCall:
    return replace(call, hunks=hunks)


def test_a_fragment_inside_a_comment_is_judged_on_the_whole_lines_the_host_recorded() -> None:
    call = SessionBuilder("t").edit("src/lib.rs", old="seperated", new="separated").build()
    typo = call.tool_calls[0]
    assert not comment_only_edit(typo)  # the fragment alone reads as code
    lines = (
        "/// Values seperated by commas.\nfn parse() {}",
        "/// Values separated by commas.\nfn parse() {}",
    )
    assert comment_only_edit(_with_hunks(typo, lines))


def test_whole_lines_that_change_code_are_a_change_whatever_the_fragment() -> None:
    call = SessionBuilder("t").edit("app.py", old="# a", new="# b").build().tool_calls[0]
    assert comment_only_edit(call)
    assert not comment_only_edit(_with_hunks(call, ("x = 1  # a", "x = 2  # b")))


def test_a_write_over_a_file_whose_patch_changes_only_comments_is_no_change() -> None:
    call = SessionBuilder("t").write("app.py", "x = 1  # b\n").build().tool_calls[0]
    assert not comment_only_edit(call)
    assert comment_only_edit(_with_hunks(call, ("x = 1  # a", "x = 1  # b")))


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


@pytest.mark.parametrize(
    "path",
    [
        "/repo/Dockerfile",
        "/repo/api.Dockerfile",
        "/repo/build/app.dockerfile",
        "/repo/docker-compose.yml",
        "/repo/docker-compose.dev.yaml",
        "/repo/compose.yml",
        "/repo/compose.yaml",
        "/repo/.github/workflows/ci.yml",
        "/repo/.gitlab-ci.yml",
        "/repo/.devcontainer/devcontainer.json",
        "/repo/infra/main.tf",
        "/repo/infra/prod.tfvars",
        "/repo/k8s/deployment.yaml",
        "/repo/kubernetes/service.yaml",
        "/repo/helm/values.yaml",
        "/repo/charts/app/templates/deploy.yaml",
        "/repo/nginx/site.conf",
        "/repo/.pre-commit-config.yaml",
        "/repo/renovate.json",
        "/repo/renovate.json5",
        "/repo/.renovaterc.json",
        "/repo/.env.example",
        "/repo/.env.sample",
        "/repo/.env.template",
        "/repo/.vscode/settings.json",
        "/repo/.idea/workspace.xml",
        "/repo/Procfile",
        "/repo/fly.toml",
        "/repo/railway.json",
        "/repo/railway.toml",
        "/repo/vercel.json",
        "/repo/netlify.toml",
        "/repo/render.yaml",
    ],
)
def test_container_ci_and_dev_environment_files_are_not_exercised_by_the_tests(path: str) -> None:
    assert ignored_by_tests(path, []) and not checkable(path)


@pytest.mark.parametrize(
    ("path", "ci_only"),
    [
        ("/repo/.github/workflows/deploy.yml", True),
        ("/repo/.gitlab-ci.yml", True),
        ("/repo/.circleci/config.yml", True),
        ("/repo/Dockerfile", False),
    ],
)
def test_only_ci_definitions_run_only_in_ci(path: str, ci_only: bool) -> None:
    assert runs_only_in_ci(path) == ci_only


def test_every_suite_blind_glob_has_a_sample() -> None:
    assert len(SUITE_BLIND) == 33


def test_a_failing_last_test_run_with_no_change_pushes_against_a_done_claim() -> None:
    session = (
        SessionBuilder("Make sure the tests pass")
        .bash("npm test", exit=1, output="Tests: 2 failed, 10 passed, 12 total")
        .build("All done. Everything works.")
    )
    d = decide(session, DecisionContext(config=config.defaults()))
    assert d.should_block and d.feedback is not None and "npm test" in d.feedback


def test_a_claim_that_tests_pass_with_no_test_run_is_contradicted_in_a_note() -> None:
    session = SessionBuilder("Check the login flow").read("src/login.ts").build("All tests pass.")
    d = decide(session, DecisionContext(config=config.defaults()))
    assert "claims:no_test_run" in d.open_patterns and not d.complete
    assert d.note is not None and "no test ran" in d.note


def test_a_failing_run_reported_as_failing_is_not_pushed_when_nothing_changed() -> None:
    session = (
        SessionBuilder("Why do the tests fail?")
        .bash("npm test", exit=1, output="Tests: 2 failed, 10 passed, 12 total")
        .build("Two tests fail because the fixture clock is fixed to 2020; see below.")
    )
    assert not decide(session, DecisionContext(config=config.defaults())).should_block


@pytest.mark.parametrize(
    ("path", "root", "scratch"),
    [
        ("/tmp/check_tax.py", "/home/dev/shop", True),
        ("/tmp/claude-1000/-home-dev-shop/session/scratchpad/notes.md", "/home/dev/shop", True),
        ("/private/tmp/try.py", "/Users/dev/shop", True),
        ("/var/folders/xc/0b2b/T/probe.py", "/Users/dev/shop", True),
        ("/private/var/folders/xc/0b2b/T/probe.py", "/Users/dev/shop", True),
        ("/var/tmp/out.json", None, True),
        ("/tmp/shop/src/tax.py", "/tmp/shop", False),  # the project itself lives in /tmp
        ("/home/dev/shop/src/tax.py", "/home/dev/shop", False),
        ("/tmp-data/tax.py", "/home/dev/shop", False),
        # Windows: Claude Code's task output and the user's temp folder, in any spelling
        ("C:\\Users\\dev\\AppData\\Local\\Temp\\claude\\probe.py", "C:\\dev\\shop", True),
        ("/c/Users/dev/AppData/Local/Temp/probe.py", "/c/dev/shop", True),
        ("%TEMP%\\probe.py", "C:\\dev\\shop", True),
        ("C:\\dev\\shop\\temp\\tax.py", "C:\\dev\\shop", False),
        # a project that lives in the temp folder is still the project
        (
            "C:\\Users\\dev\\AppData\\Local\\Temp\\shop\\tax.py",
            "C:\\Users\\dev\\AppData\\Local\\Temp\\shop",
            False,
        ),
    ],
)
def test_a_write_only_to_a_scratch_dir_outside_the_project_is_no_change(
    path: str, root: str | None, scratch: bool
) -> None:
    session = SessionBuilder("t", cwd=root or "/home/dev/shop").write(path).build()
    assert scratch_write(session.tool_calls[0], [root]) is scratch
    assert project_view(session, root).tool_calls[0].changes_files is not scratch


def test_the_directory_the_host_recorded_is_the_project_too() -> None:
    """A replay judges a session against another checkout: the recorded cwd still holds
    the project the agent edited."""
    session = SessionBuilder("t", cwd="/tmp/rec/project").write("/tmp/rec/project/a.py").build()
    assert project_view(session, "/home/dev/elsewhere").tool_calls[0].changes_files
    assert not project_view(session, "/home/dev/elsewhere").tool_calls[0].scratch


def test_a_write_to_scratch_and_project_files_at_once_is_a_change() -> None:
    session = SessionBuilder("t").write("/tmp/a.py").build()
    call = replace(session.tool_calls[0], files=("/tmp/a.py", "/home/dev/shop/src/a.py"))
    assert not scratch_write(call, ["/home/dev/shop"])


def test_a_scratch_note_after_the_checked_change_does_not_push_the_agent_on() -> None:
    def stop(last_write: str) -> bool:
        session = (
            SessionBuilder("Round the tax once", cwd="/home/dev/shop")
            .edit("src/tax.py")
            .bash("python -m pytest", output="12 passed in 0.4s")
            .write(last_write)
            .build("Done: tax is rounded once, and the 12 tests pass.")
        )
        ctx = DecisionContext(config=config.defaults(), root="/home/dev/shop")
        return decide(session, ctx).should_block

    assert not stop("/tmp/claude-1000/scratchpad/summary.py")
    assert stop("/home/dev/shop/src/report.py")


@pytest.mark.parametrize(
    ("root", "changes"),
    [("/tmp/shop", True), ("/home/dev/shop", False)],
)
def test_a_shell_write_in_tmp_changes_the_project_only_when_the_project_lives_there(
    root: str, changes: bool
) -> None:
    """The command is classified without the root, so its /tmp writes are set aside; the
    project's view counts those inside the project (a throwaway repo under /tmp)."""
    command = "sed -i 's/0.2/0.25/' /tmp/shop/src/tax.py && echo ok > /tmp/notes.txt"
    session = SessionBuilder("t", cwd=root).bash(command).build()
    call = project_view(session, root).tool_calls[0]
    assert call.changes_files is changes
    assert call.command is not None
    assert call.command.modified_files == (("/tmp/shop/src/tax.py",) if changes else ())


def test_a_shell_edit_after_the_tests_in_a_project_under_tmp_pushes_the_agent_on() -> None:
    session = (
        SessionBuilder("Round the tax once", cwd="/tmp/shop")
        .edit("src/tax.py")
        .bash("python -m pytest", output="12 passed in 0.4s")
        .bash("sed -i 's/round(x, 2)/round(x, 3)/' /tmp/shop/src/tax.py")
        .build("Done: tax is rounded once, and the 12 tests pass.")
    )
    ctx = DecisionContext(config=config.defaults(), root="/tmp/shop")
    assert decide(session, ctx).should_block


CTX = DecisionContext(config=config.defaults())
# One artifact per ARTIFACT_NAMES entry, then one per ARTIFACT_ENDINGS entry.
ARTIFACTS = [
    "src/__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".hypothesis",
    ".coverage",
    "htmlcov",
    ".nyc_output",
    ".next",
    ".turbo",
    ".parcel-cache",
    "build",
    "dist/calc-1.0.tar.gz",
    "target/debug",
    "src/calc.cpython-312.pyc",
    "bench.log",
    "calc-1.0.tar.gz",
    "calc-1.0.tgz",
    "calc-1.0-py3-none-any.whl",
    "src/calc.o",
]


def test_every_artifact_entry_has_a_sample() -> None:
    assert len(ARTIFACTS) == len(ARTIFACT_NAMES) + len(ARTIFACT_ENDINGS)


@pytest.mark.parametrize("path", ARTIFACTS)
def test_deleting_what_runs_leave_behind_leaves_a_passing_run_standing(path: str) -> None:
    session = (
        SessionBuilder("Fix the rounding")
        .edit("src/calc.py")
        .bash("python -m pytest -q", output="3 passed in 0.02s")
        .bash(f"rm -rf {path}")
    )
    decision = decide(session.build("Fixed; 3 tests pass."), CTX)
    assert decision.status == "complete", decision.patterns


def test_deleting_a_source_after_the_run_makes_it_stale() -> None:
    session = (
        SessionBuilder("Fix the rounding")
        .edit("src/calc.py")
        .bash("python -m pytest -q", output="3 passed in 0.02s")
        .bash("rm -f src/legacy.py")
    )
    assert "tests:not_rerun" in decide(session.build("Fixed."), CTX).patterns


@pytest.mark.parametrize(
    ("command", "output"),
    [
        ("black src/", "All done! ✨ 🍰 ✨\n1 file left unchanged."),
        ("ruff format .", "3 files left unchanged"),
        ("npx prettier --write src/a.js", "src/a.js 12ms (unchanged)"),
        ("ruff format .", "1 file reformatted"),
        ("cargo fmt --all", ""),
        ("gofmt -l -w .", "a.go"),
        ("npm run format", ""),
    ],
)
def test_a_formatter_run_after_the_passing_run_leaves_it_standing(
    command: str, output: str
) -> None:
    session = (
        SessionBuilder("Fix the rounding")
        .edit("src/a.py")
        .bash("python -m pytest -q", output="3 passed in 0.02s")
        .bash(command, output=output)
    )
    assert decide(session.build("Fixed; 3 tests pass. Done."), CTX).status == "complete"


def test_a_rewrite_chained_with_a_formatter_is_still_a_change() -> None:
    session = (
        SessionBuilder("Fix the rounding")
        .edit("src/a.py")
        .bash("python -m pytest -q", output="3 passed in 0.02s")
        .bash("sed -i 's/round/floor/' src/a.py && ruff format .", output="1 file reformatted")
    )
    assert "tests:not_rerun" in decide(session.build("Fixed."), CTX).patterns


def test_clearing_a_cache_to_fix_a_pasted_error_still_needs_a_check() -> None:
    session = SessionBuilder("Error: Cannot find module './chunks/vendor.js'").bash("rm -rf .next")
    assert "error_fix:not_checked" in decide(session.build("Cleared the cache."), CTX).patterns


# ---------------------------------------------------------------- checks inside wrappers


def test_a_wrapper_run_counts_as_the_checks_it_runs() -> None:
    session = SessionBuilder("t").edit("src/a.ts").bash("npm run ci").bash("npm run dev").build()
    wrapped = (("script:ci", "vitest run && tsc --noEmit"), ("script:dev", "vite"))
    ci, dev = with_wrapped_checks(session, wrapped).tool_calls[1:]
    assert ci.command is not None and ci.command.kinds == {"test", "typecheck"}
    assert ci.command.test_runner == "vitest"
    assert dev.command is not None and dev.command.kinds == frozenset()


def test_a_script_the_session_ran_counts_as_the_tests_it_runs() -> None:
    session = SessionBuilder("t").edit("src/lib.rs").bash("sh bin/bench.sh").build()
    assert ran_scripts(session) == ["bin/bench.sh"]
    wrapped = (("file:bin/bench.sh", "#!/bin/sh\nset -e\ntime cargo test --release -q\n"),)
    run = with_wrapped_checks(session, wrapped).tool_calls[1]
    assert run.command is not None and {"test", "run"} <= run.command.kinds
    assert run.command.test_runner == "cargo test"


def test_a_filtered_run_inside_a_wrapper_stays_partial() -> None:
    session = SessionBuilder("t").edit("a.py").bash("make quick").build()
    run = with_wrapped_checks(session, (("make:quick", "pytest -k fast"),)).tool_calls[1]
    assert run.command is not None and run.command.partial


def test_a_wrapper_named_for_its_tests_is_not_made_partial_by_its_recipe() -> None:
    session = SessionBuilder("t").edit("ring.c").bash("make unit-test").build()
    wrapped = (("make:unit-test", "make tests/test_ring\n./tests/test_ring"),)
    run = with_wrapped_checks(session, wrapped).tool_calls[1]
    assert run.command is not None and "test" in run.command.kinds and not run.command.partial


@pytest.mark.parametrize(
    ("command", "wrapped"),
    [
        ("mix ci", ("mix:ci", "mix format --check-formatted\nmix test")),
        ("bundle exec rake", ("rake:default", "rake spec\nrake rubocop")),
        ("composer ci", ("composer:ci", "composer lint\ncomposer test")),
    ],
)
def test_an_alias_or_task_of_the_project_runs_the_tests_it_lists(
    command: str, wrapped: tuple[str, str]
) -> None:
    session = SessionBuilder("t").edit("lib/a.ex").bash(command).build()
    run = with_wrapped_checks(session, (wrapped,)).tool_calls[1]
    assert run.command is not None and "test" in run.command.kinds and not run.command.partial


def test_a_publish_runs_the_checks_of_its_lifecycle_scripts_read_from_their_output() -> None:
    from reflection_core.session.gates import run_passed

    wrapped = (("script:prepublishOnly", "npm run build && npm test"),)
    output = "Tests  78 passed (78)\nnpm error code EOTP\nnpm error This needs a one-time password"
    blocked = SessionBuilder("t").edit("src/a.ts").bash("npm publish", output=output, exit=1)
    run = with_wrapped_checks(blocked.build(), wrapped).tool_calls[1]
    assert run.command is not None and {"test", "build"} <= run.command.kinds
    assert run_passed(run) is True  # the tests passed; the publish is what failed
    failing = "Tests  1 failed | 77 passed (78)\nnpm error code 1"
    broken = (
        SessionBuilder("t").edit("src/a.ts").bash("npm publish --dry-run", output=failing, exit=1)
    )
    assert run_passed(with_wrapped_checks(broken.build(), wrapped).tool_calls[1]) is False


def test_a_command_the_task_asks_for_may_run_through_a_wrapper() -> None:
    task = "Make `mypy --strict pricing` clean."
    session = SessionBuilder(task).edit("pricing/a.py").bash("make typecheck", output="Success")
    ctx = DecisionContext(
        config={},
        repo=RepoFacts(has_tests=False, wrapped=(("make:typecheck", "mypy --strict pricing"),)),
    )
    assert "requested:mypy --strict pricing" not in decide(session.build("Clean."), ctx).patterns
    bare = replace(ctx, repo=RepoFacts(has_tests=False))
    assert "requested:mypy --strict pricing" in decide(session.build("Clean."), bare).patterns


def test_a_passing_wrapper_of_the_tests_satisfies_the_tests_gate() -> None:
    session = SessionBuilder("t").edit("src/a.py").bash("make verify", output="3 passed")
    ctx = DecisionContext(
        config={},
        repo=RepoFacts(has_tests=True, wrapped=(("make:verify", "python -m pytest -q"),)),
    )
    assert decide(session.build("Done; `make verify` passes."), ctx).status == "complete"
    unknown = replace(ctx, repo=RepoFacts(has_tests=True))
    assert decide(session.build("Done; `make verify` passes."), unknown).status != "complete"
