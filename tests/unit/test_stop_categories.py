"""Stop categories, unsupported claims, and human-only requests."""

from __future__ import annotations

import functools

import pytest

from reflection_core import config
from reflection_core.reading.facts import Fact, Reading
from reflection_core.session.categories import COMMAND_PASSES, TEST_COMMANDS
from reflection_core.session.decide import (
    Decision,
    DecisionContext,
    RepoFacts,
    decide,
    pushing_gaps,
    with_defaults,
)
from reflection_core.session.feedback import Gap
from reflection_core.session.gates import LedgerEvidence
from reflection_core.session.human_action import assess_requests
from tests.unit.sessionbuild import SessionBuilder

DONE = (
    SessionBuilder("Fix the parser bug")
    .read("src/parser.py")
    .edit("src/parser.py")
    .bash("python -m pytest -q", output="12 passed")
)
UNTESTED = SessionBuilder("Fix the parser bug").read("src/parser.py").edit("src/parser.py")


def run(final: str, builder: SessionBuilder = DONE, *, require: str = "check") -> Decision:
    cfg = with_defaults({"stop": {"require": require}})
    return decide(builder.build(final), DecisionContext(config=cfg))


def test_tested_change_is_complete() -> None:
    d = run("Fixed the off-by-one in the parser; the full suite passes.")
    assert (d.status, d.stop_category, d.severity, d.complete) == (
        "complete",
        "complete",
        "NONE",
        True,
    )
    assert not d.should_block and d.agent_score == 5


def test_untested_change_is_working_noted_by_default_and_pushed_when_tests_are_required() -> None:
    d = run("I changed the parser.", UNTESTED)
    assert d.stop_category == "working" and d.status == "incomplete" and not d.should_block
    assert d.note is not None and "tests have not run" in d.note
    assert run("I changed the parser.", UNTESTED, require="tests").should_block


def test_unchecked_change_the_message_calls_done_is_pushed_naming_the_split_rule() -> None:
    d = run("The parser is fixed.", UNTESTED)
    assert d.should_block and d.pushed_by == ["tests:not_run_claimed"]
    assert d.feedback is not None and "message says it is done" in d.feedback


def test_unchecked_change_called_done_with_no_passing_run_in_the_ledger_is_pushed() -> None:
    cfg = with_defaults({"stop": {"require": "check"}})
    ledger = LedgerEvidence(passed=False, reason="no passing test run is recorded for this tree")
    context = DecisionContext(config=cfg, ledger=ledger)
    d = decide(UNTESTED.build("The parser is fixed. Done."), context)
    assert d.should_block and d.pushed_by == ["tests:not_run_claimed"]


def test_unchecked_change_said_done_after_another_check_ran_stays_a_note() -> None:
    built = (
        SessionBuilder("Fix the parser bug")
        .edit("src/parser.py")
        .bash("python -m py_compile src/parser.py", output="")
    )
    d = run("The parser is fixed.", built)
    assert not d.should_block and "tests:not_run" in d.open_patterns


def test_unchecked_change_without_a_done_claim_stays_a_note() -> None:
    d = run("I changed how the parser reads empty lines.", UNTESTED)
    assert not d.should_block and d.open_patterns[0] == "tests:not_run"


def test_claim_without_a_run_is_a_false_claim() -> None:
    d = run("Fixed it. All tests pass.", UNTESTED)
    assert d.severity == "HIGH"
    assert any("claimed without evidence" in m for m in d.missing)
    assert d.agent_score == 1


@pytest.mark.parametrize(
    "final",
    [
        "I changed the parser. Verified: the server starts and answers its health check.",
        "Root cause confirmed: the parser drops empty lines. I changed it.",
        "I changed the parser.\n\nSigned off — ALL CONFIRMED",
    ],
)
def test_verified_or_confirmed_alone_is_not_a_claim_that_tests_pass(final: str) -> None:
    # No test ran in the task: "all tests pass" says something the transcript contradicts;
    # "verified" or "confirmed" alone does not say the tests pass.
    looked = SessionBuilder("Why does the parser drop lines?").read("src/parser.py")
    d = run(final, looked)
    assert not any("claims the tests pass" in m for m in d.missing), d.missing
    claimed = run("All tests pass.", looked).missing
    assert any("claims the tests pass" in m for m in claimed), claimed


def test_hedged_claim_is_not_a_claim() -> None:
    d = run("I changed the parser; the tests should pass but I haven't run them.", UNTESTED)
    assert not any("claimed" in m for m in d.missing)


@pytest.mark.parametrize(
    "final",
    [
        "Phase 1 of 3 is done: the parser is fixed.",
        "Done with the parser.\n\nNext steps:\n- update the CLI\n- add docs",
        "Parser fixed.\nTODO: handle unicode input",
    ],
)
def test_remaining_work_after_checked_work_is_a_note_not_a_push(final: str) -> None:
    d = run(final)
    assert d.stop_category == "summary_drift_stop" and not d.should_block
    assert d.note is not None


def test_remaining_work_with_an_unchecked_change_is_a_note_until_a_reader_is_sure() -> None:
    d = run("Done with the parser.\n\nNext steps:\n- update the CLI\n- add docs", UNTESTED)
    assert not d.should_block
    assert {"reading:remaining_work", "tests:not_run"} <= set(d.open_patterns)


def test_a_configured_reader_sure_of_remaining_work_pushes_it() -> None:
    gap = Gap("reading:remaining_work", "work announced but not done", "Do it", "MEDIUM")
    builtin = Reading("builtin", (Fact("remaining_work", 0.95, "Next: the CLI"),))
    paid = Reading("llm", (Fact("remaining_work", 0.95, "Next: the CLI", source="llm"),))
    digest: dict[str, object] = {"changed_files": ["src/parser.py"]}
    push = functools.partial(pushing_gaps, [gap], digest, sent=frozenset(), changed=True)
    assert push(reading=builtin, require="check") == []
    assert push(reading=paid, require="check") == [gap]


def test_optional_suggestions_are_not_drift() -> None:
    d = run("Parser fixed and tested.\nNext steps (optional): if you like, add fuzzing later.")
    assert d.stop_category == "complete"


@pytest.mark.parametrize(
    "final",
    ["I updated the parser. Should I run the tests?", "Would you like me to run the test suite?"],
)
def test_asking_permission_for_tool_work_is_a_punt(final: str) -> None:
    d = run(final, UNTESTED, require="tests")
    assert d.stop_category == "tool_available_punt" and d.should_block


def test_offer_of_extras_after_finished_work_is_not_a_punt() -> None:
    d = run("Fixed and tested. Let me know if you'd like me to add more tests.")
    assert d.status == "complete"


def test_real_choice_waits_for_the_user() -> None:
    d = run("Which should the parser do on bad input: raise ValueError or return None?", UNTESTED)
    assert d.stop_category == "waiting_for_user" and d.status == "waiting_for_user"
    assert not d.should_block


@pytest.mark.parametrize(
    ("final", "kind"),
    [
        ("Please enter the 2FA code sent to your phone so I can finish the deploy.", "2fa"),
        ("You need to create an API key in the dashboard and put it in .env.", "credentials"),
        ("Complete the OAuth consent screen in your browser, then tell me.", "oauth"),
        ("The site shows a captcha; could you solve it?", "captcha"),
        ("Please approve the pull request so it can merge.", "approval"),
        ("Please add the STRIPE_SECRET_KEY to .env yourself. Then I can finish.", "credentials"),
        ("I can't continue: please provide the STAGING_API_KEY for the test.", "credentials"),
    ],
)
def test_human_only_requests(final: str, kind: str) -> None:
    assessment = assess_requests(final)
    assert [k for k, _ in assessment.human_only] == [kind]
    d = run(final)
    assert d.requires_human_action and d.status == "waiting_for_user" and not d.should_block


@pytest.mark.parametrize(
    ("final", "kind"),
    [
        (
            "The package index asks for a two-factor code from your authenticator app before "
            "it accepts the login. Please send me the current code.",
            "2fa",
        ),
        (
            "The deploy requires an API key from your dashboard. Can you give me the key?",
            "credentials",
        ),
        (
            "The release needs your approval in the GitHub UI. I need you to approve it.",
            "approval",
        ),
        (
            "The hosting provider needs a payment method on file. Could you enter one?",
            "payment",
        ),
        ("The checkout needs a credit card. Please enter your card details.", "payment"),
    ],
)
def test_a_request_for_the_human_only_item_named_in_the_sentence_before(
    final: str, kind: str
) -> None:
    assessment = assess_requests(final)
    assert [k for k, _ in assessment.human_only] == [kind]
    assert assessment.blocking


@pytest.mark.parametrize(
    "final",
    [
        "I fixed the 2FA verification bug. Can you give it a try?",
        "The login test needs a valid OTP fixture. Please run the tests again.",
        "The invoice total needs tax. Can you send me the tax rate for Germany?",
        "Which rule does billing use?",
        "I refactored the billing module. Which payment rounding should it use: up or down?",
    ],
)
def test_requests_that_do_not_ask_for_a_human_only_item_are_not_human_only(final: str) -> None:
    assert assess_requests(final).human_only == []


def test_a_question_about_billing_logic_waits_as_a_question_not_a_payment() -> None:
    d = run("Which rule does billing use?", UNTESTED)
    assert d.human_actions == [] and not d.requires_human_action
    assert d.status == "waiting_for_user"


def test_a_human_only_blocker_ends_a_coding_task_waiting_even_with_tests_not_run() -> None:
    session = (
        SessionBuilder("Add sub() to calc.py and publish version 0.1.0 to the package index")
        .edit("src/calc.py")
        .bash("python -m build")
        .build(
            "Built the release. The package index asks for a two-factor code from your "
            "authenticator app before it accepts the upload. Please send me the current code."
        )
    )
    strict = with_defaults({"stop": {"require": "tests"}})
    d = decide(session, DecisionContext(config=strict))
    assert (d.status, d.requires_human_action, d.should_block) == ("waiting_for_user", True, False)
    assert d.gates["tests"].failing, "the open check is still reported"


def test_a_human_only_blocker_is_never_pushed_but_the_failing_tests_are_noted() -> None:
    session = (
        SessionBuilder("Add sub() to calc.py and publish it")
        .edit("src/calc.py")
        .bash("python -m pytest -q", exit=1, output="1 failed")
        .build("The index requires a 2FA code before it accepts the login. Please send it.")
    )
    d = decide(session, DecisionContext(config=config.defaults()))
    assert not d.should_block and d.status == "waiting_for_user"
    assert d.note is not None and "tests fail" in d.note


def test_a_human_only_blocker_explains_a_coding_task_with_no_change() -> None:
    session = SessionBuilder("Wire the payment client to the live API").read("src/pay.py")
    d = decide(
        session.build("The live API requires an API key from your dashboard. Please send it."),
        DecisionContext(config=config.defaults()),
    )
    assert (d.status, d.requires_human_action, d.should_block) == ("waiting_for_user", True, False)


def test_human_only_plus_open_agent_work_still_pushes() -> None:
    d = run("Please add the API key to .env. I also changed the parser.", UNTESTED, require="tests")
    assert d.should_block and not d.requires_human_action


def test_agent_actionable_requests_are_not_human_only() -> None:
    assessment = assess_requests("Should I run the tests? Do you want me to commit this?")
    assert not assessment.human_only and len(assessment.agent_actionable) == 2


def test_genuinely_stuck_is_blocked_not_pushed() -> None:
    d = run(
        "I'm unable to install the package: permission denied on /usr/lib and no sudo.",
        UNTESTED,
    )
    assert d.stop_category == "genuinely_stuck" and d.status == "blocked"
    assert not d.should_block


def test_coding_task_with_no_change_is_not_done() -> None:
    builder = SessionBuilder("Fix the crash in the exporter").read("src/export.py")
    d = run("I looked at the exporter.", builder)
    assert not d.complete and any("no file was changed" in m for m in d.missing)


def test_no_change_needed_is_accepted() -> None:
    builder = SessionBuilder("Fix the crash in the exporter").read("src/export.py")
    d = run("I could not reproduce the crash; it was already fixed in v2.", builder)
    assert d.complete


def test_research_answer_is_complete() -> None:
    builder = SessionBuilder("How does the cache expire entries?").read("src/cache.py")
    d = run("Entries expire after ttl seconds via a heap ordered by deadline.", builder)
    assert d.task_type == "research" and d.complete


def test_a_huge_final_message_is_judged_by_its_end() -> None:
    final = "Here is the full log of what I did.\n" + "step done\n" * 300_000
    d = run(final + "I updated the parser. Should I run the tests?", UNTESTED)
    assert d.stop_category == "tool_available_punt"


@pytest.mark.parametrize(
    "final",
    [
        "## Summary\n- Fixed the parser, tests pass\n\n## Next steps\nNone.",
        "Fixed and tested. Next steps: none, everything is done.",
        "Fixed and tested.\nNext steps:\n- None required",
    ],
)
def test_an_explicitly_empty_next_steps_list_is_not_drift(final: str) -> None:
    assert run(final).status == "complete"


def test_a_todo_inside_a_code_block_is_code_not_work_left() -> None:
    from reflection_core.session.categories import drift_markers

    snippet = "Fixed and tested:\n\n```python\n# TODO: decide on float handling\nx = 1\n```"
    assert drift_markers(snippet) == []
    assert drift_markers("Fixed.\n\nTODO: wire the settings page") != []


def test_a_claim_backed_by_the_transcript_is_not_false_when_the_ledger_lacks_the_run() -> None:
    from reflection_core.session.gates import LedgerEvidence

    session = DONE.build("Fixed. All tests pass.")
    ledger = LedgerEvidence(passed=False, reason="no passing test run is recorded for this tree")
    d = decide(session, DecisionContext(config=config.defaults(), ledger=ledger))
    assert not d.gates["tests"].failing and not d.should_block
    assert not any("claimed" in m for m in d.missing)


def test_claim_about_the_tests_that_ran_is_not_false_after_a_partial_run() -> None:
    partial = SessionBuilder("Swap the JSON encoder and make sure nothing else breaks").edit(
        "src/serializers.py"
    )
    partial.bash("python -m pytest tests/test_serializers.py -q", output="8 passed")
    strict = DecisionContext(config=with_defaults({"stop": {"require": "tests"}}))
    d = decide(partial.build("The serializer tests pass."), strict)
    assert not d.complete and d.severity == "MEDIUM"
    assert d.assessment is not None and not d.assessment.unsupported_claims
    d = decide(partial.build("All tests pass."), strict)
    assert d.severity == "HIGH"


def test_a_stop_that_stands_with_open_items_says_what_is_open_not_that_it_is_unfinished() -> None:
    from reflection_core.session.stop_hook import render_decision

    d = run("I changed the parser.", UNTESTED)
    assert d.note is not None and d.note.startswith("open: tests have not run")
    line = render_decision(d).message
    assert line is not None and line.startswith("reflection: open: tests have not run"), line
    assert "not finished" not in line and "checks or work still open" not in line


@pytest.mark.parametrize(
    ("category", "says"),
    [
        ("working", "open: tests have not run"),
        ("complete", "open: tests have not run"),
        ("report_delivered", "open: tests have not run"),
        ("waiting_for_user", "a real question or something only you can do; open: tests"),
        ("summary_drift_stop", "stopped with work it announced as remaining; open: tests"),
    ],
)
def test_a_note_keeps_the_reading_only_where_it_says_more_than_its_items(
    category: str, says: str
) -> None:
    from reflection_core.session.categories import CATEGORY
    from reflection_core.session.decide import stop_note

    gap = Gap(
        "tests:not_run", "tests have not run after the latest change (Edit of `cart.py`)", "run"
    )
    assert stop_note(category, [gap]).startswith(says)
    assert stop_note(category, []) == CATEGORY[category].line  # nothing open: the reading


# One claim per TEST_COMMANDS entry, each after that command failed.
COMMAND_CLAIMS = {
    "make test": "`make test` passes.",
    "make check": "make check passes now.",
    "npm test": "`npm test` passes.",
    "npm run test": "`npm run test` is green.",
    "yarn test": "`yarn test` passes.",
    "pnpm test": "`pnpm test` is all green.",
    "bun test": "`bun test` passes.",
    "pytest": "pytest passes.",
    "python -m pytest": "`python -m pytest -q` passes.",
    "cargo test": "`cargo test` passes.",
    "go test": "`go test ./...` passes.",
    "tox": "tox passes.",
    "mvn test": "`mvn test` passes.",
    "gradle test": "`gradle test` is green.",
    "./gradlew test": "`./gradlew test` passes.",
    "dotnet test": "`dotnet test` passes.",
}
# One claim per COMMAND_PASSES shape.
COMMAND_SHAPES = {
    r"pass(es)?": "Parser fixed; `make test` passes.",
    r"(is|comes back) (all |fully )?green": "Parser fixed; `make test` is all green.",
    r"succeeds": "Parser fixed and `make test` succeeds.",
    r"runs (clean|cleanly|green)": "Parser fixed, `make test` runs clean.",
    r"exits (with )?(code |status )?0": "Parser fixed; `make test` exits with code 0.",
}


def _changed() -> SessionBuilder:
    return SessionBuilder("Fix the parser bug").read("src/parser.py").edit("src/parser.py")


def _failed(command: str) -> SessionBuilder:
    return _changed().bash(command, exit=1, output="1 failed, 11 passed")


def test_every_test_command_and_claim_shape_has_a_sample() -> None:
    assert set(COMMAND_CLAIMS) == set(TEST_COMMANDS)
    assert set(COMMAND_SHAPES) == set(COMMAND_PASSES)


@pytest.mark.parametrize(("command", "final"), sorted(COMMAND_CLAIMS.items()))
def test_a_claim_naming_the_test_command_that_failed_is_a_false_claim(
    command: str, final: str
) -> None:
    d = run(f"Fixed the parser. {final}", _failed(command))
    assert d.should_block and any("claimed without evidence" in m for m in d.missing), d.missing


@pytest.mark.parametrize("final", sorted(COMMAND_SHAPES.values()))
def test_each_way_of_saying_the_test_command_passes_is_a_claim(final: str) -> None:
    d = run(final, _failed("make test"))
    assert any("claimed without evidence" in m for m in d.missing), d.missing


@pytest.mark.parametrize(
    "final",
    [
        "I changed the parser; `make test` still fails on test_empty_lines, can you look?",
        "I changed the parser. Once `make test` passes I will open the PR.",
        "`make test` passed before my change; now test_empty_lines fails. Want me to dig in?",
        "The parser change is in; `make test-integration` needs a database I do not have.",
    ],
)
def test_no_claim_is_read_where_the_test_command_is_not_said_to_pass(final: str) -> None:
    d = run(final, _failed("make test"))
    assert not any("claimed without evidence" in m for m in d.missing), d.missing


def test_naming_the_test_command_after_it_passed_is_no_false_claim() -> None:
    passed = _changed().bash("make test", output="12 passed")
    assert not run("Fixed the parser; `make test` passes.", passed).missing


def test_a_secret_variable_named_outside_a_request_is_no_human_only_item() -> None:
    assessment = assess_requests("I renamed the STRIPE_SECRET_KEY lookup. Please review the diff.")
    assert assessment.human_only == []


def test_work_announced_as_remaining_is_quoted_as_written() -> None:
    from reflection_core.session.categories import drift_markers

    final = "Moved it to `config.toml`.\n\n```\nx = 2.5\n```\n\nNext I'll switch `ping.py` to it."
    assert drift_markers(final) == ["Next I'll switch `ping.py` to it."]


def test_a_test_run_that_ran_no_test_is_no_check_of_a_change_called_done() -> None:
    found_none = "> jest --passWithNoTests money.spec\n\nNo tests found, exiting with code 0"
    built = (
        SessionBuilder("Fix the rounding in src/lib/money.ts and add a test")
        .edit("src/lib/money.ts")
        .edit("src/lib/money.test.ts")
        .bash("npm test -- money.spec", output=found_none)
    )
    d = run("Fixed the rounding bug in `formatPrice`.", built)
    assert d.should_block and d.pushed_by == ["tests:not_run_claimed"]
    assert not run("I changed the rounding in `formatPrice`.", built).should_block


def test_a_failure_the_message_reports_backs_no_reading_of_another_claim() -> None:
    built = (
        SessionBuilder("Add the migration and apply it to staging")
        .edit("db/migrations/001_add_discount.sql")
        .bash(
            "dbmate --env-file .env.staging up",
            exit=1,
            output='Error: pq: password authentication failed for user "migrator"',
        )
    )
    told = (
        "Applied locally. Staging failed with `password authentication failed for user "
        '"migrator"`. Note: the constraint is validated against existing rows.'
    )
    hidden = "Applied locally. Note: the constraint is validated against existing rows."
    no_suite = DecisionContext(config=with_defaults({}), repo=RepoFacts(has_tests=False))
    assert "claims:unsupported" not in decide(built.build(told), no_suite).pushed_by
    assert decide(built.build(hidden), no_suite).pushed_by == ["claims:unsupported"]
