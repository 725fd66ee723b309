"""The project model: a repository's ecosystems and how to test, build, typecheck, lint and
run it, from its own files and from the commands a session ran.

`read_repo` and `find_test_sources` are the edge: a fixed list of small files at the root,
one listing of the root and of each test directory, and for toolchains whose test command
says nothing of a suite a bounded walk for one; nothing executed. Everything else is pure
over what they read (`RepoFiles`: relative path -> text, or None for a file seen but not
read), so the Stop hook, the git guards and the replay of real stops all answer from the
same tables.
One table per ecosystem below, as data; `model_from_files` walks them in precedence order
(the first test command found is the project's: a configured pytest before `npm test`
before `go test` ... before `make test`, as the guards have always named it).
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from fnmatch import fnmatch
from itertools import islice
from pathlib import Path

from reflection_core.lazyre import lazy
from reflection_core.records import NamedTuple, field, record, replace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PURPOSES = ("test", "build", "typecheck", "lint", "run")
TEST_DIRS = ("tests", "test", "spec", "__tests__")
MAX_FILE_BYTES = 256 * 1024
MAX_LISTING = 500

RepoFiles = Mapping[str, "str | None"]

# The walk for toolchains' test sources (TEST_SOURCES): directories it never enters, how
# many it lists, and how many sources it reads for an inline test (64 KB each).
SKIPPED_DIRS = frozenset({"node_modules", "vendor", "build", "target", "dist", "out", "testdata"})
MAX_WALKED_DIRS = 200
MAX_READ_SOURCES = 200


class SuiteMarks(NamedTuple):
    """What shows a toolchain's test sources, for the walk that looks for them."""

    file_endings: tuple[str, ...] = ()  # a file whose name ends so is a test
    dir_names: tuple[str, ...] = ()  # a directory so named holds tests
    dir_endings: tuple[str, ...] = ()
    inline: tuple[str, tuple[str, ...]] | None = None  # (source suffix, marks of a test in it)


# Toolchains that offer a test command whether or not the project has a test (every
# table row with a fixed `test` command, Gradle and Maven), and what shows their test
# sources. A repository with none of them has no suite to run: a build is its check.
TEST_SOURCES: dict[str, SuiteMarks] = {
    "go": SuiteMarks(file_endings=("_test.go",)),  # internal/api/handler_test.go
    # app/src/test/, src/androidTest/, src/jvmTest/
    "gradle": SuiteMarks(dir_names=("test",), dir_endings=("Test",)),
    "maven": SuiteMarks(dir_names=("test",), dir_endings=("Test",)),  # src/test/java/
    # crates/core/tests/; #[test], #[cfg(test)] or #[tokio::test] in a source file
    "rust": SuiteMarks(dir_names=("tests",), inline=(".rs", ("#[test]", "(test)]", "::test]"))),
    # Deno's own patterns: server_test.ts, util.test.js
    "deno": SuiteMarks(
        file_endings=tuple(f"{s}test.{e}" for s in "_." for e in ("ts", "tsx", "mts", "js", "jsx"))
    ),
    # Api.Tests/, CartTests.cs, Api.Tests.csproj
    "dotnet": SuiteMarks(
        file_endings=("Tests.cs", "Test.cs", "Tests.fs", "Tests.csproj", "Tests.fsproj"),
        dir_endings=("Tests",),
    ),
    "swift": SuiteMarks(dir_names=("Tests",)),  # Tests/ShopTests/
    "elixir": SuiteMarks(file_endings=("_test.exs",)),  # apps/shop/test/cart_test.exs
    "zig": SuiteMarks(inline=(".zig", ('test "', "test {"))),  # test "adds" { ... }
    "ocaml": SuiteMarks(dir_names=("test", "tests")),  # lib/test/dune
    "sbt": SuiteMarks(dir_names=("test",)),  # src/test/scala/
    "stack": SuiteMarks(dir_names=("test", "tests")),  # test/Spec.hs
    "cabal": SuiteMarks(dir_names=("test", "tests")),
    "dart": SuiteMarks(file_endings=("_test.dart",)),  # test/widget_test.dart
}


class Command(NamedTuple):
    """One way to check or run the project, and where the model learned it."""

    text: str
    purpose: str  # one of PURPOSES
    ecosystem: str
    source: str  # "package.json scripts.test", "Makefile target test", "the session"
    runs: str | None = None  # what a wrapper runs, when its recipe shows it ("python -m pytest")


@record(frozen=True)
class ProjectModel:
    """What the model knows: commands in precedence order, templates for narrower runs."""

    ecosystems: tuple[str, ...] = ()
    commands: tuple[Command, ...] = ()
    test_file_templates: tuple[tuple[str, str], ...] = ()  # (ecosystem, "... {path}")
    test_package_templates: tuple[tuple[str, str], ...] = ()  # (ecosystem, "... {package}")
    has_tests: bool = False
    # Go packages (directories, `/`-separated, "" for the root) with a `_test.go` beside
    # their sources; None when not looked for or the walk was cut short.
    tested_dirs: frozenset[str] | None = None
    test_files: tuple[str, ...] = ()  # test files the session touched
    evidence: tuple[str, ...] = ()
    wrapped: tuple[tuple[str, str], ...] = ()  # what named wrappers run (wrapped_commands)

    def all(self, purpose: str) -> list[Command]:
        return [c for c in self.commands if c.purpose == purpose]

    def command(self, purpose: str) -> Command | None:
        """The project's command for `purpose`: the first one found."""
        found = self.all(purpose)
        return found[0] if found else None

    def text(self, purpose: str) -> str | None:
        found = self.command(purpose)
        return found.text if found else None

    def test_file_command(self, path: str) -> str | None:
        """The command that runs one test file, when its ecosystem's runner takes a path."""
        ecosystem = ecosystem_of_path(path)
        for name, template in self.test_file_templates:
            if name == ecosystem:
                return template.format(path=shlex.quote(path))
        return None

    def test_package_command(self, package: str, ecosystem: str | None = None) -> str | None:
        """The command that runs one package's tests (Go, Rust, Gradle, Maven)."""
        for name, template in self.test_package_templates:
            if ecosystem in (None, name):
                return template.format(package=shlex.quote(package))
        return None


class Ecosystem(NamedTuple):
    """One ecosystem's table row: what marks it and what its toolchain runs."""

    name: str
    markers: tuple[str, ...]  # root file names (globs allowed) that mean this ecosystem
    commands: tuple[tuple[str, str], ...] = ()  # (purpose, command) offered whenever marked
    test_file: str | None = None  # a runner that takes one test file: "... {path}"
    test_package: str | None = None  # a runner that takes one package: "... {package}"
    test_globs: tuple[str, ...] = ()  # what a test file of this ecosystem looks like
    extensions: tuple[str, ...] = ()  # source files of this ecosystem


# ---------------------------------------------------------------- tables, one per ecosystem

GO = Ecosystem(
    "go",
    ("go.mod", "go.work"),
    (
        ("test", "go test ./..."),
        ("build", "go build ./..."),
        ("lint", "go vet ./..."),
        ("run", "go run ."),
    ),
    test_package="go test ./{package}/...",
    test_globs=("*_test.go",),
    extensions=(".go",),
)
RUST = Ecosystem(
    "rust",
    ("Cargo.toml",),
    (
        ("test", "cargo test"),
        ("build", "cargo build"),
        ("typecheck", "cargo check"),
        ("lint", "cargo clippy"),
        ("run", "cargo run"),
    ),
    test_package="cargo test -p {package}",
    test_globs=("tests/*.rs",),
    extensions=(".rs",),
)
DENO = Ecosystem(
    "deno",
    ("deno.json", "deno.jsonc"),
    (("test", "deno test"), ("typecheck", "deno check ."), ("lint", "deno lint")),
    test_file="deno test {path}",
)
DOTNET = Ecosystem(
    "dotnet",
    ("*.sln", "*.csproj", "*.fsproj"),
    (("test", "dotnet test"), ("build", "dotnet build"), ("run", "dotnet run")),
    test_globs=("*Tests.cs", "*Test.cs"),
    extensions=(".cs", ".fs"),
)
SWIFT = Ecosystem(
    "swift",
    ("Package.swift",),
    (("test", "swift test"), ("build", "swift build"), ("run", "swift run")),
    test_globs=("Tests/*",),
    extensions=(".swift",),
)
ELIXIR = Ecosystem(
    "elixir",
    ("mix.exs",),
    (("test", "mix test"), ("build", "mix compile"), ("run", "mix run")),
    test_file="mix test {path}",
    test_globs=("*_test.exs",),
    extensions=(".ex", ".exs"),
)
ZIG = Ecosystem(
    "zig",
    ("build.zig",),
    (("test", "zig build test"), ("build", "zig build"), ("run", "zig build run")),
    extensions=(".zig",),
)
OCAML = Ecosystem(
    "ocaml",
    ("dune-project",),
    (("test", "dune test"), ("build", "dune build")),
    test_globs=("test/*.ml",),
    extensions=(".ml", ".mli"),
)
SBT = Ecosystem(
    "sbt",
    ("build.sbt",),
    (("test", "sbt test"), ("build", "sbt compile")),
    test_package='sbt "testOnly {package}"',
    test_globs=("src/test/*",),
    extensions=(".scala",),
)
# A stack project keeps a generated .cabal file beside stack.yaml: stack's row comes first.
STACK = Ecosystem(
    "stack",
    ("stack.yaml",),
    (("test", "stack test"), ("build", "stack build")),
    extensions=(".hs",),
)
CABAL = Ecosystem(
    "cabal",
    ("*.cabal", "cabal.project"),
    (("test", "cabal test"), ("build", "cabal build")),
    extensions=(".hs",),
)
# Nix flakes: `nix flake check` evaluates every output (and builds the flake's checks), the
# nearest thing a configuration repository has to a compile. Read last: a project's own
# build command comes first.
NIX = Ecosystem("nix", ("flake.nix",), (("build", "nix flake check"),), extensions=(".nix",))
# Ecosystems whose commands depend on what their files say: the rows name the markers,
# test file shapes and narrower-run templates; the readers below add the commands.
PYTHON = Ecosystem(
    "python",
    ("pyproject.toml", "setup.py", "setup.cfg", "tox.ini", "pytest.ini", "noxfile.py"),
    test_file="python -m pytest {path}",
    test_globs=("test_*.py", "*_test.py", "conftest.py"),
    extensions=(".py",),
)
NODE = Ecosystem(
    "node",
    ("package.json",),
    test_globs=("*.test.*", "*.spec.*", "__tests__/*"),
    extensions=(".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".vue", ".svelte"),
)
GRADLE = Ecosystem(
    "gradle",
    ("build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"),
    test_package="{tool} test --tests {package}",
    test_globs=("src/test/*",),
    extensions=(".java", ".kt", ".kts"),
)
MAVEN = Ecosystem(
    "maven",
    ("pom.xml",),
    test_package="{tool} test -Dtest={package}",
    test_globs=("src/test/*",),
    extensions=(".java",),
)
CMAKE = Ecosystem(
    "cmake",
    ("CMakeLists.txt",),
    (("build", "cmake -S . -B build && cmake --build build"),),
    extensions=(".c", ".cc", ".cpp", ".cxx", ".h", ".hpp"),
)
RUBY = Ecosystem(
    "ruby",
    ("Gemfile",),
    test_file="bundle exec rspec {path}",
    test_globs=("*_spec.rb", "test_*.rb", "*_test.rb"),
    extensions=(".rb",),
)
PHP = Ecosystem(
    "php",
    ("composer.json",),
    test_file="vendor/bin/phpunit {path}",
    test_globs=("*Test.php",),
    extensions=(".php",),
)
# Dart and Flutter share pubspec.yaml; a Flutter package names the flutter SDK in it.
DART = Ecosystem(
    "dart",
    ("pubspec.yaml",),
    test_globs=("*_test.dart",),
    extensions=(".dart",),
)
DART_TOOLS = {
    "dart": (("test", "dart test"), ("typecheck", "dart analyze")),
    "flutter": (("test", "flutter test"), ("typecheck", "flutter analyze")),
}
MAKE = Ecosystem("make", ("Makefile", "makefile", "GNUmakefile"))
JUST = Ecosystem("just", ("justfile", "Justfile", ".justfile"))

ECOSYSTEMS = (
    PYTHON, NODE, GO, RUST, MAKE, JUST, GRADLE, MAVEN, CMAKE, DENO, DOTNET, SWIFT, ELIXIR,
    ZIG, OCAML, SBT, STACK, CABAL, RUBY, PHP, DART, NIX,
)  # fmt: skip

# Python tools a config file names: (purpose, command, any of these in the config text).
PYTHON_TOOLS = (
    ("test", "python -m pytest", ("[tool.pytest", "[pytest]", "[tool:pytest]", "pytest")),
    ("lint", "ruff check .", ("[tool.ruff", "ruff")),
    ("lint", "flake8", ("[flake8]",)),
    ("typecheck", "mypy", ("[tool.mypy", "[mypy")),
    ("typecheck", "pyright", ("[tool.pyright",)),
    ("build", "python -m build", ("[build-system]",)),
)
# Python files that name another way to run the same tests: (file, command).
PYTHON_TEST_WRAPPERS = (
    ("tox.ini", "tox"),
    ("noxfile.py", "nox"),
    ("uv.lock", "uv run pytest"),
    ("poetry.lock", "poetry run pytest"),
)
# Lock files of a project environment the tests need: its runner is the command to name
# (`python -m pytest` outside it may not find pytest or the project's dependencies).
PYTHON_ENVIRONMENT_LOCKS = frozenset(("uv.lock", "poetry.lock"))
# Lock file -> the package manager that wrote it, in the order a repo with several is read.
NODE_PACKAGE_MANAGERS = (
    ("pnpm-lock.yaml", "pnpm"),
    ("yarn.lock", "yarn"),
    ("bun.lockb", "bun"),
    ("bun.lock", "bun"),
    ("package-lock.json", "npm"),
)
# package.json script names per purpose, first found wins.
NODE_SCRIPTS = (
    ("test", ("test", "test:unit", "test:ci")),
    ("build", ("build", "compile")),
    ("typecheck", ("typecheck", "type-check", "check-types", "tsc", "types")),
    ("lint", ("lint",)),
    ("run", ("start", "dev", "serve")),
)
# Test runners whose script passes a file path through: `npm test -- path/to.test.ts`.
NODE_FILE_RUNNERS = ("jest", "vitest", "mocha", "node --test", "ava", "tap")
# A script or recipe made only of these runs nothing: npm's `echo "Error: no test
# specified" && exit 1`, `echo "no tests yet"`, `true`.
PLACEHOLDER_PROGRAMS = frozenset({"echo", "printf", "exit", "true", "false", ":"})
# Make/just target names per purpose, first found wins.
TASK_TARGETS = (
    ("test", ("test", "tests")),  # `make check` is often lint + tests: it needs tests.command
    ("build", ("build", "all")),
    ("typecheck", ("typecheck", "type-check", "types", "mypy")),
    ("lint", ("lint",)),
    ("run", ("run", "start", "serve", "dev")),
)
# What a recipe runs: (the words in it, the command they stand for), first match wins.
RECIPE_RUNNERS = (
    ("pytest", "python -m pytest"),
    ("go test", "go test ./..."),
    ("cargo test", "cargo test"),
    ("npm test", "npm test"),
    ("npm run test", "npm test"),
    ("pnpm test", "pnpm test"),
    ("yarn test", "yarn test"),
    ("jest", "npx jest"),
    ("vitest", "npx vitest run"),
    ("tox", "tox"),
    ("ctest", "ctest --test-dir build"),
    ("unittest", "python -m unittest"),
)


# ---------------------------------------------------------------- readers (pure)


@record
class _Found:
    """What the readers collect while walking the tables."""

    ecosystems: list[str] = field(default_factory=list)
    commands: list[Command] = field(default_factory=list)
    file_templates: list[tuple[str, str]] = field(default_factory=list)
    package_templates: list[tuple[str, str]] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)

    def mark(self, ecosystem: Ecosystem, tool: str = "") -> None:
        if ecosystem.name in self.ecosystems:
            return
        self.ecosystems.append(ecosystem.name)
        if ecosystem.test_file:
            self.file_templates.append((ecosystem.name, ecosystem.test_file))
        if ecosystem.test_package:
            template = ecosystem.test_package.replace("{tool}", tool)
            self.package_templates.append((ecosystem.name, template))

    def has(self, purpose: str, ecosystem: str | None = None) -> bool:
        return any(c.purpose == purpose and ecosystem in (None, c.ecosystem) for c in self.commands)

    def text_for(self, purpose: str) -> str | None:
        return next((c.text for c in self.commands if c.purpose == purpose), None)

    def add(self, command: Command, *, first: bool = False) -> None:
        """Add `command` unless known; `first`: before the others, the one to name."""
        if not any(c.text == command.text and c.purpose == command.purpose for c in self.commands):
            self.commands.insert(0 if first else len(self.commands), command)
            if command.source not in self.evidence:
                self.evidence.append(command.source)


def marked_by(ecosystem: Ecosystem, files: RepoFiles) -> str | None:
    """The root file that marks `ecosystem`, or None."""
    for name in files:
        if "/" not in name and any(is_marker(name, m) for m in ecosystem.markers):
            return name
    return None


def is_marker(name: str, marker: str) -> bool:
    """`name` is what `marker` names: the file itself, or `*.csproj` by its suffix. Without
    fnmatch, which compiles a pattern for each of the ~30 markers once per process (about
    4 ms of every `reflection check tests`); any other glob still goes through it."""
    if not any(c in marker for c in "*?["):
        return name == marker
    if marker[0] == "*" and not any(c in marker[1:] for c in "*?["):
        return name.endswith(marker[1:])
    return fnmatch(name, marker)


def _table_commands(ecosystem: Ecosystem, files: RepoFiles, found: _Found) -> None:
    marker = marked_by(ecosystem, files)
    if marker is None:
        return
    found.mark(ecosystem)
    for purpose, text in ecosystem.commands:
        found.add(Command(text, purpose, ecosystem.name, marker))


def _python(files: RepoFiles, found: _Found, has_test_dir: bool) -> None:
    present = {n: files[n] or "" for n in PYTHON.markers if n in files}
    if not present:
        return
    found.mark(PYTHON)
    for purpose, text, needles in PYTHON_TOOLS:
        where = next((n for n, t in present.items() if any(x in t for x in needles)), None)
        if where is None and text == "python -m pytest" and has_test_dir:
            where = "a tests directory"
        if where is not None:
            tool = text.removeprefix("python -m ").split()[0]
            found.add(Command(text, purpose, "python", f"{tool} configured in {where}"))
    if found.text_for("test") == "python -m pytest":
        for name, text in PYTHON_TEST_WRAPPERS:
            if name in files:
                wrapper = Command(text, "test", "python", name, runs="python -m pytest")
                found.add(wrapper, first=name in PYTHON_ENVIRONMENT_LOCKS)


def package_manager(files: RepoFiles, manifest: dict[str, Any]) -> str:
    """npm, pnpm, yarn or bun: `packageManager` in package.json, else the lock file."""
    declared = manifest.get("packageManager")
    if isinstance(declared, str) and declared.split("@")[0] in ("npm", "pnpm", "yarn", "bun"):
        return declared.split("@")[0]
    return next((pm for lock, pm in NODE_PACKAGE_MANAGERS if lock in files), "npm")


def script_command(manager: str, script: str) -> str:
    """How `manager` runs `script` (`bun test` is bun's own runner, not the script)."""
    if script in ("test", "start") and manager != "bun":
        return f"{manager} {script}"
    return f"{manager} run {script}"


def json_object(text: str | None) -> dict[str, Any]:
    try:
        data = json.loads(text or "")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def package_scripts(manifest: dict[str, Any]) -> dict[str, str]:
    """A package.json's `scripts`, each a command line (other values left out)."""
    raw = manifest.get("scripts")
    return {k: v for k, v in raw.items() if isinstance(v, str)} if isinstance(raw, dict) else {}


def _node(files: RepoFiles, found: _Found) -> None:
    if "package.json" not in files:
        return
    found.mark(NODE)
    manifest = json_object(files["package.json"])
    scripts = package_scripts(manifest)
    manager = package_manager(files, manifest)
    for purpose, names in NODE_SCRIPTS:
        name = next((n for n in names if n in scripts), None)
        if name is None or (purpose == "test" and is_placeholder(scripts[name])):
            continue
        found.add(Command(script_command(manager, name), purpose, "node",
                          f"package.json scripts.{name}", runs=scripts[name]))  # fmt: skip
        if purpose == "test" and any(r in scripts[name] for r in NODE_FILE_RUNNERS):
            separator = " --" if manager == "npm" else ""
            found.file_templates.append(
                ("node", f"{script_command(manager, name)}{separator} {{path}}")
            )
    if "tsconfig.json" in files:
        found.evidence.append("tsconfig.json")
    if "tsconfig.json" in files and not found.has("typecheck", "node"):
        found.add(Command("npx tsc --noEmit", "typecheck", "node", "tsconfig.json"))


def is_placeholder(script: str) -> bool:
    """A script that only prints or exits (PLACEHOLDER_PROGRAMS): no suite stands behind
    a `test` script like that."""
    steps = [s.split(maxsplit=1) for s in _SCRIPT_STEP.split(script.lstrip("@-+ \t"))]
    return all(not words or words[0] in PLACEHOLDER_PROGRAMS for words in steps)


_SCRIPT_STEP = lazy(r"&&|\|\||;|\n")


def make_targets(text: str, *, runner: str = "") -> dict[str, list[str]]:
    """Makefile (or justfile) targets and their recipe lines; variables are not targets.
    With a `runner`, a target's prerequisites come first, as `RUNNER PREREQUISITE` lines."""
    targets: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith(("\t", "    ")) and current is not None:
            current.append(line.strip())
            continue
        head, colon, rest = line.partition(":")
        words = head.split()
        if not colon or rest.startswith("=") or "=" in head or not words or line[:1].isspace():
            current = None if line.strip() else current
            continue
        name = words[0]  # justfile: `test *args:` takes arguments after the name
        if not all(ch.isalnum() or ch in "_.-" for ch in name) or name.startswith("."):
            current = None
            continue
        current = targets.setdefault(name, [])
        needs, _, inline = rest.partition(";")
        if runner:
            current.extend(f"{runner} {p}" for p in needs.split() if _PREREQUISITE.match(p))
        if inline:  # `test: build ; pytest`: a recipe on the target's line
            current.append(inline.strip())
    return targets


_PREREQUISITE = lazy(r"^[A-Za-z0-9][\w.-]*$")  # a target's name (not a file path or `$(VAR)`)
# A recipe line's prefixes that only change how make runs it (silent, ignore errors).
_RECIPE_PREFIXES = "@-+"


def wrapped_commands(files: RepoFiles) -> tuple[tuple[str, str], ...]:
    """What each named wrapper of the repository runs, as shell lines: a package.json
    script (`script:NAME`), a Makefile or justfile target (`make:NAME`, `just:NAME`; its
    prerequisites run first). The Stop decision reads from it what a run of a wrapper
    whose name says nothing (`npm run ci`, `make verify`) checks (pure)."""
    found: list[tuple[str, str]] = []
    if "package.json" in files:
        scripts = package_scripts(json_object(files["package.json"]))
        found += [(f"script:{name}", line) for name, line in scripts.items()]
    for ecosystem, runner in ((MAKE, "make"), (JUST, "just")):
        marker = marked_by(ecosystem, files)
        if marker is None:
            continue
        for name, recipe in make_targets(files[marker] or "", runner=runner).items():
            lines = [line.lstrip(_RECIPE_PREFIXES).replace("$(MAKE)", "make") for line in recipe]
            found.append((f"{runner}:{name}", "\n".join(lines)))
    for runner, marker, read in _TASK_FILES:
        tasks = read(files.get(marker) or "")
        found += [(f"{runner}:{name}", "\n".join(lines)) for name, lines in tasks.items()]
    python_scripts = pyproject_scripts(files.get("pyproject.toml") or "")
    found += [(key, "\n".join(lines)) for key, lines in python_scripts.items()]
    return tuple(found)


def mix_aliases(text: str) -> dict[str, list[str]]:
    """mix.exs aliases as shell lines: `ci: ["format --check-formatted", "test"]` runs
    `mix format --check-formatted` then `mix test` (function captures are left out)."""
    block = _MIX_ALIASES.search(text)
    aliases: dict[str, list[str]] = {}
    current: list[str] | None = None
    for match in _MIX_ALIAS_TOKEN.finditer(block.group(1) if block else ""):
        name, task = match.group("name"), match.group("task")
        if name:
            current = aliases.setdefault(name, [])
        elif current is not None:
            current.append(f"mix {task}")
    return aliases


_MIX_ALIASES = lazy(r"\bdefp?\s+aliases\b.*?\bdo\b(.*?)^\s*end\b", re.S | re.M)
_MIX_ALIAS_TOKEN = lazy(r'"?(?P<name>[\w.-]+)"?:\s|"(?P<task>[^"\n]*)"')


def rake_tasks(text: str) -> dict[str, list[str]]:
    """Rakefile tasks as shell lines: a task's prerequisites (`task default: %i[spec
    rubocop]` runs `rake spec`, `rake rubocop`) and the tasks the usual libraries define
    (`RSpec::Core::RakeTask.new(:spec)` runs `rspec`)."""
    tasks: dict[str, list[str]] = {}
    for match in _RAKE_LIBRARY_TASK.finditer(text):
        name = match.group("name") or _RAKE_LIBRARY_DEFAULTS[match.group("library")][0]
        tasks.setdefault(name, []).append(_RAKE_LIBRARY_DEFAULTS[match.group("library")][1])
    for match in _RAKE_TASK.finditer(text):
        needs = _RAKE_NAME.findall(match.group("needs"))
        tasks.setdefault(match.group("name"), []).extend(f"rake {need}" for need in needs)
    return tasks


# What a task of each library runs, and its name when `.new` names none.
_RAKE_LIBRARY_DEFAULTS = {
    "RSpec::Core::RakeTask": ("spec", "rspec"),
    "Rake::TestTask": ("test", "rake test"),
    "RuboCop::RakeTask": ("rubocop", "rubocop"),
}
_RAKE_LIBRARY_TASK = lazy(
    r"(?P<library>RSpec::Core::RakeTask|Rake::TestTask|RuboCop::RakeTask)\.new"
    r"(?:\(\s*:?[\"']?(?P<name>[\w:-]+))?"
)
# `task default: :spec`, `task :default => [:spec, :rubocop]`, `task ci: %i[spec lint]`.
_RAKE_TASK = lazy(
    r"^\s*task\s*\(?\s*(?::|[\"'])?(?P<name>\w+)[\"']?(?::\s|\s*=>)\s*"
    r"(?P<needs>\[[^\]]*\]|%[iw][\[(][^\])]*[\])]|:[\w:]+|[\"'][\w:]+[\"'])",
    re.M,
)
_RAKE_NAME = lazy(r"(?<![%\w])\w[\w:-]*")  # `spec` of `:spec`, not the `i` of `%i[`


def composer_scripts(text: str) -> dict[str, list[str]]:
    """composer.json scripts as shell lines: `"ci": ["@lint", "@test"]` runs `composer
    lint` then `composer test`; `@php artisan test` runs `php artisan test`."""
    scripts = json_object(text).get("scripts")
    found: dict[str, list[str]] = {}
    for name, value in scripts.items() if isinstance(scripts, dict) else ():
        steps = value if isinstance(value, list) else [value]
        found[str(name)] = [_composer_step(step) for step in steps if isinstance(step, str)]
    return found


def _composer_step(step: str) -> str:
    if step.startswith(("@php ", "@putenv ")):
        return step[1:]
    return f"composer {step[1:]}" if step.startswith("@") else step


def pyproject_scripts(text: str) -> dict[str, list[str]]:
    """Scripts of Python environment managers as shell lines, keyed as a session runs
    them: `hatch:test` and `hatch:lint:check` (`hatch run lint:check`) from
    `[tool.hatch.envs.*.scripts]`, `pdm:NAME`, `rye:NAME`, and `poe:NAME` tasks. A step
    that names a sibling script (`all = {composite = ["lint", "test"]}`) is its lines."""
    if not any(f"[tool.{tool}" in text for tool in ("hatch", "pdm", "rye", "poe")):
        return {}  # no TOML parsed for a pyproject that defines none
    tool = _table(_toml(text).get("tool"))
    tables = {
        "hatch:" if env == "default" else f"hatch:{env}:": _table(_table(settings).get("scripts"))
        for env, settings in _table(_table(tool.get("hatch")).get("envs")).items()
    }
    for runner, key in (("pdm", "scripts"), ("rye", "scripts"), ("poe", "tasks")):
        tables[f"{runner}:"] = _table(_table(tool.get(runner)).get(key))
    found: dict[str, list[str]] = {}
    for prefix, table in tables.items():
        scripts = {str(name): _script_lines(value) for name, value in table.items()}
        for name, lines in scripts.items():
            found[f"{prefix}{name}"] = [
                step for line in lines for step in scripts.get(line, [line]) if step
            ]
    return found


def _toml(text: str) -> dict[str, Any]:
    try:
        import tomllib  # type: ignore[import-not-found,unused-ignore]
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef,import-not-found,unused-ignore]
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return {}


def _table(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _script_lines(value: object) -> list[str]:
    """A script's command lines: a line, a list of lines (hatch), or a table: `cmd` (a
    line, or its words), `shell`, or the steps of a `composite` or `sequence`; the
    `{args:tests}` placeholders dropped."""
    if isinstance(value, dict):
        if isinstance(value.get("cmd"), list):
            value = " ".join(str(word) for word in value["cmd"])
        else:
            value = next((value[k] for k in _SCRIPT_KEYS if k in value), [])
    steps = value if isinstance(value, list) else [value]
    return [_PLACEHOLDER.sub("", step).strip() for step in steps if isinstance(step, str)]


_SCRIPT_KEYS = ("cmd", "shell", "composite", "sequence")
_PLACEHOLDER = lazy(r"\{(args|env|root|home)[^}]*\}")


# Task files whose named tasks a session runs as `RUNNER NAME`: runner, file, reader
# (each reader's keys are `NAME`, prefixed with the runner here, or whole keys for
# pyproject's several runners).
_TASK_FILES: tuple[tuple[str, str, Callable[[str], dict[str, list[str]]]], ...] = (
    ("mix", "mix.exs", mix_aliases),
    ("rake", "Rakefile", rake_tasks),
    ("composer", "composer.json", composer_scripts),
)


def recipe_runs(recipe: Sequence[str]) -> str | None:
    """The test runner a target's recipe runs, when it shows one."""
    said = [word for line in recipe for word in line.split()]
    for words, command in RECIPE_RUNNERS:
        wanted = words.split()
        if any(said[i : i + len(wanted)] == wanted for i in range(len(said))):
            return command
    return None


def _task_runner(ecosystem: Ecosystem, tool: str, files: RepoFiles, found: _Found) -> None:
    marker = marked_by(ecosystem, files)
    if marker is None:
        return
    found.mark(ecosystem)
    targets = make_targets(files[marker] or "")
    for purpose, names in TASK_TARGETS:
        name = next((n for n in names if n in targets), None)
        recipe = targets[name] if name is not None else []
        if name is None or (purpose == "test" and recipe and all(map(is_placeholder, recipe))):
            continue
        runs = recipe_runs(recipe) if purpose == "test" else None
        found.add(Command(f"{tool} {name}", purpose, ecosystem.name,
                          f"{marker} target {name}", runs=runs))  # fmt: skip


def _jvm(files: RepoFiles, found: _Found) -> None:
    """Gradle and Maven, through their wrapper script when the repo has one."""
    for ecosystem, wrapper, tool, commands in (
        (GRADLE, "gradlew", "gradle", (("test", "test"), ("build", "build"))),
        (MAVEN, "mvnw", "mvn", (("test", "test"), ("build", "package"), ("typecheck", "compile"))),
    ):
        marker = marked_by(ecosystem, files)
        if marker is None:
            continue
        runner = f"./{wrapper}" if wrapper in files else tool
        found.mark(ecosystem, runner)
        for purpose, task in commands:
            found.add(Command(f"{runner} {task}", purpose, ecosystem.name, marker))


def _cmake(files: RepoFiles, found: _Found) -> None:
    if "CMakeLists.txt" not in files:
        return
    _table_commands(CMAKE, files, found)
    text = files["CMakeLists.txt"] or ""
    if "enable_testing" in text or "add_test" in text:
        # ctest runs the binaries already built: a source change needs the build first.
        ctest = "cmake --build build && ctest --test-dir build"
        found.add(Command(ctest, "test", "cmake", "CMakeLists.txt add_test"))


def _ruby(files: RepoFiles, found: _Found) -> None:
    if "Gemfile" not in files:
        return
    found.mark(RUBY)
    if ".rspec" in files or "spec/" in files:
        found.add(Command("bundle exec rspec", "test", "ruby", ".rspec or spec/"))
    elif "Rakefile" in files:
        found.add(Command("bundle exec rake test", "test", "ruby", "Rakefile"))


def _php(files: RepoFiles, found: _Found) -> None:
    if "composer.json" not in files:
        return
    found.mark(PHP)
    manifest = files["composer.json"] or ""
    # Pest's tests are closures PHPUnit does not find: a Pest project runs them through Pest.
    pest = "pestphp/pest" in manifest or "tests/Pest.php" in files
    if pest:
        found.file_templates.insert(0, ("php", "vendor/bin/pest {path}"))
    scripts = json_object(manifest).get("scripts")
    if isinstance(scripts, dict) and "test" in scripts:
        found.add(Command("composer test", "test", "php", "composer.json scripts.test"))
    elif pest:
        found.add(Command("vendor/bin/pest", "test", "php", "composer.json pestphp/pest"))
    elif "phpunit.xml" in files or "phpunit.xml.dist" in files:
        found.add(Command("vendor/bin/phpunit", "test", "php", "phpunit.xml"))


def _dart(files: RepoFiles, found: _Found) -> None:
    if "pubspec.yaml" not in files:
        return
    tool = "flutter" if "sdk: flutter" in (files["pubspec.yaml"] or "") else "dart"
    found.mark(DART)
    found.file_templates.append(("dart", f"{tool} test {{path}}"))
    for purpose, text in DART_TOOLS[tool]:
        found.add(Command(text, purpose, "dart", "pubspec.yaml"))


def _is_python_test(name: str) -> bool:
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


def python_test_files(files: RepoFiles) -> str | None:
    """Where pytest would find tests in a repo with no project file: a root conftest.py,
    test_*.py / *_test.py at the root, or in a tests directory."""
    if "conftest.py" in files:
        return "conftest.py"
    if any("/" not in n and _is_python_test(n) for n in files):
        return "test_*.py files"
    for directory in TEST_DIRS:
        prefix = f"{directory}/"
        if any(n.startswith(prefix) and _is_python_test(n[len(prefix) :]) for n in files):
            return f"test_*.py files in {prefix}"
    return None


def _bare_python(files: RepoFiles, found: _Found) -> None:
    """pytest for Python test files, Django's runner for manage.py, when nothing else tests."""
    if found.has("test"):
        return
    where = python_test_files(files)
    if where is not None:
        found.mark(PYTHON)
        found.add(Command("python -m pytest", "test", "python", f"pytest: {where}"))
    elif "manage.py" in files:
        found.mark(PYTHON)
        found.add(Command("python manage.py test", "test", "python", "manage.py"))


def has_test_dir(files: RepoFiles) -> bool:
    return any(f"{d}/" in files for d in TEST_DIRS)


def model_from_files(files: RepoFiles, test_sources: bool | None = None) -> ProjectModel:
    """The model of a repository from what `read_repo` read (pure). `test_sources` is
    what `find_test_sources` saw of the toolchains' test files (None: not looked)."""
    found = _Found()
    test_dir = has_test_dir(files)
    readers: list[Callable[[], None]] = [
        lambda: _python(files, found, test_dir),
        lambda: _node(files, found),
        lambda: _table_commands(GO, files, found),
        lambda: _table_commands(RUST, files, found),
        lambda: _task_runner(MAKE, "make", files, found),
        lambda: _task_runner(JUST, "just", files, found),
        lambda: _jvm(files, found),
        lambda: _cmake(files, found),
        *[
            lambda e=e: _table_commands(e, files, found)
            for e in (DENO, DOTNET, SWIFT, ELIXIR, ZIG, OCAML, SBT, STACK, CABAL)
        ],
        lambda: _ruby(files, found),
        lambda: _php(files, found),
        lambda: _dart(files, found),
        lambda: _bare_python(files, found),
        lambda: _table_commands(NIX, files, found),
    ]
    for read in readers:
        read()
    if test_dir:
        found.evidence.insert(0, "a tests directory")
    return ProjectModel(
        ecosystems=tuple(found.ecosystems),
        commands=tuple(found.commands),
        test_file_templates=tuple(found.file_templates),
        test_package_templates=tuple(found.package_templates),
        has_tests=test_dir or any(_names_a_suite(c, test_sources) for c in found.commands),
        evidence=tuple(found.evidence),
        wrapped=wrapped_commands(files),
    )


def _names_a_suite(command: Command, test_sources: bool | None) -> bool:
    """A test command means the project has tests, unless it is a toolchain's own
    (`go test`, `./gradlew test`) and the repository was seen to hold no test source."""
    if command.purpose != "test":
        return False
    return test_sources is not False or command.ecosystem not in TEST_SOURCES


def ecosystem_of_path(path: str) -> str | None:
    """The ecosystem a source or test file belongs to, by its extension."""
    suffix = os.path.splitext(path)[1].lower()
    return next((e.name for e in ECOSYSTEMS if suffix and suffix in e.extensions), None)


def is_test_file(path: str) -> bool:
    """A test file by any ecosystem's shape (`test_x.py`, `x.test.ts`, `x_test.go`, ...)."""
    name = path.replace("\\", "/")
    base = name.rsplit("/", 1)[-1]
    in_test_dir = any(f"/{d}/" in f"/{name}" for d in TEST_DIRS)
    shaped = any(
        fnmatch(base, g) or fnmatch(name, f"*{g}") for e in ECOSYSTEMS for g in e.test_globs
    )
    return shaped or (in_test_dir and ecosystem_of_path(name) is not None)


# ---------------------------------------------------------------- the session's commands

# Normalized program words -> (ecosystem, purpose). Wrappers are stripped first
# (`python -m`, `uv run`, `npx`, `bundle exec`, env assignments, `cd dir &&`).
SESSION_COMMANDS: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (("pytest",), "python", "test"),
    (("unittest",), "python", "test"),
    (("tox",), "python", "test"),
    (("nox",), "python", "test"),
    (("mypy",), "python", "typecheck"),
    (("pyright",), "python", "typecheck"),
    (("ruff", "check"), "python", "lint"),
    (("flake8",), "python", "lint"),
    (("jest",), "node", "test"),
    (("vitest",), "node", "test"),
    (("mocha",), "node", "test"),
    (("tsc",), "node", "typecheck"),
    (("eslint",), "node", "lint"),
    (("go", "test"), "go", "test"),
    (("go", "build"), "go", "build"),
    (("go", "vet"), "go", "lint"),
    (("go", "run"), "go", "run"),
    (("cargo", "test"), "rust", "test"),
    (("cargo", "nextest"), "rust", "test"),
    (("cargo", "build"), "rust", "build"),
    (("cargo", "check"), "rust", "typecheck"),
    (("cargo", "clippy"), "rust", "lint"),
    (("cargo", "run"), "rust", "run"),
    (("gradle", "test"), "gradle", "test"),
    (("./gradlew", "test"), "gradle", "test"),
    (("gradle", "build"), "gradle", "build"),
    (("./gradlew", "build"), "gradle", "build"),
    (("mvn", "test"), "maven", "test"),
    (("./mvnw", "test"), "maven", "test"),
    (("mvn", "package"), "maven", "build"),
    (("mvn", "compile"), "maven", "typecheck"),
    (("ctest",), "cmake", "test"),
    (("cmake", "--build"), "cmake", "build"),
    (("dotnet", "test"), "dotnet", "test"),
    (("dotnet", "build"), "dotnet", "build"),
    (("swift", "test"), "swift", "test"),
    (("swift", "build"), "swift", "build"),
    (("mix", "test"), "elixir", "test"),
    (("deno", "test"), "deno", "test"),
    (("zig", "build", "test"), "zig", "test"),
    (("zig", "build"), "zig", "build"),
    (("dune", "test"), "ocaml", "test"),
    (("dune", "runtest"), "ocaml", "test"),
    (("dune", "build"), "ocaml", "build"),
    (("rspec",), "ruby", "test"),
    (("rake", "test"), "ruby", "test"),
    (("phpunit",), "php", "test"),
    (("vendor/bin/phpunit",), "php", "test"),
    (("composer", "test"), "php", "test"),
)
# Targets that ran as checks in a session though the repo's files alone do not name them so.
SESSION_TASK_TARGETS = (("test", ("check",)),)
_WRAPPERS = (
    ("uv", "run"), ("poetry", "run"), ("pdm", "run"), ("hatch", "run"), ("bundle", "exec"),
    ("pnpm", "exec"), ("npx",), ("pnpx",), ("bunx",), ("time",), ("sudo",), ("exec",),
)  # fmt: skip
_SEPARATORS = ("&&", "||", ";", "|", "&")


def command_segments(command: str) -> list[list[str]]:
    """The simple commands of a shell line, as words (no expansion, nothing run)."""
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|")
        lexer.whitespace_split = True
        words = list(lexer)
    except ValueError:
        words = command.split()
    segments: list[list[str]] = [[]]
    skip = 0
    for pos, word in enumerate(words):
        if skip:
            skip -= 1
        elif _REDIRECTION.match(word):
            # `2>&1` lexes as `2>`, `&`, `1`; `> out.log` names a file: neither is a word of
            # the command, nor is that `&` a separator.
            skip = 2 if words[pos + 1 : pos + 2] == ["&"] else 1 if word[-1] in "<>" else 0
        elif word in _SEPARATORS or word in (";;", "|&"):
            segments.append([])
        else:
            segments[-1].append(word)
    return [s for s in segments if s]


_REDIRECTION = lazy(r"^\d*(?:>>?|<)")


def program_words(words: Sequence[str]) -> list[str]:
    """A segment's words with env assignments, `python -m` and runner wrappers dropped."""
    args = list(words)
    while args:
        head = os.path.basename(args[0]) if args[0].startswith("/") else args[0]
        if "=" in head and not head.startswith("-"):
            args = args[1:]
        elif (head.startswith("python") and args[1:2] == ["-m"]) or (
            head == "timeout" and len(args) > 2
        ):
            args = args[2:]
        else:
            wrapper = next((w for w in _WRAPPERS if tuple(args[: len(w)]) == w), None)
            if wrapper is None:
                args[0] = head
                return args
            args = args[len(wrapper) :]
    return args


def classify_segment(words: Sequence[str]) -> tuple[str, str] | None:
    """(ecosystem, purpose) of one simple command, or None when it is no known check."""
    args = program_words(words)
    if not args:
        return None
    if args[0] in ("npm", "pnpm", "yarn", "bun") and len(args) > 1:
        script = args[2] if args[1] in ("run", "run-script") and len(args) > 2 else args[1]
        purpose = next((p for p, names in NODE_SCRIPTS if script in names), None)
        return ("node", purpose) if purpose else None
    if args[0] in ("make", "just") and len(args) > 1:
        target = next((a for a in args[1:] if not a.startswith("-") and "=" not in a), "")
        targets = (*TASK_TARGETS, *SESSION_TASK_TARGETS)
        purpose = next((p for p, names in targets if target in names), None)
        return (args[0], purpose) if purpose else None
    for prefix, ecosystem, purpose in SESSION_COMMANDS:
        if tuple(args[: len(prefix)]) == prefix:
            return ecosystem, purpose
    return None


def session_model(commands: Iterable[tuple[str, bool]], touched: Iterable[str]) -> ProjectModel:
    """What the session shows: checks that ran and succeeded (in order), the ecosystems of
    those and of the files it touched, and the test files among them (pure)."""
    found = _Found()
    by_name = {e.name: e for e in ECOSYSTEMS}
    for command, succeeded in commands:
        for words in command_segments(command):
            kind = classify_segment(words)
            if kind is None or not succeeded:
                continue
            found.mark(by_name[kind[0]])
            found.add(Command(shlex.join(words), kind[1], kind[0], "the session"))
    paths = list(touched)
    for path in paths:
        name = ecosystem_of_path(path)
        if name is not None:
            found.mark(by_name[name])
    test_files = tuple(dict.fromkeys(p for p in paths if is_test_file(p)))
    return ProjectModel(
        ecosystems=tuple(found.ecosystems),
        commands=tuple(found.commands),
        test_file_templates=tuple(found.file_templates),
        test_package_templates=tuple(found.package_templates),
        has_tests=bool(test_files) or found.has("test"),
        test_files=test_files,
        evidence=tuple(found.evidence),
    )


def combine(repo: ProjectModel, session: ProjectModel) -> ProjectModel:
    """The repository's model with what the session adds: the repo's commands come first
    (they are the project's), the session's fill purposes and ecosystems the files miss."""
    known = {(c.text, c.purpose) for c in repo.commands}
    extra = tuple(c for c in session.commands if (c.text, c.purpose) not in known)
    templates = {name for name, _ in repo.test_file_templates}
    packages = {name for name, _ in repo.test_package_templates}
    return replace(
        repo,
        ecosystems=tuple(dict.fromkeys(repo.ecosystems + session.ecosystems)),
        commands=repo.commands + extra,
        test_file_templates=repo.test_file_templates
        + tuple(t for t in session.test_file_templates if t[0] not in templates),
        test_package_templates=repo.test_package_templates
        + tuple(t for t in session.test_package_templates if t[0] not in packages),
        has_tests=repo.has_tests or session.has_tests,
        test_files=tuple(dict.fromkeys(repo.test_files + session.test_files)),
        evidence=repo.evidence + session.evidence,
    )


# ---------------------------------------------------------------- the edge: reading a repo

# Root files whose text the readers need; every other root name is only seen, not read.
CONTENT_FILES = (
    "pyproject.toml", "setup.cfg", "setup.py", "tox.ini", "pytest.ini", "package.json",
    "Makefile", "makefile", "GNUmakefile", "justfile", "Justfile", ".justfile",
    "CMakeLists.txt", "composer.json", "pubspec.yaml", "mix.exs", "Rakefile",
)  # fmt: skip


def _read_text(path: Path) -> str | None:
    try:
        with path.open("rb") as handle:
            return handle.read(MAX_FILE_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None


def _listing(directory: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(directory) as entries:
            return list(islice(entries, MAX_LISTING))
    except OSError:
        return []


def read_repo(root: Path) -> dict[str, str | None]:
    """What the model reads: the root listing (directories as `name/`), the text of the
    files in CONTENT_FILES (capped), and the listing of each test directory."""
    files: dict[str, str | None] = {}
    for entry in _listing(root):
        try:
            is_dir = entry.is_dir()
        except OSError:
            continue
        if is_dir:
            files[f"{entry.name}/"] = None
        else:
            text = _read_text(Path(entry.path)) if entry.name in CONTENT_FILES else None
            files[entry.name] = text
    for directory in TEST_DIRS:
        if f"{directory}/" in files:
            for entry in _listing(root / directory):
                files[f"{directory}/{entry.name}"] = None
    return files


def read_scripts(root: Path, paths: Iterable[str]) -> tuple[tuple[str, str], ...]:
    """`("file:PATH", text)` for each shell script a session ran by PATH (relative to the
    repository or absolute): only regular files inside the repository, each capped at
    MAX_FILE_BYTES. What the script runs says what a run of it checks."""
    base = os.path.realpath(root)
    found: list[tuple[str, str]] = []
    for path in dict.fromkeys(paths):
        try:
            real = os.path.realpath(os.path.join(base, path))
            inside = os.path.commonpath([real, base]) == base
        except ValueError:  # another drive, or a character no path holds
            continue
        if not inside or not os.path.isfile(real):
            continue
        text = _read_text(Path(real))
        if text is not None:
            found.append((f"file:{path}", text))
    return tuple(found)


class _CutShort(Exception):
    """The bounded walk ended before it had looked everywhere."""


def _walked(root: Path) -> Iterator[tuple[Path, os.DirEntry[str], bool]]:
    """(directory, entry, is a directory) for every entry of the tree under `root`, hidden
    and SKIPPED_DIRS left out; raises _CutShort past MAX_WALKED_DIRS directories or at one
    it cannot list whole (a part not seen must not count as a part without tests)."""
    pending, listed = [root], 0
    while pending:
        listed += 1
        directory = pending.pop()
        listing = _whole_listing(directory) if listed <= MAX_WALKED_DIRS else None
        if listing is None:
            raise _CutShort
        for entry in listing:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir and not entry.name.startswith(".") and entry.name not in SKIPPED_DIRS:
                pending.append(Path(entry.path))
            yield directory, entry, is_dir


def find_test_sources(root: Path, ecosystems: Iterable[str]) -> bool | None:
    """Whether the repository holds a test source of the toolchains in TEST_SOURCES that
    mark it: True on the first one seen, False when none is, None when the bounded walk
    ends before it has looked everywhere (a large tree: the tests are assumed)."""
    wanted = [TEST_SOURCES[e] for e in dict.fromkeys(ecosystems) if e in TEST_SOURCES]
    if not wanted:
        return None
    endings = tuple(x for w in wanted for x in w.file_endings)
    dirs = {x for w in wanted for x in w.dir_names}
    dir_endings = tuple(x for w in wanted for x in w.dir_endings)
    inline = {w.inline[0]: w.inline[1] for w in wanted if w.inline}
    read = 0
    try:
        for _, entry, is_dir in _walked(root):
            name = entry.name
            if is_dir:
                if name in dirs or name.endswith(dir_endings):
                    return True
            elif name.endswith(endings):
                return True
            elif inline and (marks := inline.get(os.path.splitext(name)[1])):
                read += 1
                if read > MAX_READ_SOURCES:
                    return None
                if _holds_a_mark(entry.path, marks):
                    return True
    except _CutShort:
        return None
    return False


def _whole_listing(directory: Path) -> list[os.DirEntry[str]] | None:
    """Every entry of `directory`, or None when it cannot be read or holds more than
    MAX_LISTING: a part of the tree not seen must not count as a part without tests."""
    try:
        with os.scandir(directory) as entries:
            listing = list(islice(entries, MAX_LISTING + 1))
    except OSError:
        return None
    return listing if len(listing) <= MAX_LISTING else None


def _holds_a_mark(path: str, marks: tuple[str, ...]) -> bool:
    """Whether the first 64 KB of `path` hold one of `marks` (ASCII), read as bytes: a
    crate without tests has each of its sources read on every stop."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        head = os.read(fd, 64 * 1024)
    except OSError:
        return False
    finally:
        os.close(fd)
    return any(mark.encode() in head for mark in marks)


def repo_model(root: Path, *, look_for_tests: bool = True) -> ProjectModel:
    """The model of the repository at `root` (bounded reads, nothing executed). Without
    `look_for_tests` no walk runs and `has_tests` trusts a toolchain's test command: the
    git guards ask only for the commands, on every commit and push."""
    files = read_repo(root)
    if not look_for_tests or has_test_dir(files):
        return model_from_files(files)
    marked = [e.name for e in ECOSYSTEMS if e.name in TEST_SOURCES and marked_by(e, files)]
    model = model_from_files(files, find_test_sources(root, marked))
    if model.has_tests and "go" in marked:
        return replace(model, tested_dirs=go_test_dirs(root))
    return model


def go_test_dirs(root: Path) -> frozenset[str] | None:
    """The directories holding a Go test file (relative, `/`-separated, "" for the root):
    `go test` tests a package by the `_test.go` files beside it, so a change to a package
    without one is checked by its build. None when the bounded walk ends before it has
    looked everywhere."""
    try:
        return frozenset(
            "" if directory == root else directory.relative_to(root).as_posix()
            for directory, entry, is_dir in _walked(root)
            if not is_dir and entry.name.endswith("_test.go")
        )
    except _CutShort:
        return None
