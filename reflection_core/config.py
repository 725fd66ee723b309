"""Configuration: `.reflection.yaml` or `[tool.reflection]` in pyproject.toml.

Defaults work with no file at all. Every key is declared in SCHEMA with its type
and default; unknown keys and bad values raise ConfigError naming the file, the
key path and what was expected. Parsed files are cached as JSON keyed by the
file's content hash so hot hooks do not import yaml on every run; a cache entry is
validated again before use and discarded when anything about it is off.
"""

from __future__ import annotations

import json
import os
import re
import stat

from reflection_core import paths
from reflection_core.globs import PatternError, compile_branch_pattern, compile_path_glob
from reflection_core.records import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

CONFIG_FILENAME = ".reflection.yaml"
PYPROJECT = "pyproject.toml"
TASK_TYPES = ("coding", "docs", "research", "ops", "other")
GATE_NAMES = ("tests", "build", "lint", "pr", "ci", "push")


class ConfigError(Exception):
    """A configuration problem; the message names the file, the key and the expectation."""

    def __init__(self, source: str, key: str, message: str) -> None:
        self.source = source
        self.key = key[:MAX_ERROR_CHARS]
        if len(message) > MAX_ERROR_CHARS:  # a summary, never a rendered structure
            message = message[: MAX_ERROR_CHARS - 3] + "..."
        self.problem = message  # what is wrong, without the file and the key
        where = f"{source}: {self.key}" if key else source
        super().__init__(f"{where}: {message}")


# The longest reason a ConfigError gives (the file name and key path come on top).
MAX_ERROR_CHARS = 200


class Field(NamedTuple):
    """One leaf key: a checker that raises ValueError(expectation) and a default."""

    check: Callable[[Any], Any]
    default: Any
    doc: str = ""


# ---------------------------------------------------------------- checkers


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    raise ValueError("expected true or false")


def _int(minimum: int | None = None, maximum: int | None = None) -> Callable[[Any], int]:
    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError("expected an integer")
        if minimum is not None and value < minimum:
            raise ValueError(f"expected an integer >= {minimum}")
        if maximum is not None and value > maximum:
            raise ValueError(f"expected an integer <= {maximum}")
        return value

    return check


def _number(minimum: float | None = None, maximum: float | None = None) -> Callable[[Any], float]:
    def check(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError("expected a number")
        if minimum is not None and value < minimum:
            raise ValueError(f"expected a number >= {minimum}")
        if maximum is not None and value > maximum:
            raise ValueError(f"expected a number <= {maximum}")
        return float(value)

    return check


def _str(value: Any) -> str:
    if isinstance(value, str):
        return value
    raise ValueError("expected a string")


def _opt_str(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise ValueError("expected a string or null")


def _enum(*choices: Any) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if value in choices:
            return value
        raise ValueError("expected one of " + ", ".join(repr(c) for c in choices))

    return check


def _str_list(value: Any) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError("expected a list of strings")
    return list(value)


def _str_or_list(value: Any) -> list[str]:
    return _str_list(value)


def _path_globs(value: Any) -> list[str]:
    globs = _str_list(value)
    for pattern in globs:
        try:
            compile_path_glob(pattern)
        except PatternError as exc:
            raise ValueError(f"expected path globs; {exc}") from None
    return globs


def _branch_patterns(value: Any) -> list[str]:
    patterns = _str_list(value)
    for pattern in patterns:
        try:
            compile_branch_pattern(pattern)
        except PatternError as exc:
            raise ValueError(f"expected branch names, globs or 're:<regex>'; {exc}") from None
    return patterns


def _regex_list(value: Any) -> list[str]:
    items = _str_list(value)
    for item in items:
        try:
            re.compile(item)
        except re.error as exc:
            raise ValueError(f"expected regexes; bad regex {item!r}: {exc}") from None
    return items


def _gates_by_task(value: Any) -> dict[str, list[str]]:
    if not isinstance(value, dict):
        raise ValueError("expected a mapping of task type to a list of gate names")
    out: dict[str, list[str]] = {}
    for task, gates in value.items():
        if task not in TASK_TYPES:
            raise ValueError(f"unknown task type {task!r}; expected one of {', '.join(TASK_TYPES)}")
        names = _str_list(gates)
        for name in names:
            if name not in GATE_NAMES:
                raise ValueError(
                    f"unknown gate {name!r} for {task!r}; expected one of {', '.join(GATE_NAMES)}"
                )
        out[task] = names
    return out


def _gate_commands(value: Any) -> list[dict[str, Any]]:
    """`gates:` entries: {name, run, fix?, fix_patterns?, timeout?, kind?}."""
    if not isinstance(value, list):
        raise ValueError("expected a list of {name, run} mappings")
    allowed = {"name", "run", "fix", "fix_patterns", "timeout", "kind"}
    out = []
    for index, item in enumerate(value):
        where = f"entry {index}"
        if not isinstance(item, dict):
            raise ValueError(f"{where}: expected a mapping with 'name' and 'run'")
        unknown = set(item) - allowed
        if unknown:
            expected = ", ".join(sorted(allowed))
            raise ValueError(f"{where}: unknown key {sorted(unknown)[0]!r}; expected {expected}")
        if not isinstance(item.get("name"), str) or not item["name"]:
            raise ValueError(f"{where}: 'name' must be a non-empty string")
        if not isinstance(item.get("run"), str) or not item["run"].strip():
            raise ValueError(f"{where}: 'run' must be a non-empty command string")
        entry: dict[str, Any] = {
            "name": item["name"],
            "run": item["run"],
            "fix": _str_list(item.get("fix", [])),
            "fix_patterns": _regex_list(item.get("fix_patterns", [])),
            "timeout": _number(minimum=1)(item.get("timeout", 600)),
            "kind": _enum("tests", "lint", "typecheck", "build", "other")(
                item.get("kind", _guess_gate_kind(item["name"]))
            ),
        }
        out.append(entry)
    return out


def _route_map(value: Any) -> dict[str, str]:
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise ValueError("expected a mapping of task category to model name")
    return dict(value)


def _argv(value: Any) -> list[str]:
    """A command as an argv list; a string is split as a shell would split it, never run by one."""
    if isinstance(value, str):
        import shlex

        try:
            return shlex.split(value)
        except ValueError as exc:
            raise ValueError(f"cannot split the command: {exc}") from None
    return _str_list(value)


def _guess_gate_kind(name: str) -> str:
    lowered = name.lower()
    for kind, words in (
        ("tests", ("test", "pytest", "spec")),
        ("lint", ("lint", "ruff", "flake", "eslint", "format")),
        ("typecheck", ("type", "mypy", "pyright", "tsc")),
        ("build", ("build", "compile")),
    ):
        if any(word in lowered for word in words):
            return kind
    return "other"


# ---------------------------------------------------------------- schema

SCHEMA: dict[str, Any] = {
    "protected_branches": Field(
        _branch_patterns, ["main", "master"], "Branch names, globs or 're:<regex>' to protect."
    ),
    "guards": {
        "allow_push": Field(
            _str_list,
            [],
            "Identities allowed to push to protected branches: git user.email, "
            "GITHUB_ACTOR or REFLECTION_IDENTITY values (globs allowed). A push honours an "
            "entry only when the remote branch's committed config lists it too.",
        ),
        "refuse_commits_on_protected": Field(
            _bool, True, "Refuse commits while a protected branch is checked out."
        ),
    },
    "tests": {
        "ledger": Field(_bool, True, "Record test runs and require them for commits/pushes."),
        "ignore": Field(
            _path_globs,
            [
                "docs/**",
                "*.md",
                "*.rst",
                "LICENSE*",
                ".github/**",
                ".gitlab-ci.yml",
                ".gitlab/**",
                ".circleci/**",
                ".buildkite/**",
                "azure-pipelines.yml",
                "bitbucket-pipelines.yml",
                ".travis.yml",
                ".gitignore",
                ".claude/**",
                ".codex/**",
                ".gemini/**",
                ".opencode/**",
                ".reflection-hook",
            ],
            "Changes to these paths need no new test run: docs, CI pipeline files and coding "
            "agents' settings, which the test suite does not exercise (dependency manifests, "
            "lock and build files never match: requirements*.txt, CMakeLists.txt, *.lock, ...).",
        ),
        "command": Field(
            _opt_str, None, "The project's full test command (auto-detected when null)."
        ),
        "allow_partial": Field(
            _bool, False, "Count partial runs (`pytest -k`, one file) as a full pass."
        ),
        "pytest_plugin": Field(_bool, True, "Record pytest runs through the pytest11 plugin."),
        "fingerprint_exclude": Field(
            _path_globs,
            [],
            "Extra paths left out of the tree fingerprint (git-ignored files are always left out).",
        ),
        "max_entries": Field(_int(100), 5000, "Ledger lines kept before rotation."),
        "push_commits": Field(
            _enum("all", "tip"),
            "all",
            "pre-push: every pushed commit's tree needs test evidence (all), or each ref's tip.",
        ),
    },
    "prompt": {
        "mode": Field(_enum("advise", "block"), "advise", "advise adds context; block refuses."),
        "bypass_prefix": Field(
            _str_or_list, ["*"], "Prompts starting with this prefix skip evaluation."
        ),
        "block_below": Field(_number(1.0, 5.0), 2.0, "In block mode, block scores below this."),
        "thresholds": {
            "pass": Field(
                _number(1.0, 5.0), 4.0, "Score at or above: pass (one line with `show_score`)."
            ),
            "note": Field(
                _number(1.0, 5.0), 3.0, "Score at or above: pass with a tip (`prompt.tips`)."
            ),
            "ask": Field(_number(1.0, 5.0), 2.0, "Score at or above: ask 2-3 questions."),
        },
        "weights": {
            "clarity": Field(_number(0.0), 3.0, "Weight of clarity of objective."),
            "context": Field(_number(0.0), 2.0, "Weight of context sufficiency."),
            "restrictions": Field(_number(0.0), 1.0, "Weight of restrictions declared."),
            "verifiability": Field(_number(0.0), 2.0, "Weight of verifiability."),
            "scope": Field(_number(0.0), 2.0, "Weight of scope fitting one session."),
        },
        "max_questions": Field(_int(1, 3), 3, "Questions asked per turn (at most 3)."),
        "tips": Field(
            _bool,
            False,
            "Show a one-line tip on a new task that scores below the pass threshold and is "
            "not asked about (off: the hook is unsure there, so it says nothing).",
        ),
        "show_score": Field(
            _bool,
            False,
            "Show one line with the score on a new task that passes (off: a good prompt "
            "gets no answer; the score is still recorded).",
        ),
        "history": Field(_bool, True, "Keep per-user score history in SQLite."),
        "max_chars": Field(_int(1000), 1_000_000, "Longer prompts are truncated before scoring."),
    },
    "stop": {
        "max_attempts": Field(_int(0, 20), 3, "Times the Stop hook pushes the agent on per task."),
        "require": Field(
            _enum("check", "tests"),
            "check",
            "After the latest code change: `check` (a passing test, build, typecheck or run "
            "of the program) or `tests` (the project's tests).",
        ),
        "run_gates": Field(_bool, False, "Run the configured `gates:` from the Stop hook."),
        "required_gates": Field(
            _gates_by_task,
            {"coding": ["tests", "push"], "docs": ["push"], "ops": ["push"]},
            "Gates required per task type (tests, build, lint, pr, ci, push).",
        ),
        "waive_gates": Field(_str_list, [], "Gates never required, whatever the task."),
        "require_pr": Field(_bool, False, "Coding tasks must end with a pull request."),
        "require_ci": Field(_bool, False, "A pull request's CI must be green."),
        "loops": {
            "planning_min_calls": Field(_int(1), 8, "Tool calls before a planning loop counts."),
            "planning_max_write_ratio": Field(
                _number(0.0, 1.0), 0.1, "Below this share of writes it is a planning loop."
            ),
            "action_min_repeats": Field(_int(2), 3, "Same command this often is an action loop."),
            "action_min_share": Field(
                _number(0.0, 1.0), 0.6, "...when repeats are at least this share of commands."
            ),
        },
        "todo_large_list": Field(_int(2), 7, "Open todo items that count as a large list."),
        "max_transcript_bytes": Field(
            _int(1024 * 1024),
            64 * 1024 * 1024,
            "Most transcript bytes read back from the end to find the current task.",
        ),
    },
    "hooks": {
        "deadline_seconds": Field(
            _number(0.0),
            25.0,
            "A hook that runs longer stops itself, says so and leaves a `skipped` verdict "
            "(keep it below the host's hook timeout; 0 turns it off). "
            "REFLECTION_HOOK_DEADLINE overrides it.",
        ),
    },
    "gates": Field(_gate_commands, [], "Commands for `reflection verify` and stop.run_gates."),
    "verify": {
        "same_error_limit": Field(_int(1), 3, "Escalate when one error persists this often."),
        "max_rounds": Field(_int(1), 5, "Correction rounds per task before escalating."),
    },
    "verdict": {
        "stale_seconds": Field(_number(0.0), 30.0, "Verdicts older than this are stale."),
        "keep_records": Field(_int(1), 200, "Full records kept per repo."),
    },
    "notify": {
        "urls": Field(_str_list, [], "apprise URLs (json://, ntfy://, tgram://, ...)."),
        "on": Field(_enum("complete", "incomplete", "always"), "complete", "When to notify."),
        "attention": Field(
            _bool, False, "Also send 'needs attention' with the missing items when incomplete."
        ),
        "speak": Field(_opt_str, None, "Speech command, e.g. 'espeak-ng' or 'say'."),
        "speak_max_chars": Field(_int(20), 400, "Longest text spoken."),
        "terminal": Field(_bool, True, "Ring the terminal through Claude Code's output."),
        "timeout": Field(
            _number(0.5),
            10.0,
            "Seconds per connect and per read of a delivery "
            "(the run ends by hooks.deadline_seconds).",
        ),
        "grace_seconds": Field(
            _number(0.0),
            3.0,
            "With --wait, also take a verdict written this long before the notifier started.",
        ),
    },
    "judge": {
        "provider": Field(
            _enum("openai", "anthropic", "none"), "none", "LLM endpoint of the llm reader."
        ),
        "base_url": Field(_opt_str, None, "API base URL, e.g. http://127.0.0.1:11434/v1."),
        "model": Field(_opt_str, None, "Model name."),
        "models": Field(_str_list, [], "Extra models for voting (defaults to `model`)."),
        "api_key_env": Field(_opt_str, None, "Environment variable holding the API key."),
        "votes": Field(_int(1, 9), 1, "LLM readers that vote (models x stances)."),
        "committee": Field(_bool, False, "Reviewer and auditor roles on the diff."),
        "timeout": Field(_number(1.0), 30.0, "Seconds per request."),
        "max_tokens": Field(_int(16), 800, "Max tokens per response."),
        "token_budget": Field(_int(100), 20000, "Tokens per read across its LLM calls."),
        "retries": Field(_int(0, 5), 2, "Retries on 429/5xx with backoff."),
        "routing": Field(_route_map, {}, "Task category -> model for feedback routing."),
        "input_usd_per_mtok": Field(
            _number(0.0), 0.0, "Price per million input tokens, for the recorded cost."
        ),
        "output_usd_per_mtok": Field(
            _number(0.0), 0.0, "Price per million output tokens, for the recorded cost."
        ),
    },
    "reader": {
        "kind": Field(
            _enum("auto", "builtin", "llm", "claude", "command"),
            "auto",
            "Who reads a stop's words: builtin (no tokens), llm (the `judge:` endpoint), "
            "claude (your Claude Code login via `claude -p`), command; auto = llm when "
            "judge.provider is set, else builtin.",
        ),
        "when": Field(
            _enum("uncertain", "always"),
            "uncertain",
            "Ask the paid reader only when the built-in reading is uncertain, or always.",
        ),
        "model": Field(_opt_str, None, "Reader model; null = judge.model (llm) or haiku (claude)."),
        "claude_path": Field(_str, "claude", "The Claude Code CLI for reader.kind claude."),
        "command": Field(
            _argv, [], "reader.kind command: argv (no shell); digest JSON on stdin, facts out."
        ),
        "timeout_seconds": Field(
            _number(1.0, 55.0), 20.0, "Wall-clock budget per read; then the built-in reading."
        ),
        "budget_tokens_per_session": Field(
            _int(0), 20000, "Tokens paid readers may spend per session."
        ),
        "budget_tokens_per_day": Field(
            _int(0), 200000, "Tokens paid readers may spend per rolling 24 hours."
        ),
        "trace_tokens": Field(
            _int(0, 50000),
            4000,
            "Cap of the turn's condensed trace (tool calls, result tails, final message) a "
            "paid reader gets besides the digest; 0 = digest only.",
        ),
    },
    "memory": {
        "enabled": Field(_bool, True, "Store lessons and recall them on similar prompts."),
        "ttl_days": Field(_int(1), 90, "Lessons expire after this many days."),
        "max_lessons": Field(_int(1), 500, "Lessons kept per repo."),
    },
}


def defaults() -> dict[str, Any]:
    """The configuration used when no file exists."""
    return _defaults_of(SCHEMA)


def _defaults_of(schema: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, spec in schema.items():
        out[key] = _defaults_of(spec) if isinstance(spec, dict) else _copied(spec.default)
    return out


def _copied(value: Any) -> Any:
    """A deep copy of configuration data: mappings, lists and immutable scalars (what YAML,
    TOML and the JSON cache give), without the `copy` module's generality."""
    if isinstance(value, dict):
        return {key: _copied(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copied(item) for item in value]
    return value


def validate(data: Any, source: str) -> dict[str, Any]:
    """Merge `data` over the defaults, raising ConfigError on the first bad key."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(source, "", "expected a mapping at the top level")
    return _validate_section(data, SCHEMA, source, "")


def _validate_section(
    data: dict[str, Any], schema: dict[str, Any], source: str, prefix: str
) -> dict[str, Any]:
    result = _defaults_of(schema)
    for key, value in data.items():
        path = f"{prefix}{key}"
        spec = schema.get(key) if isinstance(key, str) else None
        if spec is None:
            known = ", ".join(sorted(schema))
            raise ConfigError(source, path, f"unknown key; expected one of: {known}")
        if isinstance(spec, dict):
            if value is None:
                continue
            if not isinstance(value, dict):
                raise ConfigError(source, path, "expected a mapping")
            result[key] = _validate_section(value, spec, source, path + ".")
            continue
        try:
            result[key] = spec.check(value)
        except ValueError as exc:
            raise ConfigError(source, path, f"{exc} (got {summary(value)})") from None
    return result


def summary(value: Any) -> str:
    """A value as an error message shows it: a mapping or list by its size, anything
    else cut to 80 characters. Never renders a whole (possibly aliased) structure."""
    if isinstance(value, dict):
        return f"a mapping of {len(value)} key(s)"
    if isinstance(value, list):
        return f"a list of {len(value)} item(s)"
    try:
        return repr(value[:80] if isinstance(value, str) else value)[:80]
    except ValueError:  # an integer too long to print
        return f"a {type(value).__name__} too long to show"


def _check_thresholds(cfg: dict[str, Any], source: str) -> None:
    t = cfg["prompt"]["thresholds"]
    if not t["ask"] <= t["note"] <= t["pass"]:
        raise ConfigError(
            source, "prompt.thresholds", "expected ask <= note <= pass (e.g. 2.0, 3.0, 4.0)"
        )


# ---------------------------------------------------------------- loading


class Config:
    """A validated configuration and where it came from.

    The file and the repo root are kept as strings: `source` and `root` give them as
    paths, built on first use (the prompt hook never needs them, nor pathlib)."""

    def __init__(
        self,
        data: dict[str, Any] | None = None,
        source: str | os.PathLike[str] | None = None,
        root: str | os.PathLike[str] | None = None,
    ) -> None:
        self.data: dict[str, Any] = defaults() if data is None else data
        self.source_file = os.fspath(source) if source is not None else None
        self.root_dir = os.fspath(root) if root is not None else None

    @property
    def source(self) -> Path | None:
        """The file the configuration was read from; None for the defaults."""
        from pathlib import Path

        return Path(self.source_file) if self.source_file is not None else None

    @property
    def root(self) -> Path | None:
        """The repository it configures; None outside any repository."""
        from pathlib import Path

        return Path(self.root_dir) if self.root_dir is not None else None

    def get(self, dotted: str) -> Any:
        """`cfg.get("stop.max_attempts")`: a value by its key path."""
        node: Any = self.data
        for part in dotted.split("."):
            node = node[part]
        return node

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Config):
            return NotImplemented
        mine = (self.data, self.source_file, self.root_dir)
        return mine == (other.data, other.source_file, other.root_dir)

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    def __repr__(self) -> str:
        return f"Config(source={self.source_file!r}, root={self.root_dir!r})"


def config_source(root: Path) -> Path | None:
    """The file configuring `root`: `.reflection.yaml`, else a pyproject with [tool.reflection].

    A `.reflection.yaml` that exists in any form (a directory, a FIFO, a dangling link)
    is the source: reading it then fails with the reason, it never means "defaults"."""
    from pathlib import Path

    found = _config_file(os.fspath(root))
    return Path(found) if found is not None else None


def _config_file(root: str) -> str | None:
    """`config_source` as a string, without pathlib."""
    yaml_path = os.path.join(root, CONFIG_FILENAME)
    if os.path.lexists(yaml_path):
        return yaml_path
    pyproject = os.path.join(root, PYPROJECT)
    if not os.path.lexists(pyproject):
        return None
    try:
        head = read_config_bytes(pyproject)
    except ConfigError:
        return pyproject  # unreadable: loading it says why
    return pyproject if b"[tool.reflection" in head else None


def read_config_bytes(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a config file: a regular file (links followed), opened without
    blocking (a FIFO never holds a hook), read up to MAX_CONFIG_BYTES. ConfigError
    with the reason for anything else."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        dangling = os.path.islink(path) and not os.path.exists(path)
        why = "a link to a missing file" if dangling else exc.strerror or type(exc).__name__
        raise ConfigError(str(path), "", f"exists but cannot be read ({why})") from None
    try:
        regular = stat.S_ISREG(os.fstat(fd).st_mode)
        data = _read_at_most(fd, MAX_CONFIG_BYTES + 1) if regular else b""
    finally:
        os.close(fd)
    if not regular:
        raise ConfigError(str(path), "", f"exists but is {_kind(path)}, not a file it can read")
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(
            str(path), "", f"is larger than {MAX_CONFIG_BYTES // (1024 * 1024)} MB; refused"
        )
    return data


# Larger config files are refused before parsing (a real one is a few kilobytes).
MAX_CONFIG_BYTES = 1024 * 1024


def _kind(path: str | os.PathLike[str]) -> str:
    """What a config path is instead of a regular file, for the error message."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return "unreadable"
    kinds = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"))
    return next((name for test, name in kinds if test(mode)), "a device or special file")


def _read_at_most(fd: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while size < limit:
        chunk = os.read(fd, limit - size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def load(start: str | os.PathLike[str] | None = None, *, use_cache: bool = True) -> Config:
    """The configuration for the repo containing `start` (defaults when there is no file).

    Parsed once per process (keyed by the file's path and content hash: the prompt and
    stop hooks ask more than once), and across processes through the JSON cache."""
    exists = start is None or os.path.exists(start or ".")
    root = paths.repo_root_dir(start) if exists else None
    if root is None:
        return Config(root=None)
    source = _config_file(root)
    if source is None:
        return Config(root=root)
    raw_bytes = read_config_bytes(source)
    content = paths.sha256_hex(raw_bytes)
    key = (str(source), content)
    known = _LOADED.get(key) if use_cache else None
    if known is None:
        known = _load_bytes(source, raw_bytes, content, use_cache)
        if use_cache:
            _LOADED[key] = known
    if isinstance(known, ConfigError):
        raise known
    return Config(data=_copied(known), source=source, root=root)


# (path, content sha256) -> the validated data or the error it gave, for this process.
_LOADED: dict[tuple[str, str], dict[str, Any] | ConfigError] = {}


def _load_bytes(
    source: str, raw_bytes: bytes, content: str, use_cache: bool
) -> dict[str, Any] | ConfigError:
    try:
        data = _load_cached(source, content) if use_cache else None
        if data is None:
            data = validate(_parse(source, raw_bytes), str(source))
            _check_thresholds(data, str(source))
            if use_cache:
                _store_cache(source, data, content)
    except ConfigError as exc:
        return exc
    return data


def load_bytes(source: Path, raw_bytes: bytes, root: Path) -> Config:
    """Validate config text that is not (or not only) on disk: the staged `.reflection.yaml`
    a commit guard must obey. Same size limit and parser as a file; never cached."""
    if len(raw_bytes) > MAX_CONFIG_BYTES:
        raise ConfigError(str(source), "", "is larger than 1 MB; refused")
    data = validate(_parse(source, raw_bytes), str(source))
    _check_thresholds(data, str(source))
    return Config(data=data, source=source, root=root)


def load_file(path: Path) -> Config:
    """Validate one config file (for `doctor` and tests), never cached."""
    data = validate(_parse(path), str(path))
    _check_thresholds(data, str(path))
    return Config(data=data, source=path, root=path.parent)


def _parse(source: str | os.PathLike[str], raw_bytes: bytes | None = None) -> Any:
    if raw_bytes is None:
        raw_bytes = read_config_bytes(source)
    if os.path.basename(source) == PYPROJECT:
        try:
            import tomllib  # type: ignore[import-not-found,unused-ignore]
        except ModuleNotFoundError:  # Python 3.10
            import tomli as tomllib  # type: ignore[no-redef,import-not-found,unused-ignore]
        try:
            doc = tomllib.loads(raw_bytes.decode("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(str(source), "", f"invalid TOML: {exc}") from None
        section = doc.get("tool", {}).get("reflection")
        return _dashes_to_underscores(section) if section is not None else {}
    import yaml

    try:
        return yaml.load(raw_bytes.decode("utf-8"), Loader=_yaml12_loader())
    except (yaml.YAMLError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ConfigError(str(source), "", _yaml_error_text(exc)) from None


def _yaml_error_text(exc: BaseException) -> str:
    """A YAML error on one line, where first (line and column, from 1) then what: PyYAML's
    own text renders a snippet, names `<unicode string>` for the file, and was cut off."""
    mark, problem = getattr(exc, "problem_mark", None), getattr(exc, "problem", None)
    if mark is None or not problem:
        return "invalid YAML: " + " ".join(str(exc).split())
    text = f"invalid YAML at line {mark.line + 1}, column {mark.column + 1}: {problem}"
    context, at = getattr(exc, "context", None), getattr(exc, "context_mark", None)
    if context and at is not None:
        text += f" ({context} at line {at.line + 1}, column {at.column + 1})"
    return text


def _yaml12_loader() -> Any:
    """A safe loader where only true/false are booleans (YAML 1.2), and no aliases.

    Under YAML 1.1 the documented key `notify: {on: complete}` would load as
    `{True: "complete"}`, and `yes`/`no` would silently become booleans.
    """
    import yaml

    class Yaml12Loader(yaml.SafeLoader):
        def compose_node(self, parent: Any, index: Any) -> Any:
            """Aliases are refused: a config never needs them, and a few nested ones
            expand to gigabytes wherever the structure is walked or printed."""
            if self.check_event(yaml.AliasEvent):
                mark = self.peek_event().start_mark
                raise yaml.composer.ComposerError(
                    None, None, "aliases (*name) are not allowed in a reflection config", mark
                )
            return super().compose_node(parent, index)

    bool_tag = "tag:yaml.org,2002:bool"
    Yaml12Loader.yaml_implicit_resolvers = {
        first: [(tag, regex) for tag, regex in resolvers if tag != bool_tag]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    Yaml12Loader.add_implicit_resolver(
        bool_tag, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
    )
    return Yaml12Loader


def _dashes_to_underscores(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            (k.replace("-", "_") if isinstance(k, str) else k): _dashes_to_underscores(v)
            for k, v in value.items()
        }
    return value


def _cache_path(source: str) -> str:
    digest = paths.sha256_hex(os.path.realpath(source).encode())[:24]
    return os.path.join(paths.state_directory(), "config-cache", f"{digest}.json")


def _digest(data: Any) -> str:
    return paths.sha256_hex(json.dumps(data, sort_keys=True).encode())


def _load_cached(source: str, content: str) -> dict[str, Any] | None:
    """The cached parse of `source`, only when it provably belongs to the file as it is now:
    same schema, same content hash, an intact data digest, and the data passes the
    schema again. Anything else is discarded (and rebuilt by the caller): a cache must
    never switch a guard off."""
    try:
        with open(_cache_path(source), encoding="utf-8") as handle:
            cached = json.loads(handle.read())
        if not isinstance(cached, dict) or cached.get("schema") != _schema_id():
            return None
        data = cached.get("data")
        if cached.get("source_sha256") != content or cached.get("data_sha256") != _digest(data):
            return None
        checked = validate(data, str(_cache_path(source)))
        _check_thresholds(checked, str(source))
    except (OSError, ValueError, TypeError, RecursionError, ConfigError):
        return None
    return checked if checked == data else None


def _store_cache(source: str, data: dict[str, Any], content: str) -> None:
    from pathlib import Path

    from reflection_core.atomic import write_json_atomic

    try:
        entry = {
            "schema": _schema_id(),
            "source_sha256": content,
            "data_sha256": _digest(data),
            "data": data,
        }
        write_json_atomic(Path(_cache_path(source)), entry)
    except OSError:
        pass  # a cache that cannot be written only costs speed


def _schema_fingerprint(schema: dict[str, Any], prefix: str = "") -> list[str]:
    keys: list[str] = []
    for key, spec in schema.items():
        if isinstance(spec, dict):
            keys.extend(_schema_fingerprint(spec, f"{prefix}{key}."))
        else:
            keys.append(f"{prefix}{key}={spec.default!r}")
    return keys


def _schema_id() -> str:
    """The schema's identity in cache entries: a cache written for other keys or defaults
    is not used (computed on first use: most hook runs find no config file to cache)."""
    global _SCHEMA_ID
    if _SCHEMA_ID is None:
        _SCHEMA_ID = paths.sha256_hex("\n".join(_schema_fingerprint(SCHEMA)).encode())[:16]
    return _SCHEMA_ID


_SCHEMA_ID: str | None = None


def reference() -> list[tuple[str, Any, str]]:
    """(key path, default, description) for every key: the README's config reference."""

    def walk(schema: dict[str, Any], prefix: str) -> list[tuple[str, Any, str]]:
        rows: list[tuple[str, Any, str]] = []
        for key, spec in schema.items():
            if isinstance(spec, dict):
                rows.extend(walk(spec, f"{prefix}{key}."))
            else:
                rows.append((f"{prefix}{key}", spec.default, spec.doc))
        return rows

    return walk(SCHEMA, "")


def reference_markdown() -> str:
    """The README's config reference table, generated so the docs cannot drift."""

    def show(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    lines = ["| key | default | meaning |", "|---|---|---|"]
    lines += [f"| `{key}` | `{show(default)}` | {doc} |" for key, default, doc in reference()]
    return "\n".join(lines) + "\n"
