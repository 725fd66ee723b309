"""Requirement coverage: checks the prompt names, paths it lists, the agent's own todo
list, and changes the agent undid."""

from __future__ import annotations

from pathlib import Path

import pytest

from reflection_core import config
from reflection_core.session.coverage import (
    listed_paths,
    requested_commands,
    unfinished_git_operation,
)
from reflection_core.session.decide import Decision, DecisionContext, RepoFacts, decide
from reflection_core.session.task import build_task_context, changed_paths
from tests.unit.sessionbuild import SessionBuilder


def run(builder: SessionBuilder, final: str = "Done; tests pass.") -> Decision:
    return decide(builder.build(final), DecisionContext(config=config.defaults()))


@pytest.mark.parametrize(
    ("prompt", "commands"),
    [
        (
            "Bump SQLAlchemy to 2.0. Make sure `alembic check` is clean and `pytest -q` passes.",
            ["alembic check", "pytest -q"],
        ),
        (
            "Fix the flaky retry. Done when `make test-integration` passes.",
            ["make test-integration"],
        ),
        ("Rename `parse_date` to `parse_iso_date` everywhere.", []),
        ("Why does `npm run build` take four minutes?", []),
    ],
)
def test_commands_in_backticks_next_to_a_check_word_are_requested(
    prompt: str, commands: list[str]
) -> None:
    assert requested_commands(prompt) == commands


def test_a_requested_check_that_never_ran_keeps_the_task_open() -> None:
    builder = (
        SessionBuilder("Upgrade Flask. Make sure `python -m mypy app` is clean too.")
        .edit("requirements.txt")
        .edit("app/views.py")
        .bash("python -m pytest -q", output="88 passed")
    )
    d = run(builder)
    assert not d.complete and d.severity == "MEDIUM"
    assert any("mypy app" in m for m in d.missing)
    builder.bash("mypy app", output="Success: no issues found in 14 source files")
    assert run(builder).complete


def test_a_requested_check_that_failed_is_high() -> None:
    builder = (
        SessionBuilder("Add the column and make sure `alembic check` passes.")
        .edit("app/models.py")
        .bash("pytest -q", output="12 passed")
        .bash("alembic check", exit=1, output="New upgrade operations detected")
    )
    d = run(builder)
    assert not d.complete and d.severity == "HIGH"


@pytest.mark.parametrize(
    ("prompt", "gate"),
    [
        ("Upgrade React to 19 and make sure the production build still works.", "build"),
        ("Fix the date parsing, then run the tests and the linter.", "lint"),
    ],
)
def test_a_check_asked_for_by_kind_becomes_a_required_gate(prompt: str, gate: str) -> None:
    builder = SessionBuilder(prompt).edit("src/dates.ts").bash("npm test", output="40 passed")
    d = run(builder)
    assert d.gates[gate].required and d.gates[gate].failing and not d.complete
    builder.bash("npm run build" if gate == "build" else "npm run lint", output="done")
    assert run(builder).complete


@pytest.mark.parametrize(
    "prompt",
    [
        "Add a CLI flag to clean the build directory.",
        "Build a small endpoint that returns the version.",
        "Fix the lint errors in src/app.py.",
    ],
)
def test_build_and_lint_words_that_ask_for_no_check_add_no_gate(prompt: str) -> None:
    builder = SessionBuilder(prompt).edit("src/app.py").bash("pytest -q", output="9 passed")
    d = run(builder)
    assert d.complete and not d.gates["build"].required and not d.gates["lint"].required


def test_a_listed_path_left_unchanged_keeps_the_task_open() -> None:
    prompt = "Switch the logger from print() to logging in cli/ and worker/main.py."
    assert listed_paths(prompt) == ["cli/", "worker/main.py"]
    builder = SessionBuilder(prompt).edit("cli/run.py").bash("pytest -q", output="20 passed")
    d = run(builder, "Switched cli/ to logging. Tests pass.")
    assert not d.complete and any("worker/main.py" in m for m in d.missing)
    builder.edit("worker/main.py").bash("pytest -q", output="20 passed")
    assert run(builder).complete


@pytest.mark.parametrize(
    ("prompt", "paths"),
    [
        ("Add the strings to de.json and fr.json.", ["de.json", "fr.json"]),  # not `fr.js`
        ("Update types.ts and view.tsx.", ["types.ts", "view.tsx"]),
        ("Fix a.py, b.pyi and c.h.", ["a.py", "b.pyi", "c.h"]),
    ],
)
def test_a_listed_file_name_is_read_whole(prompt: str, paths: list[str]) -> None:
    assert listed_paths(prompt) == paths


def test_a_listed_path_the_agent_says_needed_nothing_is_explained() -> None:
    prompt = "Replace utcnow() in billing/ and reports/ with now(timezone.utc)."
    builder = SessionBuilder(prompt).edit("billing/invoice.py").bash("pytest", output="9 passed")
    final = "Replaced it in billing/. reports/ had no utcnow() calls, so it needed no change."
    assert run(builder, final).complete


@pytest.mark.parametrize(
    "prompt",
    [
        "Compare api/v1.py and api/v2.py. Fix the pagination bug in api/v2.py.",
        "The bug is in parsers/csv.py; see docs/format.md and tests/data/ for the spec.",
    ],
)
def test_paths_named_as_context_are_not_targets(prompt: str) -> None:
    builder = SessionBuilder(prompt).edit("api/v2.py").bash("pytest -q", output="30 passed")
    assert run(builder).complete


def test_open_items_on_the_agents_own_todo_list_keep_the_task_open() -> None:
    builder = (
        SessionBuilder("Implement the export feature")
        .todo(("CSV export", "completed"), ("XLSX export", "in_progress"), ("Docs", "pending"))
        .edit("src/export.py")
        .bash("pytest -q", output="50 passed")
    )
    d = run(builder, "CSV export is implemented and tested (50 passed).")
    assert not d.complete and "todos:open" in d.patterns
    builder.todo(("CSV export", "completed"), ("XLSX export", "completed"), ("Docs", "completed"))
    assert run(builder).complete


def test_open_todos_wait_when_the_agent_asks_a_real_question() -> None:
    builder = (
        SessionBuilder("Implement the export feature")
        .todo(("CSV export", "completed"), ("XLSX export", "pending"))
        .edit("src/export.py")
        .bash("pytest -q", output="50 passed")
    )
    d = run(builder, "CSV is done. Should XLSX dates be ISO strings or Excel serial numbers?")
    assert d.status == "waiting_for_user" and "todos:open" not in d.patterns


def test_an_edit_taken_back_by_its_inverse_is_no_change() -> None:
    session = (
        SessionBuilder("Add sub(a, b) to calc.py")
        .edit("calc.py", old="    return a + b", new="    return a - b")
        .edit("calc.py", old="    return a - b", new="    return a + b")
        .bash("pytest -q", output="1 passed")
        .build("Done; 1 passed.")
    )
    assert changed_paths(session, session.cwd) == []
    d = decide(session, DecisionContext(config=config.defaults()))
    assert not d.complete and "work:no_change" in d.patterns


def test_a_file_restored_with_git_is_no_change_but_a_commit_keeps_it() -> None:
    restored = (
        SessionBuilder("Speed up the job")
        .edit("jobs/thumbs.py")
        .bash("git checkout -- jobs/thumbs.py")
        .build()
    )
    assert build_task_context(restored, restored.cwd).changed_paths == []
    committed = (
        SessionBuilder("Speed up the job")
        .edit("jobs/thumbs.py")
        .bash("git commit -am wip", output="[x 1a2b3c] wip")
        .bash("git checkout -- jobs/thumbs.py")
        .build()
    )
    assert build_task_context(committed, committed.cwd).changed_paths == ["jobs/thumbs.py"]


def test_a_debug_line_added_and_removed_leaves_the_real_change() -> None:
    session = (
        SessionBuilder("Fix the rounding")
        .edit("src/money.py", old="round(x)", new="round(x, 2)")
        .edit("src/money.py", old="def f(x):", new="def f(x):\n    print(x)")
        .edit("src/money.py", old="def f(x):\n    print(x)", new="def f(x):")
        .build()
    )
    assert changed_paths(session, session.cwd) == ["src/money.py"]


def test_a_dependency_manifest_change_needs_tests_like_code() -> None:
    builder = SessionBuilder("Upgrade numpy to 2.x and fix what breaks").edit("requirements.txt")
    builder.bash("python -m pytest -q", exit=143, output="....\nCommand timed out after 2m 0.0s")
    d = run(builder, "numpy is upgraded; the tests that ran passed.")
    assert d.task_type == "coding" and d.gates["tests"].failing and not d.complete


def test_release_notes_in_a_txt_file_still_need_no_tests() -> None:
    builder = SessionBuilder("Add the 2.3 notes to NOTES.txt").edit("NOTES.txt")
    assert run(builder, "Added the 2.3 notes.").complete


def test_a_git_revert_is_a_change_even_without_file_names() -> None:
    builder = (
        SessionBuilder("Revert commit 9f8e7d6, it broke login, and confirm the tests pass.")
        .bash("git revert --no-edit 9f8e7d6", output="[fix/x 1a2b3c4] Revert ...")
        .bash("python -m pytest -q", output="120 passed")
    )
    d = run(builder, "Reverted 9f8e7d6 as 1a2b3c4; 120 passed.")
    assert d.complete and "work:no_change" not in d.patterns


def test_claiming_a_push_that_was_rejected_is_high() -> None:
    builder = (
        SessionBuilder("Commit the fix and push the branch")
        .edit("src/a.py")
        .bash("pytest -q", output="5 passed")
        .bash("git commit -am fix", output="[feat/x 1a2b3c4] fix")
        .bash("git push -u origin feat/x", exit=1, output=" ! [rejected] feat/x (fetch first)")
    )
    d = run(builder, "Committed and pushed the fix.")
    assert not d.complete and d.severity == "HIGH" and "claims:contradicted" in d.patterns
    honest = run(builder, "Committed the fix; the push was rejected, the remote has new work.")
    assert "claims:contradicted" not in honest.patterns
    builder.bash("git pull --rebase", output="Successfully rebased")
    builder.bash("pytest -q", output="6 passed")
    builder.bash("git push -u origin feat/x", output="feat/x -> feat/x")
    assert run(builder, "Committed and pushed the fix.").complete


# One changed file per COMPILED_SUFFIXES entry, in table order.
_COMPILED_EXAMPLES = [
    "src/ring_buffer.c",
    "include/ring_buffer.h",
    "src/codec.cc",
    "src/render.cpp",
    "src/mesh.cxx",
    "include/mesh.hpp",
    "kernels/saxpy.cu",
    "src/lib.rs",
    "cmd/server/main.go",
    "src/main/java/app/Invoice.java",
    "app/src/main/kotlin/Cart.kt",
    "Sources/App/Store.swift",
    "src/Billing/Ledger.cs",
    "contracts/Vault.sol",
]


def test_every_compiled_suffix_has_an_example() -> None:
    from reflection_core.session.coverage import COMPILED_SUFFIXES

    assert [next(s for s in COMPILED_SUFFIXES if p.endswith(s)) for p in _COMPILED_EXAMPLES] == (
        list(COMPILED_SUFFIXES)
    )


@pytest.mark.parametrize("path", _COMPILED_EXAMPLES)
def test_compiled_source_nothing_compiled_after_the_change_blocks(path: str) -> None:
    d = run(SessionBuilder("Add overflow handling").edit(path), "Done: overflow is handled.")
    assert "build:not_run" in d.patterns and d.should_block, d.missing
    assert any("nothing compiled it" in m for m in d.missing)


@pytest.mark.parametrize(
    ("facts", "named"),
    [
        (RepoFacts(build_command="go build ./..."), "go build ./..."),
        (RepoFacts(typecheck_command="npx tsc --noEmit"), "npx tsc --noEmit"),
    ],
)
def test_uncompiled_source_push_names_the_projects_compile_command(
    facts: RepoFacts, named: str
) -> None:
    session = SessionBuilder("Add overflow handling").edit("internal/ring.go").build("Done.")
    d = decide(session, DecisionContext(config=config.defaults(), repo=facts))
    assert d.should_block and f"Run `{named}`" in (d.feedback or "")


@pytest.mark.parametrize(
    "check",
    [
        "make",
        "gcc -Wall -c src/ring_buffer.c",
        "cargo check",
        "npx hardhat compile",
        "go vet ./...",
    ],
)
def test_a_compile_or_check_after_the_change_answers_it(check: str) -> None:
    builder = SessionBuilder("Add overflow handling").edit("src/ring_buffer.c").bash(check)
    assert "build:not_run" not in run(builder, "Done.").patterns


@pytest.mark.parametrize(
    "build", ["./gradlew assembleDebug", "./gradlew :app:compileDebugKotlin", "./gradlew lintDebug"]
)
def test_an_android_variant_build_after_a_kotlin_change_answers_it(build: str) -> None:
    builder = SessionBuilder("Add a retry button").edit("app/src/main/kotlin/Cart.kt").bash(build)
    assert "build:not_run" not in run(builder, "Done: the button retries.").patterns


def test_a_compile_before_the_last_change_does_not_answer_it() -> None:
    builder = (
        SessionBuilder("Add overflow handling")
        .edit("src/ring_buffer.c")
        .bash("make")
        .edit("src/ring_buffer.c", new="x = 3", old="x = 2")
    )
    assert run(builder, "Done.").should_block


@pytest.mark.parametrize("path", ["src/app.py", "web/index.ts", "README.md", "config.yaml"])
def test_interpreted_or_doc_changes_are_not_compiled_source(path: str) -> None:
    d = run(SessionBuilder("Tidy it up").edit(path), "Done.")
    assert "build:not_run" not in d.patterns


def test_uncompiled_source_waits_with_a_real_question() -> None:
    d = run(
        SessionBuilder("Add overflow handling").edit("src/ring_buffer.c"),
        "Should overflow wrap around or saturate at the maximum?",
    )
    assert not d.should_block


def run_untested(builder: SessionBuilder, final: str) -> Decision:
    """A stop in a repository with no test suite: only the other checks can answer it."""
    ctx = DecisionContext(config=config.defaults(), repo=RepoFacts(has_tests=False))
    return decide(builder.build(final), ctx)


# One changed file per SCRIPT_CHECKS entry, in table order, and the check the push names.
_SCRIPT_EXAMPLES = [
    ("deploy/install.sh", "bash -n "),
    ("bin/backup.bash", "bash -n "),
    ("zsh/prompt.zsh", "zsh -n "),
    ("tools/sync.py", "python -m py_compile "),
    ("lib/tasks/cleanup.rb", "ruby -c "),
    ("scripts/rotate.pl", "perl -c "),
    ("wp-content/themes/site/functions.php", "php -l "),
    ("nvim/lua/keymaps.lua", "luac -p "),
    ("scripts/seed.js", "node --check "),
    ("scripts/release.mjs", "node --check "),
    ("config/webpack.cjs", "node --check "),
    ("flake.nix", "nix flake check"),
    ("hosts/laptop/default.nix", "nix-instantiate --parse "),
]


def test_every_script_check_has_an_example() -> None:
    from reflection_core.session.coverage import SCRIPT_CHECKS

    endings = [next(e for e, _ in SCRIPT_CHECKS if p.endswith(e)) for p, _ in _SCRIPT_EXAMPLES]
    assert endings == [e for e, _ in SCRIPT_CHECKS]


@pytest.mark.parametrize(("path", "check"), _SCRIPT_EXAMPLES)
def test_a_script_nothing_ran_after_a_change_claimed_done_pushes_naming_its_check(
    path: str, check: str
) -> None:
    d = run_untested(SessionBuilder("Make the retries wait longer").edit(path), "Done.")
    assert "script:not_run" in d.patterns and d.should_block, d.missing
    assert f"Run `{check}" in (d.feedback or "")


@pytest.mark.parametrize(("path", "check"), _SCRIPT_EXAMPLES)
def test_the_check_a_script_push_names_counts_as_a_check_once_run(path: str, check: str) -> None:
    from reflection_core.session.coverage import script_check

    command = script_check(f"/repo/{path}")
    assert command is not None and command.startswith(check.strip())
    builder = SessionBuilder("Make the retries wait longer").edit(path).bash(command)
    assert "script:not_run" not in run_untested(builder, "Done.").patterns


# One changed file per INFRA_CHECKS entry, in table order, and the check the note names.
_INFRA_EXAMPLES = [
    ("services/gateway/Dockerfile", "docker build ."),
    ("compose.yml", "docker compose config"),
    ("deploy/docker-compose.yaml", "docker compose config"),
    ("infra/sg.tf", "terraform validate"),
    ("deploy/app.service", "systemd-analyze verify "),
    ("deploy/backup.timer", "systemd-analyze verify "),
]


def test_every_infra_check_has_an_example() -> None:
    from reflection_core.session.coverage import INFRA_CHECKS

    endings = [
        next(e for e, _ in INFRA_CHECKS if p.lower().endswith(e)) for p, _ in _INFRA_EXAMPLES
    ]
    assert endings == [e for e, _ in INFRA_CHECKS]


@pytest.mark.parametrize(("path", "check"), _INFRA_EXAMPLES)
def test_an_infra_file_nothing_checked_called_done_is_a_note_naming_its_check(
    path: str, check: str
) -> None:
    d = run_untested(SessionBuilder("Switch to the alpine image").edit(path), "Done.")
    assert "infra:not_checked" in d.open_patterns and not d.should_block, d.missing
    assert any(f"Run `{check}" in action for action in d.next_actions), d.next_actions
    builder = SessionBuilder("Switch to the alpine image").edit(path)
    command = check.strip() + (f" {path}" if check.endswith(" ") else "")
    ran = run_untested(builder.bash(command), "Done.")
    assert "infra:not_checked" not in ran.open_patterns


def test_a_script_push_is_sent_once_a_task() -> None:
    from reflection_core.session.attempts import AttemptState

    builder = SessionBuilder("Make the retries wait longer").edit("deploy/install.sh")
    session = builder.build("Done.")
    facts = RepoFacts(has_tests=False)
    first = decide(session, DecisionContext(config=config.defaults(), repo=facts))
    assert first.should_block
    sent = AttemptState(attempts=1, sent_patterns=frozenset({"script:not_run"}))
    again = decide(session, DecisionContext(config=config.defaults(), repo=facts, attempts=sent))
    assert "script:not_run" in again.patterns and not again.should_block


@pytest.mark.parametrize(
    "ran",
    [
        "flow status",  # the changed bin/flow.sh, run by its name, failing or not
        "./bin/flow.sh status",
        "env FLOW_HOME=/tmp runner --script bin/flow.sh",  # a program given the script
        "make test",
        "pytest -q",
    ],
)
def test_any_run_or_check_after_the_change_answers_a_script_change(ran: str) -> None:
    builder = SessionBuilder("Fix the status command").edit("bin/flow.sh").bash(ran, exit=1)
    assert "script:not_run" not in run_untested(builder, "Done.").patterns


@pytest.mark.parametrize(
    ("path", "final"),
    [
        ("deploy/install.sh", "The retry loop now waits two seconds between tries."),
        ("deploy/install.sh", "Should the retries back off, or keep a fixed wait?"),
        (".devcontainer/setup.sh", "Done."),
        ("web/app.ts", "Done."),
        ("docs/install.md", "Done."),
    ],
)
def test_an_unclaimed_or_unparseable_change_is_no_unrun_script(path: str, final: str) -> None:
    d = run_untested(SessionBuilder("Make the retries wait longer").edit(path), final)
    assert "script:not_run" not in d.patterns


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('echo "Installing..."\n', 'echo "Installation en cours..."\n'),
        ("# retry twice\n", "# retry three times\n"),
    ],
)
def test_a_script_whose_edits_change_only_text_is_no_unrun_script(old: str, new: str) -> None:
    builder = SessionBuilder("Translate the installer's messages").edit("install.sh", new, old)
    assert "script:not_run" not in run_untested(builder, "Done.").patterns


def test_a_script_edit_outside_its_strings_is_an_unrun_script() -> None:
    builder = SessionBuilder("Fix the installer").edit(
        "install.sh", 'echo "x"\nrm -rf "$HOME/.a"\n', 'echo "x"\nrm -f "$HOME/.a"\n'
    )
    builder = builder.edit("install.sh", 'echo "y"\n', 'echo "x"\n')  # text, after it
    assert "script:not_run" in run_untested(builder, "Done.").patterns


def test_a_claim_of_having_tried_an_unrun_script_is_an_unrun_script() -> None:
    builder = SessionBuilder("Add a monthly total").edit("tools/spend.py")
    final = "Added a TOTAL line per month. Tested it on the sample export."
    assert "script:not_run" in run_untested(builder, final).patterns


def test_a_browser_driven_over_mcp_after_the_change_may_have_run_it() -> None:
    builder = SessionBuilder("Close the menu on Escape").edit("site/menu.js")
    builder = builder.tool("mcp__playwright__browser_press_key", {"key": "Escape"})
    assert "script:not_run" not in run_untested(builder, "Done.").patterns


def test_a_run_of_the_script_before_a_cleanup_still_checked_it() -> None:
    builder = SessionBuilder("Take --prefix").edit("install.sh")
    builder = builder.bash("./install.sh --prefix /tmp/p && ls /tmp/p").bash("rm -rf tmp-prefix")
    assert "script:not_run" not in run_untested(builder, "Done.").patterns


@pytest.mark.parametrize(
    "looked",
    [
        "chmod +x bin/flow.sh",
        "cat bin/flow.sh",
        "git add bin/flow.sh",
        "runner bin/overflow.sh",  # another script whose name ends the same
    ],
)
def test_handling_the_script_file_is_no_run_of_it(looked: str) -> None:
    builder = SessionBuilder("Fix the status command").edit("bin/flow.sh").bash(looked)
    assert "script:not_run" in run_untested(builder, "Done.").patterns


def test_a_script_change_the_tests_gate_names_is_said_once() -> None:
    session = SessionBuilder("Make the retries wait longer").edit("tools/sync.py").build("Done.")
    facts = RepoFacts(has_tests=True, test_command="pytest")
    d = decide(session, DecisionContext(config=config.defaults(), repo=facts))
    assert "tests:not_run_claimed" in d.patterns and "script:not_run" not in d.patterns


# One pasted error per ERROR_OUTPUT_SHAPES entry, in table order.
_PASTED_ERRORS = [
    "KeyError: 'currency'",
    'Traceback (most recent call last):\n  File "app.py", line 3',
    "the console says net::ERR_CONNECTION_REFUSED",
    "Cannot find module 'left-pad'",
    "src/cart.ts(4,1): error TS2304: cannot find name 'Cart'",
    "error[E0382]: borrow of moved value",
    "zsh: command not found: invoicer",
    "the job exited with code 2",
    "npm ERR! missing script: start",
    "Segmentation fault (core dumped)",
    "thread 'main' panicked at src/main.rs:4:5",
    "Uncaught TypeError in the widget",
    "    at renderCart (bundle.js:10:42)",
    "it prints Error: port 8080 in use",
]


def test_every_error_shape_has_an_example() -> None:
    from reflection_core.session.coverage import _ERROR_OUTPUT, ERROR_OUTPUT_SHAPES

    assert len(_PASTED_ERRORS) == len(ERROR_OUTPUT_SHAPES)
    for example, pattern in zip(_PASTED_ERRORS, _ERROR_OUTPUT, strict=True):
        assert pattern.search(example), (example, pattern.pattern)


@pytest.mark.parametrize(
    "prompt",
    [
        "Make the retry loop handle timeouts",
        "Wrap the parser in `try: ... except ValueError:` and log it",
        "Why do we raise an error here?",
    ],
)
def test_prompts_without_pasted_error_output_report_none(prompt: str) -> None:
    from reflection_core.session.coverage import reported_error

    assert reported_error(prompt) is None


@pytest.mark.parametrize("error", _PASTED_ERRORS)
def test_a_pasted_error_fixed_without_any_check_afterwards_blocks(error: str) -> None:
    d = run(SessionBuilder(f"Fix this:\n{error}").edit("src/app.py"), "Fixed.")
    assert "error_fix:not_checked" in d.patterns and d.should_block, d.missing


def test_a_pasted_error_with_a_check_after_the_fix_is_answered() -> None:
    builder = SessionBuilder("Fix this:\nKeyError: 'currency'").edit("src/app.py")
    d = run(builder.bash("npm run build", output="built"), "Fixed.")
    assert "error_fix:not_checked" not in d.patterns


def test_a_pasted_error_answered_with_a_doc_change_only_is_not_an_unchecked_fix() -> None:
    d = run(SessionBuilder("Document this:\nKeyError: 'currency'").edit("docs/errors.md"), "Done.")
    assert "error_fix:not_checked" not in d.patterns


def test_a_pasted_error_and_a_real_question_is_not_pushed() -> None:
    d = run(
        SessionBuilder("Fix this:\nKeyError: 'currency'").edit("src/app.py"),
        "Should a missing currency default to EUR or be rejected?",
    )
    assert not d.should_block


def test_pushing_an_unchecked_change_reported_as_done_blocks_once() -> None:
    builder = (
        SessionBuilder("Make the signup form keep the name")
        .edit("app/signup/page.tsx")
        .bash("git commit -am 'keep name' && git push origin main", output="main -> main")
    )
    d = run(builder, "All done. The form keeps the name now, and it is pushed.")
    assert "ship:unchecked" in d.patterns and d.should_block
    assert any("pushed a change nothing checked" in m for m in d.missing)


@pytest.mark.parametrize(
    ("steps", "final"),
    [
        # a check after the change answers it
        (("edit", "bash:npm run build", "bash:git push origin main"), "All done. It is pushed."),
        # no claim that it is done
        (("edit", "bash:git push origin main"), "Pushed; I have not run it yet."),
        # the push failed
        (("edit", "bash!:git push origin main"), "All done. It is pushed."),
        # nothing pushed
        (("edit",), "All done."),
    ],
)
def test_a_checked_unclaimed_failed_or_unpushed_change_is_not_shipped_unchecked(
    steps: tuple[str, ...], final: str
) -> None:
    builder = SessionBuilder("Make the signup form keep the name")
    for step in steps:
        if step == "edit":
            builder = builder.edit("app/signup/page.tsx")
        else:
            kind, command = step.split(":", 1)
            builder = builder.bash(command, exit=1 if kind == "bash!" else 0, output="ok")
    assert "ship:unchecked" not in run(builder, final).patterns


def _in_repo(root: Path, builder: SessionBuilder, final: str) -> Decision:
    """The decision as the hook makes it in the repository at `root`."""
    from reflection_core.session.analyze import gather_context

    ctx, _ = gather_context(root, config.Config(root=root), use_ledger=False)
    session = builder.build(final)
    ctx.root = session.cwd
    return decide(session, ctx)


def test_a_go_module_without_tests_is_complete_once_a_build_checked_the_change(
    tmp_path: Path,
) -> None:
    (tmp_path / "go.mod").write_text("module x\n")
    builder = SessionBuilder("Add a --verbose flag").edit("main.go").bash("go build ./...")
    decision = _in_repo(tmp_path, builder, "Added the flag; it builds.")
    assert decision.status == "complete" and not decision.should_block
    (tmp_path / "cli").mkdir()
    (tmp_path / "cli" / "flags_test.go").write_text("package cli\n")
    decision = _in_repo(tmp_path, builder, "Added the flag; it builds.")
    assert decision.status == "complete", "tests of another package do not reach main.go"
    (tmp_path / "main_test.go").write_text("package main\n")
    decision = _in_repo(tmp_path, builder, "Added the flag; it builds.")
    assert decision.status != "complete" and "tests:not_run" in decision.patterns


def test_tests_that_ran_in_the_task_show_a_suite_the_repository_did_not() -> None:
    builder = (
        SessionBuilder("Fix the parser")
        .edit("src/parse.go")
        .bash("go test ./...", exit=1, output="--- FAIL: TestParse (0.00s)\nFAIL")
    )
    ctx = DecisionContext(config=config.defaults(), repo=RepoFacts(has_tests=False))
    decision = decide(builder.build("Fixed the parser."), ctx)
    assert decision.status != "complete" and "tests:failing" in decision.patterns


@pytest.mark.parametrize(
    ("command", "output"),
    [
        ("go test ./...", "?   \texample.com/app\t[no test files]\n"),
        ("cargo test", "running 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored\n"),
    ],
)
def test_the_toolchains_test_command_checks_a_change_in_a_project_without_tests(
    command: str, output: str
) -> None:
    # It compiles the code and finds no test: that shows no suite, it checks the change.
    builder = SessionBuilder("Add the flag").edit("main.go").bash(command, output=output)
    ctx = DecisionContext(config=config.defaults(), repo=RepoFacts(has_tests=False))
    decision = decide(builder.build("Added the flag."), ctx)
    assert decision.status == "complete", decision.patterns


@pytest.mark.parametrize(
    ("changed", "complete"),
    [
        ("util/util.go", True),
        ("calc/calc.go", False),
        ("util/util_test.go", False),
        ("/elsewhere/util/util.go", False),  # not a path of this repository
    ],
)
def test_a_go_build_checks_a_change_to_a_package_no_test_reaches(
    changed: str, complete: bool
) -> None:
    # `go test` tests a package by the `_test.go` files beside it: util has none.
    builder = SessionBuilder("Fix the helper").edit(changed).bash("go build ./...", output="")
    repo = RepoFacts(has_tests=True, tested_dirs=frozenset({"calc"}))
    decision = decide(builder.build("Fixed."), DecisionContext(config=config.defaults(), repo=repo))
    assert (decision.status == "complete") is complete, decision.patterns
    assert complete or "tests:not_run" in decision.patterns


# --- a git operation left stopped on conflicts ---------------------------------------

_REBASE_STOPPED = (
    "Auto-merging app/limits.py\nCONFLICT (content): Merge conflict in app/limits.py\n"
    "error: could not apply 1a2b3c4... raise the limit\n"
    "hint: Resolve all conflicts manually, mark them as resolved with\n"
)


@pytest.mark.parametrize(
    ("command", "output"),
    [
        ("git rebase main", _REBASE_STOPPED),
        ("git merge feature", "CONFLICT (content): Merge conflict in a.py\nAutomatic merge failed"),
        ("git cherry-pick 1a2b3c4", "error: could not apply 1a2b3c4... fix\nhint: After resolving"),
        ("git stash pop", "CONFLICT (content): Merge conflict in a.py\nThe stash entry is kept"),
    ],
)
def test_a_git_operation_left_on_its_conflicts_is_open(command: str, output: str) -> None:
    session = SessionBuilder("Rebase on main").bash(command, exit=1, output=output).build("Done.")
    (gap,) = unfinished_git_operation(session)
    assert gap.pattern == "git:unfinished" and f"`{command}`" in gap.missing


@pytest.mark.parametrize(
    "settled",
    ["git rebase --continue", "git merge --abort", "git cherry-pick --skip", "git commit -m m"],
)
def test_a_conflict_continued_committed_or_aborted_is_settled(settled: str) -> None:
    session = (
        SessionBuilder("Rebase on main")
        .bash("git rebase main", exit=1, output=_REBASE_STOPPED)
        .edit("app/limits.py")
        .bash("git add app/limits.py")
        .bash(settled)
        .build("Rebased.")
    )
    assert unfinished_git_operation(session) == []


def test_a_conflict_shown_by_a_command_that_is_not_git_is_not_an_operation() -> None:
    session = SessionBuilder("Why").bash("cat notes.txt", output="CONFLICT (content)").build()
    assert unfinished_git_operation(session) == []


@pytest.mark.parametrize(
    ("fixed_after", "shipped_unchecked"), [("Procfile", False), ("app/orders.py", True)]
)
def test_a_deploy_definition_fixed_after_the_tests_is_no_unchecked_code_shipped(
    fixed_after: str, shipped_unchecked: bool
) -> None:
    builder = (
        SessionBuilder("Fix the orders endpoint and deploy it")
        .edit("app/orders.py")
        .bash("python -m pytest -q", output="2 passed in 0.1s")
        .edit(fixed_after)
        .bash("git commit -qam fix && git push origin main && railway up", output="main -> main")
    )
    d = run(builder, "All done. Fixed and deployed ✅")
    assert ("ship:unchecked" in d.patterns) is shipped_unchecked


@pytest.mark.parametrize(
    ("task_path", "call_path", "same"),
    [
        ("src/app.py", "src/app.py", True),
        ("src/app.py", "/home/dev/proj/src/app.py", True),
        ("src/app.py", "C:\\proj\\src\\app.py", True),
        ("/abs/tool.sh", "/abs/tool.sh", True),
        ("src/app.py", "/home/dev/proj/src/myapp.py", False),
        ("app.py", "/srv/app.py.bak", False),
        ("deploy.sh", "deploy.sh", True),
    ],
)
def test_a_call_path_names_a_task_path_when_it_is_it_or_ends_on_it(
    task_path: str, call_path: str, same: bool
) -> None:
    from reflection_core.session.coverage import _among, _TaskPaths

    assert _TaskPaths({task_path}).holds(call_path) is same
    assert _among(task_path, {call_path}) is same


def test_python_code_that_imports_a_changed_script_ran_it() -> None:
    heredoc = "python - <<'EOF'\nfrom app import app\nprint(app.test_client().get('/'))\nEOF"
    built = SessionBuilder("Fix the XSS in /search").edit("app.py").bash(heredoc, output="200")
    d = decide(
        built.build("Fixed the XSS: the query is escaped now."),
        DecisionContext(config=config.defaults()),
    )
    assert "script:not_run" not in d.open_patterns
    other = SessionBuilder("Fix the XSS in /search").edit("app.py").bash("python -c 'print(1)'")
    d = decide(
        other.build("Fixed the XSS: the query is escaped now."),
        DecisionContext(config=config.defaults()),
    )
    assert d.should_block  # nothing ran app.py: pushed, by script:not_run or the split rule
