"""`reflection check branch|tests --ci` with a simulated GitHub Actions environment.

The GitHub REST API is a real HTTP server on 127.0.0.1; the clone is a real
(shallow, detached) git checkout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.gitutil import GIT_ENV, git, make_repo

REFLECTION = Path(sys.executable).parent / "reflection"


class FakeGithub:
    """Answers `GET /repos/{repo}/commits/{sha}/pulls` with a configured status and body."""

    def __init__(self) -> None:
        self.status = 200
        self.body: Any = []
        self.requests: list[tuple[str, str]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                fake.requests.append((self.path, self.headers.get("Authorization", "")))
                payload = json.dumps(fake.body).encode()
                self.send_response(fake.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def github() -> Iterator[FakeGithub]:
    fake = FakeGithub()
    yield fake
    fake.close()


def ci_env(repo: Path, **extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GH_", "PYTEST_"))}
    sha = git(repo, "rev-parse", "HEAD").strip()
    return {
        **base,
        **GIT_ENV,
        "CI": "true",
        "GITHUB_EVENT_NAME": "push",
        "GITHUB_REF": "refs/heads/main",
        "GITHUB_SHA": sha,
        "GITHUB_REPOSITORY": "octo/calc",
        "GITHUB_ACTOR": "dev",
        **extra,
    }


def check(
    repo: Path, env: dict[str, str], what: str = "branch"
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(REFLECTION), "check", what, "--ci"], cwd=repo, env=env, capture_output=True, text=True
    )


def test_push_to_main_through_a_merged_pull_request_passes(
    git_repo: Path, github: FakeGithub
) -> None:
    github.body = [{"number": 5, "merged_at": "2026-01-01T00:00:00Z", "base": {"ref": "main"}}]
    env = ci_env(git_repo, GITHUB_API_URL=github.url, GITHUB_TOKEN="t0ken")
    result = check(git_repo, env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "came through pull request #5" in result.stdout
    sha = env["GITHUB_SHA"]
    assert github.requests == [(f"/repos/octo/calc/commits/{sha}/pulls", "Bearer t0ken")]


def test_direct_push_to_main_fails_with_an_annotation(git_repo: Path, github: FakeGithub) -> None:
    github.body = []
    result = check(git_repo, ci_env(git_repo, GITHUB_API_URL=github.url, GITHUB_TOKEN="t"))
    assert result.returncode == 1
    errors = [line for line in result.stdout.splitlines() if line.startswith("::error")]
    assert errors and errors[0].startswith("::error title=reflection::commit ")
    assert "pushed straight to protected branch 'main'" in result.stdout


def test_api_failure_falls_back_to_merge_commit_heuristics(
    git_repo: Path, github: FakeGithub
) -> None:
    github.status = 500
    git(git_repo, "switch", "-q", "-c", "feat")
    (git_repo / "a.txt").write_text("a")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "feature work")
    git(git_repo, "switch", "-q", "main")
    git(git_repo, "merge", "-q", "--no-ff", "feat", "-m", "Merge pull request #9 from octo/feat")
    merged = check(git_repo, ci_env(git_repo, GITHUB_API_URL=github.url, GITHUB_TOKEN="t"))
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert "GitHub API answered HTTP 500; using merge-commit heuristics" in merged.stdout
    assert "names pull request #9" in merged.stdout


def test_without_a_token_no_request_is_made(git_repo: Path, github: FakeGithub) -> None:
    (git_repo / "b.txt").write_text("b")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "hotfix straight on main")
    result = check(git_repo, ci_env(git_repo, GITHUB_API_URL=github.url))
    assert result.returncode == 1
    assert "no GITHUB_TOKEN; using merge-commit heuristics" in result.stdout
    assert "does not look like a pull request merge" in result.stdout
    assert github.requests == []


def test_pull_request_events_on_a_detached_checkout_pass(
    git_repo: Path, github: FakeGithub
) -> None:
    git(git_repo, "checkout", "-q", "--detach")
    env = ci_env(
        git_repo,
        GITHUB_EVENT_NAME="pull_request",
        GITHUB_REF="refs/pull/3/merge",
        GITHUB_HEAD_REF="feat",
        GITHUB_BASE_REF="main",
        GITHUB_API_URL=github.url,
        GITHUB_TOKEN="t",
    )
    result = check(git_repo, env)
    assert result.returncode == 0 and "feat -> main" in result.stdout
    assert github.requests == []


def test_shallow_clone_missing_the_commit_fails_closed_offline(
    git_repo: Path, tmp_path: Path
) -> None:
    for n in range(3):
        (git_repo / f"f{n}.txt").write_text(str(n))
        git(git_repo, "add", "-A")
        git(git_repo, "commit", "-q", "-m", f"commit {n} (#{n + 10})")
    old_sha = git(git_repo, "rev-parse", "HEAD~2").strip()
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{git_repo}", str(clone))
    env = ci_env(clone)
    shallow_ok = check(clone, env)  # the head commit is in the shallow clone: subject says (#12)
    assert shallow_ok.returncode == 0, shallow_ok.stdout + shallow_ok.stderr
    missing = check(clone, {**env, "GITHUB_SHA": old_sha})
    assert missing.returncode == 1 and "not in this clone" in missing.stdout


def test_check_tests_ci_explains_the_workflow_and_passes_after_a_recorded_run(
    tmp_path: Path,
) -> None:
    repo = make_repo(
        tmp_path / "calc",
        files={"tests/test_x.py": "def test_x():\n    assert True\n", "pytest.ini": "[pytest]\n"},
    )
    git(repo, "checkout", "-q", "--detach")
    env = ci_env(repo)
    empty = check(repo, env, "tests")
    assert empty.returncode == 1
    assert "::error title=reflection::no test run is recorded in this job" in empty.stdout
    run = subprocess.run(
        [str(REFLECTION), "run", "--", sys.executable, "-m", "pytest", "-q"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    result = check(repo, env, "tests")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "tests passed on this tree" in result.stdout


def commit_config(repo: Path, text: str, message: str) -> str:
    (repo / ".reflection.yaml").write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def push_event(tmp_path: Path, before: str) -> str:
    path = tmp_path / "event.json"
    path.write_text(json.dumps({"before": before}))
    return str(path)


ALLOW_BOT = "guards:\n  allow_push: ['release-bot']\n"


def bot_release_after_allowing_it(repo: Path) -> str:
    """Commit a config that allows the release bot, then a release on top; the first sha."""
    before = commit_config(repo, ALLOW_BOT, "allow the release bot")
    (repo / "VERSION").write_text("1.0.1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "release 1.0.1")
    return before


def test_a_bot_the_branch_already_allowed_may_push_to_main(
    git_repo: Path, tmp_path: Path, github: FakeGithub
) -> None:
    before = bot_release_after_allowing_it(git_repo)
    env = ci_env(git_repo, GITHUB_ACTOR="release-bot", GITHUB_API_URL=github.url)
    result = check(git_repo, {**env, "GITHUB_EVENT_PATH": push_event(tmp_path, before)})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "allowed by guards.allow_push" in result.stdout


def test_an_allow_list_entry_added_by_the_push_itself_does_not_count(
    git_repo: Path, tmp_path: Path, github: FakeGithub
) -> None:
    before = git(git_repo, "rev-parse", "HEAD").strip()
    commit_config(git_repo, ALLOW_BOT, "let me push")
    env = ci_env(git_repo, GITHUB_ACTOR="release-bot", GITHUB_API_URL=github.url)
    result = check(git_repo, {**env, "GITHUB_EVENT_PATH": push_event(tmp_path, before)})
    assert result.returncode == 1
    assert "entries added by this push do not count for it: 'release-bot'" in result.stdout
    assert "does not look like a pull request merge" in result.stdout


def test_a_clone_without_the_previous_tip_honours_no_allow_list_entry(
    git_repo: Path, tmp_path: Path, github: FakeGithub
) -> None:
    before = bot_release_after_allowing_it(git_repo)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{git_repo}", str(clone))
    env = ci_env(clone, GITHUB_ACTOR="release-bot", GITHUB_API_URL=github.url)
    result = check(clone, {**env, "GITHUB_EVENT_PATH": push_event(tmp_path, before)})
    assert result.returncode == 1
    assert "fetch-depth: 2 or more" in result.stdout


ZERO = "0" * 40


def test_a_push_cannot_unprotect_the_branch_it_pushes_to(
    git_repo: Path, tmp_path: Path, github: FakeGithub
) -> None:
    before = git(git_repo, "rev-parse", "HEAD").strip()
    commit_config(git_repo, "protected_branches: []\n", "direct change that unprotects main")
    env = ci_env(git_repo, GITHUB_ACTOR="mallory", GITHUB_API_URL=github.url)
    result = check(git_repo, {**env, "GITHUB_EVENT_PATH": push_event(tmp_path, before)})
    assert result.returncode == 1, result.stdout + result.stderr
    assert "rules this push removes still apply to it" in result.stdout
    assert "'main'" in result.stdout
    assert "does not look like a pull request merge" in result.stdout


def test_rules_the_branch_had_count_beside_the_pushed_ones(
    git_repo: Path, tmp_path: Path, github: FakeGithub
) -> None:
    commit_config(git_repo, "protected_branches: ['trunk']\n", "protect trunk")
    git(git_repo, "switch", "-q", "-c", "trunk")
    before = git(git_repo, "rev-parse", "HEAD").strip()
    commit_config(git_repo, "protected_branches: ['main']\n", "trunk is free now")
    env = ci_env(git_repo, GITHUB_REF="refs/heads/trunk", GITHUB_API_URL=github.url)
    result = check(git_repo, {**env, "GITHUB_EVENT_PATH": push_event(tmp_path, before)})
    assert result.returncode == 1, result.stdout + result.stderr
    assert "'trunk'" in result.stdout


def test_without_the_previous_tip_the_defaults_still_protect(
    git_repo: Path, tmp_path: Path, github: FakeGithub
) -> None:
    before = git(git_repo, "rev-parse", "HEAD").strip()
    commit_config(git_repo, "protected_branches: ['release/*']\n", "main is free now")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{git_repo}", str(clone))
    env = ci_env(clone, GITHUB_API_URL=github.url)
    result = check(clone, {**env, "GITHUB_EVENT_PATH": push_event(tmp_path, before)})
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"previous tip {before[:12]} is not in this clone" in result.stdout
    assert "plus the defaults ('main', 'master')" in result.stdout
    no_event = check(clone, env)
    assert no_event.returncode == 1
    assert "the push's `before` is unknown" in no_event.stdout


def new_repository_pushed(tmp_path: Path) -> tuple[Path, Path]:
    """A repository whose first commit was pushed to an empty bare remote, and a CI
    clone of that remote."""
    repo = make_repo(tmp_path / "new", files={"a.txt": "a\n"})
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "--no-verify", "origin", "main")
    clone = tmp_path / "ci"
    git(tmp_path, "clone", "-q", "--depth", "2", "-b", "main", f"file://{remote}", str(clone))
    return repo, clone


def test_the_first_push_of_a_new_repository_passes_as_the_push_guard_allows_it(
    tmp_path: Path, github: FakeGithub
) -> None:
    _, clone = new_repository_pushed(tmp_path)
    env = ci_env(clone, GITHUB_API_URL=github.url, GITHUB_TOKEN="t")
    result = check(clone, {**env, "GITHUB_EVENT_PATH": push_event(tmp_path, ZERO)})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "its first push, allowed (protection applies from the next push)" in result.stdout
    assert github.requests == []


def test_creating_a_protected_branch_beside_others_is_not_a_first_push(
    tmp_path: Path, github: FakeGithub
) -> None:
    repo, _ = new_repository_pushed(tmp_path)
    commit_config(repo, "protected_branches: ['main', 'release/*']\n", "protect releases")
    git(repo, "push", "-q", "--no-verify", "origin", "main")
    git(repo, "push", "-q", "--no-verify", "origin", "main:release/1")
    clone = tmp_path / "ci-release"
    remote = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "-b", "release/1", f"file://{remote}", str(clone))
    env = ci_env(clone, GITHUB_REF="refs/heads/release/1", GITHUB_API_URL=github.url)
    result = check(clone, {**env, "GITHUB_EVENT_PATH": push_event(tmp_path, ZERO)})
    assert result.returncode == 1, result.stdout + result.stderr
    assert "origin also has refs/heads/main: not a new repository's first push" in result.stdout
    assert "does not look like a pull request merge" in result.stdout


def run_recorded_tests(repo: Path, env: dict[str, str]) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def ci_checkout(tmp_path: Path) -> Path:
    files = {"tests/test_x.py": "def test_x():\n    assert True\n", "pytest.ini": "[pytest]\n"}
    repo = make_repo(tmp_path / "calc", files=files)
    git(repo, "checkout", "-q", "--detach")
    return repo


def test_untracked_build_output_in_the_checkout_leaves_the_tests_evidence_alone(
    tmp_path: Path,
) -> None:
    repo = ci_checkout(tmp_path)
    for made in ("build/lib/calc/__init__.py", "dist/calc-0.1.tar.gz", "venv/bin/python"):
        (repo / made).parent.mkdir(parents=True, exist_ok=True)
        (repo / made).write_text("output\n")
    env = ci_env(repo)
    run_recorded_tests(repo, env)
    result = check(repo, env, "tests")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "tests passed on this tree" in result.stdout


def test_an_untracked_file_an_earlier_step_wrote_gets_advice_a_rerun_cannot_replace(
    tmp_path: Path,
) -> None:
    repo = ci_checkout(tmp_path)
    (repo / ".env.ci").write_text("TOKEN=x\n")
    env = ci_env(repo)
    run_recorded_tests(repo, env)
    result = check(repo, env, "tests")
    assert result.returncode == 1
    text = result.stdout.replace("%0A", "\n")
    assert "Untracked in this job's checkout" in text and "    .env.ci" in text
    assert "printf '%25s\\n' .env.ci >> .git/info/exclude" in text
    assert "Run the full test suite" not in text
    (repo / ".git" / "info" / "exclude").write_text(".env.ci\n")
    run_recorded_tests(repo, env)  # as the advice says: left out, then the tests again
    assert check(repo, env, "tests").returncode == 0


def test_a_tracked_file_under_build_still_needs_a_test_run(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "calc",
        files={"tests/test_x.py": "def test_x():\n    assert True\n", "build/tool.py": "A = 1\n"},
    )
    env = ci_env(repo)
    run_recorded_tests(repo, env)
    (repo / "build" / "tool.py").write_text("A = 2\n")
    git(repo, "commit", "-q", "-am", "change the tracked build tool")
    result = check(repo, ci_env(repo), "tests")
    assert result.returncode == 1 and "build/tool.py" in result.stdout


def test_check_tests_ci_json_prints_one_json_document_on_stdout(tmp_path: Path) -> None:
    repo = ci_checkout(tmp_path)

    def check_json() -> subprocess.CompletedProcess[str]:
        argv = [str(REFLECTION), "check", "tests", "--ci", "--json"]
        return subprocess.run(argv, cwd=repo, env=ci_env(repo), capture_output=True, text=True)

    nothing_recorded = check_json()
    run_recorded_tests(repo, ci_env(repo))
    (repo / "tests" / "test_x.py").write_text("def test_x():\n    assert 1\n")
    git(repo, "commit", "-q", "-am", "another tree")
    another_tree = check_json()
    for result in (nothing_recorded, another_tree):
        assert result.returncode == 1
        assert json.loads(result.stdout)["passed"] is False
        assert result.stderr.startswith("::error title=reflection::")


def test_an_empty_ledger_names_the_projects_own_test_command(tmp_path: Path) -> None:
    files = {
        "go.mod": "module example.com/x\n\ngo 1.22\n",
        "x.go": "package x\n\nfunc Add(a, b int) int { return a + b }\n",
        "x_test.go": 'package x\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {}\n',
    }
    repo = make_repo(tmp_path / "gox", files=files)
    result = check(repo, ci_env(repo), "tests")
    assert result.returncode == 1
    assert "first in the same job (`reflection run -- go test ./...`)" in result.stdout
    assert "pytest" not in result.stdout


def test_a_shallow_clone_says_what_it_lacks_instead_of_a_raw_git_error(
    git_repo: Path, tmp_path: Path
) -> None:
    (git_repo / "b.txt").write_text("b")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "hotfix straight on main")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{git_repo}", str(clone))
    env = ci_env(clone)
    branch = check(clone, env)
    assert branch.returncode == 1
    assert "its parents are not in this shallow clone" in branch.stdout
    assert "0 parent(s)" not in branch.stdout
    argv = [str(REFLECTION), "check", "tests", "--commit", "HEAD~1"]
    older = subprocess.run(argv, cwd=clone, env=env, capture_output=True, text=True)
    assert older.returncode == 2
    assert "commit HEAD~1 is not in this clone, which is shallow" in older.stderr
    assert "exit status" not in older.stderr
    argv[-1] = "no-such-rev"
    unknown = subprocess.run(argv, cwd=git_repo, env=env, capture_output=True, text=True)
    assert unknown.returncode == 2
    assert "'no-such-rev' does not name a commit in this repository" in unknown.stderr
