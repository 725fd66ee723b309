"""Evidence per change: which tool calls change what a check could exercise, and which
runs are baselines rather than checks of the change.

A change is an edit to code or config. An edit that only touches comments or whitespace
is none (its old and new text compare equal once comments, by the file's language, and
whitespace are stripped), and neither is a stash round trip (`git stash && <test> && git
stash pop` sets the change aside and puts it back as it was). A test run made while the
change was stashed is a baseline: it shows what fails without the change.
Pure functions over the parsed session; nothing here reads files or runs commands.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cache, lru_cache

from reflection_core import lazyre
from reflection_core.globs import path_matches
from reflection_core.lazyre import lazy
from reflection_core.records import replace
from reflection_core.session.commands import CHECK_KINDS, LIFECYCLE_SCRIPTS, classify_command
from reflection_core.session.model import Event, Session, ToolCall, in_scratch_dir
from reflection_core.session.task import failed_install, is_doc_path

# How each language writes comments, by file extension: (line comment markers, block
# comment delimiters). One language family a line (a test per entry).
COMMENT_SYNTAX: tuple[tuple[frozenset[str], tuple[str, ...], tuple[tuple[str, str], ...]], ...] = (
    (
        frozenset({"py", "pyi", "sh", "bash", "zsh", "rb", "pl", "r", "yaml", "yml", "toml"})
        | {"ex", "exs"},
        ("#",),
        (),
    ),
    (
        frozenset({"js", "mjs", "cjs", "ts", "tsx", "jsx", "go", "rs", "java", "kt", "swift"})
        | {"c", "h", "cc", "cpp", "hpp", "cs", "scala", "dart", "php", "sol", "zig"}
        | {"kts", "gradle", "groovy"},
        ("//",),
        (("/*", "*/"),),
    ),
    (frozenset({"css", "scss", "less"}), (), (("/*", "*/"),)),
    (frozenset({"sql", "lua"}), ("--",), ()),
    (frozenset({"hs"}), ("--",), (("{-", "-}"),)),
    (frozenset({"nix"}), ("#",), (("/*", "*/"),)),
    (frozenset({"html", "htm", "xml", "svg"}), (), (("<!--", "-->"),)),
)


@cache
def _stripper(ext: str) -> re.Pattern[str] | None:
    """One pattern matching every comment of the language `ext` names, or None."""
    for exts, lines, blocks in COMMENT_SYNTAX:
        if ext in exts:
            parts = [rf"(?:^|(?<=\s)){re.escape(m)}[^\n]*" for m in lines]
            parts += [rf"{re.escape(a)}.*?{re.escape(b)}" for a, b in blocks]
            return lazyre.compile("|".join(parts), re.M | re.S)
    return None


_SPACE = lazy(r"\s+")


def file_name(path: str) -> str:
    """The last part of a path, with `/` or `\\` between folders."""
    return path.replace("\\", "/").rsplit("/", 1)[-1]


def file_stem(path: str) -> str:
    """A file's or program's name without folders or ending: `bin/flow.sh` runs as `flow`."""
    return file_name(path).split(".", 1)[0].lower()


def code_text(text: str, path: str) -> str | None:
    """`text` without comments and whitespace, or None when the language is not known."""
    ext = path.rsplit(".", 1)[-1].lower() if "." in path.rsplit("/", 1)[-1] else ""
    pattern = _stripper(ext)
    if pattern is None:
        return None
    return _SPACE.sub("", pattern.sub("", text))


# Repository housekeeping files no test run checks, whatever the configured globs say.
NEVER_TESTED = (".gitignore", ".gitattributes", ".dockerignore", ".editorconfig")
# Files the project's test suite does not exercise: container, CI and dev-environment
# definitions are checked by building or running them, not by the tests. One glob a line.
SUITE_BLIND: tuple[str, ...] = (
    "Dockerfile",
    "*.Dockerfile",
    "*.dockerfile",
    "docker-compose*.yml",
    "docker-compose*.yaml",
    "compose.yml",
    "compose.yaml",
    ".github/**",
    ".gitlab-ci.yml",
    ".devcontainer/**",
    "*.tf",  # infrastructure: checked by its own tools (terraform validate, helm lint)
    "*.tfvars",
    "k8s/**",
    "kubernetes/**",
    "helm/**",
    "charts/**",
    "nginx/**",
    # Settings of services and tools around the code, checked by those tools alone.
    ".pre-commit-config.yaml",
    "renovate.json",
    "renovate.json5",
    ".renovaterc*",
    ".env.example",
    ".env.sample",
    ".env.template",
    ".vscode/**",
    ".idea/**",
    # Deploy definitions of hosting platforms: checked by deploying (`railway up`, `fly
    # deploy`), never by the tests.
    "Procfile",
    "fly.toml",
    "railway.json",
    "railway.toml",
    "vercel.json",
    "netlify.toml",
    "render.yaml",
)


def ignored_by_tests(path: str, ignore_globs: list[str]) -> bool:
    """Ignored by a glob, matched against the path and against each of its tails (the
    transcript's paths are absolute, the globs repo-relative)."""
    parts = path.split("/")
    if parts[-1] in NEVER_TESTED:
        return True
    globs = [*ignore_globs, *SUITE_BLIND]
    return any(path_matches("/".join(parts[i:]), globs) for i in range(len(parts)))


# CI definitions: only the CI service runs them, so no local check exercises a change.
CI_ONLY: tuple[str, ...] = (".github/workflows/**", ".gitlab-ci.yml", ".circleci/**")


def runs_only_in_ci(path: str) -> bool:
    parts = path.replace("\\", "/").split("/")
    return any(path_matches("/".join(parts[i:]), list(CI_ONLY)) for i in range(len(parts)))


def checkable(path: str) -> bool:
    """A file a local check could exercise: not documentation, not a container, CI or
    dev-environment definition, not repository housekeeping."""
    return not is_doc_file(path) and not ignored_by_tests(path, [])


# Settings read at run time, by file ending: a check may load them or may not, so a change
# only to them is no unchecked code change to push on (a note at most). One a line.
SETTINGS_SUFFIXES: tuple[str, ...] = (
    ".yaml",
    ".yml",
    ".json",
    ".json5",
    ".toml",
    ".ini",
    ".cfg",
    ".conf",
    ".properties",
    ".env",
)
# Files with those endings that are no settings: manifests and build definitions change
# what every check runs on. One a line.
MANIFESTS: frozenset[str] = frozenset(
    {
        "package.json",
        "pyproject.toml",
        "Cargo.toml",
        "composer.json",
        "deno.json",
        "setup.cfg",
        "tox.ini",
        "pytest.ini",
    }
)


def is_settings_file(path: str) -> bool:
    name = file_name(path)
    return name.lower().endswith(SETTINGS_SUFFIXES) and name not in MANIFESTS


def holds_behaviour(path: str) -> bool:
    """Code, a manifest or a build file: a file whose change a check of the project is
    sure to exercise (not documentation, CI, containers, nor settings read at run time)."""
    return checkable(path) and not is_settings_file(path)


def _replacements(call: ToolCall) -> list[tuple[str, str, str]]:
    """The (file, old, new) texts of each replacement of an edit: the whole lines the host
    recorded (`ToolCall.hunks`) when it did, else the agent's fragments in the shape every
    host reader gives (session/edit_input.py), where an entry without its own `file_path`
    is in the call's first file."""
    if call.hunks and call.files:
        return [(call.files[0], old, new) for old, new in call.hunks]
    edits = call.input.get("edits")
    pairs = edits if isinstance(edits, list) else [call.input]
    return [
        (
            str(p.get("file_path") or call.files[0]) if edits is pairs else call.files[0],
            str(p.get("old_string", "")),
            str(p.get("new_string", "")),
        )
        for p in pairs
        if isinstance(p, dict) and "new_string" in p
    ]


def comment_only_edit(call: ToolCall) -> bool:
    """An edit whose every replacement changes only comments or whitespace."""
    return _every_replacement(call, _same_code)


def no_behaviour_edit(call: ToolCall) -> bool:
    """An edit whose every replacement changes only comments or whitespace, or only a
    manifest's version field (`VERSION_FIELDS`): nothing a check could tell apart."""
    return _every_replacement(call, lambda p, a, b: _same_code(p, a, b) or version_only(p, a, b))


# A string literal on one line, its quotes kept: a change only between them changes text (a
# message, a label, a prompt) that parsing the file cannot check.
_STRING_LITERAL = lazy(r""""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'""")


def text_only_edit(call: ToolCall) -> bool:
    """An edit whose every replacement changes only comments, whitespace or the text inside
    string literals: the file parses as it did."""
    return _every_replacement(call, _same_code_but_strings)


def _same_code_but_strings(path: str, old: str, new: str) -> bool:
    before, after = code_text(old, path), code_text(new, path)
    if before is None or after is None:
        return False
    return _STRING_LITERAL.sub('""', before) == _STRING_LITERAL.sub('""', after)


def _every_replacement(call: ToolCall, keeps: Callable[[str, str, str], bool]) -> bool:
    if not call.files or not (call.kind == "edit" or (call.kind == "write" and call.hunks)):
        return False
    pairs = _replacements(call)
    return bool(pairs) and all(keeps(path, old, new) for path, old, new in pairs)


def _same_code(path: str, old: str, new: str) -> bool:
    before = code_text(old, path)
    return before is not None and before == code_text(new, path)


# The line that holds a package's own version, by manifest name: a release bump edits it
# and changes no behaviour. One manifest a line (a test per entry).
VERSION_FIELDS: dict[str, str] = {
    "package.json": r'^\s*"version"\s*:\s*"[^"]*",?\s*$',
    "pyproject.toml": r"""^version\s*=\s*["'][^"']*["']\s*$""",
    "Cargo.toml": r"""^version\s*=\s*["'][^"']*["']\s*$""",
}


# A version number (`0.4.0`, `1.5`, `2.0.0-rc.1`), and a line that only declares one
# (`__version__ = "0.4.0"`, `export const VERSION = '1.5.0';`, `appVersion: 2.1.0`), not
# one that compares one (`if version >= "1.2"`).
_NUMBER = r"\d+\.\d+(\.\d+)?([-+][0-9A-Za-z.-]+)?"
_VERSION_NUMBER = lazy(_NUMBER)
_VERSION_LINE = lazy(
    r"""^\s*(export\s+)?((const|let|var|val|static|final|pub)\s+)*["']?[\w.-]*version[\w-]*["']?"""
    rf"""(\s*:\s*\w+)?\s*(:|=|:=)\s*["']?v?{_NUMBER}["']?\s*[,;]?\s*$""",
    re.I,
)


def version_only(path: str, old: str, new: str) -> bool:
    """A replacement whose changed lines are all a version field: a manifest's own
    (VERSION_FIELDS), or in any file a line declaring a version where only the number
    changed (a release bump of `__init__.py` or `version.js`)."""
    shape = VERSION_FIELDS.get(file_name(path))
    before, after = old.splitlines(), new.splitlines()
    if len(before) != len(after) or before == after:
        return False
    changed = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    if shape is not None:
        field_line = lazyre.compile(shape)
        return all(field_line.match(a) and field_line.match(b) for a, b in changed)
    return all(_bumps_a_version(a, b) for a, b in changed)


def _bumps_a_version(before: str, after: str) -> bool:
    """Both lines declare a version and differ only in its number."""
    same_line = _VERSION_NUMBER.sub("", before) == _VERSION_NUMBER.sub("", after)
    return same_line and bool(_VERSION_LINE.match(before) and _VERSION_LINE.match(after))


def _project_prefixes(roots: Sequence[str | None]) -> tuple[str, ...]:
    return tuple(r.replace("\\", "/").rstrip("/") + "/" for r in roots if r and r.strip("/"))


def _in_project(path: str, prefixes: tuple[str, ...]) -> bool:
    return bool(prefixes) and path.replace("\\", "/").startswith(prefixes)


def scratch_write(call: ToolCall, roots: Sequence[str | None]) -> bool:
    """An edit or write whose every file lies in a scratch dir (`in_scratch_dir`) outside
    the project (under none of `roots`): a throwaway script or note that no check of the
    project exercises."""
    if call.kind not in ("edit", "write") or not call.files:
        return False
    prefixes = _project_prefixes(roots)
    return all(in_scratch_dir(p) and not _in_project(p, prefixes) for p in call.files)


def _with_project_writes(call: ToolCall, prefixes: tuple[str, ...]) -> ToolCall:
    """A shell call whose writes in scratch dirs (`CommandInfo.scratch_files`, set aside
    when the command was classified without the project's root) fall inside the project:
    they are changes to it."""
    command = call.command
    inside = [p for p in command.scratch_files if _in_project(p, prefixes)] if command else []
    if command is None or not inside:
        return call
    files = tuple(dict.fromkeys((*command.modified_files, *inside)))
    return replace(
        call,
        command=replace(command, kinds=command.kinds | {"modify"}, modified_files=files),
        files=tuple(dict.fromkeys((*call.files, *inside))),
    )


def project_view(session: Session, root: str | None) -> Session:
    """The session as the project at `root` (and the directory the host recorded the agent
    working in) sees it: edits and writes only to scratch dirs outside it marked
    (`ToolCall.scratch`) so they change nothing, and shell writes to scratch dirs inside it
    (a project that lives in /tmp) counted as changes. The session itself when neither
    occurs."""
    roots = (root, session.cwd)
    prefixes = _project_prefixes(roots)
    changed = False
    events: list[Event] = []
    for event in session.events:
        seen = event
        if isinstance(event, ToolCall):
            if not event.scratch and scratch_write(event, roots):
                seen = replace(event, scratch=True)
            elif event.command is not None and event.command.scratch_files:
                seen = _with_project_writes(event, prefixes)
        changed = changed or seen is not event
        events.append(seen)
    return replace(session, events=events) if changed else session


# The checks a wrapper's run counts as, read from what it runs (a build, a lint...).
WRAPPED_CHECKS = frozenset({"test", "build", "lint", "typecheck"})


def ran_scripts(session: Session) -> list[str]:
    """The shell scripts the session ran by path (`sh bin/bench.sh`, `./scripts/ci.sh`),
    as written: the edge reads their text for `with_wrapped_checks`."""
    return [
        key.removeprefix("file:")
        for call in session.tool_calls
        if call.command is not None
        for key in call.command.wrappers
        if key.startswith("file:")
    ]


def with_wrapped_checks(session: Session, wrapped: Sequence[tuple[str, str]]) -> Session:
    """The session with each run of a wrapper whose name says nothing (`npm run ci`,
    `make verify`, `sh scripts/ci.sh`) counted as the checks it runs: the project's tests
    in any wrapper are a test run. `wrapped` is what the repository says each runs."""
    runs = dict(wrapped)
    if not runs:
        return session
    events = [
        _wrapped_call(event, runs) if isinstance(event, ToolCall) else event
        for event in session.events
    ]
    return replace(session, events=events)


def _wrapped_call(call: ToolCall, runs: dict[str, str]) -> ToolCall:
    command = call.command
    if command is None or not command.wrappers:
        return call
    lines = [runs[key] for key in command.wrappers if key in runs]
    if not lines:
        return call
    inner = [classify_command(line) for line in lines]
    kinds = frozenset(k for info in inner for k in info.kinds) & WRAPPED_CHECKS
    tests = next((info for info in inner if "test" in info.kinds), None)
    # A publish's exit is the publish's (a missing one-time password): the checks its
    # lifecycle scripts ran are read from their output, as behind a filter.
    lifecycle = bool(kinds - command.kinds) and any(_is_lifecycle(key) for key in command.wrappers)
    checked = replace(
        command,
        kinds=command.kinds | kinds,
        status_of_a_filter=command.status_of_a_filter or lifecycle,
        test_runner=command.test_runner or (tests.test_runner if tests else None),
        # a wrapper named for its tests runs them as its recipe says; its name decides
        partial=command.partial or bool(tests and tests.partial and "test" not in command.kinds),
        wrapped_lines=tuple(line for text in lines for line in text.splitlines() if line.strip()),
    )
    return replace(call, command=checked)


def _is_lifecycle(key: str) -> bool:
    return key.removeprefix("script:") in _LIFECYCLE_NAMES


_LIFECYCLE_NAMES = frozenset(name for names in LIFECYCLE_SCRIPTS.values() for name in names)


# What a run leaves behind and no check exercises: deleting it changes no code. One name
# a line (a directory or file anywhere in the path), then file endings.
ARTIFACT_NAMES: tuple[str, ...] = (
    "__pycache__",
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
    # What a build writes: a package, an archive, compiled objects.
    "build",
    "dist",
    "target",
)
ARTIFACT_ENDINGS: tuple[str, ...] = (".pyc", ".log", ".tar.gz", ".tgz", ".whl", ".o")


def is_change(call: ToolCall) -> bool:
    """A tool call that changes what a check could exercise: not an edit of comments or a
    version field (`no_behaviour_edit`), not a formatter's rewrite (kind `format`)."""
    if not call.changes_files or no_behaviour_edit(call) or failed_install(call):
        return False
    return call.command is None or "format" not in call.command.kinds


def leaves_the_code_as_it_was(call: ToolCall) -> bool:
    """A command that only deleted what runs leave behind (`rm -rf .pytest_cache`): a
    check that ran before it still shows the code. (Clearing a cache may still be the fix
    of a reported error.)"""
    return removes_only_artifacts(call)


def removes_only_artifacts(call: ToolCall) -> bool:
    """A shell command whose every modified path is a cache, a log or bytecode."""
    files = call.command.modified_files if call.command is not None else ()
    return call.kind == "shell" and bool(files) and all(is_artifact(p) for p in files)


def is_artifact(path: str) -> bool:
    parts = path.replace("\\", "/").rstrip("/").split("/")
    return any(p in ARTIFACT_NAMES for p in parts) or parts[-1].endswith(ARTIFACT_ENDINGS)


def is_baseline(calls: list[ToolCall], pos: int) -> bool:
    """The run at `pos` ran with the change stashed: in the same command as a stash round
    trip, or after a `git stash` that no `git stash pop/apply` has undone yet."""
    command = calls[pos].command
    kinds = command.kinds if command is not None else frozenset()
    if "stash" in kinds or "unstash" in kinds:
        return "stash" in kinds and not (command is not None and command.tested_after_unstash)
    for call in reversed(calls[:pos]):
        found = call.command.kinds if call.command is not None else frozenset()
        if "unstash" in found:
            return False
        if "stash" in found:
            return True
    return False


def is_check(call: ToolCall) -> bool:
    """A command that checks the code: a test, build, typecheck or lint run, or a run of
    the program that finished in the foreground (a server started with `&` checks nothing
    until its output is read)."""
    kinds = call.command.kinds & CHECK_KINDS if call.command is not None else frozenset()
    if kinds - {"run"}:
        return True
    raw = call.command.raw.rstrip() if call.command is not None else ""
    return bool(kinds) and call.ok is True and not call.background and not raw.endswith("&")


@lru_cache(maxsize=4096)  # asked of every edit's path, often of the same few
def is_doc_file(path: str) -> bool:
    """Documentation by name or by folder, for an absolute path too (`/repo/docs/x.json`)."""
    parts = path.replace("\\", "/").split("/")
    return any(is_doc_path("/".join(parts[i:])) for i in range(len(parts)))


def is_code_change(
    call: ToolCall, *, artifacts: bool = False, behaviour_only: bool = False
) -> bool:
    """A change to code or config: not comments only, not documentation only, not a
    command that left the code as it was (unless `artifacts`: clearing a cache is then a
    change too); under `behaviour_only`, a change to a file that `holds_behaviour`. A
    command that modifies files it does not name counts."""
    if not is_change(call) or (not artifacts and leaves_the_code_as_it_was(call)):
        return False
    files = list(call.files) if call.kind in ("edit", "write") else []
    if call.command is not None:
        files = list(call.command.modified_files)
    if behaviour_only:
        return not files or any(holds_behaviour(f) for f in files)
    return not files or not all(is_doc_file(f) for f in files)


def last_code_change(
    calls: list[ToolCall], *, artifacts: bool = False, behaviour_only: bool = False
) -> int:
    """Position of the latest change to code or config (see `is_code_change`), or -1."""
    found = (
        p
        for p in range(len(calls) - 1, -1, -1)
        if is_code_change(calls[p], artifacts=artifacts, behaviour_only=behaviour_only)
    )
    return next(found, -1)


# Task runners and the files they read: a run of the runner after a change to its own
# file runs the changed program (`make fmt` after adding the `fmt` target). One a line.
TASK_FILES: dict[str, tuple[str, ...]] = {
    "make": ("Makefile", "makefile", "GNUmakefile"),
    "just": ("justfile", "Justfile", ".justfile"),
    "task": ("Taskfile.yml", "Taskfile.yaml"),
}


def runs_changed_task_file(call: ToolCall, change: ToolCall) -> bool:
    """`call` ran, and passed, the task runner whose file `change` edited."""
    names = {file_name(f) for f in change.files}
    programs = call.command.programs if call.command is not None else ()
    return call.ok is True and any(names & set(TASK_FILES[p]) for p in programs if p in TASK_FILES)


def checked_after(
    calls: Sequence[ToolCall], pos: int, counts: Callable[[ToolCall], bool] = is_check
) -> bool:
    """A check (`counts`) ran after the change at `pos`: later, or chained after it in its
    own command line (`sed -i ... && pytest`)."""
    change = calls[pos]
    command = change.command
    if command is not None and command.checked_after_change and counts(change):
        return True
    return any(counts(c) or runs_changed_task_file(c, change) for c in calls[pos + 1 :])


# Runners that build what they run (`cargo run`, `go run`): their run compiles the source.
COMPILING_RUNNERS = frozenset(
    ("cargo", "go", "dotnet", "swift", "mvn", "mvnw", "gradle", "gradlew", "zig", "stack")
)


# Runners that run the test binaries a build made and build nothing themselves: after a
# source change their pass is the old code's until a build ran in between.
PREBUILT_RUNNERS = frozenset({"ctest"})


def compiles(call: ToolCall) -> bool:
    """A check that compiles the code: a test, build, typecheck or lint run, or a run of the
    program through a runner that builds it first. Serving a page or probing a server with
    curl runs what was built before, and `ctest` the test binaries built before: they
    compile nothing the agent changed."""
    if not is_check(call) or call.command is None:
        return False
    kinds = call.command.kinds & CHECK_KINDS - {"run"}
    if kinds == {"test"} and call.command.test_runner in PREBUILT_RUNNERS:
        return False
    if kinds:
        return True
    return any(program.rsplit("/", 1)[-1] in COMPILING_RUNNERS for program in call.command.programs)
