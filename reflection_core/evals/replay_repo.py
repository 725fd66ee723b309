"""A stand-in repository rebuilt from what a transcript shows, for replaying a real stop.

The user's repository is not there, so the replay rebuilds the part the hook reads: the
manifests and config files the agent read or wrote (with the contents the transcript
shows), the test files it touched, and, for checks that ran and succeeded where no
manifest was seen, the smallest manifest that makes the same check the project's (a
`cargo test` that passed means a Cargo.toml). The label's `session_has_tests` is used
only when the transcript shows none of that.

Transcript paths are untrusted: only paths under the recorded working directory become
files, as relative paths with no `..`, nothing under `.git`, sizes and counts capped.
Nothing from a transcript is ever run.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reflection_core import project_model
from reflection_core.lazyre import lazy
from reflection_core.project_model import (
    CONTENT_FILES,
    ECOSYSTEMS,
    NODE_PACKAGE_MANAGERS,
    TEST_DIRS,
    classify_segment,
    command_segments,
    is_test_file,
    session_model,
)

MAX_FILE_CHARS = 64 * 1024
MAX_FILES = 200
MAX_DEPTH = 8
_LINE_NUMBER = lazy(r"^\s*\d+(?:→|\t)", re.MULTILINE)
_DRIVE = lazy(r"^[A-Za-z]:/")
_REMINDER = lazy(r"\s*<system-reminder>.*?</system-reminder>\s*", re.DOTALL)
# Root files a rebuilt repo keeps: what the project model reads or looks for.
KEPT_ROOT_FILES = frozenset(
    {
        *CONTENT_FILES,
        *(marker for e in ECOSYSTEMS for marker in e.markers if "*" not in marker),
        *(lock for lock, _ in NODE_PACKAGE_MANAGERS),
        *(name for name, _ in project_model.PYTHON_TEST_WRAPPERS),
        "tsconfig.json", "gradlew", "mvnw", ".rspec", "Rakefile", "phpunit.xml",
        "phpunit.xml.dist", "manage.py", "conftest.py",
    }
)  # fmt: skip
# The smallest manifest that makes a check the project's, per (ecosystem, check words).
SYNTHESIZED: dict[str, dict[str, str]] = {
    "go": {"go.mod": "module replay\n"},
    "rust": {"Cargo.toml": '[package]\nname = "replay"\nversion = "0.1.0"\n'},
    "python": {"pytest.ini": "[pytest]\n"},
    "gradle": {"build.gradle": "plugins { id 'java' }\n"},
    "maven": {"pom.xml": "<project></project>\n"},
    "cmake": {"CMakeLists.txt": "enable_testing()\n"},
    "dotnet": {"replay.sln": ""},
    "swift": {"Package.swift": "// swift-tools-version:5.9\n"},
    "elixir": {"mix.exs": ""},
    "deno": {"deno.json": "{}\n"},
    "ruby": {"Gemfile": "", ".rspec": ""},
    "php": {"composer.json": '{"scripts": {"test": "phpunit"}}\n'},
}
NODE_SCRIPT_FOR = {"test": "test", "build": "build", "typecheck": "typecheck", "lint": "lint",
                   "run": "start"}  # fmt: skip
# session_has_tests with nothing else shown: a suite in the ecosystem of the touched files.
FALLBACK_SUITES: dict[str, dict[str, str]] = {
    "python": {
        "pyproject.toml": "[project]\nname = 'sample'\n",
        "tests/test_sample.py": "def test_sample():\n    assert True\n",
    },
    "node": {"package.json": '{"scripts": {"test": "jest"}}\n'},
    "go": {"go.mod": "module replay\n", "sample_test.go": ""},
    "rust": {"Cargo.toml": '[package]\nname = "replay"\n', "tests/sample.rs": ""},
}


@dataclass
class TranscriptFacts:
    """What a transcript shows about its repository."""

    cwd: str | None = None
    contents: dict[str, str | None] = field(default_factory=dict)  # relative path -> text
    commands: list[tuple[str, bool]] = field(default_factory=list)
    touched: list[str] = field(default_factory=list)


def relative_path(path: Any, cwd: str | None) -> str | None:
    """`path` relative to `cwd` when it lies under it; None for anything else (pure)."""
    if not isinstance(path, str) or not path or "\0" in path or len(path) > 1024:
        return None
    path = path.replace("\\", "/")
    base = (cwd or "").replace("\\", "/").rstrip("/")
    if path.startswith("/") or _DRIVE.match(path):
        if not base or not path.lower().startswith(base.lower() + "/"):
            return None
        path = path[len(base) + 1 :]
    rel = posixpath.normpath(path)
    parts = rel.split("/")
    if rel in (".", "") or rel.startswith(("/", "..")) or _DRIVE.match(rel):
        return None
    if ".git" in parts or ".." in parts or len(parts) > MAX_DEPTH:
        return None
    if any(len(part) > 255 or part.startswith("-") for part in parts):
        return None
    return rel


def _read_text(result: Any, block_text: str) -> str:
    """A Read result's file text: the structured copy, else the numbered lines unnumbered
    (without the reminders the host appends to a Read result)."""
    if isinstance(result, dict) and isinstance(result.get("file"), dict):
        content = result["file"].get("content")
        if isinstance(content, str):
            return content
    return _LINE_NUMBER.sub("", _REMINDER.sub("\n", block_text))


def _edited(before: str | None, tool_input: dict[str, Any], result: Any) -> str | None:
    """A file's text after an Edit/MultiEdit, when its text before is known."""
    if isinstance(result, dict) and isinstance(result.get("originalFile"), str):
        before = result["originalFile"]
    if before is None:
        return None
    edits = tool_input.get("edits")
    for edit in edits if isinstance(edits, list) else [tool_input]:
        old, new = edit.get("old_string"), edit.get("new_string")
        if isinstance(old, str) and isinstance(new, str) and old:
            count = -1 if edit.get("replace_all") else 1
            before = before.replace(old, new, count)
    return before


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return ""


@dataclass
class _Call:
    name: str
    input: dict[str, Any]


def _blocks(record: dict[str, Any]) -> list[dict[str, Any]]:
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _apply_result(facts: TranscriptFacts, call: _Call, block: dict[str, Any], result: Any) -> None:
    """What one tool call with its result says about the repository."""
    ok = not block.get("is_error")
    if call.name in ("Bash", "PowerShell"):
        command = call.input.get("command")
        if isinstance(command, str):
            facts.commands.append((command, ok))
        return
    rel = relative_path(call.input.get("file_path"), facts.cwd)
    if rel is None or not ok:
        return
    facts.touched.append(rel)
    if call.name == "Read" and not call.input.get("offset"):
        facts.contents[rel] = _read_text(result, _text_of(block.get("content")))
    elif call.name == "Write" and isinstance(call.input.get("content"), str):
        facts.contents[rel] = call.input["content"]
    elif call.name in ("Edit", "MultiEdit"):
        facts.contents[rel] = _edited(facts.contents.get(rel), call.input, result)


def scan_transcript(lines: Iterable[str]) -> TranscriptFacts:
    """Facts about the repository from a transcript's JSONL lines (pure)."""
    facts = TranscriptFacts()
    calls: dict[str, _Call] = {}
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        if isinstance(record.get("cwd"), str):
            facts.cwd = record["cwd"]
        for block in _blocks(record):
            if block.get("type") == "tool_use" and isinstance(block.get("input"), dict):
                calls[str(block.get("id"))] = _Call(str(block.get("name")), block["input"])
            elif block.get("type") == "tool_result":
                call = calls.pop(str(block.get("tool_use_id")), None)
                if call is not None:
                    _apply_result(facts, call, block, record.get("toolUseResult"))
    return facts


def _kept(rel: str) -> bool:
    """Files a rebuilt repository holds: root manifests and configs, and test files."""
    return rel in KEPT_ROOT_FILES or is_test_file(rel)


def _runs_at_root(command: str, cwd: str | None) -> list[list[str]]:
    """The segments of a command that run in the working directory: up to the first `cd`
    anywhere else (`cd <the working directory> && npm test` stays at the root)."""
    segments = []
    for words in command_segments(command):
        if words[0] in ("cd", "pushd"):
            target = (words[1] if len(words) > 1 else "").replace("\\", "/").rstrip("/")
            if target not in (".", (cwd or "").replace("\\", "/").rstrip("/")):
                break
            continue
        segments.append(words)
    return segments


def _synthesized(facts: TranscriptFacts, shown: Mapping[str, str]) -> dict[str, str]:
    """`shown` plus manifests for the checks that succeeded at the root and that the shown
    files do not already name (pure)."""
    current = dict(shown)
    for command, ok in facts.commands:
        for words in _runs_at_root(command, facts.cwd) if ok else []:
            kind = classify_segment(words)
            if kind is None:
                continue
            model = project_model.model_from_files({**current, **dict.fromkeys(_dirs(current))})
            if any(c.ecosystem == kind[0] for c in model.all(kind[1])):
                continue
            for name, text in _manifest_for(kind, words, current).items():
                if name not in current or name == "package.json":
                    current[name] = text
                elif not name.endswith(".json"):
                    current[name] = current[name].rstrip("\n") + "\n" + text
    return current


def _manifest_for(
    kind: tuple[str, str], words: list[str], current: Mapping[str, str]
) -> dict[str, str]:
    """The smallest files that make `words` the project's command for its purpose."""
    ecosystem, purpose = kind
    args = project_model.program_words(words)
    if ecosystem == "node":
        manager = args[0] if args[0] in ("npm", "pnpm", "yarn", "bun") else "npm"
        manifest = project_model.json_object(current.get("package.json"))
        scripts = manifest.get("scripts")
        scripts = dict(scripts) if isinstance(scripts, dict) else {}
        scripts[NODE_SCRIPT_FOR[purpose]] = " ".join(args)
        lock = next(lock for lock, pm in NODE_PACKAGE_MANAGERS if pm == manager)
        return {"package.json": json.dumps({**manifest, "scripts": scripts}) + "\n", lock: ""}
    if ecosystem in ("make", "just"):
        target = next(a for a in args[1:] if not a.startswith("-") and "=" not in a)
        # what the real recipe runs is not known: a command, not a placeholder (`true`)
        recipe = f"{target}:\n\t./the-recipe-the-session-ran\n"
        return {"Makefile" if ecosystem == "make" else "justfile": recipe}
    files = dict(SYNTHESIZED.get(ecosystem, {}))
    if args[0] in ("./gradlew", "./mvnw"):
        files[args[0][2:]] = ""
    return files


def _dirs(files: Iterable[str]) -> set[str]:
    """`tests/` for `tests/test_x.py`: the directory entries a listing would show."""
    return {f"{path.split('/', 1)[0]}/" for path in files if "/" in path}


def rebuilt_files(facts: TranscriptFacts, session_has_tests: bool) -> dict[str, str]:
    """The files of the stand-in repository (pure): shown, synthesized, or the fallback."""
    shown = {
        rel: (text or "")[:MAX_FILE_CHARS]
        for rel, text in facts.contents.items()
        if _kept(rel) and ("/" not in rel or rel.split("/", 1)[0] in TEST_DIRS)
    }
    for rel in facts.touched:
        if is_test_file(rel) and rel.split("/", 1)[0] in (*TEST_DIRS, rel):
            shown.setdefault(rel, "")
    files = _synthesized(facts, shown)
    if not files and session_has_tests:
        ecosystems = session_model([], facts.touched).ecosystems
        suite = next((e for e in ecosystems if e in FALLBACK_SUITES), "python")
        files = dict(FALLBACK_SUITES[suite])
    kept = dict(sorted(files.items())[:MAX_FILES])
    # Test files touched deeper in the tree, after the rest: the model looks for Go's
    # beside the code, and they are no suite the label's fallback would stand for.
    deeper = [rel for rel in dict.fromkeys(facts.touched) if is_test_file(rel) and rel not in kept]
    kept.update((rel, "") for rel in deeper[: MAX_FILES - len(kept)])
    return kept


def files_key(files: Mapping[str, str]) -> str:
    """One stand-in repository per distinct set of files."""
    return hashlib.sha256(json.dumps(sorted(files.items())).encode("utf-8")).hexdigest()[:16]


def write_repo(base: Path, files: Mapping[str, str]) -> Path:
    """A git repository under `base` holding `files`, one per distinct set (edge)."""
    root = base / files_key(files)
    if root.is_dir():
        return root
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "README.md").write_text("stand-in\n", encoding="utf-8")
    resolved = root.resolve()
    for rel, text in files.items():
        target = (root / rel).resolve()
        if relative_path(rel, None) != rel or resolved not in target.parents:
            continue  # never outside the stand-in root
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return root
