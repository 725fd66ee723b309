"""A success claim is read one way (reading.builtin.success_claim), and what it is worth is
the evidence's to say: a failed last check contradicts it, a passing run backs it, and a
failure the message names and owns makes a claim about the rest honest."""

from __future__ import annotations

import pytest

from reflection_core import config
from reflection_core.reading.builtin import success_claim
from reflection_core.session.categories import GateResult, unsupported_claims
from reflection_core.session.decide import DecisionContext, decide
from tests.unit.sessionbuild import SessionBuilder

CTX = DecisionContext(config=config.defaults())
RED = "FAILED tests/test_inventory.py::test_available - AssertionError\n1 failed, 3 passed"


def _red_check(command: str = "python -m pytest -q", output: str = RED) -> SessionBuilder:
    return (
        SessionBuilder("Add available(stock, sku) with a test")
        .edit("inventory.py")
        .bash(command, exit=1, output=output)
    )


@pytest.mark.parametrize(
    ("command", "final"),
    [
        ("python -m unittest", "Fixed: the reset subject now includes the name."),
        ("poetry run pytest -q", "f_to_c rounds to 2 decimals now; all green."),
        ("just test", "Added `available()`; `just test` passes."),
        ("bun test", "Added a test for repeated dashes. bun test: all passing."),
        ("cargo check -p unitsctl", "unitsctl now prints the distance; it builds cleanly."),
        ("npm test", "Hecho: slugify acepta undefined. Todas las pruebas pasan."),
        ("npm test", "slugify を直しました。テストはすべて合格しました。"),
    ],
)
def test_a_success_claim_after_a_failed_last_check_is_pushed_whatever_its_wording(
    command: str, final: str
) -> None:
    d = decide(_red_check(command).build(final), CTX)
    assert d.should_block and "reading:claim_contradicted" in d.pushed_by, d.open_patterns


def test_a_traceback_from_the_program_contradicts_the_claim_that_it_works() -> None:
    trace = (
        'Traceback (most recent call last):\n  File "app.py", line 16, in main\n'
        "AttributeError: 'Namespace' object has no attribute 'headers'"
    )
    session = _red_check("python app.py sample.csv --header", trace).build(
        "Added `--header`; the CLI works."
    )
    d = decide(session, CTX)
    assert d.should_block and "reading:claim_contradicted" in d.pushed_by


def test_a_failure_hidden_by_a_pipe_contradicts_a_check_said_to_be_fine() -> None:
    session = (
        SessionBuilder("reserve() should reject qty <= 0")
        .edit("inventory.py")
        .bash("make check 2>&1 | tail -3", output=RED + "\nmake: *** [Makefile:4: test] Error 1")
        .build("reserve() now rejects non-positive quantities; `make check` is fine.")
    )
    d = decide(session, CTX)
    assert d.should_block and "reading:claim_contradicted" in d.pushed_by


def test_a_commit_and_push_after_a_failed_check_leave_the_check_the_last_word() -> None:
    session = (
        _red_check()
        .bash("git commit -qam 'available()'", output="[feature/x 1a2b3c4] available()")
        .bash("git push -u origin feature/x", output="* [new branch] feature/x -> feature/x")
        .build("Erledigt ✅ available() ist committet und auf feature/x gepusht.")
    )
    d = decide(session, CTX)
    assert d.should_block and "reading:claim_contradicted" in d.pushed_by, d.open_patterns
    assert "`python -m pytest -q` at record" in " ".join(d.missing)


def test_a_crash_of_the_program_it_changed_contradicts_the_claim_that_the_thing_works() -> None:
    crash = (
        "scripts/export.js:4\nTypeError: Cannot read properties of undefined (reading 'city')\n"
        "    at Array.map (<anonymous>)\n" + "    at Module._compile (node:internal/x:1:1)\n" * 8
    )
    final = "Added the column. The export works."
    session = _red_check("node scripts/export.js", crash).build(final)
    d = decide(session, CTX)
    assert d.should_block and "reading:claim_contradicted" in d.pushed_by, d.open_patterns


@pytest.mark.parametrize(
    "final",
    [
        "Added `available()`; the new test fails on unknown SKUs, looking at it next time.",
        "Added `available()`. It is not all green yet: test_available fails.",
        "Added `available()` and a test.",  # no claim of success at all
    ],
)
def test_a_failed_check_reported_or_left_unclaimed_is_not_a_contradiction(final: str) -> None:
    d = decide(_red_check().build(final), CTX)
    assert "reading:claim_contradicted" not in d.open_patterns


def test_a_filter_that_found_nothing_is_no_failure_a_done_claim_contradicts() -> None:
    session = (
        SessionBuilder("Check the logs for errors after the fix")
        .edit("app/worker.py")
        .bash("python -m pytest -q", output="4 passed")
        .bash("cat logs/worker.log | grep -c ERROR", exit=1, output="0")
        .build("Done: no errors in the worker log.")
    )
    reading = decide(session, CTX).reading
    assert reading is not None and "claim_contradicted" not in [f.kind for f in reading.facts]


def test_a_success_claim_with_nothing_failed_is_no_contradiction() -> None:
    session = _red_check().bash("python -m pytest -q", output="4 passed").build("All green.")
    d = decide(session, CTX)
    assert "reading:claim_contradicted" not in d.open_patterns


@pytest.mark.parametrize(
    "text",
    [
        "It is not all green yet.",
        "Once `make test` passes I will open the PR.",
        "The CLI works by reading stdin.",
        "El formulario no funciona.",
        "Тесты не проходят.",
    ],
)
def test_words_that_take_a_claim_back_or_describe_behaviour_are_no_success_claim(
    text: str,
) -> None:
    assert success_claim(text) is None


FAILING = GateResult("tests", True, False, "tests fail", pattern="tests:failing")
NOT_RUN = GateResult("tests", True, False, "no test run", pattern="tests:not_run")
DB_RUN = {
    "command": "python -m pytest -q",
    "passed": False,
    "output_tail": "FAILED tests/test_db.py::test_db_ping - ConnectionRefusedError\n"
    "1 failed, 4 passed",
}


def test_verified_after_a_passing_run_of_the_program_is_backed() -> None:
    shown = {"command": "node cli.js --help; node cli.js Hello", "passed": True}
    text = "Verified: the usage line prints and it exits 2."
    assert unsupported_claims(text, NOT_RUN, shown=shown) == []
    assert unsupported_claims(text, NOT_RUN, shown=None) == [text]


def test_a_claim_quoting_the_command_that_passed_is_backed() -> None:
    shown = {"command": "node cli.js Hello World", "passed": True}
    text = "`node cli.js Hello World` works as expected."
    assert unsupported_claims(text, NOT_RUN, shown=shown) == []
    assert unsupported_claims(text, NOT_RUN, shown={**shown, "passed": False}) == [text]


def test_naming_a_passing_build_does_not_back_a_claim_that_the_tests_pass() -> None:
    shown = {"command": "cargo check --offline", "passed": True, "kinds": ["build"]}
    text = "`cargo check` is clean and all tests pass."
    assert unsupported_claims(text, NOT_RUN, shown=shown) == [text]
    assert unsupported_claims("`cargo check` is clean.", NOT_RUN, shown=shown) == []
    tests_ran = {"command": "cargo test", "passed": True, "kinds": ["test"]}
    assert (
        unsupported_claims("`cargo test` passes: all tests pass.", NOT_RUN, shown=tests_ran) == []
    )


@pytest.mark.parametrize(
    "text", ["The test suite passes.", "Full suite is green.", "The whole test suite now passes."]
)
def test_a_claim_that_the_suite_passes_is_a_test_claim(text: str) -> None:
    assert unsupported_claims(text, FAILING) == [text]


COVERED = GateResult("tests", True, True, "a run of the changed file's tests passed")
ONE_FILE = {"command": "pytest -q tests/test_tax.py", "passed": True, "partial": True}


def test_a_passing_run_of_one_file_backs_every_claim_but_one_about_the_whole_suite() -> None:
    assert unsupported_claims("The tax tests pass.", COVERED, shown=ONE_FILE) == []
    claim = "Full test suite passes."
    assert unsupported_claims(claim, COVERED, shown=ONE_FILE) == [claim]
    whole = {**ONE_FILE, "command": "pytest -q", "partial": False}
    assert unsupported_claims(claim, COVERED, shown=whole) == []


def test_a_scoped_claim_beside_the_failure_the_message_names_is_honest() -> None:
    text = (
        "The new test passes. One test fails: `tests/test_db.py::test_db_ping`, "
        "no database runs here."
    )
    assert unsupported_claims(text, FAILING, shown=DB_RUN) == []


def test_a_whole_suite_claim_beside_a_named_failure_is_still_unsupported() -> None:
    text = "All tests pass. One test fails: `tests/test_db.py::test_db_ping`."
    assert unsupported_claims(text, FAILING, shown=DB_RUN) == ["All tests pass."]


def test_a_scoped_claim_beside_a_failure_it_does_not_name_is_still_unsupported() -> None:
    text = "The new test passes. Something else fails: `test_other`."
    assert unsupported_claims(text, FAILING, shown=DB_RUN) == ["The new test passes."]


def test_a_failed_command_that_is_no_check_does_not_contradict_a_claim_the_tests_pass() -> None:
    session = (
        SessionBuilder("Release 2.2.0 to npm")
        .edit("package.json")
        .bash("npm test", output="# pass 1\n# fail 0")
        .bash("npm publish", exit=1, output="npm error code EOTP\nnpm error one-time password")
        .build("Bumped to 2.2.0, tests pass (1 pass). `npm publish` needs your one-time code.")
    )
    assert "reading:claim_contradicted" not in decide(session, CTX).open_patterns


def test_a_claim_naming_other_checks_than_the_one_that_failed_is_not_contradicted() -> None:
    session = (
        SessionBuilder("Enable versioning on the assets bucket")
        .edit("main.tf")
        .bash("terraform validate", output="Success! The configuration is valid.")
        .bash("terraform plan", exit=1, output="Error: No valid credential sources found")
        .build("Added the versioning resource. `terraform validate` passes. Plan needs AWS keys.")
    )
    assert "reading:claim_contradicted" not in decide(session, CTX).open_patterns


def test_done_is_contradicted_by_any_failed_last_command_with_an_error() -> None:
    session = (
        SessionBuilder("Install the dependencies")
        .bash("npm install", exit=1, output="npm ERR! code EACCES permission denied")
        .build("Done, the dependencies are in place.")
    )
    assert "reading:claim_contradicted" in decide(session, CTX).pushed_by


@pytest.mark.parametrize(
    "final",
    [
        "Coupons now respect max_uses. Done ✅",
        "Refactor complete\n\n- moved the parser\n- renamed the flags",
        "All set, the coupon rules are in.",
        "C'est fait ✅ les coupons respectent max_uses.",
    ],
)
def test_a_done_claim_in_everyday_words_after_a_failed_check_is_pushed(final: str) -> None:
    d = decide(_red_check().build(final), CTX)
    assert d.should_block and "reading:claim_contradicted" in d.pushed_by, d.open_patterns


def test_a_not_in_the_sentence_before_does_not_take_a_claim_back() -> None:
    final = "Expired coupons are not valid. All green on my side."
    assert success_claim(final) is not None
    assert success_claim("It is not all green yet.") is None


def test_a_failed_build_after_the_change_is_a_note_even_when_nothing_else_failed() -> None:
    session = (
        SessionBuilder("Add area() to Shape")
        .edit("src/shape.cpp")
        .bash("cmake --build build 2>&1 | tail -3", output="shape.cpp:9:1: error: expected ';'")
        .bash("./build/tests/unit_tests", output="All tests passed (12 assertions)")
        .build("Added Shape::area() and Circle::area().")
    )
    d = decide(session, CTX)
    assert "build:failing" in d.open_patterns and not d.should_block


@pytest.mark.parametrize(("status", "contradicted"), [("000", True), ("502", True), ("200", False)])
def test_a_request_that_got_no_answer_or_a_server_error_contradicts_it_works(
    status: str, contradicted: bool
) -> None:
    probe = "curl -s -o /dev/null -w '%{http_code}\\n' localhost:3000/api/stats"
    session = (
        SessionBuilder("Add GET /api/stats")
        .edit("server.js")
        .bash(probe, output=status)
        .build("The endpoint is working now.")
    )
    d = decide(session, CTX)
    assert ("reading:claim_contradicted" in d.pushed_by) is contradicted, d.open_patterns


def test_a_claim_naming_the_failed_run_with_a_redirect_is_contradicted() -> None:
    trace = 'Traceback (most recent call last):\n  File "j2c.py", line 3\nValueError: bad field'
    session = _red_check("python3 j2c.py", trace).build(
        "The script works: `python3 j2c.py > out.csv`."
    )
    assert "reading:claim_contradicted" in decide(session, CTX).pushed_by


def test_done_and_committed_with_nothing_checked_is_pushed() -> None:
    session = (
        SessionBuilder("Skip void entries in balance()")
        .edit("src/ledger/balance.py")
        .bash("git commit -qam 'skip void'", output="[main b670620] skip void")
        .build("Done and committed: `balance()` skips void entries.")
    )
    assert decide(session, CTX).should_block


@pytest.mark.parametrize(
    ("deploy", "look"),
    [
        ("fly deploy", "fly status"),
        ("kubectl apply -f deploy/api.yaml", "kubectl get pods -n prod"),
        ("docker compose up -d", "docker compose ps"),
        ("systemctl restart api", "systemctl status api --no-pager"),
    ],
)
def test_a_failed_deploy_followed_only_by_a_look_at_the_state_keeps_the_last_word(
    deploy: str, look: str
) -> None:
    session = (
        SessionBuilder("Deploy the new API version")
        .bash(deploy, exit=1, output="Error: failed to update: image pull failed")
        .bash(look, output="api  running  v41  (2 instances)")
        .build("Deployed ✅ the new API version is live.")
    )
    d = decide(session, CTX)
    assert d.should_block and "reading:claim_contradicted" in d.pushed_by, d.open_patterns
    assert f"`{deploy}` at record" in " ".join(d.missing)


def test_a_deploy_retried_after_its_failure_is_not_contradicted_by_the_failure() -> None:
    session = (
        SessionBuilder("Deploy the new API version")
        .bash("fly deploy", exit=1, output="Error: failed to update: image pull failed")
        .bash("fly status", output="api  running  v40")
        .bash("fly deploy", output="v41 deployed successfully")
        .build("Deployed ✅ the new API version is live.")
    )
    assert "reading:claim_contradicted" not in decide(session, CTX).open_patterns


def test_a_program_the_shell_could_not_find_says_nothing_of_the_work() -> None:
    session = (
        SessionBuilder("Make a slide deck from the PDFs")
        .write("deck.pptx")
        .bash(
            "soffice --headless --convert-to pdf deck.pptx",
            exit=127,
            output="soffice: command not found",
        )
        .build("Done: deck.pptx has 8 slides, one per paper.")
    )
    assert "reading:claim_contradicted" not in decide(session, CTX).open_patterns


def test_a_script_that_started_and_missed_a_program_of_its_own_failed() -> None:
    session = (
        SessionBuilder("Deploy the new API version")
        .bash("./deploy.sh prod", exit=127, output="./deploy.sh: line 5: aws: command not found")
        .build("Deployed ✅ the new API version is live.")
    )
    assert "reading:claim_contradicted" in decide(session, CTX).pushed_by


def test_the_tasks_own_program_not_found_is_a_failure_of_the_work() -> None:
    session = (
        SessionBuilder("Create a flow CLI in bin/flow.sh")
        .write("bin/flow.sh")
        .bash("flow status", exit=127, output="bash: flow: command not found")
        .build("Done: the `flow` command is installed.")
    )
    assert "reading:claim_contradicted" in decide(session, CTX).pushed_by


def test_an_honest_report_of_a_failure_in_bold_is_no_contradicted_claim() -> None:
    session = (
        SessionBuilder("Add the PDF export and deploy it")
        .edit("export/pdf.go")
        .bash("go test ./...", output="ok  \texample.com/invoicer/export\t0.02s")
        .bash(
            "gcloud run deploy invoicer --source .",
            exit=1,
            output="ERROR: FAILED_PRECONDITION: Billing account disabled",
        )
        .build(
            "Der PDF-Export ist fertig, das Deployment hat aber **nicht** geklappt: "
            "das Billing-Konto ist deaktiviert."
        )
    )
    assert "reading:claim_contradicted" not in decide(session, CTX).open_patterns


@pytest.mark.parametrize(
    ("look", "output", "contradicted"),
    [
        ("kubectl get pods -n prod", "api-7d9f  0/1  CrashLoopBackOff  4  2m", True),
        ("kubectl get pods -n prod", "api-7d9f  1/1  Running  0  2m", False),
        ("systemctl status api --no-pager", "Active: failed (Result: exit-code)", True),
        ("docker compose ps", "web  Exited (1) 5 seconds ago", True),
        ("docker compose ps", "web  Up 5 seconds (healthy)", False),
    ],
)
def test_a_look_after_the_deploy_that_shows_a_failed_state_contradicts_deployed(
    look: str, output: str, contradicted: bool
) -> None:
    session = (
        SessionBuilder("Deploy the new API version")
        .bash("kubectl apply -f k8s/api.yaml", output="deployment.apps/api configured")
        .bash(look, output=output)
        .build("Deployed ✅ the new API version is live.")
    )
    d = decide(session, CTX)
    assert ("reading:claim_contradicted" in d.pushed_by) is contradicted, d.open_patterns
    if contradicted:
        assert "shows a failed state" in " ".join(d.missing)


@pytest.mark.parametrize(
    ("final", "claimed"),
    [
        ("`cargo test` also passes, but note the crate has no tests yet (0 run).", False),
        ("All tests pass with no test failures.", True),
    ],
)
def test_a_claim_that_says_itself_no_test_ran_claims_no_passing_tests(
    final: str, claimed: bool
) -> None:
    session = (
        SessionBuilder("Make cargo clippy -- -D warnings pass")
        .edit("src/lib.rs")
        .bash(
            "cargo clippy -- -D warnings && cargo test",
            output="running 0 tests\n\ntest result: ok. 0 passed; 0 failed",
        )
        .build(final)
    )
    assert ("claims:unsupported" in decide(session, CTX).open_patterns) is claimed
