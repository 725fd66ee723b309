"""The ledger end to end: real pytest runs leave stamps; the tests-ran gate reads them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reflection_core.guards import ledger
from reflection_core.guards.fingerprint import worktree_tree
from tests.gitutil import GIT_ENV, git, make_bare_remote, make_repo

REFLECTION = Path(sys.executable).parent / "reflection"
PROJECT = {
    "pytest.ini": "[pytest]\ntestpaths = tests\npythonpath = src\n",
    "src/calc.py": "def add(a, b):\n    return a + b\n",
    "tests/test_calc.py": (
        "from calc import add\n\n"
        "def test_add():\n    assert add(1, 2) == 3\n\n"
        "def test_add_zero():\n    assert add(0, 0) == 0\n"
    ),
    "README.md": "# calc\n",
    "docs/guide.md": "Guide\n",
}


def env() -> dict[str, str]:
    clean = {
        k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "REFLECTION_LEDGER"))
    }
    return {**clean, **GIT_ENV}


def run_pytest(repo: Path, *args: str, extra_env: dict[str, str] | None = None) -> int:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", *args],
        cwd=repo,
        env={**env(), **(extra_env or {})},
        capture_output=True,
        text=True,
    )
    return proc.returncode


def commit(repo: Path, message: str = "change") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "commit", "-q", "-m", message], cwd=repo, env=env(), capture_output=True, text=True
    )


def install_native_hooks(repo: Path) -> None:
    for event in ("pre-commit", "pre-push"):
        hook = repo / ".git" / "hooks" / event
        hook.write_text(f'#!/bin/sh\nexec "{REFLECTION}" hook {event} "$@"\n')
        hook.chmod(0o755)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "calc", files=PROJECT)
    git(repo, "switch", "-q", "-c", "feature")
    return repo


def test_a_pytest_run_leaves_a_stamp_for_the_tree_it_ran_on(project: Path) -> None:
    (project / "src" / "extra.py").write_text("X = 1\n")  # untracked files count
    assert run_pytest(project) == 0
    (stamp,) = ledger.read(project)
    assert stamp.tree == worktree_tree(project)
    assert stamp.passed and not stamp.partial and stamp.source == "pytest"
    assert stamp.counts == {"passed": 2, "failed": 0, "errors": 0, "skipped": 0}
    assert stamp.tool_versions["pytest"] == pytest.__version__
    assert stamp.duration_s > 0


def test_a_failing_run_records_its_exit_status_and_counts(project: Path) -> None:
    (project / "src" / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    assert run_pytest(project) == 1
    (stamp,) = ledger.read(project)
    assert not stamp.passed and stamp.exit_code == 1
    assert stamp.counts["failed"] == 1 and stamp.counts["passed"] == 1


def test_a_collection_error_is_recorded_as_an_error_of_the_file(project: Path) -> None:
    (project / "src" / "calc.py").write_text("def add(a, b):\n    return a +\n")
    assert run_pytest(project) == 2
    (stamp,) = ledger.read(project)
    assert stamp.counts["errors"] == 1
    assert "error collecting tests/test_calc.py" in stamp.notes


@pytest.mark.parametrize(
    "args",
    [["-k", "zero"], ["tests/test_calc.py"], ["tests/test_calc.py::test_add"], ["--lf"]],
)
def test_selecting_runs_are_recorded_as_partial(project: Path, args: list[str]) -> None:
    (project / "tests" / "test_more.py").write_text("def test_more():\n    assert True\n")
    run_pytest(project, *args)
    (stamp,) = ledger.read(project)
    assert stamp.partial


def test_explicit_testpaths_argument_is_a_full_run(project: Path) -> None:
    assert run_pytest(project, "tests") == 0
    assert not ledger.read(project)[0].partial


@pytest.mark.parametrize(
    "args, partial",
    [
        (["tests"], False),
        (["tests/unit", "tests/integration"], False),
        (["."], False),
        (["tests/unit"], True),
    ],
)
def test_path_arguments_are_full_when_they_cover_every_test_file(
    tmp_path: Path, args: list[str], partial: bool
) -> None:
    files = {
        "pytest.ini": "[pytest]\n",
        "tests/unit/test_a.py": "def test_a():\n    assert True\n",
        "tests/integration/test_b.py": "def test_b():\n    assert True\n",
    }
    repo = make_repo(tmp_path / "no-testpaths", files=files)
    assert run_pytest(repo, *args) == 0
    (stamp,) = ledger.read(repo)
    assert stamp.partial is partial


def test_stopping_early_with_x_is_partial(project: Path) -> None:
    (project / "tests" / "test_calc.py").write_text(
        "def test_a():\n    assert False\n\ndef test_b():\n    assert True\n"
    )
    assert run_pytest(project, "-x") == 1
    (stamp,) = ledger.read(project)
    assert stamp.partial and stamp.counts["failed"] == 1 and stamp.counts["passed"] == 0


@pytest.mark.parametrize(
    "how",
    ["flag", "env", "plugin-off", "config"],
)
def test_the_plugin_can_be_switched_off(project: Path, how: str) -> None:
    args: list[str] = []
    extra: dict[str, str] = {}
    if how == "flag":
        args = ["--no-reflection-ledger"]
    elif how == "env":
        extra = {"REFLECTION_LEDGER": "0"}
    elif how == "plugin-off":
        args = ["-p", "no:reflection"]
    else:
        (project / ".reflection.yaml").write_text("tests:\n  pytest_plugin: false\n")
    assert run_pytest(project, *args, extra_env=extra) == 0
    assert ledger.read(project) == []


def test_the_recorders_modules_load_without_pytests_assertion_rewriting(project: Path) -> None:
    # An installed package is marked for rewriting as the plugin's distribution; an
    # editable one is not, so the conftest marks it the same way here.
    (project / "tests" / "conftest.py").write_text(
        "import pytest\n\npytest.register_assert_rewrite('reflection_core')\n"
    )
    (project / "tests" / "test_loader.py").write_text(
        "import sys\n\n"
        "def test_config_loaded_as_any_module():\n"
        "    loader = sys.modules['reflection_core.config'].__loader__\n"
        "    assert type(loader).__name__ != 'AssertionRewritingHook'\n"
    )
    assert run_pytest(project, "-W", "ignore::pytest.PytestAssertRewriteWarning") == 0
    (stamp,) = ledger.read(project)
    assert stamp.passed and stamp.counts["passed"] == 3


@pytest.mark.parametrize("option", ["--collect-only", "--setup-plan", "--fixtures"])
def test_runs_that_run_no_tests_record_nothing(project: Path, option: str) -> None:
    assert run_pytest(project, option) == 0
    assert ledger.read(project) == []


def test_outside_a_git_repository_the_plugin_does_nothing(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    (plain / "tests").mkdir(parents=True)
    (plain / "tests" / "test_x.py").write_text("def test_x():\n    assert True\n")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=plain,
        env=env(),
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0 and "reflection" not in proc.stderr
    assert not list(plain.rglob("ledger.jsonl"))


def test_commit_gate_refuses_until_tests_pass_and_again_after_an_edit(project: Path) -> None:
    install_native_hooks(project)
    (project / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    git(project, "add", "-A")
    refused = commit(project)
    assert refused.returncode != 0
    assert "refusing the commit: no passing test run" in refused.stderr
    assert "python -m pytest" in refused.stderr

    assert run_pytest(project) == 0
    accepted = commit(project)
    assert accepted.returncode == 0, accepted.stderr

    (project / "src" / "calc.py").write_text("def add(a, b):\n    return a + b + 0\n")
    git(project, "add", "-A")
    again = commit(project)
    assert again.returncode != 0
    assert "Changed since that run:\n    src/calc.py" in again.stderr


def test_a_uv_locked_project_is_told_to_run_uv_and_a_pytest_run_unlocks_it(
    project: Path,
) -> None:
    # The tests need uv's environment: the refusal names `uv run pytest`, and the run the
    # plugin records (whatever launched pytest) is that suite.
    install_native_hooks(project)
    (project / "uv.lock").write_text("version = 1\n")
    (project / "pyproject.toml").write_text('[project]\nname = "calc"\nversion = "0.1.0"\n')
    git(project, "add", "-A")
    refused = commit(project)
    assert refused.returncode != 0 and "uv run pytest" in refused.stderr, refused.stderr
    assert run_pytest(project) == 0
    accepted = commit(project)
    assert accepted.returncode == 0, accepted.stderr


def test_a_docs_only_change_needs_no_new_run(project: Path) -> None:
    install_native_hooks(project)
    assert run_pytest(project) == 0
    (project / "docs" / "guide.md").write_text("Guide, improved\n")
    (project / "README.md").write_text("# calc\n\nMore words.\n")
    git(project, "add", "-A")
    result = commit(project)
    assert result.returncode == 0, result.stderr


def test_a_partial_run_does_not_unlock_the_commit_unless_allowed(project: Path) -> None:
    install_native_hooks(project)
    (project / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    git(project, "add", "-A")
    assert run_pytest(project, "-k", "zero") == 0
    refused = commit(project)
    assert refused.returncode != 0 and "a partial run (selected with -k)" in refused.stderr
    (project / ".reflection.yaml").write_text("tests:\n  allow_partial: true\n")
    git(project, "add", "-A")
    assert run_pytest(project, "-k", "zero") == 0
    assert commit(project).returncode == 0


def test_a_failed_run_on_the_staged_tree_refuses_the_commit(project: Path) -> None:
    install_native_hooks(project)
    (project / "src" / "calc.py").write_text("def add(a, b):\n    return a * b\n")
    git(project, "add", "-A")
    assert run_pytest(project) == 1
    refused = commit(project)
    assert refused.returncode != 0
    assert "the latest test run on this tree failed" in refused.stderr


def test_a_run_that_cannot_collect_a_test_file_refuses_the_commit_as_failed(
    project: Path,
) -> None:
    install_native_hooks(project)
    (project / "src" / "calc.py").write_text("this is a syntax error(\n")
    git(project, "add", "-A")
    assert run_pytest(project) == 2
    refused = commit(project)
    assert refused.returncode != 0
    assert "the latest test run on this tree failed" in refused.stderr
    assert "error collecting tests/test_calc.py" in refused.stderr
    assert "no tests ran" not in refused.stderr


def test_with_the_ledger_off_the_gate_passes(project: Path) -> None:
    install_native_hooks(project)
    (project / ".reflection.yaml").write_text("tests:\n  ledger: false\n")
    git(project, "add", "-A")
    assert commit(project).returncode == 0


def test_a_corrupt_ledger_line_is_survived_by_the_gate(project: Path) -> None:
    install_native_hooks(project)
    assert run_pytest(project) == 0
    path = ledger.ledger_path(project)
    path.write_bytes(b"{broken\n" + path.read_bytes())
    (project / "docs" / "guide.md").write_text("more\n")
    git(project, "add", "-A")
    result = commit(project)
    assert result.returncode == 0, result.stderr
    assert "skipped a corrupt line" in result.stderr


def test_a_passing_run_after_a_truncated_ledger_line_unlocks_the_commit(project: Path) -> None:
    install_native_hooks(project)
    assert run_pytest(project) == 0
    path = ledger.ledger_path(project)
    with path.open("ab") as torn:  # a recorder killed mid-write
        torn.write(b'{"argv": ["pyt')
    (project / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    git(project, "add", "-A")
    assert run_pytest(project) == 0
    result = commit(project)
    assert result.returncode == 0, result.stderr


def test_pre_push_needs_evidence_for_every_pushed_commit(project: Path, tmp_path: Path) -> None:
    make_bare_remote(tmp_path / "remote.git", project)
    git(project, "push", "-q", "origin", "main")
    install_native_hooks(project)
    (project / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    git(project, "add", "-A")
    git(project, "commit", "-q", "--no-verify", "-m", "untested change")
    push = ["git", "push", "-q", "origin", "feature"]
    refused = subprocess.run(push, cwd=project, env=env(), capture_output=True, text=True)
    assert refused.returncode != 0
    assert "refusing the push of" in refused.stderr and "(untested change)" in refused.stderr
    assert run_pytest(project) == 0
    accepted = subprocess.run(push, cwd=project, env=env(), capture_output=True, text=True)
    assert accepted.returncode == 0, accepted.stderr


def test_reflection_run_records_one_stamp_with_partial_detection(project: Path) -> None:
    full = subprocess.run(
        [str(REFLECTION), "run", "--", sys.executable, "-m", "pytest", "-q"],
        cwd=project,
        env=env(),
        capture_output=True,
        text=True,
    )
    assert full.returncode == 0, full.stderr
    assert "2 passed" in full.stdout  # the command's output streams through
    partial = subprocess.run(
        [str(REFLECTION), "run", "--", sys.executable, "-m", "pytest", "-q", "-k", "zero"],
        cwd=project,
        env=env(),
        capture_output=True,
        text=True,
    )
    assert partial.returncode == 0
    failing = subprocess.run(
        [str(REFLECTION), "run", "--", "sh", "-c", "exit 7"],
        cwd=project,
        env=env(),
    )
    assert failing.returncode == 7
    stamps = ledger.read(project)
    # pytest commands are recorded by the plugin (it sees pytest's own selection)
    assert [(s.source, s.partial, s.exit_code) for s in stamps] == [
        ("pytest", False, 0),
        ("pytest", True, 0),
        ("run", False, 7),
    ]
    assert all(s.tree == worktree_tree(project) for s in stamps)


def test_check_tests_reports_evidence_as_json(project: Path) -> None:
    assert run_pytest(project) == 0
    result = subprocess.run(
        [str(REFLECTION), "check", "tests", "--json"],
        cwd=project,
        env=env(),
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0
    data = json.loads(result.stdout)
    assert data["passed"] and data["exact"] and data["stamp"]["source"] == "pytest"
    (project / "src" / "calc.py").write_text("changed = True\n")
    stale = subprocess.run(
        [str(REFLECTION), "check", "tests"], cwd=project, env=env(), capture_output=True, text=True
    )
    assert stale.returncode == 1 and "src/calc.py" in stale.stderr


def test_repeated_checks_agree_whether_or_not_the_tree_changed_between_them(
    project: Path,
) -> None:
    """The second check compares trees while git scans (it expects the last scan's tree);
    the third finds the tree changed and compares afterwards."""
    assert run_pytest(project) == 0
    (project / "docs" / "guide.md").write_text("Guide, edited\n")

    def check() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(REFLECTION), "check", "tests"],
            cwd=project,
            env=env(),
            capture_output=True,
            text=True,
        )

    first, second = check(), check()
    assert first.returncode == second.returncode == 0
    assert first.stdout == second.stdout and "differs only in ignorable paths" in second.stdout
    (project / "src" / "calc.py").write_text("changed = True\n")
    third = check()
    assert third.returncode == 1 and "src/calc.py" in third.stderr
    assert "docs/guide.md" not in third.stderr  # ignorable: no reason to refuse, not listed


def test_concurrent_recorders_lose_no_stamps(project: Path) -> None:
    procs = [
        subprocess.Popen(
            [str(REFLECTION), "run", "--", "sh", "-c", f"exit {n}"],
            cwd=project,
            env=env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for n in range(6)
    ]
    assert sorted(p.wait(timeout=120) for p in procs) == list(range(6))
    stamps = ledger.read(project)
    assert sorted(s.exit_code for s in stamps) == list(range(6))


def push_feature(project: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "push", "-q", "origin", "feature"],
        cwd=project,
        env=env(),
        capture_output=True,
        text=True,
    )


def commit_untested(project: Path, count: int) -> None:
    for n in range(count):
        (project / "src" / f"m{n}.py").write_text(f"N = {n}\n")
        git(project, "add", "-A")
        git(project, "commit", "-q", "--no-verify", "-m", f"untested {n}")


def test_a_push_names_a_few_unproven_commits_and_counts_the_rest(
    project: Path, tmp_path: Path
) -> None:
    make_bare_remote(tmp_path / "remote.git", project)
    git(project, "push", "-q", "origin", "main")
    install_native_hooks(project)
    commit_untested(project, 5)
    refused = push_feature(project)
    assert refused.returncode != 0
    assert refused.stderr.count("refusing the push of") == 3
    assert "... and 2 more pushed commits without test evidence" in refused.stderr


def test_a_first_push_of_a_long_history_checks_the_tips_only(project: Path, tmp_path: Path) -> None:
    make_bare_remote(tmp_path / "remote.git", project)
    install_native_hooks(project)
    commit_untested(project, 55)
    assert run_pytest(project) == 0
    result = push_feature(project)
    assert result.returncode == 0, result.stderr
    assert "56 new commits in this push; checking the tip of each pushed ref only" in result.stderr


def test_commit_all_and_commit_of_named_paths_check_the_tree_being_committed(
    project: Path,
) -> None:
    """git hands hooks a temporary index for `commit -a` and `commit <path>`."""
    install_native_hooks(project)
    (project / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    assert run_pytest(project) == 0
    result = subprocess.run(
        ["git", "commit", "-q", "-a", "-m", "all"],
        cwd=project,
        env=env(),
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    (project / "src" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (project / "README.md").write_text("# calc, tested\n")
    assert run_pytest(project) == 0  # ran on calc.py + README.md changes
    only_code = subprocess.run(
        ["git", "commit", "-q", "-m", "code only", "--", "src/calc.py"],
        cwd=project,
        env=env(),
        capture_output=True,
        text=True,
    )
    assert only_code.returncode == 0, only_code.stderr  # differs only in README.md: ignorable


def test_committing_part_of_a_tested_tree_is_refused(project: Path) -> None:
    """Tests ran with an uncommitted helper present; the commit without it was never tested."""
    install_native_hooks(project)
    (project / "src" / "calc.py").write_text(
        "from helper import K\n\ndef add(a, b):\n    return a + b + K\n"
    )
    (project / "src" / "helper.py").write_text("K = 0\n")
    assert run_pytest(project) == 0
    partial = subprocess.run(
        ["git", "commit", "-q", "-m", "calc only", "--", "src/calc.py"],
        cwd=project,
        env=env(),
        capture_output=True,
        text=True,
    )
    assert partial.returncode != 0
    assert "src/helper.py" in partial.stderr
    git(project, "add", "src/helper.py", "src/calc.py")
    assert commit(project, "both").returncode == 0


def test_a_refusal_names_the_latest_run_and_not_the_docs_beside_it(project: Path) -> None:
    """Two passing runs: the latest had an untracked module and a notes file the commit
    leaves out, the earlier one lacks the staged change. The refusal names the latest run
    and its untracked module, with the ways out, and not the notes file."""
    install_native_hooks(project)
    assert run_pytest(project) == 0
    (project / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    (project / "src" / "scratch.py").write_text("X = 1\n")
    (project / "NOTES.md").write_text("notes\n")
    assert run_pytest(project) == 0
    git(project, "add", "src/calc.py")
    refused = commit(project)
    assert refused.returncode != 0
    assert "1 file(s) changed since the nearest passing run" in refused.stderr
    assert "Untracked files (not part of this commit" in refused.stderr
    assert "git add src/scratch.py" in refused.stderr
    assert "NOTES.md" not in refused.stderr
    assert "Changed since that run" not in refused.stderr


@pytest.mark.parametrize(
    "testpaths, partial",
    [("tests integration", True), ("", False)],
    ids=["other-testpaths-left-out", "every-test-file-below"],
)
def test_a_run_from_a_subdirectory_without_paths_covers_only_that_directory(
    tmp_path: Path, testpaths: str, partial: bool
) -> None:
    files = {
        "pytest.ini": f"[pytest]\ntestpaths = {testpaths}\n" if testpaths else "[pytest]\n",
        "tests/test_a.py": "def test_a():\n    assert True\n",
    }
    if partial:
        files["integration/test_b.py"] = "def test_b():\n    assert False\n"
    repo = make_repo(tmp_path / "subdir-run", files=files)
    assert run_pytest(repo / "tests") == 0
    (stamp,) = ledger.read(repo)
    assert stamp.partial is partial
    if partial:
        assert "run from tests/ with no paths, so pytest collected only that directory" in (
            stamp.notes
        )


def test_one_project_passing_does_not_hide_another_failing_on_the_same_tree(
    tmp_path: Path,
) -> None:
    """Two projects in one repository: `cd svc_b && pytest` fails, then `cd svc_a && pytest`
    passes on the same tree. The tree has not passed: svc_b's run is not covered."""
    files = {
        "svc_a/pyproject.toml": "[project]\nname = 'a'\nversion = '0'\n",
        "svc_a/tests/test_a.py": "def test_a():\n    assert True\n",
        "svc_b/pyproject.toml": "[project]\nname = 'b'\nversion = '0'\n",
        "svc_b/tests/test_b.py": "def test_b():\n    assert False\n",
    }
    repo = make_repo(tmp_path / "two-projects", files=files)
    assert run_pytest(repo / "svc_b") == 1
    assert run_pytest(repo / "svc_a") == 0
    check = subprocess.run(
        [str(REFLECTION), "check", "tests"], cwd=repo, env=env(), capture_output=True, text=True
    )
    assert check.returncode == 1, check.stdout + check.stderr
    assert "svc_b failed" in check.stdout + check.stderr
