"""The normalized session: what the transcript reader produces and the decisions consume.

The reader is a one-way street: raw JSONL records (transcript.py) -> this model
(normalize.py) -> evidence and decisions (gates.py, categories.py, ...). Nothing
here does I/O.
"""

from __future__ import annotations

from reflection_core.lazyre import lazy
from reflection_core.records import field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal, TypeVar

    _E = TypeVar("_E")

if TYPE_CHECKING:
    ToolKind = Literal["edit", "write", "read", "search", "shell", "todo", "agent", "web", "other"]
else:
    ToolKind = str  # the kinds are checked statically; a hook does not import typing


@record
class CommandInfo:
    """What a shell command does, as far as gates care (see commands.py)."""

    raw: str
    kinds: frozenset[str] = frozenset()
    # subset of: test, build, lint, typecheck, pr_create, pr_view, pr_checks, push, commit, modify,
    # format (every modification only reformats: `ruff format .`, `cargo fmt`)
    test_runner: str | None = None  # "pytest", "npm test", "go test", ...
    partial: bool = False  # a filtered test run (-k, a single file, --lf, -run X)
    push_refs: tuple[str, ...] = ()  # remote refs a `git push` targets ("main", "feat")
    push_force: bool = False
    modified_files: tuple[str, ...] = ()  # best effort: files a modifying command writes
    scratch_files: tuple[str, ...] = ()  # files it writes in scratch dirs (not modified_files)
    normalized: str = ""  # for loop detection: whitespace/quoting/paths normalized
    programs: tuple[str, ...] = ()  # the programs the command runs, wrappers stripped, in order
    push_implicit: bool = False  # `git push [remote]` / `HEAD`: the target is the current branch
    push_all: bool = False  # `git push --all` / `--mirror`: every local branch is a target
    exit_masked: bool = (
        False  # a test's exit status is hidden (`pytest | tail`, `|| true`, `; echo`)
    )
    checked_after_change: bool = False  # a check runs after its own rewrite (`sed -i x && pytest`)
    # A test runs after the line's own `git stash pop` (`git stash && pytest; git stash pop
    # && pytest`): the line ends on a run with the change back, not only a baseline.
    tested_after_unstash: bool = False
    # The test's status printed by the echo right after it (`make test; echo "exit=$?"`):
    # the text the echo puts before the number ("exit="), None when nothing echoes it.
    status_echoed: str | None = None
    # The line's status is a filter's that read the output before it (`helm lint | grep -c
    # x`): a non-zero exit is the filter's ("none found"), not the command's.
    status_of_a_filter: bool = False
    # Runs of the project's wrappers whose names say nothing of what they run: `script:ci`
    # (`npm run ci`), `make:verify`, `just:ci`, `file:scripts/ci.sh`. What each runs is
    # read from the repository (`project_model.wrapped_commands`), then classified.
    wrappers: tuple[str, ...] = ()
    # What those wrappers run, line by line, as the repository says (`mypy --strict src` of
    # `make typecheck`): a command the task asks for may run through one.
    wrapped_lines: tuple[str, ...] = ()


# Where agents keep throwaway files (scratchpads, `mktemp`, `> /dev/null`): a write only
# there changes nothing in the project, unless the project itself lives there.
SCRATCH_DIRS: tuple[str, ...] = (
    "/tmp/",
    "/private/tmp/",
    "/var/tmp/",
    "/var/folders/",
    "/private/var/folders/",
    "/dev/",
    "$TMPDIR",
    "${TMPDIR",
)
# Windows' temp folders, matched on the path lower-cased with `/` for `\\`: the user's
# (`C:\\Users\\me\\AppData\\Local\\Temp`, where Claude Code keeps its task output; Git Bash
# writes `/c/Users/...`), the system's, and `%TEMP%` / PowerShell's `$env:TEMP` unexpanded.
_WINDOWS_SCRATCH = lazy(
    r"^(?:[a-z]:|/[a-z]|/mnt/[a-z])/(?:users/[^/]+/appdata/local/temp|windows/temp)/"
    r"|^(?:%te?mp%|\$env:te?mp)[/\\]?"
)


def in_scratch_dir(path: str) -> bool:
    """Does `path` lie in a folder agents keep throwaway files in (`SCRATCH_DIRS`, or
    Windows' temp folders)?"""
    if path.startswith(SCRATCH_DIRS):
        return True
    low = path.replace("\\", "/").lower()
    return ("temp" in low or "tmp" in low) and _WINDOWS_SCRATCH.match(low) is not None


@record
class ToolCall:
    """One tool use with its result, in task order."""

    index: int
    tool_use_id: str
    name: str  # host tool name: Bash, Edit, Write, Read, TodoWrite, Task, ...
    kind: ToolKind
    input: dict[str, Any] = field(default_factory=dict)
    files: tuple[str, ...] = ()  # paths this call reads or changes
    command: CommandInfo | None = None  # shell calls only
    ok: bool | None = None  # None: no result seen (still running, or the file lags)
    exit_code: int | None = None
    output: str = ""  # result text, capped (head and tail kept)
    timestamp: str | None = None
    background: bool = False
    scratch: bool = False  # an edit or write only to scratch dirs outside the project
    # The host's own record of an edit: each changed region's whole lines (context kept)
    # before and after. The agent's fragments may start mid-comment; these lines do not.
    hunks: tuple[tuple[str, str], ...] = ()

    @property
    def changes_files(self) -> bool:
        """Edits, writes, and shell commands that modify files (not scratch files)."""
        if self.kind in ("edit", "write"):
            return not self.scratch
        return self.command is not None and "modify" in self.command.kinds


@record
class AssistantText:
    index: int
    text: str
    timestamp: str | None = None


Event = ToolCall | AssistantText


@record
class Session:
    """The current task of a session: from the last real user prompt to now."""

    session_id: str | None = None
    task_prompt: str = ""  # the last real user prompt (the task)
    task_started_at: str | None = None
    events: list[Event] = field(default_factory=list)  # tool calls and assistant texts, in order
    last_assistant_message: str = ""  # hook input wins over the (possibly lagging) file
    final_message_written: bool = True  # False: Claude Code's file lacks the hook's message
    hook_feedback: list[str] = field(default_factory=list)  # Stop-hook feedback seen this task
    compacted: bool = False  # a compact_boundary was seen
    compaction_summary: str = ""
    earlier_prompts: list[str] = field(default_factory=list)  # previous prompts (most recent last)
    cwd: str | None = None
    git_branch: str | None = None
    permission_mode: str | None = None  # as recorded with the task ("plan", "default", ...)
    warnings: list[str] = field(default_factory=list)  # truncated lines, unknown records, ...

    @property
    def tool_calls(self) -> list[ToolCall]:
        """The events that are tool calls: read, never changed, by the callers."""
        return self._of_kind(ToolCall)

    @property
    def assistant_texts(self) -> list[AssistantText]:
        """The events that are assistant texts: read, never changed, by the callers."""
        return self._of_kind(AssistantText)

    def _of_kind(self, kind: type[_E]) -> list[_E]:
        """The events of one kind, filtered once for each state of `events`: the Stop path
        asks dozens of times, over tens of thousands of events in a long task. The cache
        holds the list it filtered, so a new list is never taken for the old one."""
        cache = self.__dict__.setdefault("_events_by_kind", {})
        seen = cache.get(kind)
        if seen is None or seen[0] is not self.events or seen[1] != len(self.events):
            seen = (self.events, len(self.events), [e for e in self.events if isinstance(e, kind)])
            cache[kind] = seen
        return seen[2]
