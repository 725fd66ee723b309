"""Shell command classifier: what a Bash command line does, as far as the gates care.

`classify_command("cd app && FOO=1 uv run pytest -k slow | tail")` says: a partial
pytest run whose exit status the pipe hides. Pure: no subprocess, no files.

Words and operators come from shell_words.py (the tokenizer).
"""

from __future__ import annotations

import functools
import itertools
import re
import sys

from reflection_core import go_args
from reflection_core.lazyre import lazy
from reflection_core.records import field, record
from reflection_core.session.model import CommandInfo, ToolKind, in_scratch_dir
from reflection_core.session.shell_words import Segment, segments, tokenize

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_ASSIGNMENT = lazy(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")


@record
class _Facts:
    """What one simple command does; merged over the segments of a command line."""

    kinds: set[str] = field(default_factory=set)
    programs: list[str] = field(default_factory=list)
    test_runner: str | None = None
    partial: bool = False
    push_refs: list[str] = field(default_factory=list)
    push_force: bool = False
    push_implicit: bool = False
    push_all: bool = False
    files: list[str] = field(default_factory=list)
    scratch: list[str] = field(default_factory=list)  # files written in scratch dirs
    captures: list[str] = field(default_factory=list)  # `> file`, `| tee file`: output kept
    normalized: list[str] = field(default_factory=list)
    rewrites: bool = False  # a modification beyond reformatting (`reformat`)
    checked_after: bool = False  # a check ran after the line's last rewrite (`_order_checks`)
    wrappers: list[str] = field(default_factory=list)  # see CommandInfo.wrappers

    def test(self, runner: str, partial: bool = False) -> None:
        self.kinds.add("test")
        self.test_runner = self.test_runner or runner
        self.partial = partial

    def modify(self, *files: str) -> None:
        """A change to the work tree; writes only to scratch dirs (/tmp, ...) are none. They
        are kept apart: a project that itself lives there changes (`evidence.project_view`)."""
        named = [f for f in files if f and not f.startswith("-")]
        scratch = [f for f in named if in_scratch_dir(f)]
        self.scratch.extend(scratch)
        if named and len(scratch) == len(named):
            return
        self.kinds.add("modify")
        self.rewrites = True
        self.files.extend(f for f in named if f not in scratch)

    def reformat(self, *files: str) -> None:
        """A formatter's rewrite: layout only, no behaviour changed (kind `format`)."""
        rewrites = self.rewrites
        self.modify(*files)
        self.rewrites = rewrites
        if "modify" in self.kinds:
            self.kinds.add("format")


# --- wrappers: programs that run another program --------------------------------

_WRAPPER_VALUE_OPTIONS: dict[str, frozenset[str]] = {
    "sudo": frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "--user", "--group"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "env": frozenset({"-u", "-C", "--unset", "--chdir", "-S", "--split-string"}),
    "xargs": frozenset({"-I", "-n", "-P", "-L", "-d", "-E", "-s", "-a", "--max-args"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "ionice": frozenset({"-c", "-n", "-p"}),
    "nohup": frozenset(),
    "time": frozenset({"-f", "-o", "--format", "--output"}),
    "command": frozenset(),
    "exec": frozenset({"-a"}),
    "builtin": frozenset(),
    "chronic": frozenset(),
    "uvx": frozenset({"--from", "--with", "--python", "-p"}),
    "bunx": frozenset({"-p", "--package"}),
    "pnpx": frozenset(),
    "fvm": frozenset(),  # `fvm flutter test`: the Flutter SDK version manager
}

_RUNNER_SUBCOMMANDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    # program: (subcommands that run a command, options taking a value)
    "uv": (
        frozenset({"run"}),
        frozenset(
            {"--with", "--python", "-p", "--package", "--extra", "--group", "--directory"}
            | {"--project", "--env-file", "--with-requirements", "--index", "--only-group"}
        ),
    ),
    "poetry": (frozenset({"run"}), frozenset({"-C", "--directory", "-P", "--project"})),
    "pipenv": (frozenset({"run"}), frozenset()),
    "pdm": (frozenset({"run"}), frozenset({"-p", "--project"})),
    "hatch": (frozenset({"run"}), frozenset({"-e", "--env"})),
    "pixi": (frozenset({"run"}), frozenset({"-e", "--environment", "--manifest-path"})),
    "conda": (frozenset({"run"}), frozenset({"-n", "--name", "-p", "--prefix"})),
    "mamba": (frozenset({"run"}), frozenset({"-n", "--name", "-p", "--prefix"})),
    "micromamba": (frozenset({"run"}), frozenset({"-n", "--name", "-p", "--prefix"})),
    "bundle": (frozenset({"exec"}), frozenset()),
    "pnpm": (frozenset({"exec", "dlx"}), frozenset({"--filter", "-F", "-C", "--dir"})),
    "yarn": (frozenset({"exec", "dlx"}), frozenset({"--cwd"})),
    "npm": (frozenset({"exec", "x"}), frozenset({"--prefix", "-w", "--workspace"})),
    "npx": (frozenset({""}), frozenset({"-p", "--package"})),
    "bun": (frozenset({"x"}), frozenset()),
    "coverage": (frozenset({"run"}), frozenset({"--rcfile", "--source", "--omit", "--include"})),
    "dotenv": (frozenset({"run", "--"}), frozenset({"-f", "--file"})),
    "pipx": (frozenset({"run"}), frozenset({"--spec", "--python"})),
    "opam": (frozenset({"exec"}), frozenset({"--switch"})),
}
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
_PYTHONS = lazy(r"^(python|pypy)(\d+(\.\d+)?)?$|^py$")


def _program(word: str) -> str:
    name = word.rsplit("/", 1)[-1]
    return name[:-4] if name.endswith(".exe") else name


def _skip_options(words: list[str], i: int, value_options: frozenset[str]) -> int:
    """Index of the first non-option word at or after `i`; `--` ends options."""
    while i < len(words) and words[i].startswith("-"):
        if words[i] == "--":
            return i + 1
        if words[i] in value_options:
            i += 1
        i += 1
    return i


def _unwrap(words: list[str]) -> tuple[list[str], list[str]]:
    """Strip env assignments and wrapper programs; return (words, inner `sh -c` scripts)."""
    inner: list[str] = []
    while words:
        if _ASSIGNMENT.match(words[0]):
            words = words[1:]
            continue
        prog = _program(words[0])
        if prog in _WRAPPER_VALUE_OPTIONS:
            i = _skip_options(words, 1, _WRAPPER_VALUE_OPTIONS[prog])
            if prog == "timeout" and i < len(words):
                i += 1  # the duration
            if prog == "env":
                while i < len(words) and _ASSIGNMENT.match(words[i]):
                    i += 1
            words = words[i:]
            continue
        if prog in _RUNNER_SUBCOMMANDS:
            subcommands, value_options = _RUNNER_SUBCOMMANDS[prog]
            i = _skip_options(words, 1, value_options)
            if "" in subcommands:  # npx runs its first argument directly
                words = words[i:]
                continue
            if i < len(words) and words[i] in subcommands:
                j = _skip_options(words, i + 1, value_options)
                if prog == "coverage" and words[i + 1 : i + 2] == ["-m"]:
                    j = i + 2
                words = words[j:]
                if prog == "hatch" and words and ":" in words[0]:
                    words = [words[0].split(":", 1)[1], *words[1:]]
                continue
            return words, inner
        inside = _environment_command(prog, words[1:])
        if inside is not None:
            words = inside
            continue
        if prog in _SCRIPT_OPTION:  # `nix-shell --run 'stack test'`: a script, as `sh -c`
            options = _SCRIPT_OPTION[prog]
            at = next((i for i, w in enumerate(words) if w.lower() in options), None)
            if at is None or at + 1 >= len(words):
                return words, inner
            joined = prog != "nix-shell"  # PowerShell joins the words after `-Command`
            inner.append(" ".join(words[at + 1 :]) if joined else words[at + 1])
            return [], inner
        if prog in _SHELLS:
            script = _shell_script(words[1:])
            if script is None:
                return words, inner
            inner.append(script)
            return [], inner
        return words, inner
    return words, inner


# Programs that run a command string given after an option, as `sh -c` does: the script
# is the rest of the line (PowerShell joins its words: `pwsh -c Invoke-Pester -CI`).
_SCRIPT_OPTION: dict[str, tuple[str, ...]] = {
    "nix-shell": ("--run", "--command"),
    "pwsh": ("-command", "-c"),
    "powershell": ("-command", "-c"),
    "powershell.exe": ("-command", "-c"),
    "pwsh.exe": ("-command", "-c"),
}


def _environment_command(prog: str, args: list[str]) -> list[str] | None:
    """The command an environment runs: `nix develop -c CMD`, `nix shell PKGS --command
    CMD`, `direnv exec DIR CMD`; None for anything else."""
    if prog == "nix" and args[:1] in (["develop"], ["shell"]):
        marker = next((i for i, a in enumerate(args) if a in ("-c", "--command")), None)
        return args[marker + 1 :] if marker is not None else None
    if prog == "direnv" and args[:1] == ["exec"] and len(args) > 2:
        return args[2:]
    return None


_SHELL_VALUE_OPTIONS = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})


def _shell_script(args: list[str]) -> str | None:
    """The command string of `bash -c SCRIPT`, also when `c` is clustered with other short
    options (`bash -lc`, `sh -ec`) or follows long ones (`bash --login -c`); None when
    the shell runs a file or reads standard input."""
    runs_string = False
    i = 0
    while i < len(args) and args[i][:1] in "-+" and args[i] not in ("-", "--"):
        word = args[i]
        if word in _SHELL_VALUE_OPTIONS:
            i += 2
            continue
        runs_string = runs_string or (not word.startswith("--") and "c" in word[1:])
        i += 1
    i += args[i : i + 1] == ["--"]
    return args[i] if runs_string and i < len(args) else None


# --- per-program rules ------------------------------------------------------------

# The kinds of command that check the code: one of them after a change is its check.
# "run": the program itself run (a script, `go run`, `cargo run`).
CHECK_KINDS = frozenset({"test", "build", "lint", "typecheck", "run"})
# Source files named as tests: run directly (`node parser.test.js`, `python test_x.py`),
# they are a test run of that file.
_TEST_SOURCE = lazy(r"(^|[/_.-])([Tt]ests?|[Ss]pec)([_.-][^/]*)?\.[a-z]+$|[a-z0-9]Tests?\.[a-z]+$")
# A program named as a test suite, without a file suffix: a compiled test binary
# (`unit_tests`, `test_parser`, `backend-tests`), run as one test file is.
_TEST_BINARY = lazy(r"^(tests?[_-][\w-]+|[\w-]+[_-]tests?)$")
_SOURCE_FILE = lazy(r"\.(py|js|mjs|cjs|ts|tsx|jsx|rb|sh|bash|zsh|pl|php|lua|go|ps1)$")
# Interpreters that run a source file given as their first argument.
_INTERPRETERS = frozenset(
    {"node", "ruby", "tsx", "ts-node", "perl", "php", "lua", "bash", "sh", "zsh"}
)
_LINT_PROGRAMS = frozenset(
    {"flake8", "pylint", "stylelint", "shellcheck", "golangci-lint", "hadolint", "yamllint"}
    | {"markdownlint", "codespell", "bandit", "pydocstyle", "pycodestyle", "vulture", "tflint"}
    | {"ktlint", "swiftlint", "clippy-driver", "htmlhint", "actionlint", "oxlint"}
    | {"staticcheck", "revive", "ansible-lint", "kubeconform", "kubeval", "xmllint"}
    | {"nix-instantiate"}  # parses (`--parse`) or evaluates a Nix file
)
_TYPECHECK_PROGRAMS = frozenset(
    {"mypy", "dmypy", "pyright", "basedpyright", "pytype", "pyre", "svelte-check"}
)
_BUILD_PROGRAMS = frozenset(
    {"ninja", "webpack", "esbuild", "rollup", "parcel", "meson", "scons", "msbuild", "xcodebuild"}
    | {"sphinx-build"}
)
# Compilers run directly: compiling the changed source is the check a project without
# tests still has. One program a line (a test per entry).
COMPILERS: tuple[str, ...] = (
    "gcc",
    "g++",
    "cc",
    "c++",
    "clang",
    "clang++",
    "nvcc",
    "javac",
    "kotlinc",
    "rustc",
    "swiftc",
    "solc",
)
# Toolchains whose subcommand compiles, renders or tests: contracts, sites and documents.
# (program, subcommand, kind), one a line (a test per entry).
SUBCOMMAND_CHECKS: tuple[tuple[str, str, str], ...] = (
    ("hardhat", "compile", "build"),
    ("hardhat", "test", "test"),
    ("truffle", "compile", "build"),
    ("truffle", "test", "test"),
    ("forge", "build", "build"),
    ("forge", "test", "test"),
    ("quarto", "render", "build"),
    ("mkdocs", "build", "build"),
    ("jekyll", "build", "build"),
    ("hugo", "build", "build"),
    ("astro", "build", "build"),
    ("docusaurus", "build", "build"),
    # Declarative system and infrastructure configs: evaluating them is their check.
    ("nix", "flake check", "build"),
    ("nix", "build", "build"),
    ("nixos-rebuild", "build", "build"),
    ("nixos-rebuild", "dry-build", "build"),
    ("home-manager", "build", "build"),
    ("darwin-rebuild", "build", "build"),
    ("terraform", "validate", "lint"),
    ("tofu", "validate", "lint"),
    ("helm", "lint", "lint"),
    ("helm", "template", "build"),
    # Test runners and builds of ecosystems whose tool takes a subcommand.
    ("west", "build", "build"),  # Zephyr: configures, compiles and links the firmware
    ("idf.py", "build", "build"),  # ESP-IDF
    ("luarocks", "test", "test"),
    ("crystal", "spec", "test"),
    ("rebar3", "eunit", "test"),  # Erlang
    ("rebar3", "ct", "test"),
    ("clojure", "-X:test", "test"),  # deps.edn's :test alias (cognitect test-runner)
    ("clj", "-X:test", "test"),
    ("clojure", "-M:test", "test"),
    ("ng", "test", "test"),  # the Angular CLI: Karma or Jest under it
    ("ng", "e2e", "test"),
    ("ng", "build", "build"),
    ("ng", "lint", "lint"),
    ("flutter", "test", "test"),
    ("very_good", "test", "test"),
    ("melos", "run test", "test"),
    ("scala-cli", "test", "test"),
    ("scala-cli", "compile", "build"),
    ("flutter", "analyze", "lint"),
    ("flutter", "build", "build"),
    ("dart", "test", "test"),
    ("dart", "analyze", "lint"),
    ("dart", "compile", "build"),
    ("stack", "test", "test"),
    ("stack", "build", "build"),
    ("cabal", "test", "test"),
    ("cabal", "build", "build"),
    ("lein", "test", "test"),
    ("php", "artisan test", "test"),
    ("R", "CMD check", "test"),
    ("xcodebuild", "test", "test"),
    ("alembic", "check", "lint"),
    # Checks of web frameworks, schemas, firmware and server configs.
    ("astro", "check", "typecheck"),
    ("prisma", "validate", "lint"),
    ("prisma", "generate", "build"),
    ("terraform", "plan", "build"),
    ("tofu", "plan", "build"),
    ("pio", "run", "build"),
    ("pio", "test", "test"),
    ("platformio", "run", "build"),
    ("arduino-cli", "compile", "build"),
    ("nginx", "-t", "lint"),
    ("luac", "-p", "lint"),
    ("caddy", "validate", "lint"),
    ("systemd-analyze", "verify", "lint"),
    ("ansible-playbook", "--syntax-check", "lint"),
    ("pants", "test", "test"),
    ("pants", "lint", "lint"),
    ("pants", "check", "typecheck"),
    ("hatch", "test", "test"),
    ("elm", "make", "build"),
)
# Package managers that add or remove a dependency by editing the project's manifest
# (program, subcommand, the manifest; "" when it is not at a fixed path): a change the
# tests must see. One a line (a test per entry).
MANIFEST_EDITS: tuple[tuple[str, str, str], ...] = (
    ("uv", "add", "pyproject.toml"),
    ("uv", "remove", "pyproject.toml"),
    ("poetry", "add", "pyproject.toml"),
    ("poetry", "remove", "pyproject.toml"),
    ("pdm", "add", "pyproject.toml"),
    ("pdm", "remove", "pyproject.toml"),
    ("pixi", "add", "pixi.toml"),
    ("bundle", "add", "Gemfile"),
    ("bundle", "remove", "Gemfile"),
    ("composer", "require", "composer.json"),
    ("composer", "remove", "composer.json"),
    ("alembic", "revision", ""),  # a new migration under the versions folder
)
# Subcommands that only look at a system's state (a deployment, a service, a cluster): kind
# "status". They change nothing, so a failure before them keeps the last word on the work
# ("deploy failed", then `fly status`, then "Deployed"); their output is an outcome, not a
# file's content, so they stay shell calls. (program, subcommand), one a line; docker's
# serve docker-compose and podman too.
STATE_LOOKS: tuple[tuple[str, str], ...] = (
    ("kubectl", "get"),
    ("kubectl", "describe"),
    ("kubectl", "logs"),
    ("kubectl", "top"),
    ("kubectl", "events"),
    ("kubectl", "rollout status"),
    ("kubectl", "rollout history"),
    ("helm", "list"),
    ("helm", "ls"),
    ("helm", "status"),
    ("helm", "history"),
    ("systemctl", "status"),
    ("systemctl", "is-active"),
    ("systemctl", "is-failed"),
    ("systemctl", "list-units"),
    ("journalctl", ""),
    ("docker", "ps"),
    ("docker", "logs"),
    ("docker", "images"),
    ("docker", "inspect"),
    ("docker", "compose ps"),
    ("docker", "compose logs"),
    ("fly", "status"),
    ("fly", "logs"),
    ("fly", "releases"),
    ("flyctl", "status"),
    ("flyctl", "logs"),
    ("heroku", "ps"),
    ("heroku", "logs"),
    ("heroku", "releases"),
    ("pm2", "status"),
    ("pm2", "list"),
    ("pm2", "ls"),
    ("pm2", "logs"),
    ("vercel", "ls"),
    ("vercel", "logs"),
    ("vercel", "inspect"),
    ("railway", "status"),
    ("railway", "logs"),
    ("terraform", "show"),
    ("terraform", "output"),
    ("terraform", "state list"),
)
# What a look at a system's state prints when the state is a failure (a pod that crash-loops,
# a unit that failed, a container that exited non-zero): the look's output is evidence the
# work did not take. Program -> pattern, one a line.
FAILED_STATES: tuple[tuple[str, str], ...] = (
    (
        "kubectl",
        r"\b(CrashLoopBackOff|ImagePullBackOff|ErrImagePull|CreateContainerConfigError|OOMKilled)\b",
    ),
    ("systemctl", r"Active: (failed|inactive \(dead\))"),
    ("docker", r"\b(Exited \([1-9]\d*\)|Restarting \(\d+\)|\(unhealthy\))"),
    ("helm", r"STATUS: failed"),
    ("fly", r"\b(failed|crashed)\b"),
    ("flyctl", r"\b(failed|crashed)\b"),
    ("heroku", r"\bcrashed\b"),
    ("pm2", r"\berrored\b"),
)
_READ_PROGRAMS = frozenset(
    {"cat", "head", "tail", "less", "more", "bat", "wc", "awk", "gawk", "jq", "yq", "diff"}
    | {"cmp", "nl", "stat", "file", "du", "df", "pwd", "which", "type", "readlink", "realpath"}
    | {"sort", "uniq", "cut", "tr", "od", "xxd", "hexdump", "strings", "column", "basename"}
    | {"dirname", "tac", "rev", "md5sum", "sha256sum", "printenv", "whereis"}
)
SEARCH_PROGRAMS = frozenset(
    {"grep", "egrep", "fgrep", "rg", "ag", "ack", "find", "fd", "fdfind", "ls", "tree", "locate"}
)
_MODIFY_PROGRAMS = frozenset({"rm", "touch", "truncate", "unlink", "rmdir", "shred"})
# Options of those programs that take a value, which names no file to change
# (`touch -d '20 days ago' f`). One program a line.
MODIFY_VALUE_OPTIONS: dict[str, frozenset[str]] = {
    "touch": frozenset({"-d", "-t", "-r", "--date", "--reference"}),
    "truncate": frozenset({"-s", "--size", "-r", "--reference"}),
    "shred": frozenset({"-n", "-s", "--iterations", "--size"}),
}
# Clients that probe a URL, and the hosts that are this machine: a request to a server the
# agent started is a run of the program (`curl -i localhost:3000/health`). One a line.
HTTP_CLIENTS = frozenset({"curl", "wget", "http", "https", "xh"})
LOCAL_HOSTS: tuple[str, ...] = (
    "localhost",
    "127.0.0.1",
    "0.0.0.0",
    "[::1]",
)
_URL_HOST = lazy(r"^(?:[a-z][a-z0-9+.-]*://)?(?:[^@/\s]*@)?(\[[^\]]*\]|[^:/?#\s]*)", re.I)
_OPTION_MODE = lazy(r"^-[rwxXst]+$")
_JS_TEST_RUNNERS = frozenset({"jest", "vitest", "mocha", "ava", "jasmine", "karma", "tap", "c8"})
_SCRIPT_RUNNERS = frozenset({"npm", "pnpm", "yarn", "bun", "composer", "just", "task", "make"})
# Package managers that run a binary of the project's own dependencies by name when no
# script has that name (`pnpm vitest`, `yarn jest`, `yarn run jest`); npm needs `npx`.
_RUNS_PROJECT_BINARIES = frozenset({"pnpm", "yarn", "bun"})
_TEST_SCRIPT = lazy(
    r"^(run[-_]?)?tests?([-_.:].*)?$|^check$|^unittests?$|^spec$"
    r"|^[\w.-]+[-_:](tests?|specs?)$"  # `unit-test`, `migrate-test`, `e2e:test`
)
_CHECK_SCRIPT = lazy(r"^[\w.-]+[-_:]check$|^check[-_:][\w.-]+$|^(validate|verify)([-_:][\w.-]+)?$")
_TEST_FILE_SCRIPT = lazy(r"^(run[-_]?tests?|runtests)(\.sh|\.py|\.bash)?$|^tests?\.(sh|py|bash)$")
# A script named for building: `./build.sh`, `scripts/compile-all.sh`, `build.ps1`.
_BUILD_FILE_SCRIPT = lazy(r"^(build|compile)([-_.][\w-]*)?\.(sh|bash|ps1|bat|cmd)$")
_WRITE_IN_CODE = lazy(
    r"open\([^)]*['\"][wax]\+?b?['\"]|\.write_(text|bytes)\(|shutil\.(copy|move|rmtree)"
    r"|os\.(remove|unlink|rename|replace)\(|writeFileSync|fs\.write"
)


def _script_kind(script: str) -> str | None:
    """What an npm/make/just script name probably does: test, lint, typecheck, build."""
    name = script.lower()
    if _TEST_SCRIPT.match(name) or name.startswith("test"):
        return "test"
    if name.startswith(("lint", "eslint", "format:check", "fmt:check", "prettier:check")):
        return "lint"
    if name.startswith(("typecheck", "type-check", "types", "tsc", "mypy", "check-types")):
        return "typecheck"
    if name.startswith(("build", "compile", "bundle", "dist", "all")):
        return "build"
    if _CHECK_SCRIPT.match(name):
        return "lint"  # a check of something by name (`i18n:check`, `check:links`, `validate`)
    if name.startswith(("format", "fmt")):
        return "format"
    if name.startswith("fix"):
        return "modify"
    return None


def _positional(args: list[str], value_options: frozenset[str] = frozenset()) -> list[str]:
    out: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg == "--":
            continue
        elif arg.startswith("-"):
            skip = arg in value_options
        elif arg:  # an empty word (`sed -i ''`) names no file
            out.append(arg)
    return out


def _looks_like_test_path(arg: str) -> bool:
    return "::" in arg or bool(
        re.search(r"\.(py|ts|tsx|js|jsx|mjs|rb|ex|exs|php|dart)(:\d+)?$", arg)
    )


_PYTEST_VALUE_OPTIONS = frozenset(
    {"-k", "-m", "-p", "-c", "-o", "--rootdir", "--deselect", "--ignore", "--junitxml"}
    | {"--cov", "--cov-report", "--maxfail", "-n", "--tb", "--confcutdir", "--basetemp"}
)
_PYTEST_NO_RUN = frozenset(
    {"--collect-only", "--co", "--help", "-h", "--version", "-V", "--fixtures", "--markers"}
    | {"--fixtures-per-test"}
)


def _pytest(args: list[str], facts: _Facts, runner: str = "pytest") -> None:
    if any(a in _PYTEST_NO_RUN for a in args):
        return
    selecting = {"-k", "-m", "--lf", "--last-failed", "--sw", "--stepwise", "--deselect"}
    partial = any(a in selecting or a.startswith(("-k=", "-m=", "--deselect=")) for a in args)
    positional = _positional(args, _PYTEST_VALUE_OPTIONS)
    partial = partial or any(_looks_like_test_path(a) for a in positional)
    facts.test(runner, partial)


# Modules `python -m` runs that are tools, not the project's program: installers,
# packaging, notebooks, debuggers, downloaders. One a line.
TOOL_MODULES = frozenset(
    {
        "pip",
        "pipx",
        "virtualenv",
        "twine",
        "wheel",
        "setuptools",
        "poetry",
        "pdm",
        "hatch",
        "uv",
        "pre_commit",
        "jupyter",
        "notebook",
        "ipykernel",
        "IPython",
        "debugpy",
        "playwright",  # `python -m playwright install`
        "spacy",  # `python -m spacy download`
        "nltk",
        "grpc_tools",  # code generation
    }
)


def _python(args: list[str], heredoc: str, facts: _Facts) -> None:
    while args and args[0].startswith("-") and args[0] not in ("-m", "-c", "-"):
        args = args[2:] if args[0] in ("-X", "-W") else args[1:]
    if args[:1] == ["-m"] and len(args) > 1:
        if args[1] in ("build", "py_compile", "compileall"):
            facts.kinds.add("build")
            return
        known = set(facts.kinds)
        _dispatch(args[1], args[2:], heredoc, facts)
        top = args[1].split(".")[0]
        if facts.kinds == known and top not in sys.stdlib_module_names | TOOL_MODULES:
            facts.kinds.add("run")  # a module no table knows: the project's own (`-m app.cli`)
        return
    if args[:1] == ["-c"] and len(args) > 1:
        if _WRITE_IN_CODE.search(args[1]):
            facts.modify()
        return
    script_args = [a for a in args if not a.startswith("-") or a == "-"]
    if not script_args:
        return
    script, rest = _program(script_args[0]), script_args[1:]
    if script == "-" and _WRITE_IN_CODE.search(heredoc):
        facts.modify()
    elif script in ("manage.py", "setup.py") and rest[:1] == ["test"]:
        facts.test("django test" if script == "manage.py" else "setup.py test", len(rest) > 1)
    elif script == "setup.py" and rest[:1] and rest[0].startswith(("build", "bdist", "sdist")):
        facts.kinds.add("build")
    elif _TEST_FILE_SCRIPT.match(script):
        facts.test(script)
    else:
        _run_source(script_args[0], facts)


# The modules a piece of Python code imports: `import a.b`, `from a.b import c`.
_IMPORTED = lazy(
    r"(?:^|[;\"'])\s*(?:from\s+([A-Za-z_][\w.]*)\s+import\b|import\s+([A-Za-z_][\w.]*))", re.M
)


def imported_modules(code: str) -> list[str]:
    """The modules Python code given on a command line or stdin imports (`python -c`,
    `python - <<EOF`), dotted names as written: importing a module parses and runs it."""
    return [a or b for a, b in _IMPORTED.findall(code)]


def _run_source(path: str, facts: _Facts, *, as_named: bool = True) -> None:
    """A source file run directly: a test file's run is a (partial) test run, any other
    file's run is a run of the program (a shell script's, `as_named`, also a wrapper's)."""
    if _TEST_SOURCE.search(path):
        facts.test(_program(path), True)
    elif _SOURCE_FILE.search(path):
        facts.kinds.add("run")
        if as_named and _SHELL_SCRIPT_FILE.search(path):
            facts.wrappers.append(f"file:{path}")


# Shell scripts, whose lines say what a run of them checks (CommandInfo.wrappers).
_SHELL_SCRIPT_FILE = lazy(r"\.(sh|bash)$")


# Options a script runner takes before the script's name, each with a value: the package
# or folder it runs in (`pnpm -C web test`, `yarn --cwd web test`, `npm --prefix web test`).
_SCRIPT_RUNNER_VALUE_OPTIONS = frozenset(
    {"--filter", "-F", "--prefix", "-w", "--workspace", "-C", "--dir", "--cwd"}
)


# Those the runner also reads after the script's name (`npm test --prefix packages/web`):
# only the long ones, which no test runner takes to filter tests.
_PACKAGE_OPTIONS = frozenset({"--filter", "--prefix", "--workspace", "--dir", "--cwd"})


def _without_package_options(args: list[str]) -> list[str]:
    """`args` up to `--` without the runner's package options and their values."""
    end = args.index("--") if "--" in args else len(args)
    kept: list[str] = []
    skip = False
    for arg in args[:end]:
        if skip:
            skip = False
        elif arg in _PACKAGE_OPTIONS:
            skip = True
        elif arg.split("=", 1)[0] not in _PACKAGE_OPTIONS:
            kept.append(arg)
    return kept + args[end:]


def _script_run(prog: str, args: list[str], facts: _Facts) -> None:
    """npm/pnpm/yarn/bun/composer/just/task scripts: `npm test`, `yarn build`, `just lint`."""
    args = [a for a in args if a not in ("--silent", "-s", "--if-present", "-r", "--recursive")]
    elsewhere = False  # the scripts of another package (`pnpm --filter web ci`)
    while len(args) >= 2 and args[0] in _SCRIPT_RUNNER_VALUE_OPTIONS:
        elsewhere, args = True, args[2:]
    if prog == "yarn" and args[:1] == ["workspace"] and len(args) >= 3:
        args = args[2:]
    elif prog == "yarn" and args[:1] == ["workspaces"]:  # `yarn workspaces [foreach -A] run test`
        args = [a for a in args[1:] if a != "foreach" and not a.startswith("-")]
    if not args:
        return
    head, rest = args[0], _without_package_options(args[1:])
    elsewhere = elsewhere or len(rest) < len(args) - 1  # `npm run ci --prefix web`
    if head in ("run", "run-script") and rest:
        head, rest = rest[0], rest[1:]
    elif head in ("t", "tst"):
        head = "test"
    if prog == "bun" and head == "test" and args[0] == "test":
        facts.test("bun test", bool(_positional(rest)))
        return
    if prog in ("npm", "pnpm", "yarn", "bun") and head in ("install", "i", "add", "remove"):
        if head in ("add", "remove") or _positional(rest):
            facts.modify("package.json")
        return
    if (manifest := _manifest_edit(prog, args)) is not None:  # `composer require x/y`
        facts.modify(manifest)
        return
    kind = _script_kind(head)
    if kind is None and prog in _RUNS_PROJECT_BINARIES and head in _JS_TEST_RUNNERS:
        _js_runner(head, rest, facts)  # `pnpm vitest run`, `yarn jest`: the project's binary
    elif kind is None and prog in _RUNS_PROJECT_BINARIES and head in TASK_RUNNERS:
        _task_runner(head, rest, facts)  # `pnpm turbo run test`, `yarn nx affected -t test`
    elif kind == "test":
        facts.test(f"{prog} {head}", _filters_tests(rest))
    elif kind in _SCRIPT_CHANGES:
        _SCRIPT_CHANGES[kind](facts)
    elif kind:
        facts.kinds.add(kind)
    if prog in _WRAPPER_FILES and not elsewhere:  # what it runs, read from the repository
        facts.wrappers.append(f"{_WRAPPER_FILES[prog]}:{head}")
    if prog in _RUNS_LIFECYCLE and not elsewhere:  # `npm publish` runs prepublishOnly first
        facts.wrappers.extend(f"script:{name}" for name in LIFECYCLE_SCRIPTS.get(head, ()))


# What a package manager's own command runs of package.json's scripts before it does its
# work (`npm publish --dry-run` runs `prepublishOnly`, often the build and the tests).
LIFECYCLE_SCRIPTS: dict[str, tuple[str, ...]] = {
    "publish": ("prepublishOnly", "prepack", "prepare"),
    "pack": ("prepack", "prepare"),
}
_RUNS_LIFECYCLE = frozenset({"npm", "pnpm", "yarn"})


# Monorepo task runners: a line names the tasks it runs, and each is read by its name as a
# script is (`_script_kind`). Program -> options that name tasks; one runner a line.
TASK_RUNNERS: dict[str, frozenset[str]] = {
    "turbo": frozenset(),  # turbo run test lint --filter=api; turbo test
    "nx": frozenset({"-t", "--target", "--targets"}),  # nx run-many -t test; nx run api:test
    "lerna": frozenset(),  # lerna run test --scope api
}


def _task_runner(prog: str, args: list[str], facts: _Facts) -> None:
    """The tasks `prog args` runs, each classified by its name."""
    for task in task_names(prog, args):
        _run_named(f"{prog} {task}", _script_kind(task), facts)


def _run_named(runner: str, kind: str | None, facts: _Facts) -> bool:
    """A task or target of `kind` (by its name) ran: a test run, a change, or a check.
    False when its name says nothing."""
    if kind == "test":
        facts.test(runner)
    elif kind in _SCRIPT_CHANGES:
        _SCRIPT_CHANGES[kind](facts)
    elif kind:
        facts.kinds.add(kind)
    return kind is not None


def task_names(prog: str, args: list[str]) -> list[str]:
    """`test` of `nx affected -t test`, `nx run api:test`, `nx test api`, `turbo run test`,
    `lerna run test`: the tasks named, not the projects they run in."""
    options = TASK_RUNNERS.get(prog, frozenset())
    named: list[str] = []
    for before, arg in itertools.pairwise(["", *args]):
        option, _, value = arg.partition("=")
        if before in options:  # `-t test,lint`
            named += arg.split(",")
        elif value and option in options:  # `--target=test`
            named += value.split(",")
    words = [a for a in args if not a.startswith("-")]
    if prog == "nx" and words[:1] == ["run"] and len(words) > 1:
        return words[1].split(":")[1:2]  # project:target[:configuration]
    if prog == "nx" and words[:1] in (["run-many"], ["affected"]):
        return named
    if prog == "nx":
        return words[:1]  # `nx test api`
    if words[:1] == ["run"]:
        words = words[1:]
    return words if prog == "turbo" else words[:1]


# The root file whose named entries a script runner runs, by runner: what an entry named
# for nothing (`npm run ci`, `just verify`) runs is read from it (CommandInfo.wrappers).
_WRAPPER_FILES = {
    "npm": "script",
    "pnpm": "script",
    "yarn": "script",
    "bun": "script",
    "just": "just",
    "composer": "composer",
}
# `make` options that take the Makefile from elsewhere than the working directory's.
_MAKE_ELSEWHERE = ("-C", "-f", "--file", "--directory", "--makefile")


# What a script named for a change does to the tree: a `fix` script rewrites code, a
# `format`/`fmt` script only its layout.
_SCRIPT_CHANGES: dict[str, Callable[[_Facts], None]] = {
    "modify": lambda facts: facts.modify(),
    "format": lambda facts: facts.reformat(),
}


_JS_FILTER_OPTIONS = frozenset(
    {"-t", "--testNamePattern", "-g", "--grep", "--testPathPattern", "--onlyChanged", "--spec"}
)
_JS_VALUE_OPTIONS = frozenset({"-t", "-g", "--config", "-c", "--reporter", "--project"})


def _filters_tests(args: list[str]) -> bool:
    """Arguments passed on to a JS test runner select tests: paths or name filters."""
    named = any(a.split("=", 1)[0] in _JS_FILTER_OPTIONS for a in args)
    return named or _selects(_positional(args, _JS_VALUE_OPTIONS))


# The folders that hold a whole suite: a runner given one of them runs everything.
_SUITE_ROOTS = frozenset({"tests", "test", "spec", "specs", "__tests__", "t"})  # t: Perl


def _selects(paths: list[str]) -> bool:
    """Paths given to a runner select some tests, unless each is a whole suite's folder
    (`phpunit tests`, `rspec spec/`, `jest __tests__`)."""
    return any(p.removeprefix("./").rstrip("/") not in _SUITE_ROOTS for p in paths)


_MAKE_FILE_TARGET = lazy(r"/|\.[A-Za-z0-9]+$")


def _make(args: list[str], facts: _Facts, runner: str = "make") -> None:
    targets = [
        a
        for a in _positional(args, frozenset({"-C", "-f", "-j", "-l", "-o", "-W", "--file"}))
        if "=" not in a
    ]
    if not targets:
        facts.kinds.add("build")
        return
    for target in targets:
        # a file to make (`make -C build bench/suite`, `make app.o`) is built
        kind = "build" if _MAKE_FILE_TARGET.search(target) else _script_kind(target)
        _run_named(f"{runner} {target}", kind, facts)
        if runner == "make" and not any(a.startswith(_MAKE_ELSEWHERE) for a in args):
            facts.wrappers.append(f"make:{target}")


def _rake(args: list[str], facts: _Facts) -> None:
    """`rake` runs the Rakefile's default task; `rake ci` a task read by its name, or
    by what the Rakefile says it runs (`task ci: %i[spec rubocop]`)."""
    tasks = [a.split("[", 1)[0] for a in _positional(args, frozenset({"-f", "-C"})) if "=" not in a]
    for task in tasks or ["default"]:
        if task == "default" or not _run_named(f"rake {task}", _script_kind(task), facts):
            facts.wrappers.append(f"rake:{task}")


def _js_runner(prog: str, args: list[str], facts: _Facts) -> None:
    if any(a in ("--listTests", "--help", "-h", "--version", "list") for a in args):
        return
    if args[:1] and args[0] in ("run", "watch", "related"):
        args = args[1:]
    facts.test(prog, _filters_tests(args))


# `-run` patterns that match every test name: no filter at all.
_MATCHES_EVERY_TEST = frozenset({".", ".*", "'.'", "'.*'", '"."', '".*"'})


def _go_run_filter(rest: list[str]) -> bool:
    """`go test -run PATTERN` runs some of the tests, unless the pattern matches any name."""
    for i, arg in enumerate(rest):
        name, _, value = arg.partition("=")
        if name in ("-run", "-test.run"):
            pattern = value if value else (rest[i + 1] if i + 1 < len(rest) else "")
            if pattern not in _MATCHES_EVERY_TEST:
                return True
    return False


def _go(args: list[str], facts: _Facts) -> None:
    sub, rest = (args[0], args[1:]) if args else ("", [])
    if sub == "test":
        if "-list" in rest or any(a.startswith("-list=") for a in rest):
            return
        facts.test("go test", _go_run_filter(rest) or go_args.names_some_packages(rest))
    elif sub in ("build", "install"):
        facts.kinds.add("build")
    elif sub == "run":
        facts.kinds.add("run")
    elif sub == "vet":
        facts.kinds.add("lint")
    elif sub == "fmt":
        facts.reformat()
    elif sub == "generate" or (sub == "mod" and rest[:1] == ["tidy"]):
        facts.modify()
    elif sub == "get":
        facts.modify("go.mod")


def _cargo(args: list[str], facts: _Facts) -> None:
    args = [a for a in args if not a.startswith("+")]
    sub, rest = (args[0], args[1:]) if args else ("", [])
    value_options = frozenset({"-p", "--package", "--test", "--bin", "--features", "-j", "-E"})
    if sub in ("test", "t"):
        if "--no-run" in rest:
            facts.kinds.add("build")
            return
        before_dashes = rest[: rest.index("--")] if "--" in rest else rest
        names = _positional(before_dashes, value_options)
        facts.test("cargo test", bool(names) or "--test" in rest)
    elif sub == "nextest":
        names = _positional(rest[1:], value_options)
        facts.test("cargo nextest", bool(names) or "-E" in rest)
    elif sub in ("build", "b"):
        facts.kinds.add("build")
    elif sub in ("run", "r"):
        facts.kinds.add("run")
    elif sub in ("check", "c"):
        facts.kinds.add("typecheck")
    elif sub == "clippy":
        facts.kinds.add("lint")
        if "--fix" in rest:
            facts.modify()
    elif sub == "fmt":
        if "--check" in rest:
            facts.kinds.add("lint")
        else:
            facts.reformat()
    elif sub in ("add", "remove"):
        facts.modify("Cargo.toml")


# Gradle task names (the part after the last `:`) and what running them checks, first
# match wins, one shape a line. Android builds name tasks per variant: `assembleDebug`,
# `compileReleaseKotlin`, `testDebugUnitTest`, `connectedDebugAndroidTest`, `lintDebug`.
GRADLE_TASKS: tuple[tuple[str, str], ...] = (
    (r"testClasses|test\w*Classes", "build"),  # compiles the tests, runs none
    (r"test|check|connectedCheck|integrationTest", "test"),
    (r"test\w*UnitTest", "test"),
    (r"connected\w*AndroidTest", "test"),
    (r"build", "build test"),  # assemble, then check: the tests run too
    (r"assemble\w*|compile\w*|bundle\w*|install\w*|jar|classes", "build"),
    (r"lint\w*|detekt|ktlintCheck|spotlessCheck", "lint"),
    (r"run|bootRun", "run"),  # the application plugin's run: compiles, then runs it
)
_GRADLE_TASK_KINDS = tuple((lazy(shape), kind) for shape, kind in GRADLE_TASKS)


def gradle_task_kind(task: str) -> str | None:
    """What running the Gradle task `task` checks: test, build, lint, "build test" (a
    `build` runs the tests too), or None."""
    name = task.rsplit(":", 1)[-1]
    return next((kind for shape, kind in _GRADLE_TASK_KINDS if shape.fullmatch(name)), None)


def _gradle(prog: str, args: list[str], facts: _Facts) -> None:
    tasks = _positional(args, frozenset({"--tests", "-p", "-x", "--exclude-task"}))
    named = [gradle_task_kind(t) for t in tasks]
    kinds = {k for kind in named for k in (kind or "").split()}
    excluded = [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-x", "--exclude-task")]
    if "test" not in named and any(gradle_task_kind(t) == "test" for t in excluded):
        kinds.discard("test")  # `build -x test`: the build leaves the tests out
    if "test" in kinds:
        # `:core:test` tests one module of a multi-project build: some of the tests.
        scoped = any(gradle_task_kind(t) == "test" and t.strip(":").count(":") for t in tasks)
        facts.test(f"{prog} test", "--tests" in args or scoped)
    facts.kinds.update(k for k in kinds if k in ("build", "lint", "run"))


# Pester's options that take a value, and those that narrow the run to some tests.
_PESTER_VALUE_OPTIONS = frozenset(
    {"-output", "-configuration", "-path", "-testname", "-tag", "-excludetag", "-fullname"}
)
_PESTER_NARROWING = frozenset({"-path", "-testname", "-tag", "-fullname"})


def _powershell_file(args: list[str], facts: _Facts) -> None:
    """`pwsh -File x.ps1` (`-NoProfile`, `-ExecutionPolicy Bypass` before it): a run of
    the script."""
    lowered = [a.lower() for a in args]
    for option in ("-file", "-f"):
        if option in lowered[:-1]:
            _run_source(args[lowered.index(option) + 1], facts)
            return


# PowerShell runs a script's text piped into `Invoke-Expression`: `Get-Content x.ps1 -Raw |
# Invoke-Expression`. The reading program, then the evaluating one, lower case.
_SCRIPT_READERS = frozenset({"get-content", "gc", "cat", "type"})
_SCRIPT_EVALUATORS = frozenset({"invoke-expression", "iex"})


def _piped_script_run(source: Segment | None, segment: Segment, facts: _Facts) -> None:
    """A script file read by the segment piped into this one and evaluated here: a run of
    that script (`Get-Content x.ps1 -Raw | Invoke-Expression`)."""
    if source is None or not source.words or not segment.words:
        return
    if _program(segment.words[0]).lower() not in _SCRIPT_EVALUATORS:
        return
    named = _positional(source.words[1:])
    if _program(source.words[0]).lower() in _SCRIPT_READERS and named:
        _run_source(named[0], facts)


def _pester(args: list[str], facts: _Facts) -> None:
    """`Invoke-Pester`, PowerShell's test runner: a path or a name or tag filter runs some
    of the tests."""
    lowered = [a.lower() for a in args]
    named = [
        a for i, a in enumerate(lowered) if i == 0 or lowered[i - 1] not in _PESTER_VALUE_OPTIONS
    ]
    paths = [a for a in named if not a.startswith("-")]
    facts.test("pester", bool(paths) or any(a in _PESTER_NARROWING for a in lowered))


# sbt task names (after an optional `project/` or `Config/` scope) -> what they check.
_SBT_TASKS = {
    "test": "test",
    "testOnly": "test some",
    "testQuick": "test some",
    "compile": "build",
    "run": "run",
}


def _mill(args: list[str], facts: _Facts) -> None:
    """`mill core.test` tests one module, `mill __.test` every one; `.compile` builds."""
    tasks = [a for a in args if not a.startswith("-")]
    tested = [t for t in tasks if t == "test" or t.endswith(".test") or ".test." in t]
    if tested:
        facts.test("mill test", not all(t.startswith("__") for t in tested))
    elif any(t == "compile" or t.endswith(".compile") for t in tasks):
        facts.kinds.add("build")


def _sbt(args: list[str], facts: _Facts) -> None:
    """sbt runs every task its arguments name, in order (`sbt clean test`, `sbt "testOnly
    X"`, `sbt ";clean;test"`); a task scoped to one project (`core/test`) tests some."""
    for arg in args:
        if arg.startswith("-"):
            continue
        for command in arg.split(";"):
            words = command.split()
            if not words:
                continue
            # `+test` runs it for every Scala version; `test:testOnly` is sbt 0.13's scope.
            scope, _, task = words[0].lstrip("+").replace(":", "/").rpartition("/")
            kind = _SBT_TASKS.get(task)
            if kind and kind.startswith("test"):
                facts.test("sbt test", kind == "test some" or scope.lower() not in ("", "test"))
            elif kind:
                facts.kinds.add(kind)


def _maven(prog: str, args: list[str], facts: _Facts) -> None:
    phases = _positional(args, frozenset({"-pl", "-f", "-P", "-T"}))
    skips = any(a.startswith(("-DskipTests", "-Dmaven.test.skip")) for a in args)
    # The lifecycle runs the tests before it packages, verifies or installs.
    tested = ("test", "package", "verify", "install", "integration-test")
    if not skips and any(p in tested for p in phases):
        facts.test(f"{prog} test", any(a.startswith("-Dtest=") for a in args))
    # Every phase from `compile` on compiles, and from `package` on builds the artifact.
    built = (
        "compile",
        "test-compile",
        "package",
        "integration-test",
        "verify",
        "install",
        "deploy",
    )
    if any(p in built for p in phases):
        facts.kinds.add("build")


def _git(args: list[str], facts: _Facts) -> None:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in ("-C", "-c") else 1
    sub, rest = (args[i], args[i + 1 :]) if i < len(args) else ("", [])
    quiet_rest = [a for a in rest if a not in ("-q", "--quiet")]  # `git stash -q`
    reads = {"log", "diff", "status", "show", "blame", "grep", "ls-files", "rev-parse", "describe"}
    reads |= {"shortlog", "reflog", "ls-tree", "cat-file", "whatchanged", "remote", "config"}
    if (
        sub in reads
        or (sub == "branch" and not rest)
        or (sub == "stash" and quiet_rest[:1] in (["list"], ["show"]))
    ):
        facts.kinds.add("read")
    elif sub == "push":
        _git_push(rest, facts)
    elif sub == "commit":
        facts.kinds.add("commit")
    elif sub == "stash" and (not quiet_rest or quiet_rest[0] in _STASH_AWAY):
        facts.kinds.add("stash")  # the change set aside, to run a baseline without it
    elif sub == "stash" and quiet_rest[0] in ("pop", "apply"):
        facts.kinds.add("unstash")  # the change back as it was: no new change
    elif sub in ("checkout", "switch"):
        if not any(a in ("-b", "-B", "-c", "-C", "--orphan") for a in rest):
            files = rest[rest.index("--") + 1 :] if "--" in rest else []
            facts.modify(*files)
    elif sub in ("restore", "rm", "mv"):
        facts.modify(*_positional(rest, frozenset({"-s", "--source"})))
    elif sub in _GIT_TREE_CHANGERS or (sub in ("reset", "clean") and _GIT_FORCE & set(rest)):
        facts.modify()


_GIT_TREE_CHANGERS = frozenset(
    {"apply", "am", "cherry-pick", "merge", "pull", "rebase", "revert", "stash"}
)
_STASH_AWAY = frozenset({"push", "save", "-u", "--include-untracked", "-k", "--keep-index"})
_GIT_FORCE = frozenset({"--hard", "-f", "--force", "-fd", "-fdx"})
_PUSH_VALUE_OPTIONS = frozenset({"-o", "--push-option", "--repo", "--receive-pack", "--exec"})


def _git_push(args: list[str], facts: _Facts) -> None:
    facts.kinds.add("push")
    if any(
        a in ("--force", "-f", "--force-if-includes") or a.startswith("--force-with-lease")
        for a in args
    ):
        facts.push_force = True
    if any(a in ("--all", "--mirror", "--branches") for a in args):
        facts.push_all = True
    delete = any(a in ("-d", "--delete") for a in args)
    positional = _positional(args, _PUSH_VALUE_OPTIONS)
    refspecs = positional[1:]
    if not refspecs and not facts.push_all and "--tags" not in args:
        facts.push_implicit = True
    for spec in refspecs:
        if spec.startswith("+"):
            facts.push_force = True
            spec = spec[1:]
        source, _, target = spec.rpartition(":") if ":" in spec else ("", "", spec)
        if not target and source:
            target = source
        if target in ("HEAD", "@") and not delete:
            facts.push_implicit = True
            continue
        if target.startswith("refs/tags/") or (not target):
            continue
        facts.push_refs.append(target.removeprefix("refs/heads/"))


def _gh(args: list[str], facts: _Facts) -> None:
    words = _positional(args, frozenset({"-R", "--repo"}))
    if words[:1] == ["pr"] and len(words) > 1:
        action = {"create": "pr_create", "view": "pr_view", "status": "pr_view"}
        action |= {"checks": "pr_checks", "diff": "pr_view", "list": "pr_view"}
        if words[1] in action:
            facts.kinds.add(action[words[1]])
    elif words[:1] == ["run"] and len(words) > 1 and words[1] in ("watch", "view", "list"):
        facts.kinds.add("pr_checks")


def _formatter(prog: str, args: list[str], facts: _Facts) -> None:
    """Tools that check with one flag and rewrite files without it; a write flag wins
    (`gofmt -l -w .` lists the files it rewrote)."""
    check_flags = {"--check", "--diff", "--check-only", "-c", "--list-different", "-l"}
    writes = any(a in ("--write", "-w") for a in args)
    if any(a in check_flags for a in args) and not writes:
        facts.kinds.add("lint")
    elif prog != "prettier" or writes:
        facts.reformat(*_positional(args))


def _http_probe(args: list[str], facts: _Facts) -> None:
    """A request to this machine (`LOCAL_HOSTS`) runs the program serving it."""
    for arg in args:
        if arg.startswith("-"):
            continue
        match = _URL_HOST.match(arg)
        if match and match.group(1).lower() in LOCAL_HOSTS:
            facts.kinds.add("run")
            return


def _sed(args: list[str], facts: _Facts) -> None:
    in_place = any(
        a.startswith("-i") or a == "--in-place" or a.startswith("--in-place=") for a in args
    )
    if not in_place:
        facts.kinds.add("read")
        return
    positional = _positional(args, frozenset({"-e", "-f", "--expression", "--file"}))
    has_script_option = any(a in ("-e", "--expression", "-f", "--file") for a in args)
    facts.modify(*(positional if has_script_option else positional[1:]))


_CONTAINER_VALUE_OPTIONS = frozenset(
    {"-e", "--env", "-v", "--volume", "-w", "--workdir", "--name", "--network", "--entrypoint"}
    | {"-u", "--user", "--env-file", "-l", "--label", "--mount", "--platform", "-f", "--file"}
    | {"-p", "--publish", "--project-name", "--profile", "--context", "-H", "--host", "-c"}
    | {"--cpus", "-m", "--memory", "--add-host", "--gpus", "--hostname", "--pull", "-t", "--tag"}
)


def _container(args: list[str], heredoc: str, facts: _Facts) -> None:
    """`docker build` builds; `docker run IMG cmd`, `docker compose exec svc cmd` run cmd."""
    i = _skip_options(args, 0, _CONTAINER_VALUE_OPTIONS)
    if args[i : i + 1] == ["compose"]:
        i = _skip_options(args, i + 1, _CONTAINER_VALUE_OPTIONS)
    sub = args[i] if i < len(args) else ""
    if sub in ("build", "buildx") or (sub == "up" and "--build" in args):
        facts.kinds.add("build")
        return
    if sub == "config" and "compose" in args[:i]:
        facts.kinds.add("lint")  # `docker compose config` validates the compose file
        return
    if sub not in ("run", "exec"):
        if looks_at_state("docker", args):
            facts.kinds.add("status")
        return
    target = _skip_options(args, i + 1, _CONTAINER_VALUE_OPTIONS)
    inner, scripts = _unwrap(args[target + 1 :])
    for script in scripts:
        _merge(facts, _classify_line(script, 1)[0])
    if inner:
        _dispatch(_program(inner[0]), inner[1:], heredoc, facts)


def looks_at_state(prog: str, args: list[str]) -> bool:
    """`prog args` is a STATE_LOOKS entry: flags before the subcommand aside, with or
    without a value (`kubectl -n prod get pods`)."""
    bare = [a for a in args if not a.startswith("-")]
    valued = [a for i, a in enumerate(args) if not a.startswith("-") and not _takes(args, i)]
    return any(
        p == prog and sub.split() in (bare[: len(sub.split())], valued[: len(sub.split())])
        for p, sub in STATE_LOOKS
    )


def _takes(args: list[str], i: int) -> bool:
    """args[i] is the value of the option before it (`-n prod`), read that way."""
    return i > 0 and args[i - 1].startswith("-") and "=" not in args[i - 1]


def shows_failed_state(info: CommandInfo, output: str) -> bool:
    """A look at a system's state (kind `status`) whose output shows a failed state."""
    if "status" not in info.kinds:
        return False
    looked = {"docker-compose": "docker", "podman": "docker"}
    programs = {looked.get(p, p) for p in info.programs}
    return any(p in programs and re.search(pattern, output) for p, pattern in FAILED_STATES)


def _subcommand_entry(prog: str, args: list[str]) -> tuple[str, str] | None:
    """The (subcommand, kind) of the SUBCOMMAND_CHECKS entry `prog args` matches; flags
    before the subcommand (`stack --nix test`) and cabal's `v2-`/`new-` prefixes aside,
    unless the entry's subcommand is itself a flag (`nginx -t`)."""
    found = _entry_for(prog, args)
    while found is None and args and args[0].startswith("-"):
        args = args[1:]
        found = _entry_for(prog, args)
    if found is None and prog == "cabal" and args[:1] and args[0].startswith(("v2-", "new-")):
        found = _entry_for(prog, [args[0].split("-", 1)[1], *args[1:]])
    return found


def _entry_for(prog: str, args: list[str]) -> tuple[str, str] | None:
    return next(
        (
            (sub, kind)
            for p, sub, kind in SUBCOMMAND_CHECKS
            if p == prog and args[: len(sub.split())] == sub.split()
        ),
        None,
    )


def _manifest_edit(prog: str, args: list[str]) -> str | None:
    """The manifest a MANIFEST_EDITS entry `prog args` edits ("" when unnamed), or None."""
    sub = args[0] if args else ""
    return next((m for p, s, m in MANIFEST_EDITS if p == prog and s == sub), None)


def _subcommand_check(prog: str, args: list[str], entry: tuple[str, str], facts: _Facts) -> None:
    """A SUBCOMMAND_CHECKS entry: a test subcommand names its runner (`flutter test`)."""
    sub, kind = entry
    if kind != "test":
        facts.kinds.add(kind)
        return
    facts.test(f"{prog} {sub}", any(_looks_like_test_path(a) for a in args[len(sub.split()) :]))


def _odoo(args: list[str], facts: _Facts) -> None:
    """Odoo's server: installing or upgrading a module (`-u`, `-i`) loads its models and
    views, the check a module change has; `--test-enable` also runs its tests."""
    loads = any(
        a in ("-u", "-i", "--update", "--init") or a.startswith(("--update=", "--init="))
        for a in args
    )
    if loads and "--test-enable" in args:
        facts.test("odoo --test-enable", True)
    elif loads:
        facts.kinds.add("build")


def _builds(prog: str, args: list[str]) -> bool:
    if prog == "xcodebuild" and "test" in args:
        return False  # `xcodebuild test` is a test run (SUBCOMMAND_CHECKS)
    if prog in _BUILD_PROGRAMS:
        return True
    if prog in COMPILERS:  # a compiler given something to compile, not `gcc --version`
        return bool(_positional(args))
    if prog == "cmake":
        return "--build" in args
    return prog in ("vite", "next", "nuxt") and args[:1] == ["build"]


def _ruff(args: list[str], facts: _Facts) -> None:
    sub = args[0] if args and not args[0].startswith("-") else "check"
    if sub == "format":
        _formatter("ruff", args[1:], facts)
        return
    facts.kinds.add("lint")
    if "--fix" in args:
        facts.modify()


def _toolchain(prog: str, args: list[str], facts: _Facts) -> None:
    """`dotnet test`, `swift build`, `mix test`, `deno check`, `bazel test`, `hatch test`,
    `zig build test`, `dune runtest`, ..."""
    sub, rest = (args[0], args[1:]) if args else ("", [])
    if (prog, sub) == ("mix", "do"):  # `mix do compile + test`, `mix do compile, test`
        tasks = " ".join(rest).replace(",", " + ").split(" + ")
        for task in (t.split() for t in tasks if t.strip()):
            _toolchain(prog, task, facts)
        return
    if (prog, sub) == ("deno", "task") and rest:  # a deno.json task named for its check
        sub, rest = rest[0], rest[1:]
    if (prog, sub, rest[:1]) == ("zig", "build", ["test"]) or (prog, sub) == ("dune", "runtest"):
        sub, rest = "test", rest[1:] if prog == "zig" else rest  # the build's test step
    if sub == "test":
        filtered = any(
            a in ("--filter", "-k", "--test_filter") or a.startswith("--filter=") for a in rest
        )
        facts.test(f"{prog} test", filtered or any(_looks_like_test_path(a) for a in rest))
    elif sub in ("build", "publish", "compile"):
        facts.kinds.add("build")
    elif sub == "check" and prog == "deno":
        facts.kinds.add("typecheck")
    elif (prog, sub) in (("dotnet", "add"), ("dotnet", "remove")):
        facts.modify()  # a package or reference in the project file
    elif sub == "lint":
        facts.kinds.add("lint")
    elif sub in ("fmt", "format"):
        if any(a in TOOLCHAIN_FORMAT_CHECKS for a in rest):
            facts.kinds.add("lint")
        else:
            facts.reformat()
    elif prog == "mix" and sub and not sub.startswith("-"):
        facts.wrappers.append(f"mix:{sub}")  # an alias of mix.exs (`mix ci`), if one


# The flags under which a toolchain's formatter only checks: `zig fmt --check`,
# `mix format --check-formatted`, `dotnet format --verify-no-changes`.
TOOLCHAIN_FORMAT_CHECKS = frozenset({"--check", "--check-formatted", "--verify-no-changes"})


def _unittest(args: list[str], facts: _Facts) -> None:
    """`python -m unittest`: partial when it names tests or filters them with -k."""
    names = [a for a in _positional(args, frozenset({"-k", "-p", "-s", "-t"})) if a != "discover"]
    facts.test("unittest", bool(names) or "-k" in args)


def _tox(prog: str, args: list[str], facts: _Facts) -> None:
    """tox/nox run the test environments, unless only asked to list them."""
    if not any(a in ("-l", "--list", "--listenvs", "-a", "--help") for a in args):
        facts.test(prog)


def _fixing_linter(args: list[str], facts: _Facts) -> None:
    """eslint, rubocop, ...: a lint, and a change too when told to fix."""
    facts.kinds.add("lint")
    if any(a in ("--fix", "-a", "-A", "--write", "--apply", "--autocorrect") for a in args):
        facts.modify()


def _copy(prog: str, args: list[str], facts: _Facts) -> None:
    """mv changes its sources and target; cp, install, rsync change their target."""
    targets = _positional(args, frozenset({"-t", "--target-directory", "-S"}))
    facts.modify(*(targets if prog == "mv" else targets[-1:]))


def _chmod(args: list[str], facts: _Facts) -> None:
    """chmod changes the files after the mode (all of its operands with `--reference=FILE`
    or a mode written as an option). Ownership (chown) is no change a check exercises."""
    operands = _positional(args)
    no_mode = any(a.startswith("--reference") or _OPTION_MODE.match(a) for a in args)
    facts.modify(*(operands if no_mode else operands[1:]))


def _link(args: list[str], facts: _Facts) -> None:
    """ln creates the link (its last operand, or the target's name in the current
    folder); the file it points to does not change."""
    operands = _positional(args, frozenset({"-t", "--target-directory", "-S", "--suffix"}))
    if len(operands) == 1:
        facts.modify(operands[0].rstrip("/").rsplit("/", 1)[-1])
    else:
        facts.modify(*operands[-1:])


def _find(args: list[str], facts: _Facts) -> None:
    """find looks; with -delete or `-exec rm/sed/mv` it changes files too."""
    facts.kinds.add("read")
    if "-delete" in args or any(
        a == "-exec" and b in ("rm", "sed", "mv") for a, b in itertools.pairwise(args)
    ):
        facts.modify()


if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    # (program, args, heredoc, facts): what a command run by that program does.
    _Handler = Callable[[str, list[str], str, _Facts], None]

# Programs known by name alone, whatever their arguments, in the order of precedence:
# the first group naming a program wins (make is a script runner with its own handler).
_BY_NAME: tuple[tuple[Iterable[str], _Handler], ...] = (
    (("pytest", "py.test"), lambda prog, args, heredoc, facts: _pytest(args, facts)),
    (("unittest",), lambda prog, args, heredoc, facts: _unittest(args, facts)),
    # `python -m doctest app/calc.py`: that module's examples, a run of some tests.
    (("doctest",), lambda prog, args, heredoc, facts: facts.test("doctest", True)),
    (("tox", "nox"), lambda prog, args, heredoc, facts: _tox(prog, args, facts)),
    (("make", "gmake"), lambda prog, args, heredoc, facts: _make(args, facts)),
    (_SCRIPT_RUNNERS, lambda prog, args, heredoc, facts: _script_run(prog, args, facts)),
    (_JS_TEST_RUNNERS, lambda prog, args, heredoc, facts: _js_runner(prog, args, facts)),
    (("go",), lambda prog, args, heredoc, facts: _go(args, facts)),
    (("cargo",), lambda prog, args, heredoc, facts: _cargo(args, facts)),
    (("gradle", "gradlew"), lambda prog, args, heredoc, facts: _gradle(prog, args, facts)),
    (("mvn", "mvnw"), lambda prog, args, heredoc, facts: _maven(prog, args, facts)),
    (("sbt",), lambda prog, args, heredoc, facts: _sbt(args, facts)),
    (("mill",), lambda prog, args, heredoc, facts: _mill(args, facts)),
    # gotestsum runs `go test` with what follows `--` (./... when nothing does).
    (
        ("gotestsum",),
        lambda prog, args, heredoc, facts: _go(
            ["test", *(args[args.index("--") + 1 :] if "--" in args else ["./..."])], facts
        ),
    ),
    (
        ("ctest",),
        lambda prog, args, heredoc, facts: facts.test(
            "ctest", any(a in ("-R", "-L", "--tests-regex") for a in args)
        ),
    ),
    (
        ("rspec", "bats", "busted", "prove"),  # Ruby; Bash (bats-core); Lua; Perl
        lambda prog, args, heredoc, facts: facts.test(prog, _selects(_positional(args))),
    ),
    (("Invoke-Pester", "invoke-pester"), lambda prog, args, heredoc, facts: _pester(args, facts)),
    (
        ("pwsh", "powershell", "pwsh.exe", "powershell.exe"),
        lambda prog, args, heredoc, facts: _powershell_file(args, facts),
    ),
    (
        ("phpunit", "pest"),
        lambda prog, args, heredoc, facts: facts.test(
            prog, "--filter" in args or _selects(_positional(args))
        ),
    ),
    (
        ("dotnet", "swift", "mix", "deno", "zig", "bazel", "bazelisk", "hatch", "dune"),
        lambda prog, args, heredoc, facts: _toolchain(prog, args, facts),
    ),
    (("git",), lambda prog, args, heredoc, facts: _git(args, facts)),
    (("gh",), lambda prog, args, heredoc, facts: _gh(args, facts)),
    (("ruff",), lambda prog, args, heredoc, facts: _ruff(args, facts)),
    (
        ("black", "isort", "prettier", "autopep8", "yapf", "gofmt", "rustfmt"),
        lambda prog, args, heredoc, facts: _formatter(prog, args, facts),
    ),
    (
        ("eslint", "rubocop", "biome", "standard"),
        lambda prog, args, heredoc, facts: _fixing_linter(args, facts),
    ),
    (_LINT_PROGRAMS, lambda prog, args, heredoc, facts: facts.kinds.add("lint")),
    (_TYPECHECK_PROGRAMS, lambda prog, args, heredoc, facts: facts.kinds.add("typecheck")),
    (
        ("tsc", "vue-tsc"),
        lambda prog, args, heredoc, facts: facts.kinds.add(
            "typecheck" if "--noEmit" in args else "build"
        ),
    ),
    (("docker", "podman"), lambda prog, args, heredoc, facts: _container(args, heredoc, facts)),
    (
        ("docker-compose",),
        lambda prog, args, heredoc, facts: _container(["compose", *args], heredoc, facts),
    ),
    (("sed",), lambda prog, args, heredoc, facts: _sed(args, facts)),
    (("tee",), lambda prog, args, heredoc, facts: facts.captures.extend(_positional(args))),
    (("mv", "cp", "install", "rsync"), lambda prog, args, heredoc, facts: _copy(prog, args, facts)),
    (
        _MODIFY_PROGRAMS,
        lambda prog, args, heredoc, facts: facts.modify(
            *_positional(args, MODIFY_VALUE_OPTIONS.get(prog, frozenset()))
        ),
    ),
    (HTTP_CLIENTS, lambda prog, args, heredoc, facts: _http_probe(args, facts)),
    (("chmod",), lambda prog, args, heredoc, facts: _chmod(args, facts)),
    (("ln",), lambda prog, args, heredoc, facts: _link(args, facts)),
    (("patch",), lambda prog, args, heredoc, facts: facts.modify()),
    (("find",), lambda prog, args, heredoc, facts: _find(args, facts)),
    (SEARCH_PROGRAMS | _READ_PROGRAMS, lambda prog, args, heredoc, facts: facts.kinds.add("read")),
)
_HANDLER_BY_PROGRAM: dict[str, _Handler] = {
    name: handler for names, handler in reversed(_BY_NAME) for name in names
}  # reversed: an earlier group overwrites a later one


def _dispatch(prog: str, args: list[str], heredoc: str, facts: _Facts) -> None:
    """Classify one unwrapped simple command by its program name."""
    facts.programs.append(prog)
    handler = _HANDLER_BY_PROGRAM.get(prog)
    if handler is not None:
        handler(prog, args, heredoc, facts)
    else:
        _dispatch_by_arguments(prog, args, heredoc, facts)


# Test runs given as code to an interpreter (`Rscript -e 'devtools::test()'`, `julia -e
# 'using Pkg; Pkg.test()'`): program, what the code calls. One a line.
CODE_TEST_CALLS: tuple[tuple[str, str], ...] = (
    ("Rscript", "devtools::test("),
    ("Rscript", "testthat::test_dir("),
    ("Rscript", "testthat::test_local("),
    ("R", "devtools::test("),
    ("julia", "Pkg.test("),
)


def _tests_in_code(prog: str, args: list[str]) -> bool:
    code = " ".join(args)
    return any(prog == p and call in code for p, call in CODE_TEST_CALLS)


# Game engines run their test runners from an option (program, the option or the runner
# script it names): GUT and GdUnit4 under Godot, the Unity Test Framework in batch mode,
# which compiles the project's scripts first. One a line.
ENGINE_TEST_RUNS: tuple[tuple[str, str], ...] = (
    ("godot", "gut_cmdln.gd"),
    ("godot", "GdUnitCmdTool.gd"),
    ("Unity", "-runTests"),
    ("unity-editor", "-runTests"),
)


def _engine_test_run(prog: str, args: list[str]) -> bool:
    return any(
        prog == p and any(a == runner or a.endswith("/" + runner) for a in args)
        for p, runner in ENGINE_TEST_RUNS
    )


def _dispatch_by_arguments(prog: str, args: list[str], heredoc: str, facts: _Facts) -> None:
    """Programs whose meaning hangs on their arguments or the shape of their name; the
    order matters (a later case is only a fallback of an earlier one)."""
    if _PYTHONS.match(prog):
        facts.programs.pop()
        facts.programs.append("python")
        _python(args, heredoc, facts)
    elif prog == "playwright" and args[:1] == ["test"]:
        _js_runner("playwright", args[1:], facts)
    elif prog == "cypress" and args[:1] == ["run"]:
        facts.test("cypress", "--spec" in args)
    elif prog in ("rake", "rails") and args[:1] and args[0] in ("test", "spec"):
        facts.test(f"{prog} {args[0]}", len(_positional(args)) > 1)
    elif prog == "rake":
        _rake(args, facts)
    elif _tests_in_code(prog, args) or _engine_test_run(prog, args):
        facts.test(prog)
    elif prog == "meson" and args[:1] == ["test"]:
        facts.test("meson test")
    elif prog == "node" and "--test" in args:  # Node's own runner: `node --test [files]`
        named = any(a.startswith("--test-name-pattern") for a in args)
        facts.test("node --test", named or bool(_positional(args)))
    elif prog == "pre-commit" and args[:1] == ["run"]:
        facts.kinds.add("lint")
    elif _builds(prog, args):
        facts.kinds.add("build")
    elif entry := _subcommand_entry(prog, args):
        _subcommand_check(prog, args, entry, facts)
    elif (manifest := _manifest_edit(prog, args)) is not None:
        facts.modify(*([manifest] if manifest else []))
    elif prog in TASK_RUNNERS:
        _task_runner(prog, args, facts)
    elif prog in ("odoo", "odoo-bin"):
        _odoo(args, facts)
    elif looks_at_state(prog, args):
        facts.kinds.add("status")
    elif prog == "perl" and any(a.startswith("-i") or a.startswith("-pi") for a in args):
        facts.modify()
    elif prog == "dd" and any(a.startswith("of=") for a in args):
        facts.modify(*(a[3:] for a in args if a.startswith("of=")))
    elif prog in ("node", "ruby") and _WRITE_IN_CODE.search(" ".join(args) + heredoc):
        facts.modify()
    else:
        _run_by_name_shape(prog, args, facts)


def _run_by_name_shape(prog: str, args: list[str], facts: _Facts) -> None:
    """An interpreter given a source file, a test script, or a script run as the program;
    a shell given `-n` parses the script, a lint of it too (`bash -n deploy.sh`)."""
    named = _program(_positional(args)[0]) if _positional(args)[:1] else ""
    if prog in _SHELLS and named and "-n" in args[: args.index(_positional(args)[0])]:
        facts.kinds.add("lint")
    if (
        prog in _INTERPRETERS
        and named
        and not _TEST_FILE_SCRIPT.match(named)
        and not (prog in _SHELLS and _BUILD_FILE_SCRIPT.match(named))
    ):
        _run_source(_positional(args)[0], facts)
    elif _TEST_FILE_SCRIPT.match(prog) or (
        prog in _SHELLS and args and _TEST_FILE_SCRIPT.match(_program(args[0]))
    ):
        facts.test(prog if prog not in _SHELLS else _program(args[0]))
    elif _BUILD_FILE_SCRIPT.match(named if prog in _SHELLS else prog):
        facts.kinds.add("build")
    elif _SOURCE_FILE.search(prog):
        # a script run as the program: `./deploy.sh` (its path is kept by _classify_segment)
        _run_source(prog, facts, as_named=False)
    elif _TEST_BINARY.match(prog):
        facts.test(prog, True)  # a built test program: `./build/tests/unit_tests`


def _classify_segment(segment: Segment, depth: int) -> _Facts:
    facts = _Facts()
    facts.wrappers.extend(_project_script(segment.words))
    words, inner = _unwrap(segment.words)
    for script in inner:
        if depth < 3:
            _merge(facts, _classify_line(script, depth + 1)[0])
    facts.captures.extend(segment.writes)
    if words:
        _dispatch(_program(words[0]), words[1:], segment.heredoc, facts)
        if "run" in facts.kinds and _SHELL_SCRIPT_FILE.search(words[0]):
            facts.wrappers.append(f"file:{words[0]}")  # `./scripts/ci.sh` run as the program
        facts.normalized.append(" ".join(_normal_word(w) for w in words))
    return facts


# Environment managers whose `run NAME` may run a script the project defines by that name
# (`hatch run lint:check`, `pdm run test`); what each runs is read from pyproject.toml.
_SCRIPT_ENVIRONMENTS = frozenset({"hatch", "pdm", "rye"})


def _project_script(words: list[str]) -> list[str]:
    """The project script a line may run: `hatch:lint:check`, `pdm:test`, `poe:test`
    (`poe test`, `poetry run poe test`)."""
    programs = [_program(w) for w in words[:4]]
    if len(words) >= 3 and programs[0] in _SCRIPT_ENVIRONMENTS and words[1] == "run":
        return [f"{programs[0]}:{words[2]}"]
    at = next((i for i, p in enumerate(programs[:3]) if p == "poe"), None)
    if at is not None and at + 1 < len(words) and (at == 0 or words[at - 1] == "run"):
        return [f"poe:{words[at + 1]}"]
    return []


def _normal_word(word: str) -> str:
    if word.startswith("./") and len(word) > 2:
        word = word[2:]
    return word if word and not re.search(r"[\s'\"]", word) else repr(word)


_DECORATION = lazy(r"^(cd|pushd|popd|echo|printf|tail|head|true|sleep|clear|set|source|\.)(\s|$)")


def _keep_captures(pipeline: _Facts) -> None:
    """Output written to a file by a check (`pytest > log`) is kept output, not an edit."""
    if pipeline.captures and not pipeline.kinds & CHECK_KINDS:
        pipeline.modify(*pipeline.captures)
    pipeline.captures = []


# `NAME=value` set on its own (or exported) earlier in the line, and `$NAME`/`${NAME}` after.
_VARIABLE = lazy(r"\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))")
_DECLARERS = frozenset({"export", "local", "declare", "readonly", "typeset"})
# A folder made by mktemp is scratch wherever $TMPDIR points.
_MKTEMP_VALUE = lazy(r"^(\$\(|`)\s*mktemp\b")


def _expanded(segment: Segment, shell_vars: dict[str, str]) -> Segment:
    """The segment with the variables this line set to a known value written out, as the
    shell would: `S=/tmp/x; rm -rf "$S"` removes a scratch folder, not a file named `$S`."""
    if not shell_vars:
        return segment

    def value(match: re.Match[str]) -> str:
        return shell_vars.get(match.group(1) or match.group(2), match.group(0))

    return Segment(
        [_VARIABLE.sub(value, w) if "$" in w else w for w in segment.words],
        [_VARIABLE.sub(value, w) if "$" in w else w for w in segment.writes],
        segment.heredoc,
        segment.then,
    )


def _remember_assignments(words: list[str], shell_vars: dict[str, str]) -> None:
    """Record the values a segment of assignments only sets (`S=/tmp/x`, `export T=$(mktemp
    -d)`); a value the line cannot know (`$(pwd)`, `$1`) forgets the name."""
    names = words[1:] if words[:1] and words[0] in _DECLARERS else words
    if not names or not all(_ASSIGNMENT.match(w) for w in names):
        return
    for word in names:
        name, _, value = word.partition("=")
        if _MKTEMP_VALUE.match(value):
            shell_vars[name] = "/tmp/mktemp"
        elif "$" in value or "`" in value or name.endswith(("+", "]")):
            shell_vars.pop(name, None)
        else:
            shell_vars[name] = value


def _classify_line(
    command: str, depth: int = 0
) -> tuple[_Facts, list[tuple[Segment, frozenset[str]]]]:
    """Facts of a whole command line, and the kinds of each of its segments."""
    facts = _Facts()
    pipeline = _Facts()
    trip = _RoundTrip()
    segment_kinds: list[tuple[Segment, frozenset[str]]] = []
    test_partials: list[bool] = []
    shell_vars: dict[str, str] = {}
    piped_from: Segment | None = None
    for segment in segments(tokenize(command)):
        segment = _expanded(segment, shell_vars)
        _remember_assignments(segment.words, shell_vars)
        part = _classify_segment(segment, depth)
        _piped_script_run(piped_from, segment, part)
        piped_from = segment if segment.then in ("|", "|&") else None
        _order_checks(facts, pipeline, part)
        _merge(pipeline, part)
        segment_kinds.append((segment, frozenset(part.kinds)))
        if "test" in part.kinds:
            test_partials.append(part.partial)
        if segment.then not in ("|", "|&"):
            _keep_captures(pipeline)
            trip.note(pipeline, segment.words)
            _merge(facts, pipeline)
            pipeline = _Facts()
    _keep_captures(pipeline)
    trip.note(pipeline, [])
    _merge(facts, pipeline)
    facts.partial = bool(test_partials) and all(test_partials)
    if trip.complete():  # `echo x > t.ex && mix check; rm t.ex`: nothing of the tree changed
        facts.kinds.discard("modify")
        facts.files, facts.rewrites, facts.checked_after = [], False, False
    return facts, segment_kinds


class _RoundTrip:
    """Files a line writes and then removes or restores again (a throwaway file a check
    reads; `sed -i ... package.json && ./deploy.sh; git checkout package.json`): when every
    change the line makes is one of them, the line changes nothing."""

    def __init__(self) -> None:
        self.written: list[str] = []
        self.removed: list[str] = []
        self.other = False

    def note(self, pipeline: _Facts, words: list[str]) -> None:
        if "modify" not in pipeline.kinds:
            return
        restored = _restored_from_git(words)
        if restored and set(restored) <= set(self.written):
            self.removed += restored
            return
        removes = pipeline.programs[:1] in (["rm"], ["unlink"])
        if not pipeline.files or (self.removed and not removes):
            self.other = True  # a change it cannot name, or a write after the removal
        elif removes:
            self.removed += pipeline.files
        else:
            self.written += pipeline.files

    def complete(self) -> bool:
        written = set(self.written)
        return bool(written) and not self.other and set(self.removed) == written


def _tested_after_unstash(segments: list[tuple[Segment, frozenset[str]]]) -> bool:
    """A segment runs tests after one that popped the stash back (see CommandInfo)."""
    popped = False
    for _, kinds in segments:
        if popped and "test" in kinds:
            return True
        popped = popped or "unstash" in kinds
    return False


def _status_echoed(segments: list[tuple[Segment, frozenset[str]]]) -> str | None:
    """The text an `echo` puts before `$?` when it is the last segment and follows a test
    run (`dune test; echo "exit=$?"`): the line prints the test's own status."""
    if len(segments) < 2 or "test" not in segments[-2][1]:
        return None
    before, echo = segments[-2][0], segments[-1][0]
    if (
        before.then not in (";", "&&", "||")
        or _program(echo.words[0] if echo.words else "") != "echo"
    ):
        return None
    text = " ".join(w for w in echo.words[1:] if not w.startswith("-"))
    return text.split("$?", 1)[0] if text.count("$?") == 1 else None


def _restored_from_git(words: list[str]) -> list[str]:
    """The paths `git restore PATH...` or `git checkout [--] PATH...` puts back as they were."""
    if len(words) < 3 or _program(words[0]) != "git" or words[1] not in ("restore", "checkout"):
        return []
    return [w for w in words[2:] if not w.startswith("-")]


def _order_checks(facts: _Facts, pipeline: _Facts, part: _Facts) -> None:
    """Whether a check runs after the line's last rewrite (`sed -i ... && pytest`): a check
    chained after a change is a check of it; one in the same segment is not."""
    if part.rewrites:
        facts.checked_after = part.checked_after  # a nested line's own order (`bash -c`)
    elif part.kinds & CHECK_KINDS and (facts.rewrites or pipeline.rewrites):
        facts.checked_after = True


def classify_command(command: str) -> CommandInfo:
    """What a shell command line does: kinds, test runner, push targets, files written."""
    return _classify_text(command if isinstance(command, str) else str(command))


@functools.lru_cache(maxsize=4096)  # a session repeats its commands; the answer is never mutated
def _classify_text(text: str) -> CommandInfo:
    facts, segment_kinds = _classify_line(text)
    normalized = [n for n in facts.normalized if not _DECORATION.match(n)] or facts.normalized
    kinds = facts.kinds - {"format"} if facts.rewrites else facts.kinds
    return CommandInfo(
        raw=text,
        kinds=frozenset(kinds),
        test_runner=facts.test_runner,
        partial=facts.partial,
        push_refs=tuple(dict.fromkeys(facts.push_refs)),
        push_force=facts.push_force,
        modified_files=tuple(dict.fromkeys(facts.files)),
        scratch_files=tuple(dict.fromkeys(facts.scratch)),
        normalized=" ; ".join(normalized),
        programs=tuple(facts.programs),
        push_implicit=facts.push_implicit,
        push_all=facts.push_all,
        exit_masked=_exit_masked(segment_kinds, text),
        status_of_a_filter=_status_of_a_filter(segment_kinds, text),
        checked_after_change=facts.checked_after,
        tested_after_unstash=_tested_after_unstash(segment_kinds),
        status_echoed=_status_echoed(segment_kinds),
        wrappers=tuple(dict.fromkeys(facts.wrappers)),
    )


def _merge(into: _Facts, part: _Facts) -> None:
    if "test" in part.kinds:
        into.partial = part.partial if "test" not in into.kinds else into.partial and part.partial
    into.kinds |= part.kinds
    into.rewrites = into.rewrites or part.rewrites
    into.checked_after = part.checked_after if part.rewrites else into.checked_after
    into.programs.extend(part.programs)
    into.test_runner = into.test_runner or part.test_runner
    into.push_refs.extend(part.push_refs)
    into.push_force = into.push_force or part.push_force
    into.push_implicit = into.push_implicit or part.push_implicit
    into.push_all = into.push_all or part.push_all
    into.files.extend(part.files)
    into.scratch.extend(part.scratch)
    into.captures.extend(part.captures)
    into.normalized.extend(part.normalized)
    into.wrappers.extend(part.wrappers)


def _exit_masked(segment_kinds: list[tuple[Segment, frozenset[str]]], text: str) -> bool:
    """True when no test's failure would make the whole command line fail."""
    test_at = [i for i, (_, kinds) in enumerate(segment_kinds) if "test" in kinds]
    if not test_at:
        return False
    pipefail = "pipefail" in text
    for i in test_at:
        masked = False
        for segment, _ in segment_kinds[i:]:
            if segment.then in ("|", "|&") and not pipefail:
                masked = True
                break
            if segment.then in ("||", ";", "&"):
                masked = segment is not segment_kinds[-1][0]
                break
            if segment.then is None:
                break
        if not masked:
            return False
    return True


# Programs that read what a pipe gives them and exit on their own terms: `grep -c x`
# exits 1 when it counts none, whatever the check before it did.
_PIPE_FILTERS = frozenset(
    {"grep", "egrep", "fgrep", "rg", "tail", "head", "wc", "sort", "uniq", "cut", "awk", "sed",
     "tr", "tee", "jq", "yq", "column", "less", "more"}
)  # fmt: skip


# Searches that exit 1 when they find nothing: at the end of a line, after a check
# (`pytest -q && grep -rn old_name src`), that exit is "nothing left", not a failure.
_SEARCHES = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack", "git grep"})


def _status_of_a_filter(segments: list[tuple[Segment, frozenset[str]]], text: str) -> bool:
    """The line's exit status is a filter's (`helm template . | grep -c Ingress`): it ends
    on a filter reading, through a pipe and without `pipefail`, what came before it; or a
    search's (`pytest && grep -rn x src`), which exits 1 when it finds nothing."""
    if len(segments) < 2 or not segments[-1][0].words:
        return False
    last, before = segments[-1][0], segments[-2][0].then
    program = _program(last.words[0])
    if program == "git" and last.words[1:2] == ["grep"]:
        program = "git grep"
    if before in ("&&", ";") and program in _SEARCHES:
        return True
    piped = before in ("|", "|&") and "pipefail" not in text
    return piped and program in _PIPE_FILTERS


def shell_tool_kind(info: CommandInfo) -> ToolKind:
    """How a Bash call counts: "search"/"read" when all it does is look, else "shell"."""
    if info.kinds and info.kinds <= {"read"}:
        if any(p in SEARCH_PROGRAMS for p in info.programs):
            return "search"
        return "read"
    return "shell"


def tool_effect(
    kind: ToolKind, args: dict[str, Any], path_key: str
) -> tuple[ToolKind, CommandInfo | None, tuple[str, ...]]:
    """How a host's tool call counts: its kind (a shell call refined by what it runs), the
    classified command, and the files it writes (`args[path_key]` for file tools)."""
    if kind == "shell" and isinstance(args.get("command"), str):
        command = classify_command(args["command"])
        return shell_tool_kind(command), command, command.modified_files
    if isinstance(args.get(path_key), str):
        return kind, None, (args[path_key],)
    return kind, None, ()
