"""Which stamps are evidence: signed, the project's test command, in full, something passed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reflection_core.guards import ledger
from reflection_core.guards.evidence import is_pytest_command, normalized, not_the_suite, outcome
from reflection_core.guards.ledger import Stamp
from reflection_core.guards.tests_ran import NEVER_IGNORABLE, SuiteRules, ignorable, tree_evidence

T1 = "1" * 40
RULES = SuiteRules("python -m pytest")


def stamp(**fields: object) -> Stamp:
    base: dict[str, object] = {
        "tree": T1,
        "command": "pytest",
        "exit_code": 0,
        "passed": True,
        "source": "pytest",
        "counts": {"passed": 3, "failed": 0, "errors": 0, "skipped": 0},
    }
    base.update(fields)
    verified = bool(base.pop("verified", True))
    made = Stamp(**base)  # type: ignore[arg-type]
    made.verified = verified
    return made


def test_python_m_pytest_and_pytest_are_the_same_program() -> None:
    assert normalized(["/venv/bin/python3", "-m", "pytest", "-q"]) == ["pytest", "-q"]
    assert is_pytest_command("python -m pytest") and not is_pytest_command("npm test")


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({"source": "run", "command": "true", "argv": ["true"]}, "is not the project's"),
        ({"source": "run", "command": "sh -c 'pytest || true'"}, "is not the project's"),
    ],
)
def test_stamps_that_are_not_suite_runs(fields: dict[str, object], why: str) -> None:
    reason = not_the_suite(stamp(**fields), "python -m pytest")
    assert reason is not None and why in reason


@pytest.mark.parametrize("command", ["uv run pytest", "poetry run pytest"])
def test_a_pytest_run_is_the_suite_of_a_project_that_runs_pytest_in_its_environment(
    command: str,
) -> None:
    assert is_pytest_command(command) and not_the_suite(stamp(), command) is None


def test_an_unsigned_stamp_is_not_the_suite_and_a_missing_key_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    missing = not_the_suite(stamp(verified=False), "python -m pytest") or ""
    assert "missing or unreadable" in missing and str(ledger.key_path()) in missing
    assert ledger.signing_key(create=True) is not None
    unsigned = not_the_suite(stamp(verified=False), "python -m pytest") or ""
    assert "not signed with this user's ledger key" in unsigned


def test_a_pytest_run_is_not_the_suite_of_an_npm_project() -> None:
    assert "npm test" in (not_the_suite(stamp(), "npm test") or "")


def test_the_configured_command_through_run_is_the_suite() -> None:
    run = stamp(source="run", command="make test", argv=["/usr/bin/make", "test"], counts={})
    assert not_the_suite(run, "make test") is None
    assert outcome(run, allow_partial=False) == "pass"


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({}, "pass"),
        ({"counts": {"passed": 0, "skipped": 2}}, "none"),  # everything skipped
        ({"partial": True}, "none"),
        ({"exit_code": 1, "passed": False, "counts": {"passed": 2, "failed": 1}}, "fail"),
        ({"exit_code": 1, "passed": False, "partial": True, "counts": {"failed": 1}}, "fail"),
        ({"exit_code": 5, "passed": False, "counts": {"passed": 0}}, "none"),  # none collected
        ({"exit_code": 2, "passed": False, "source": "run", "counts": {}}, "fail"),
    ],
)
def test_outcomes(fields: dict[str, object], expected: str) -> None:
    assert outcome(stamp(**fields), allow_partial=False) == expected


def test_an_unrelated_failing_command_does_not_poison_a_pass() -> None:
    failing = stamp(source="run", command="npx --no-install nothing", exit_code=1, passed=False)
    evidence = tree_evidence(T1, [stamp(), failing], {}, [], RULES)
    assert evidence.passed


def test_a_stamp_that_does_not_count_is_named_in_the_refusal() -> None:
    evidence = tree_evidence(T1, [stamp(partial=True, notes=["selected with -k"])], {}, [], RULES)
    assert not evidence.passed
    assert "does not count" in evidence.reason and "selected with -k" in evidence.reason


@pytest.mark.parametrize(
    "path",
    [
        "requirements.txt",
        "requirements-dev.txt",
        "constraints.txt",
        "CMakeLists.txt",
        "poetry.lock",
        "package-lock.json",
        "docs/requirements.txt",
        "go.sum",
        "Makefile",
    ],
)
def test_build_inputs_are_never_documentation(path: str) -> None:
    assert not ignorable(path, ["docs/**", "*.txt", "*.md", "*.json", "*.lock", "*"])


def test_documentation_stays_ignorable() -> None:
    assert ignorable("docs/guide.md", ["docs/**", "*.md"]) and "*.lock" in NEVER_IGNORABLE


def test_signed_stamps_verify_and_edited_ones_do_not(
    git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    ledger.append(git_repo, Stamp(tree=T1, command="pytest", exit_code=0, passed=True))
    path = ledger.ledger_path(git_repo)
    (line,) = path.read_text().splitlines()
    assert ledger.key_path().stat().st_mode & 0o777 == 0o600
    edited = json.loads(line)
    edited["tree"] = "2" * 40
    with path.open("a") as handle:
        handle.write(json.dumps(edited) + "\n")
    first, second = ledger.read(git_repo)
    assert first.verified and not second.verified
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "other-user"))
    assert not any(s.verified for s in ledger.read(git_repo))  # another user's key


def test_a_ledger_read_checks_the_signatures_of_the_stamps_asked_about_only(
    git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for n in range(20):
        ledger.append(git_repo, Stamp(tree=f"{n:040x}", command="pytest", exit_code=0, passed=True))
    signed: list[str] = []
    real_signature = ledger.signature

    def counted_signature(stamp: Stamp, key: bytes) -> str:
        signed.append(stamp.tree)
        return real_signature(stamp, key)

    monkeypatch.setattr(ledger, "signature", counted_signature)
    stamps = ledger.read(git_repo)
    assert signed == []
    assert stamps[-1].verified and stamps[-1].verified  # checked once, then remembered
    assert signed == [stamps[-1].tree]


def test_selections_read_every_spelling_of_a_narrowing_option() -> None:
    from reflection_core.guards.pytest_recorder import selections

    tokens = ["-q", "-k", "a or b", "-mslow", "--deselect=t.py::x", "--last-failed", "-o", "x=1"]
    assert selections(tokens) == {
        ("-k", "a or b"),
        ("-m", "slow"),
        ("--deselect", "t.py::x"),
        ("--lf", ""),
        ("-o", "x=1"),
    }
    assert selections(["-q", "-x", "tests"]) == set()


def test_a_failed_run_from_one_project_is_not_covered_by_a_pass_from_another() -> None:
    failed = stamp(cwd="/r/svc_b", exit_code=1, passed=False, counts={"passed": 1, "failed": 1})
    other = stamp(cwd="/r/svc_a")
    verdict = tree_evidence(T1, [failed, other], {}, [], RULES)
    assert not verdict.passed and "from /r/svc_b failed" in verdict.reason
    assert tree_evidence(T1, [failed, other, stamp(cwd="/r")], {}, [], RULES).passed
    assert tree_evidence(T1, [failed, stamp(cwd="/r/svc_b")], {}, [], RULES).passed
    assert tree_evidence(T1, [failed, stamp(cwd="")], {}, [], RULES).passed  # older ledgers
