"""The real-stops replay's stand-in repository, rebuilt from synthetic transcripts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reflection_core.evals import replay_repo
from reflection_core.evals.real_stops import make_stand_in_repo
from reflection_core.evals.replay_repo import (
    TranscriptFacts,
    rebuilt_files,
    relative_path,
    scan_transcript,
    write_repo,
)
from reflection_core.project import repo_signals

CWD = "/home/dev/shop"


class Transcript:
    """JSONL records in the host's shape: a tool call, then its result."""

    def __init__(self, cwd: str = CWD) -> None:
        self.cwd = cwd
        self.records: list[dict[str, Any]] = []

    def call(
        self,
        name: str,
        tool_input: dict[str, Any],
        result: str = "",
        *,
        error: bool = False,
        structured: Any = None,
    ) -> Transcript:
        use_id = f"toolu_{len(self.records)}"
        self.records.append(
            {
                "type": "assistant",
                "cwd": self.cwd,
                "message": {
                    "role": "assistant",
                    "content": [
                        {"type": "tool_use", "id": use_id, "name": name, "input": tool_input}
                    ],
                },
            }
        )
        reply: dict[str, Any] = {
            "type": "user",
            "cwd": self.cwd,
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": use_id,
                        "content": result,
                        "is_error": error,
                    }
                ],
            },
        }
        if structured is not None:
            reply["toolUseResult"] = structured
        self.records.append(reply)
        return self

    def bash(self, command: str, ok: bool = True) -> Transcript:
        return self.call("Bash", {"command": command}, "out", error=not ok)

    def lines(self) -> list[str]:
        return [json.dumps(r) for r in self.records]

    def facts(self) -> TranscriptFacts:
        return scan_transcript(self.lines())

    def files(self, session_has_tests: bool = False) -> dict[str, str]:
        return rebuilt_files(self.facts(), session_has_tests)


PACKAGE = json.dumps({"scripts": {"test": "vitest run", "build": "vite build"}})


def test_a_read_manifest_is_rebuilt_with_its_contents() -> None:
    numbered = "\n".join(f"{i + 1:>6}→{line}" for i, line in enumerate(PACKAGE.splitlines()))
    files = Transcript().call("Read", {"file_path": f"{CWD}/package.json"}, numbered).files()
    assert json.loads(files["package.json"]) == json.loads(PACKAGE)


def test_a_reminder_the_host_appends_to_a_read_is_not_file_text() -> None:
    numbered = f"     1→{PACKAGE}\n\n<system-reminder>\nThink about it.\n</system-reminder>\n"
    files = Transcript().call("Read", {"file_path": f"{CWD}/package.json"}, numbered).files()
    assert json.loads(files["package.json"]) == json.loads(PACKAGE)


def test_the_structured_read_result_wins_over_the_numbered_text() -> None:
    structured = {"type": "text", "file": {"filePath": f"{CWD}/go.mod", "content": "module x\n"}}
    files = (
        Transcript()
        .call("Read", {"file_path": f"{CWD}/go.mod"}, "garbled", structured=structured)
        .files()
    )
    assert files == {"go.mod": "module x\n"}


def test_writes_and_edits_give_the_latest_contents() -> None:
    transcript = (
        Transcript()
        .call("Write", {"file_path": f"{CWD}/Makefile", "content": "build:\n\tcc a.c\n"})
        .call(
            "Edit",
            {
                "file_path": f"{CWD}/Makefile",
                "old_string": "build:",
                "new_string": "test:\n\tpytest\nbuild:",
            },
        )
    )
    assert transcript.files()["Makefile"] == "test:\n\tpytest\nbuild:\n\tcc a.c\n"


def test_an_edit_applies_to_the_original_file_the_host_recorded() -> None:
    structured = {"originalFile": "[project]\nname = 'x'\n", "filePath": f"{CWD}/pyproject.toml"}
    files = (
        Transcript()
        .call(
            "Edit",
            {
                "file_path": f"{CWD}/pyproject.toml",
                "old_string": "[project]",
                "new_string": "[tool.pytest.ini_options]\n[project]",
            },
            structured=structured,
        )
        .files()
    )
    assert files["pyproject.toml"].startswith("[tool.pytest.ini_options]")


def test_touched_test_files_are_kept_and_source_files_are_not() -> None:
    transcript = (
        Transcript()
        .call(
            "Edit", {"file_path": f"{CWD}/tests/test_cart.py", "old_string": "a", "new_string": "b"}
        )
        .call("Write", {"file_path": f"{CWD}/src/cart.py", "content": "x = 1\n"})
        .call("Read", {"file_path": f"{CWD}/web/package.json"}, PACKAGE)
    )
    assert transcript.files() == {"tests/test_cart.py": ""}


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("cargo test", "cargo test"),
        ("go test ./... && go vet ./...", "go test ./..."),
        ("pnpm test", "pnpm test"),
        ("make test", "make test"),
        ("python -m pytest -q", "python -m pytest"),
        ("./gradlew test", "./gradlew test"),
        (f"cd {CWD} && npm test", "npm test"),
    ],
)
def test_a_check_that_worked_gives_its_repository_the_same_command(
    tmp_path: Path, command: str, expected: str
) -> None:
    files = Transcript().bash(command).files()
    assert repo_signals(write_repo(tmp_path, files)).test_command == expected


def test_a_build_that_worked_adds_its_script_to_the_shown_manifest(tmp_path: Path) -> None:
    shown = json.dumps({"name": "web", "scripts": {"start": "node ."}})
    files = (
        Transcript()
        .call("Read", {"file_path": f"{CWD}/package.json"}, structured={"file": {"content": shown}})
        .bash("npm run build")
        .files()
    )
    signals = repo_signals(write_repo(tmp_path, files))
    assert signals.build_command == "npm run build" and signals.run_command == "npm start"


@pytest.mark.parametrize(
    "command",
    ["cargo test", "cd web && npm test", "cd .. && go test ./..."],
)
def test_checks_that_failed_or_ran_elsewhere_add_nothing(command: str) -> None:
    ok = command != "cargo test"
    assert Transcript().bash(command, ok=ok).files() == {}


@pytest.mark.parametrize(
    "path",
    [
        "/etc/passwd",
        "/home/dev/shop/../other/package.json",
        "/home/dev/shopping/package.json",
        "../package.json",
        f"{CWD}/.git/hooks/pre-commit",
        f"{CWD}/-rf/test_x.py",
        "C:/Users/dev/package.json",
        "",
        None,
        f"{CWD}/a\0b",
    ],
)
def test_paths_outside_the_working_directory_are_refused(path: Any) -> None:
    assert relative_path(path, CWD) is None


def test_windows_paths_under_the_working_directory_are_relative() -> None:
    assert relative_path("C:\\work\\app\\package.json", "C:\\work\\app") == "package.json"


def test_contents_are_capped() -> None:
    big = "[tool.pytest.ini_options]\n" + "#" * (replay_repo.MAX_FILE_CHARS * 2)
    files = (
        Transcript().call("Write", {"file_path": f"{CWD}/pyproject.toml", "content": big}).files()
    )
    assert len(files["pyproject.toml"]) == replay_repo.MAX_FILE_CHARS


def test_a_test_file_touched_beside_the_code_shows_the_suite_of_a_go_module(
    tmp_path: Path,
) -> None:
    transcript = (
        Transcript()
        .bash("go build ./...")
        .call(
            "Edit", {"file_path": f"{CWD}/api/server_test.go", "old_string": "a", "new_string": "b"}
        )
    )
    files = transcript.files()
    assert "go.mod" in files and "api/server_test.go" in files
    assert repo_signals(write_repo(tmp_path, files)).has_tests
    assert not repo_signals(write_repo(tmp_path, {"go.mod": files["go.mod"]})).has_tests


def test_session_has_tests_is_only_the_fallback_in_the_touched_files_ecosystem() -> None:
    go_only = Transcript().call(
        "Edit", {"file_path": f"{CWD}/api/server.go", "old_string": "a", "new_string": "b"}
    )
    assert "go.mod" in go_only.files(session_has_tests=True)
    assert go_only.files(session_has_tests=False) == {}
    shown = Transcript().bash("cargo test")
    assert shown.files(session_has_tests=True) == shown.files(session_has_tests=False)
    assert "tests/test_sample.py" in Transcript().files(session_has_tests=True)


def test_the_same_files_share_one_repository_and_nothing_lands_outside(tmp_path: Path) -> None:
    first = write_repo(tmp_path, {"go.mod": "module x\n"})
    assert write_repo(tmp_path, {"go.mod": "module x\n"}) == first
    other = write_repo(tmp_path, {"../escape.txt": "x", "/abs.txt": "x", "Cargo.toml": ""})
    assert other != first and (other / "Cargo.toml").is_file()
    assert not (tmp_path / "escape.txt").exists() and not Path("/abs.txt").exists()
    assert (first / ".git").is_dir()


def test_a_transcript_file_stands_in_its_own_repository(tmp_path: Path) -> None:
    transcript = tmp_path / "session.jsonl"
    transcript.write_text("\n".join(Transcript().bash("go test ./...").lines()) + "\n{broken\n")
    root = make_stand_in_repo(tmp_path / "repos", transcript, with_tests=True)
    assert repo_signals(root).test_command == "go test ./..."


@pytest.mark.parametrize("ecosystem", sorted(replay_repo.SYNTHESIZED))
def test_each_synthesized_manifest_makes_the_check_the_projects(
    tmp_path: Path, ecosystem: str
) -> None:
    from reflection_core.project_model import SESSION_COMMANDS

    prefix = next(p for p, e, purpose in SESSION_COMMANDS if e == ecosystem and purpose == "test")
    files = Transcript().bash(" ".join(prefix)).files()
    model = repo_signals(write_repo(tmp_path, files)).model
    assert ecosystem in model.ecosystems and model.text("test") is not None


@pytest.mark.parametrize("ecosystem", sorted(replay_repo.FALLBACK_SUITES))
def test_each_fallback_suite_has_a_test_command(tmp_path: Path, ecosystem: str) -> None:
    signals = repo_signals(write_repo(tmp_path, replay_repo.FALLBACK_SUITES[ecosystem]))
    assert signals.ecosystems[0] == ecosystem and signals.test_command and signals.has_tests
