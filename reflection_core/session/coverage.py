"""Does the work cover what was asked: the checks the prompt names, the places it
lists, and the agent's own todo list.

Gates ask "did the tests pass after the change?"; these ask "was everything the
task named done?". Each rule only fires on an explicit signal (a command in
backticks next to "make sure", paths joined by "and" next to a change verb, a
todo item left open), so a finished task with a vaguer prompt stays complete.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterable

from reflection_core.lazyre import lazy
from reflection_core.session.categories import unsupported_claims
from reflection_core.session.commands import CHECK_KINDS, classify_command, imported_modules
from reflection_core.session.evidence import (
    checkable,
    checked_after,
    compiles,
    file_name,
    file_stem,
    is_check,
    is_code_change,
    is_doc_file,
    last_code_change,
    runs_only_in_ci,
    text_only_edit,
)
from reflection_core.session.feedback import Gap
from reflection_core.session.gates import (
    GateResult,
    last_change_index,
    ran_tests,
    run_passed,
    runs_after_change,
)
from reflection_core.session.model import CommandInfo, Session, ToolCall
from reflection_core.session.todos import parse_todos

_SENTENCE = lazy(r"(?<=[.?!;])\s+|\n+")
_BACKTICKED = lazy(r"`([^`\n]{3,200})`")
_VERIFY = lazy(
    r"\b(make sure|ensure|check|verify|confirm|run|passes|pass|clean|succeeds?|works?|green|"
    r"done when)\b",
    re.I,
)
# Programs whose backticked invocation is a command, not a file or identifier.
_RUNNERS = frozenset(
    [
        "python",
        "python3",
        "uv",
        "poetry",
        "pipenv",
        "npm",
        "npx",
        "yarn",
        "pnpm",
        "bun",
        "node",
        "deno",
        "make",
        "just",
        "cargo",
        "go",
        "mvn",
        "gradle",
        "./gradlew",
        "tox",
        "nox",
        "pytest",
        "ruff",
        "mypy",
        "pyright",
        "flake8",
        "pylint",
        "black",
        "eslint",
        "tsc",
        "prettier",
        "jest",
        "vitest",
        "mocha",
        "rspec",
        "phpunit",
        "bundle",
        "rake",
        "rails",
        "dotnet",
        "mix",
        "php",
        "composer",
        "alembic",
        "django-admin",
        "./manage.py",
        "pre-commit",
        "terraform",
        "helm",
        "kubectl",
        "docker",
        "cmake",
        "ctest",
        "bazel",
        "swift",
        "xcodebuild",
        "shellcheck",
        "golangci-lint",
        "sqlfluff",
        "bash",
        "sh",
    ]
)
_SCRIPT_DIRS = ("./", "bin/", "scripts/", "tools/")
# Wrappers that do not change which check runs (`python -m pytest` is `pytest`).
_WRAPPER_WORDS = frozenset(
    ["python", "python3", "-m", "uv", "poetry", "pipenv", "run", "exec", "npx"]
)
_CHANGE_VERB = lazy(
    r"\b(fix|replace|update|change|rename|remove|delete|migrate|refactor|convert|move|"
    r"port|upgrade|add|apply|implement|patch|switch)\w*\b",
    re.I,
)
_PATH = (
    r"(?:[\w.-]+/)+[\w.-]*|[\w-]+\.(?:py|pyi|js|jsx|ts|tsx|go|rs|rb|java|kt|c|h|cc|cpp|cs|"
    r"php|swift|sql|ya?ml|toml|json|cfg|ini|sh|css|scss|html|vue|svelte)(?!\w)"
)
# Two or more paths joined by "and" (or commas): "in billing/ and reports/".
_PATH_LIST = lazy(
    rf"(?<![\w./-])`?(?:{_PATH})`?(?:\s*,\s*`?(?:{_PATH})`?){{0,20}},?\s+(?:and|&)\s+(?:both\s+)?`?(?:{_PATH})`?"
)
_ONE_PATH = lazy(rf"(?<![\w/.-])({_PATH})(?![\w/])")
_NOTHING_THERE = lazy(
    r"\b(no (changes?|occurrences?|uses?|calls?|matches)|none (in|under|there)|nothing (in|"
    r"under|to change)|(didn't|did not|doesn't|does not) need|already|unchanged because|"
    r"not (needed|affected))\b",
    re.I,
)
_OPEN = ("pending", "in_progress")
# Source a compiler must accept before it can run: a change to it that nothing compiled
# (or tested) afterwards is unchecked, with or without a test suite. One suffix a line.
# Scala, Haskell, Dart, Elixir, Zig, F# and OCaml are not here yet: their build and test
# tools run through wrappers the command reader does not know all of (mill, scala-cli,
# `stack --nix`, fvm, melos, `opam exec`), and a push on a check it cannot see is wrong.
COMPILED_SUFFIXES: tuple[str, ...] = (
    ".c",
    ".h",
    ".cc",
    ".cpp",
    ".cxx",
    ".hpp",
    ".cu",
    ".rs",
    ".go",
    ".java",
    ".kt",
    ".swift",
    ".cs",
    ".sol",
)
# Interpreted source and the check its own toolchain has for it without any project setup:
# a parse (or, for Nix, an evaluation) of the file. First matching ending wins; one a line
# (a test per entry). PowerShell is not here: its parse-only check is no one-liner an agent
# would run, and running the script may change the machine.
SCRIPT_CHECKS: tuple[tuple[str, str], ...] = (
    (".sh", "bash -n {path}"),
    (".bash", "bash -n {path}"),
    (".zsh", "zsh -n {path}"),
    (".py", "python -m py_compile {path}"),
    (".rb", "ruby -c {path}"),
    (".pl", "perl -c {path}"),
    (".php", "php -l {path}"),
    (".lua", "luac -p {path}"),
    (".js", "node --check {path}"),
    (".mjs", "node --check {path}"),
    (".cjs", "node --check {path}"),
    ("flake.nix", "nix flake check"),
    (".nix", "nix-instantiate --parse {path}"),
)
# Container, infrastructure and service definitions, by file ending, and the command that
# builds or validates each: no test suite reaches them. A change to one that nothing
# checked, called done, is a note (`infra:not_checked`): the dev stops hold none yet.
INFRA_CHECKS: tuple[tuple[str, str], ...] = (
    ("dockerfile", "docker build ."),
    ("compose.yml", "docker compose config"),
    ("compose.yaml", "docker compose config"),
    (".tf", "terraform validate"),
    (".service", "systemd-analyze verify {path}"),
    (".timer", "systemd-analyze verify {path}"),
)
# Shapes of error output pasted into a prompt: the task is "make this error go away",
# so a fix nothing ran afterwards is a guess. One shape a line (a test per entry).
ERROR_OUTPUT_SHAPES: tuple[str, ...] = (
    r"(?<!except )\b[A-Z]\w*(Error|Exception): \S",
    r"\bTraceback \(most recent call last\)",
    r"\bERR_[A-Z][A-Z_]{2,}\b",
    r"\bCannot find module\b",
    r"\berror (TS|CS)\d{3,5}\b",
    r"\berror\[E\d{4}\]",
    r"\bcommand not found\b",
    r"\b(exit(ed)? (with )?code|exit status) [1-9]\d*\b",
    r"\bnpm ERR!",
    r"\bSegmentation fault\b",
    r"\bpanicked at\b",
    r"\bUncaught\b",
    r"^\s*at [\w.$<>]+ \(\S+:\d+:\d+\)",
    r"(^|\s)Error: ",
)
_ERROR_OUTPUT = tuple(lazy(shape, re.M) for shape in ERROR_OUTPUT_SHAPES)


# A sentence that quotes a command as text to replace or document, not one to run:
# "the README still says `python setup.py install`, which is deprecated".
_QUOTED_AS_TEXT = lazy(
    r"\b(replace|remove|delete|drop|deprecat\w*|obsolete|outdated|instead of|rather than|"
    r"readme|docs?|documentation|mention\w*|says?|tells?)\b",
    re.I,
)


def requested_commands(prompt: str) -> list[str]:
    """Commands the prompt asks to run or pass, in backticks: "make sure
    `python manage.py makemigrations --check` is clean". A command the sentence quotes
    as text to replace or document is not a request to run it."""
    found: dict[str, None] = {}
    for sentence in _SENTENCE.split(prompt or ""):
        words_only = _BACKTICKED.sub(" ", sentence)
        if not _VERIFY.search(words_only) or _QUOTED_AS_TEXT.search(words_only):
            continue
        for match in _BACKTICKED.finditer(sentence):
            command = " ".join(match.group(1).split())
            info = classify_command(command)
            words = command.split()
            if info.kinds & {"test", "build", "lint", "typecheck"} or (
                len(words) >= 2 and (words[0] in _RUNNERS or words[0].startswith(_SCRIPT_DIRS))
            ):
                found.setdefault(command, None)
    return list(found)


def _check_words(command: str) -> set[str]:
    return set(classify_command(command).normalized.split()) - _WRAPPER_WORDS


def _runs_of(command: str, calls: Iterable[ToolCall]) -> list[ToolCall]:
    """The calls that ran `command`, as written or through a wrapper that runs it
    (`make typecheck` whose recipe is `mypy --strict src`, for `mypy --strict`)."""
    wanted = _check_words(command)
    return [
        call
        for call in calls
        if call.command is not None
        and any(wanted <= _check_words(line) for line in _lines_run(call.command))
    ]


def _lines_run(command: CommandInfo) -> tuple[str, ...]:
    return (command.raw, *command.wrapped_lines)


def unrun_requested(session: Session, commands: list[str]) -> list[Gap]:
    """A gap for each requested command with no passing run after the latest change."""
    calls = session.tool_calls
    after = calls[last_change_index(session) + 1 :]
    gaps = []
    for command in commands:
        runs = _runs_of(command, after)
        if not runs:
            gaps.append(
                Gap(
                    f"requested:{command}",
                    f"the task asks for `{command}`, which has not run after the latest change",
                    f"Run `{command}` and fix what it reports",
                    "MEDIUM",
                )
            )
        elif run_passed(runs[-1]) is None:
            # No result yet: still running, or the transcript lags the hook. Not a failure;
            # for a test command the tests gate (and the ledger) already judge the run.
            if "test" in classify_command(command).kinds:
                continue
            gaps.append(
                Gap(
                    f"pending:{command}",
                    f"`{command}` has no result yet",
                    f"Wait for `{command}` to finish and check it passed",
                    "LOW",
                )
            )
        elif not run_passed(runs[-1]):
            gaps.append(
                Gap(
                    f"requested:{command}",
                    f"the task asks for `{command}` to pass, and it failed",
                    f"Fix what `{command}` reports, then run it again",
                    "HIGH",
                )
            )
    return gaps


def listed_paths(prompt: str) -> list[str]:
    """Paths the prompt lists together as things to change ("in billing/ and reports/")."""
    found: dict[str, None] = {}
    for sentence in _SENTENCE.split(prompt or ""):
        if not _CHANGE_VERB.search(sentence):
            continue
        for listing in _PATH_LIST.finditer(sentence):
            for path in _ONE_PATH.findall(listing.group(0)):
                found.setdefault(path.strip("`").rstrip("."), None)
    return list(found)


def _covers(target: str, path: str) -> bool:
    target = target.removeprefix("./")
    if target.endswith("/"):
        return path.startswith(target) or f"/{target}" in path
    return path == target or path.endswith(f"/{target}") or path.startswith(f"{target}/")


def untouched_targets(prompt: str, changed: list[str], message: str) -> list[Gap]:
    """Listed paths with no change when their siblings in the list changed, unless the
    final message says why ("reports/ had no calls")."""
    targets = listed_paths(prompt)
    hit = [t for t in targets if any(_covers(t, p) for p in changed)]
    if not hit:
        return []
    sentences = _SENTENCE.split(message or "")
    gaps = []
    for target in targets:
        if target in hit:
            continue
        explained = any(
            target.rstrip("/") in sentence and _NOTHING_THERE.search(sentence)
            for sentence in sentences
        )
        if not explained:
            gaps.append(
                Gap(
                    f"coverage:{target}",
                    f"the task names {target} alongside {hit[0]}, but nothing in {target} changed",
                    f"Make the change in {target} too (or say why it needs none)",
                    "MEDIUM",
                )
            )
    return gaps


def open_todos(session: Session) -> list[Gap]:
    """The agent's own latest todo list, if it still has items not completed."""
    todo_calls = [call for call in session.tool_calls if call.kind == "todo"]
    if not todo_calls:
        return []
    items = [i for i in parse_todos(todo_calls[-1].input) if i.status in _OPEN]
    if not items:
        return []
    names = "; ".join(f'"{item.content[:60]}" ({item.status})' for item in items[:3])
    more = f" and {len(items) - 3} more" if len(items) > 3 else ""
    return [
        Gap(
            "todos:open",
            f"your todo list still has {len(items)} open item(s): {names}{more}",
            "Finish the open todo items, or mark them done or dropped and say why",
            "MEDIUM",
        )
    ]


# What git prints when a merge, rebase, cherry-pick, revert or stash pop stops on
# conflicts, and the words of a later git command that finish or drop the operation.
_STOPPED_ON_CONFLICT = lazy(
    r"^CONFLICT \(|^Automatic merge failed|^error: could not (apply|revert)|"
    r"^hint: (Resolve all conflicts|After resolving the conflicts)",
    re.M,
)
_SETTLES_IT = frozenset({"--continue", "--abort", "--skip", "--quit", "commit", "reset"})


def unfinished_git_operation(session: Session) -> list[Gap]:
    """A git operation that stopped on conflicts and that no later git command continued,
    committed or aborted: the repository is left mid-merge (or mid-rebase)."""
    calls = session.tool_calls
    stopped = None
    for call in calls:
        words = set(call.command.raw.split()) if call.command is not None else set()
        if "git" not in words:
            continue
        if _STOPPED_ON_CONFLICT.search(call.output or ""):
            stopped = call
        elif stopped is not None and words & _SETTLES_IT:
            stopped = None
    if stopped is None or stopped.command is None:
        return []
    raw = (
        stopped.command.raw if len(stopped.command.raw) <= 80 else stopped.command.raw[:77] + "..."
    )
    return [
        Gap(
            "git:unfinished",
            f"`{raw}` stopped on conflicts and nothing continued, committed or aborted it",
            "Resolve the conflicts and continue the operation (or abort it), then check the result",
            "HIGH",
        )
    ]


def checked_since_last_change(
    session: Session,
    *,
    artifacts: bool = False,
    behaviour_only: bool = False,
    counts: Callable[[ToolCall], bool] = is_check,
) -> bool:
    """A test, build, typecheck or lint ran after the latest file change (`artifacts`:
    counting a cleared cache or build output as a change; `behaviour_only`: only a change
    to a file that `holds_behaviour`; `counts`: what is a check here)."""
    calls = session.tool_calls
    latest = last_code_change(calls, artifacts=artifacts, behaviour_only=behaviour_only)
    if latest < 0:
        return True  # only comments, whitespace or docs changed: nothing new to check
    return checked_after(calls, latest, counts)


def uncompiled_sources(
    session: Session, changed: list[str], compile_command: str | None = None
) -> list[Gap]:
    """Compiled-language source changed, and no build, test, typecheck or lint ran after
    the latest change: nothing has even compiled it. `compile_command` is the project's
    build or typecheck command when the project model knows one: the push names it."""
    sources = [p for p in changed if p.lower().endswith(COMPILED_SUFFIXES)]
    if not sources:
        return []
    if checked_since_last_change(session, counts=compiles):
        return []
    more = f" and {len(sources) - 1} more" if len(sources) > 1 else ""
    return [
        Gap(
            "build:not_run",
            f"compiled source changed ({sources[0]}{more}) and nothing compiled it after "
            "the latest change",
            f"Run `{compile_command}` and fix what it reports"
            if compile_command
            else "Build it with the project's compile command and fix what it reports",
            "MEDIUM",
        )
    ]


# Programs that handle a file without running it: naming a script to one of them is no run.
_FILE_TOOLS = frozenset(
    {"cat", "head", "tail", "less", "more", "wc", "grep", "rg", "sed", "awk", "diff", "file"}
    | {"ls", "stat", "chmod", "chown", "cp", "mv", "ln", "rm", "touch", "echo", "printf"}
    | {"git", "tee", "sort", "cut", "tr", "xxd", "od", "dos2unix", "code", "vim", "nano"}
)


# The words of a command line, quotes and separators dropped: a script given to a program
# is one of them (`nvim -u init.lua`, `--config=app.py` as `app.py`).
_WORDS = lazy(r"[^\s'\"=;|&()<>]+")


def _edited_text_only(session: Session) -> set[str]:
    """Files every change of which in the task only rewrote comments or string text (an
    `echo` message, a prompt): a parse of them finds nothing new."""
    edits: dict[str, list[bool]] = {}
    for call in session.tool_calls:
        if call.kind in ("edit", "write"):
            for path in call.files:
                edits.setdefault(path, []).append(text_only_edit(call))
    return {path for path, text in edits.items() if all(text)}


def _among(path: str, paths: set[str]) -> bool:
    """`path` (relative to the task's root, as `changed_paths` gives it) is one of `paths`
    (as the tool calls name them, often absolute)."""
    task_path = _TaskPaths({path})
    return any(task_path.holds(p) for p in paths)


class _TaskPaths:
    """Task paths (as `changed_paths` gives them) that a tool call's path (often absolute,
    Windows separators too) names: the same path, or the path ending on one of them. The
    match takes time that grows with the call's path, not with the task: a task of
    thousands of edits asks it of every call."""

    def __init__(self, paths: set[str]) -> None:
        normal = {p.replace("\\", "/") for p in paths}
        self.exact = normal
        self.tails = {p.lstrip("/") for p in normal}  # what follows a "/" of a call's path

    def holds(self, path: str) -> bool:
        path = path.replace("\\", "/")
        if path in self.exact:
            return True
        slash = path.find("/")
        while slash != -1:
            if path[slash + 1 :] in self.tails:
                return True
            slash = path.find("/", slash + 1)
        return False


def _touches(call: ToolCall, paths: _TaskPaths) -> bool:
    """The call writes one of `paths`."""
    written = list(call.files) + list(call.command.modified_files if call.command else ())
    return any(paths.holds(p) for p in written)


def script_check(path: str, table: tuple[tuple[str, str], ...] = SCRIPT_CHECKS) -> str | None:
    """The command that parses `path` with its own language's toolchain (SCRIPT_CHECKS,
    or the `table` given), or None when it is no file that has one."""
    lowered = path.lower()
    for ending, template in table:
        if lowered.endswith(ending):
            return template.format(path=shlex.quote(path))
    return None


def _runs_script(call: ToolCall, names: set[str], files: set[str]) -> bool:
    """A check, or a program run by a changed script's name (`names`, `file_stem`) or given the
    script (`files`, `nvim -u init.lua`), however it ended; or a tool a server provides (a
    browser driven over MCP): what it exercised is not known, so it may be the change."""
    if call.command is None:
        return call.name.startswith("mcp__")
    programs = call.command.programs
    if call.command.kinds & CHECK_KINDS or any(file_stem(p) in names for p in programs):
        return True
    if "python" in programs and _imports_one_of(call.command.raw, names):
        return True  # `python - <<EOF` / `python -c` code that imports it runs it
    if not programs or programs[0] in _FILE_TOOLS:
        return False
    return bool({file_name(w) for w in _WORDS.findall(call.command.raw)} & files)


def _imports_one_of(command: str, names: set[str]) -> bool:
    """Python code on the command line imports a module named as one of `names` (a changed
    script's stem: `from app import app`, `import billing.refunds`)."""
    return any(set(module.split(".")) & names for module in imported_modules(command))


def unparsed_scripts(session: Session, changed: list[str], *, claimed: bool) -> list[Gap]:
    """A script changed, nothing ran, parsed or tested it after its own latest change, and
    the message says the work is done: the words and the evidence agree. Unlike compiled
    source, a script needs no build, so the push names the check its own toolchain always
    has (`bash -n`, `python -m py_compile`)."""
    if not claimed:
        return []
    text_only = _edited_text_only(session)
    scripts = [
        (p, check)
        for p in changed
        if checkable(p) and not _among(p, text_only) and (check := script_check(p))
    ]
    infra = [(p, check) for p in changed if (check := script_check(p, INFRA_CHECKS))]
    return _unchecked_files(session, scripts, ("script:not_run", "script", "ran or parsed")) + (
        _unchecked_files(session, infra, ("infra:not_checked", "file", "built or validated"))
    )


def _unchecked_files(
    session: Session, scripts: list[tuple[str, str]], said: tuple[str, str, str]
) -> list[Gap]:
    """The gap for `scripts` ((path, its check)) when nothing ran or checked any of them
    after its own latest change; `said` is its pattern, what it calls the file and what
    no check did to it."""
    if not scripts:
        return []
    names = {file_stem(p) for p, _ in scripts}
    files = {file_name(p) for p, _ in scripts}
    touched = _TaskPaths({p for p, _ in scripts})
    calls = session.tool_calls
    latest = next(
        (
            i
            for i in range(len(calls) - 1, -1, -1)
            if _touches(calls[i], touched) and is_code_change(calls[i])
        ),
        -1,
    )
    # Checked after the script's own latest change: a later `rm -rf tmp-out` is no change
    # of the script, and the run before it still checked it.
    if latest < 0 or checked_after(calls, latest, lambda c: _runs_script(c, names, files)):
        return []
    path, check = scripts[0]
    more = f" and {len(scripts) - 1} more" if len(scripts) > 1 else ""
    pattern, what, checked = said
    return [
        Gap(
            pattern,
            f"{what} changed ({path}{more}), nothing {checked} it after the latest "
            "change, and the message says it is done",
            f"Run `{check}` (or a run of it that exercises the change) and fix what it reports",
            "MEDIUM",
        )
    ]


def known_checks(session: Session, repo_commands: list[str | None]) -> list[str]:
    """The checks this project is known to have: the repository's own test and build
    commands, then the checks that passed earlier in this task."""
    latest = last_change_index(session)
    seen = [c for c in repo_commands if c]
    for call in session.tool_calls[: max(latest, 0)]:
        if call.command is not None and is_check(call) and run_passed(call):
            seen.append(call.command.raw.strip().splitlines()[0][:120])
    return list(dict.fromkeys(seen))


def unchecked_change(session: Session, changed: list[str], known: list[str]) -> list[Gap]:
    """Code changed, nothing checked it after the latest change, and the project has a
    check to run: ask once, naming the command."""
    if not known or checked_since_last_change(session):
        return []
    # The first code path only: a long task may have edited thousands of files.
    code = next((p for p in changed if checkable(p)), None)
    if code is None:
        return []
    return [
        Gap(
            "check:not_run",
            f"nothing checked the latest change ({code}); this project checks with `{known[0]}`",
            f"Run `{known[0]}` (or another check that exercises the change) and fix what it "
            "reports",
            "MEDIUM",
        )
    ]


def failed_compile(session: Session, message: str) -> list[Gap]:
    """The last build or typecheck after the latest change failed and the message admits
    no failure: the code does not compile (or type-check), whatever ran after it. A note
    (`build:failing`, `typecheck:failing`), and hard evidence a reading may push with."""
    from reflection_core.reading.builtin import admits_failure

    if admits_failure(message):
        return []
    for kind in ("build", "typecheck"):
        runs = runs_after_change(session, kind)
        if runs and run_passed(runs[-1]) is False:
            command = runs[-1].command.raw.strip().splitlines()[0][:80] if runs[-1].command else ""
            return [
                Gap(
                    f"{kind}:failing",
                    f"the last {kind} after the latest change fails (`{command}`)",
                    f"Fix what `{command}` reports and run it again",
                    "HIGH",
                )
            ]
    return []


def shipped_unchecked(session: Session, changed: list[str], *, claimed: bool) -> list[Gap]:
    """The change was pushed (a push that worked, at or after the latest change) while
    nothing had checked it, and the message says the work is done: what the agent shipped
    is a guess it reports as finished."""
    latest = last_code_change(session.tool_calls)
    if not claimed or latest < 0 or not any(checkable(p) for p in changed):
        return []
    if checked_since_last_change(session) or not _unchecked_code_since_a_check(session):
        return []
    push = next(
        (
            call
            for call in reversed(session.tool_calls[latest:])
            if call.command is not None and "push" in call.command.kinds and call.ok is True
        ),
        None,
    )
    if push is None or push.command is None:
        return []
    return [
        Gap(
            "ship:unchecked",
            f"pushed a change nothing checked (`{push.command.raw[:80]}` at record "
            f"{push.index}) and the message says it is done",
            "Run a check that exercises the change (its tests, build or the program), fix "
            "what it reports and push the fix",
            "HIGH",
        )
    ]


def _unchecked_code_since_a_check(session: Session) -> bool:
    """A change after the last check touches a file a local check exercises: a `Procfile`
    or a CI workflow fixed after the tests passed is checked by deploying it, not by them.
    A command that changes files it does not name counts."""
    calls = session.tool_calls
    last_check = max((i for i, call in enumerate(calls) if is_check(call)), default=-1)
    for call in calls[last_check + 1 :]:
        if not is_code_change(call):
            continue
        files = call.command.modified_files if call.command is not None else call.files
        if not files or any(checkable(f) for f in files):
            return True
    return False


def reported_error(prompt: str) -> str | None:
    """The first line of error output pasted into the prompt, if there is one."""
    for pattern in _ERROR_OUTPUT:
        match = pattern.search(prompt or "")
        if match:
            start = prompt.rfind("\n", 0, match.start()) + 1
            end = prompt.find("\n", match.end())
            return prompt[start : end if end != -1 else None].strip()[:120]
    return None


def unchecked_error_fix(session: Session, changed: list[str]) -> list[Gap]:
    """The task pastes an error, code or config changed, and no check ran after the latest
    change: nothing shows the error is gone. A settings fix is asked too: rebuilding the
    container or re-running what failed usually shows it."""
    if not any(not is_doc_file(p) and not runs_only_in_ci(p) for p in changed):
        return []
    error = reported_error(session.task_prompt)
    # Clearing a cache (`rm -rf .next`) is a fix attempt the error needs checked too.
    if error is None or checked_since_last_change(session, artifacts=True):
        return []
    return [
        Gap(
            "error_fix:not_checked",
            f'the task reports an error ("{error}") and nothing ran after the latest change '
            "to show it is gone",
            "Run what failed (or a check that exercises the fix) and show the error is gone",
            "MEDIUM",
        )
    ]


def claimed_without_any_run(session: Session, message: str) -> list[Gap]:
    """The message says the tests pass, and no test ran at all in this task: the
    transcript contradicts the claim, whatever changed."""
    if ran_tests(session.tool_calls):
        return []
    no_run = GateResult("tests", True, False, "no test run in this task")
    claims = unsupported_claims(message, no_run, of_tests_only=True)
    if not claims:
        return []
    return [
        Gap(
            "claims:no_test_run",
            f'claims the tests pass, but no test ran in this task: "{claims[0]}"',
            "Run the tests and report what they show, or withdraw the claim",
            "HIGH",
        )
    ]
