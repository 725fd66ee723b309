"""The shell command classifier: tables of real-world command lines and what they do."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reflection_core.session.commands import (
    CODE_TEST_CALLS,
    ENGINE_TEST_RUNS,
    GRADLE_TASKS,
    TOOL_MODULES,
    classify_command,
    gradle_task_kind,
    shell_tool_kind,
    tokenize,
)

FULL_TEST_RUNS = [
    ("pytest", "pytest"),
    ("python -m pytest -q", "pytest"),
    ("python3 -u -m pytest", "pytest"),
    ("py.test tests/", "pytest"),
    ("uv run pytest", "pytest"),
    ("poetry run pytest -x", "pytest"),
    ("pipenv run pytest", "pytest"),
    ("hatch run test:pytest", "pytest"),
    ("pdm run pytest", "pytest"),
    ("coverage run -m pytest", "pytest"),
    ("cd /repo && pytest", "pytest"),
    ("cd app; FOO=1 BAR=x pytest", "pytest"),
    ("env CI=1 pytest", "pytest"),
    ("timeout 60 pytest", "pytest"),
    ("timeout -s KILL 5m python -m pytest", "pytest"),
    ("time pytest", "pytest"),
    ("sudo -E pytest", "pytest"),
    ("(cd backend && pytest)", "pytest"),
    ('bash -c "cd a && pytest -x"', "pytest"),
    ("tox -e py311", "tox"),
    ("nox -s tests", "nox"),
    ("python -m unittest discover", "unittest"),
    ("python -m unittest", "unittest"),
    ("npm test", "npm test"),
    ("npm t", "npm test"),
    ("npm run test", "npm test"),
    ("pnpm test", "pnpm test"),
    ("yarn test", "yarn test"),
    ("bun test", "bun test"),
    ("npm run test:unit", "npm test:unit"),
    ("npx vitest run", "vitest"),
    ("npx jest", "jest"),
    ("npx mocha", "mocha"),
    ("pnpm vitest run", "vitest"),  # a package manager runs the project's own binary
    ("yarn jest", "jest"),
    ("yarn run jest", "jest"),
    ("bun x vitest", "vitest"),
    ("go test ./...", "go test"),
    ("node --test", "node --test"),
    ("go test -count 1 -tags integration ./...", "go test"),
    ("go test", "go test"),
    ("cargo test", "cargo test"),
    ("cargo nextest run", "cargo nextest"),
    ("make test", "make test"),
    ("make check", "make check"),
    ("./gradlew test", "gradlew test"),
    ("gradle test", "gradle test"),
    ("mvn test", "mvn test"),
    ("mvn verify", "mvn test"),
    ("ctest", "ctest"),
    ("bundle exec rspec", "rspec"),
    ("bundle exec rake test", "rake test"),
    ("rspec", "rspec"),
    ("bats test/", "bats"),
    ("busted", "busted"),
    ("prove -lr t", "prove"),
    ("vendor/bin/phpunit", "phpunit"),
    ("dotnet test", "dotnet test"),
    ("mix test", "mix test"),
    ("zig build test", "zig test"),
    ("dune runtest", "dune test"),
    ("dune test", "dune test"),
    ("swift test", "swift test"),
    ("deno test", "deno test"),
    ("python manage.py test", "django test"),
    ("./run_tests.sh", "run_tests.sh"),
    ("docker compose run --rm web pytest", "pytest"),
    ("docker exec -it app python -m pytest", "pytest"),
    ("docker run --rm -v $PWD:/src -w /src python:3.11 pytest", "pytest"),
    ("docker-compose exec web bash -c 'npm test'", "npm test"),
    ("sudo -u deploy bash -lc 'cd /srv/app && npm test 2>&1 | tail -20'", "npm test"),
    ("sh -ec 'make test'", "make test"),
    ("zsh -ic 'cargo test'", "cargo test"),
    ("bash --login -c 'go test ./...'", "go test"),
    ("bash -o pipefail -c 'pytest -q | tail -5'", "pytest"),
    ("bash -x -c -- 'pytest'", "pytest"),
]


@pytest.mark.parametrize(("command", "runner"), FULL_TEST_RUNS)
def test_full_test_runs_are_tests_with_their_runner(command: str, runner: str) -> None:
    info = classify_command(command)
    assert "test" in info.kinds
    assert info.test_runner == runner
    assert not info.partial


PARTIAL_TEST_RUNS = [
    "pytest -k slow",
    "pytest -m integration",
    "pytest tests/test_auth.py",
    "pytest tests/test_auth.py::test_redirect",
    "pytest --lf",
    "python -m pytest --last-failed -q",
    "go test ./... -run TestLogin",
    "go test -run=TestLogin ./auth",
    "go test ./calc/...",
    "python -m doctest -v app/calc.py",
    "node --test test/calc.test.js",
    "node --test --test-name-pattern=adds",
    "go test -count 1 ./calc",
    "go test -v -tags integration ./calc/... ./tax",
    "cargo test login",
    "npx jest src/auth.test.ts",
    "npx vitest run src/a.test.ts",
    "pnpm vitest run src/a.test.ts",
    "npx jest -t 'logs in'",
    "npm test -- src/auth.test.ts",
    "./gradlew test --tests AuthTest",
    "mvn test -Dtest=AuthTest",
    "bundle exec rspec spec/auth_spec.rb:12",
    "dotnet test --filter Auth",
    "python -m unittest tests.test_auth",
    "ctest -R auth",
    "phpunit --filter testLogin",
]


@pytest.mark.parametrize("command", PARTIAL_TEST_RUNS)
def test_filtered_test_runs_are_partial(command: str) -> None:
    info = classify_command(command)
    assert "test" in info.kinds
    assert info.partial


@pytest.mark.parametrize(
    "command",
    [
        "npm test -- --watch=false",
        "npm run test:unit -- --coverage",
        "npx jest --ci",
        "npx vitest run",
    ],
)
def test_runner_options_that_select_nothing_keep_a_run_full(command: str) -> None:
    info = classify_command(command)
    assert "test" in info.kinds
    assert not info.partial


def test_a_full_run_after_a_partial_one_makes_the_line_not_partial() -> None:
    assert not classify_command("pytest -k login && pytest").partial


NOT_TEST_RUNS = [
    'echo "pytest"',
    "grep pytest setup.cfg",
    "cat pytest.ini",
    "pytest --collect-only -q",
    "pytest --co",
    "pytest --version",
    "ruff check .",
    "mypy src",
    "pip install pytest",
    "ls tests/",
    "git commit -m 'run pytest later'",
    "test -f setup.py",
    "[ -f setup.py ] && echo yes",
    "go test -list .",
    "mvn package -DskipTests",
    "vim tests/test_auth.py",
    "yarn add -D jest",
    "pnpm dev",
]


@pytest.mark.parametrize("command", NOT_TEST_RUNS)
def test_commands_that_merely_mention_tests_are_not_test_runs(command: str) -> None:
    assert "test" not in classify_command(command).kinds


KINDS = [
    ("ruff check .", {"lint"}),
    ("ruff check --fix .", {"lint", "modify"}),
    ("ruff format --check .", {"lint"}),
    ("flake8 src", {"lint"}),
    ("pylint pkg", {"lint"}),
    ("npx eslint .", {"lint"}),
    ("black --check .", {"lint"}),
    ("prettier --check src", {"lint"}),
    ("npm run lint", {"lint"}),
    ("pre-commit run --all-files", {"lint"}),
    ("mypy src", {"typecheck"}),
    ("pyright", {"typecheck"}),
    ("npx tsc --noEmit", {"typecheck"}),
    ("cargo check", {"typecheck"}),
    ("npm run typecheck", {"typecheck"}),
    ("tsc", {"build"}),
    ("tsc -b", {"build"}),
    ("npm run build", {"build"}),
    ("yarn build", {"build"}),
    ("cargo build --release", {"build"}),
    ("go build ./...", {"build"}),
    ("make", {"build"}),
    ("python -m build", {"build"}),
    ("docker build -t app .", {"build"}),
    ("docker compose build web", {"build"}),
    ("docker compose up -d", set()),
    ("docker compose up -d --build web", {"build"}),  # builds the images first
    ("make -C build benchmarks/suite", {"build"}),  # a file to make
    ("make app.o", {"build"}),
    ("make deploy", set()),
    ("gh pr create --fill", {"pr_create"}),
    ("gh pr view 12 --json state", {"pr_view"}),
    ("gh pr status", {"pr_view"}),
    ("gh pr checks 12 --watch", {"pr_checks"}),
    ("git commit -am 'fix'", {"commit"}),
    ("git -C repo commit -m 'x && pytest'", {"commit"}),
    ("git log --oneline -5", {"read"}),
    ("git diff HEAD~1", {"read"}),
    ("git status", {"read"}),
    ("git show HEAD", {"read"}),
    ("grep -rn foo src", {"read"}),
    ("rg foo", {"read"}),
    ("find . -name '*.py'", {"read"}),
    ("ls -la", {"read"}),
    ("cat README.md", {"read"}),
    ("head -50 a.py", {"read"}),
    ("tail -f log", {"read"}),
    ("sed -n '1,20p' a.py", {"read"}),
    ("echo hello", set()),
]


@pytest.mark.parametrize(("command", "kinds"), KINDS)
def test_each_command_gets_exactly_its_kinds(command: str, kinds: set[str]) -> None:
    assert set(classify_command(command).kinds) == kinds


# One Gradle task per GRADLE_TASKS line, in its order, and what running it checks.
GRADLE_TASK_EXAMPLES = [
    ("./gradlew testDebugUnitTestClasses", {"build"}),
    ("./gradlew check", {"test"}),
    ("./gradlew testReleaseUnitTest", {"test"}),
    ("./gradlew connectedDebugAndroidTest", {"test"}),
    ("./gradlew clean build", {"build", "test"}),  # a build runs the tests too
    ("./gradlew :app:assembleDebug", {"build"}),
    ("./gradlew lintDebug", {"lint"}),
    ("./gradlew :app:bootRun", {"run"}),
]


@pytest.mark.parametrize(
    ("command", "kinds"),
    [
        ("./build.sh", {"build"}),
        ("bash scripts/build.sh", {"build"}),
        ("sh compile-all.sh", {"build"}),
        ("./build.ps1", {"build"}),
        ("bash deploy.sh", {"run"}),  # named for something else: a run of the program
        ("python build.py", {"run"}),
    ],
)
def test_a_script_named_for_building_is_a_build(command: str, kinds: set[str]) -> None:
    assert set(classify_command(command).kinds) == kinds


def test_every_gradle_task_shape_has_an_example() -> None:
    assert len(GRADLE_TASK_EXAMPLES) == len(GRADLE_TASKS)


@pytest.mark.parametrize(("command", "kinds"), GRADLE_TASK_EXAMPLES)
def test_android_and_gradle_tasks_are_the_checks_they_run(command: str, kinds: set[str]) -> None:
    assert set(classify_command(command).kinds) == kinds


@pytest.mark.parametrize(
    ("task", "kind"),
    [
        ("testClasses", "build"),  # compiles the tests, runs none
        ("compileReleaseKotlin", "build"),
        ("installDebug", "build"),
        ("bundleRelease", "build"),
        ("integrationTest", "test"),
        ("detekt", "lint"),
        ("clean", None),
        ("dependencies", None),
    ],
)
def test_a_gradle_task_is_read_by_its_name_after_the_project_path(
    task: str, kind: str | None
) -> None:
    assert gradle_task_kind(task) == kind
    assert gradle_task_kind(f":app:{task}") == kind


def test_a_gradle_test_task_of_one_module_is_some_of_the_tests() -> None:
    scoped = classify_command("./gradlew :core:test")
    assert scoped.test_runner == "gradlew test" and scoped.partial
    assert classify_command("./gradlew core:test").partial
    assert not classify_command("./gradlew test").partial
    assert not classify_command("./gradlew clean :test").partial  # the root project's


@pytest.mark.parametrize(
    ("command", "kinds", "partial"),
    [
        ("sbt test", {"test"}, False),
        ("sbt clean test", {"test"}, False),
        ("sbt ';clean;test'", {"test"}, False),
        ("sbt -v Test/test", {"test"}, False),
        ('sbt "testOnly calc.CalcSpec"', {"test"}, True),
        ("sbt core/test", {"test"}, True),
        ("sbt compile", {"build"}, False),
        ("sbt clean compile", {"build"}, False),
        ("sbt run", {"run"}, False),
    ],
)
def test_sbt_runs_every_task_it_is_given(command: str, kinds: set[str], partial: bool) -> None:
    facts = classify_command(command)
    assert set(facts.kinds) == kinds and facts.partial is partial


@pytest.mark.parametrize(
    ("command", "runner", "partial"),
    [
        ("sbt +test", "sbt test", False),
        ('sbt "test:testOnly calc.CalcSpec"', "sbt test", True),
        ("stack --nix test", "stack test", False),
        ("cabal v2-test", "cabal test", False),
        ("nix-shell --run 'stack test'", "stack test", False),
        ("fvm flutter test", "flutter test", False),
        ("opam exec -- dune test", "dune test", False),
        ("mix do compile + test", "mix test", False),
        ("mix do compile, test", "mix test", False),
        ("gotestsum", "go test", False),
        ("gotestsum --format dots -- ./internal/...", "go test", True),
        ("./mill __.test", "mill test", False),
        ("./mill core.test", "mill test", True),
    ],
)
def test_wrappers_and_task_runners_of_toolchains_run_their_tests(
    command: str, runner: str, partial: bool
) -> None:
    facts = classify_command(command)
    assert facts.test_runner == runner and facts.partial is partial, facts


def test_format_checks_of_toolchains_change_nothing() -> None:
    for line in ("mix format --check-formatted", "dotnet format --verify-no-changes"):
        assert set(classify_command(line).kinds) == {"lint"}, line
    assert "modify" in classify_command("mix format").kinds


def test_an_excluded_gradle_task_is_not_run() -> None:
    assert set(classify_command("./gradlew assembleDebug -x test").kinds) == {"build"}
    assert set(classify_command("./gradlew build -x test").kinds) == {"build"}
    assert "test" not in classify_command("./gradlew build --exclude-task testDebugUnitTest").kinds
    assert "test" in classify_command("./gradlew test build -x lint").kinds


@pytest.mark.parametrize(
    ("line", "tests"),
    [("mvn package", True), ("mvn -q package -DskipTests", False), ("mvn compile", False)],
)
def test_a_maven_package_runs_the_tests_its_lifecycle_runs(line: str, tests: bool) -> None:
    info = classify_command(line)
    assert "build" in info.kinds
    assert ("test" in info.kinds) is tests


# One line per MANIFEST_EDITS entry, in table order, with the manifest it names.
_MANIFEST_EDIT_LINES = [
    ("uv add httpx", ("pyproject.toml",)),
    ("uv remove httpx", ("pyproject.toml",)),
    ("poetry add requests@^2.31", ("pyproject.toml",)),
    ("poetry remove requests", ("pyproject.toml",)),
    ("pdm add -d pytest", ("pyproject.toml",)),
    ("pdm remove pytest", ("pyproject.toml",)),
    ("pixi add numpy", ("pixi.toml",)),
    ("bundle add rails", ("Gemfile",)),
    ("bundle remove rails", ("Gemfile",)),
    ("composer require guzzlehttp/guzzle", ("composer.json",)),
    ("composer remove guzzlehttp/guzzle", ("composer.json",)),
    ("alembic revision --autogenerate -m 'add index'", ()),
]


def test_every_manifest_edit_entry_has_an_example() -> None:
    from reflection_core.session.commands import MANIFEST_EDITS

    assert [" ".join(line.split()[:2]) for line, _ in _MANIFEST_EDIT_LINES] == [
        f"{prog} {sub}" for prog, sub, _ in MANIFEST_EDITS
    ]


@pytest.mark.parametrize(
    ("line", "files"),
    [
        *_MANIFEST_EDIT_LINES,
        ("go get github.com/google/uuid@latest", ("go.mod",)),
        ("dotnet add package Newtonsoft.Json", ()),
        ("dotnet remove reference ../Lib/Lib.csproj", ()),
    ],
)
def test_adding_or_removing_a_dependency_changes_the_project(
    line: str, files: tuple[str, ...]
) -> None:
    info = classify_command(line)
    assert "modify" in info.kinds
    assert tuple(info.modified_files) == files


@pytest.mark.parametrize(
    "line", ["uv sync", "poetry install", "composer install", "alembic upgrade head", "go env"]
)
def test_installing_what_the_manifest_already_says_changes_nothing(line: str) -> None:
    assert "modify" not in classify_command(line).kinds


MODIFICATIONS = [
    ("sed -i 's/a/b/' src/a.py", ("src/a.py",)),
    ("sed -i.bak -e 's/a/b/' a.py b.py", ("a.py", "b.py")),
    ("echo x > notes.txt", ("notes.txt",)),
    ("echo x >> notes.txt", ("notes.txt",)),
    ("printf 'a' | tee src/a.py", ("src/a.py",)),
    ("cat > src/new.py <<EOF\nprint(1)\nEOF", ("src/new.py",)),
    ("cat <<'EOF' > src/new.py\nprint(1)\nEOF", ("src/new.py",)),
    ("mv a.py b.py", ("a.py", "b.py")),
    ("cp a.py b.py", ("b.py",)),
    ("rm -rf build", ("build",)),
    ("touch a.py", ("a.py",)),
    ("git checkout -- a.py b.py", ("a.py", "b.py")),
    ("git restore src/a.py", ("src/a.py",)),
    ("git apply fix.patch", ()),
    ("git reset --hard HEAD~1", ()),
    ("patch -p1 < fix.patch", ()),
    ("black .", (".",)),
    ("ruff format src", ("src",)),
    ("python -c \"open('out.py','w').write('x')\"", ()),
    ("python - <<'PY'\nfrom pathlib import Path\nPath('a.py').write_text('x')\nPY", ()),
    ("npm install left-pad", ("package.json",)),
    ("find . -name '*.pyc' -delete", ()),
    ("chmod +x run.sh", ("run.sh",)),  # the mode is no file
    ("chmod -R 755 bin lib", ("bin", "lib")),
    ("chmod -x run.sh", ("run.sh",)),  # a mode written as an option
    ("chmod --reference=a.sh b.sh", ("b.sh",)),
    ("sed -i '' 's/a/b/' .env", (".env",)),  # BSD sed: an empty backup suffix
    ("ln -s /usr/bin/python3 py", ("py",)),  # the link, not what it points to
    ("ln -sf ../lib/libx.so", ("libx.so",)),
    ("D=src; sed -i 's/a/b/' $D/a.py", ("src/a.py",)),  # a variable the line set
    ("X=$(pwd); rm $X/a.py", ("$X/a.py",)),  # a value the line cannot know stays as written
]


@pytest.mark.parametrize(("command", "files"), MODIFICATIONS)
def test_modifying_commands_name_the_files_they_write(command: str, files: tuple[str, ...]) -> None:
    info = classify_command(command)
    assert "modify" in info.kinds
    assert info.modified_files == files


NOT_MODIFICATIONS = [
    "ls 2>/dev/null",
    "pytest > /dev/null",
    "echo done >&2",
    "pytest 2>&1 | tail -5",
    "pytest -q > test-output.log",
    "pytest | tee /tmp/out.txt",
    "npm test &> /tmp/npm.log",
    "grep '>' src/a.py",
    "git checkout -b feature",
    "git log > /tmp/log.txt",
    "mkdir -p build",
    "rm -rf /tmp/scratch",
    "cp report.txt /tmp/report.txt",
    "python gen.py > /private/tmp/out.json",  # macOS: /tmp is /private/tmp
    "pytest > /var/folders/xc/0b2b/T/run.log",  # macOS: $TMPDIR
    "npm install",
    "sed 's/a/b/' a.py",
    "copy index.html backup.html 2>nul",  # Windows cmd's null device
    "Get-ChildItem > $null",  # PowerShell's
    "chown -R dev:dev .git/refs",  # ownership is no change a check exercises
    'S=$(mktemp -d); cp a.py "$S/a.py"',  # a mktemp folder is scratch
    "export T=/tmp/run; echo hi > ${T}/log",
    'python gen.py > "C:\\Users\\dev\\AppData\\Local\\Temp\\out.json"',  # Windows' temp
    "cp report.txt /c/Users/dev/AppData/Local/Temp/report.txt",  # the same, from Git Bash
    'S=/tmp/sim\nrm -rf "$S" && mkdir -p "$S/bin"',
]


@pytest.mark.parametrize("command", NOT_MODIFICATIONS)
def test_output_redirections_and_reads_are_not_modifications(command: str) -> None:
    assert "modify" not in classify_command(command).kinds


PUSHES = [
    ("git push origin main", ("main",), False, False),
    ("git push origin HEAD:main", ("main",), False, False),
    ("git push origin feat:refs/heads/main", ("main",), False, False),
    ("git push -u origin feat", ("feat",), False, False),
    ("git push --set-upstream origin feat/login", ("feat/login",), False, False),
    ("git push --force origin main", ("main",), True, False),
    ("git push -f origin main", ("main",), True, False),
    ("git push origin +main", ("main",), True, False),
    ("git push --force-with-lease origin feat", ("feat",), True, False),
    ("git push origin :main", ("main",), False, False),
    ("git push --delete origin old", ("old",), False, False),
    ("git push origin a b", ("a", "b"), False, False),
    ("git push", (), False, True),
    ("git push origin", (), False, True),
    ("git push origin HEAD", (), False, True),
    ("git push -u origin HEAD", (), False, True),
    ("git -C repo push origin main", ("main",), False, False),
]


@pytest.mark.parametrize(("command", "refs", "force", "implicit"), PUSHES)
def test_git_push_records_the_remote_refs_it_targets(
    command: str, refs: tuple[str, ...], force: bool, implicit: bool
) -> None:
    info = classify_command(command)
    assert "push" in info.kinds
    assert info.push_refs == refs
    assert info.push_force is force
    assert info.push_implicit is implicit


def test_push_all_and_mirror_target_every_branch() -> None:
    assert classify_command("git push --all origin").push_all
    assert classify_command("git push --mirror").push_all


def test_pushing_only_tags_targets_no_branch() -> None:
    info = classify_command("git push --tags")
    assert info.push_refs == ()
    assert not info.push_implicit


MASKED = [
    ("pytest | tail -20", True),
    ("pytest 2>&1 | tail", True),
    ("pytest || true", True),
    ("pytest; echo done", True),
    ("pytest && echo ok; echo done", True),
    ("set -o pipefail; pytest | tee out.log", False),
    ("pytest", False),
    ("cd x && pytest", False),
    ("pytest && git push", False),
    ("pytest -q 2>&1", False),
]


@pytest.mark.parametrize(("command", "masked"), MASKED)
def test_a_test_exit_status_hidden_by_the_line_is_flagged(command: str, masked: bool) -> None:
    assert classify_command(command).exit_masked is masked


NORMALIZED = [
    ("cd /repo && timeout 60 python -m pytest -q 2>&1 | tail -20", "python -m pytest -q"),
    ("FOO=1   pytest   -q", "pytest -q"),
    ("pytest -k 'a or b'", "pytest -k 'a or b'"),
    ("./run_tests.sh", "run_tests.sh"),
]


@pytest.mark.parametrize(("command", "normalized"), NORMALIZED)
def test_normalized_form_drops_decoration_for_loop_detection(command: str, normalized: str) -> None:
    assert classify_command(command).normalized == normalized


def test_the_same_run_written_differently_normalizes_the_same() -> None:
    a = classify_command("cd /repo && python -m pytest tests -q 2>&1 | tail -30")
    b = classify_command("python -m pytest tests -q")
    assert a.normalized == b.normalized


SHELL_TOOL_KINDS = [
    ("grep -rn foo src", "search"),
    ("ls -la | grep x", "search"),
    ("cat a.py", "read"),
    ("git log -3", "read"),
    ("pytest", "shell"),
    ("sed -i s/a/b/ a.py", "shell"),
    ("cat a.py > b.py", "shell"),
]


@pytest.mark.parametrize(("command", "kind"), SHELL_TOOL_KINDS)
def test_bash_calls_that_only_look_count_as_read_or_search(command: str, kind: str) -> None:
    assert shell_tool_kind(classify_command(command)) == kind


def test_unbalanced_quotes_do_not_crash_and_still_classify() -> None:
    info = classify_command('pytest -k "login or')
    assert "test" in info.kinds
    assert info.partial


def test_quoted_operators_are_words_not_operators() -> None:
    tokens = tokenize('grep ">" a.py && echo "x | y"')
    ops = [t.text for t in tokens if t.kind == "op"]
    assert ops == ["&&"]


def test_heredoc_bodies_are_not_parsed_as_commands() -> None:
    info = classify_command("cat > notes.md <<EOF\ngit push origin main\nrm -rf /\nEOF")
    assert "push" not in info.kinds
    assert info.modified_files == ("notes.md",)


def test_programs_lists_what_ran_with_wrappers_stripped() -> None:
    info = classify_command("cd app && FOO=1 uv run pytest | tail -3")
    assert info.programs == ("cd", "pytest", "tail")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("pytes -k'\"|&;<>()$`\\\n=./#:ab")), max_size=60))
def test_any_text_classifies_without_raising(command: str) -> None:
    info = classify_command(command)
    assert info.raw == command
    assert isinstance(info.kinds, frozenset)


# One compile per COMPILERS entry, in table order.
_COMPILES = [
    "gcc -O2 -o ring src/ring.c",
    "g++ -std=c++17 -c src/render.cpp",
    "cc -c src/ring.c",
    "c++ main.cpp -o app",
    "clang -fsyntax-only src/ring.c",
    "clang++ -c src/mesh.cxx",
    "nvcc -c kernels/saxpy.cu",
    "javac -d out src/Invoice.java",
    "kotlinc Cart.kt -include-runtime -d cart.jar",
    "rustc src/main.rs",
    "swiftc Store.swift",
    "solc --bin contracts/Vault.sol",
]


def test_every_compiler_has_an_example() -> None:
    from reflection_core.session.commands import COMPILERS

    assert [line.split()[0] for line in _COMPILES] == list(COMPILERS)


@pytest.mark.parametrize("line", _COMPILES)
def test_a_compiler_given_a_source_builds(line: str) -> None:
    assert "build" in classify_command(line).kinds


@pytest.mark.parametrize("line", ["gcc --version", "clang -v", "javac -version"])
def test_a_compiler_asked_its_version_is_no_build(line: str) -> None:
    assert "build" not in classify_command(line).kinds


# One line per SUBCOMMAND_CHECKS entry, in table order, with its kind.
_SUBCOMMAND_LINES = [
    ("npx hardhat compile", "build"),
    ("npx hardhat test", "test"),
    ("truffle compile", "build"),
    ("npx truffle test", "test"),
    ("forge build", "build"),
    ("forge test -vv", "test"),
    ("quarto render docs/plan.qmd", "build"),
    ("mkdocs build --strict", "build"),
    ("bundle exec jekyll build", "build"),
    ("hugo build --minify", "build"),
    ("npx astro build", "build"),
    ("npx docusaurus build", "build"),
    ("nix flake check --show-trace", "build"),
    ("nix build .#default", "build"),
    ("sudo nixos-rebuild build --flake .#host", "build"),
    ("nixos-rebuild dry-build", "build"),
    ("home-manager build --flake .", "build"),
    ("darwin-rebuild build --flake .", "build"),
    ("terraform validate", "lint"),
    ("tofu validate", "lint"),
    ("helm lint charts/app", "lint"),
    ("helm template charts/app", "build"),
    ("west build -b nrf52840dk/nrf52840 -p always", "build"),
    ("idf.py build", "build"),
    ("luarocks test", "test"),
    ("crystal spec", "test"),
    ("rebar3 eunit", "test"),
    ("rebar3 ct --suite=api_SUITE", "test"),
    ("clojure -X:test", "test"),
    ("clj -X:test :nses '[app.core-test]'", "test"),
    ("clojure -M:test", "test"),
    ("npx ng test --watch=false", "test"),
    ("ng e2e", "test"),
    ("npx ng build --configuration production", "build"),
    ("ng lint", "lint"),
    ("flutter test", "test"),
    ("flutter analyze", "lint"),
    ("flutter build apk", "build"),
    ("very_good test --coverage", "test"),
    ("melos run test", "test"),
    ("scala-cli test .", "test"),
    ("scala-cli compile .", "build"),
    ("dart test", "test"),
    ("dart analyze", "lint"),
    ("dart compile exe bin/main.dart", "build"),
    ("stack test", "test"),
    ("stack build", "build"),
    ("cabal test", "test"),
    ("cabal build", "build"),
    ("lein test", "test"),
    ("php artisan test", "test"),
    ("R CMD check .", "test"),
    ("xcodebuild test -scheme App", "test"),
    ("alembic check", "lint"),
    ("npx astro check", "typecheck"),
    ("npx prisma validate", "lint"),
    ("npx prisma generate", "build"),
    ("terraform plan -out plan.bin", "build"),
    ("tofu plan", "build"),
    ("pio run -e esp32dev", "build"),
    ("pio test -e native", "test"),
    ("platformio run", "build"),
    ("arduino-cli compile --fqbn arduino:avr:uno blink", "build"),
    ("sudo nginx -t", "lint"),
    ("luac -p init.lua", "lint"),
    ("caddy validate --config Caddyfile", "lint"),
    ("systemd-analyze verify deploy/app.service", "lint"),
    ("ansible-playbook --syntax-check -i hosts site.yml", "lint"),
    ("pants test ::", "test"),
    ("pants lint src/python::", "lint"),
    ("pants check ::", "typecheck"),
    ("hatch test -a", "test"),
    ("elm make src/Main.elm --output=main.js", "build"),
]


def test_every_subcommand_check_entry_has_an_example() -> None:
    from reflection_core.session.commands import SUBCOMMAND_CHECKS

    assert len(_SUBCOMMAND_LINES) == len(SUBCOMMAND_CHECKS)


@pytest.mark.parametrize(("line", "kind"), _SUBCOMMAND_LINES)
def test_subcommand_checks_build_render_and_test(line: str, kind: str) -> None:
    assert kind in classify_command(line).kinds


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("deno task test", "test"),
        ("deno task build", "build"),
        ("deno task check", "typecheck"),
        ("deno task lint", "lint"),
        ("staticcheck ./...", "lint"),
        ("revive ./...", "lint"),
        ("ansible-lint playbooks/", "lint"),
        ("kubeconform -strict k8s/deploy.yaml", "lint"),
        ("kubeval k8s/deploy.yaml", "lint"),
        ("xmllint --noout views/cart.xml", "lint"),
        ("npx svelte-check --threshold error", "typecheck"),
    ],
)
def test_checks_named_by_their_program_or_task_are_checks(line: str, kind: str) -> None:
    assert kind in classify_command(line).kinds


@pytest.mark.parametrize(
    "line",
    [
        "nix flake update",
        "nix develop",
        "terraform apply",
        "deno task dev",
        "nginx -s reload",
        "caddy reload",
        "ansible-playbook -i hosts site.yml",
        "elm reactor",
    ],
)
def test_config_tools_that_change_or_enter_are_no_check(line: str) -> None:
    assert not classify_command(line).kinds & {"build", "lint", "test"}


@pytest.mark.parametrize("line", ["./deploy.sh --dry-run", "/opt/tools/bin/sync.py", "cli.js"])
def test_a_script_run_as_the_program_is_a_run(line: str) -> None:
    assert "run" in classify_command(line).kinds


@pytest.mark.parametrize("line", ["quarto preview", "mkdocs serve", "hugo server"])
def test_site_previews_are_no_build(line: str) -> None:
    assert "build" not in classify_command(line).kinds


def test_sphinx_build_is_a_build() -> None:
    assert "build" in classify_command("sphinx-build -b html docs docs/_build").kinds


@pytest.mark.parametrize(
    ("command", "changed"),
    [
        ("echo 'bad  code' > lib/tmp.ex && mix format --check-formatted; rm lib/tmp.ex", ()),
        ("printf 'x' > t.py && python -m pytest t.py; rm -f t.py", ()),
        ("echo x > a.py && pytest; rm a.py b.py", ("a.py", "b.py")),  # b.py was the tree's
        ("echo x > a.py; rm a.py; echo y > b.py", ("a.py", "b.py")),  # b.py stays
        ("sed -i s/a/b/ x.py && echo x > t.py; rm t.py", ("x.py", "t.py")),
        ("echo x > a.py && pytest", ("a.py",)),
        # restored from git in the same line: a failure provoked on purpose, then undone
        ("sed -i 's/x/exit 1/' package.json && ./deploy.sh; git checkout package.json", ()),
        ("sed -i s/a/b/ x.py && pytest; git restore x.py", ()),
        ("sed -i s/a/b/ x.py y.py && pytest; git checkout -- x.py", ("x.py", "y.py")),
    ],
)
def test_a_file_a_line_writes_and_removes_again_changes_nothing(
    command: str, changed: tuple[str, ...]
) -> None:
    info = classify_command(command)
    assert info.modified_files == changed
    assert ("modify" in info.kinds) == bool(changed)


@pytest.mark.parametrize(
    ("command", "kinds"),
    [
        ("git stash", {"stash"}),
        ("git stash push -u", {"stash"}),
        ("git stash pop", {"unstash"}),
        ("git stash && cargo test && git stash pop", {"stash", "test", "unstash"}),
    ],
)
def test_a_stash_round_trip_sets_the_change_aside_and_back_without_a_new_change(
    command: str, kinds: set[str]
) -> None:
    assert classify_command(command).kinds == kinds


@pytest.mark.parametrize(
    ("command", "kind", "partial"),
    [
        ("node Test.js", "test", True),
        ("node tests/parser.test.js", "test", True),
        ("python tests/test_parser.py", "test", True),
        ("python parser_test.py", "test", True),
        ("python contest.py", "run", False),
        ("node server.js", "run", False),
        ("bash deploy.sh", "run", False),
        ("go run ./cmd/app", "run", False),
        ("cargo run --release", "run", False),
        ("python -m py_compile app.py", "build", False),
    ],
)
def test_a_source_file_run_directly_is_a_test_run_or_a_run_of_the_program(
    command: str, kind: str, partial: bool
) -> None:
    info = classify_command(command)
    assert kind in info.kinds and info.partial == partial


SHELLS_THAT_RUN_NO_STRING = ["bash -n install.sh", "bash install.sh", "sh -x deploy.sh", "bash -c"]


@pytest.mark.parametrize("command", SHELLS_THAT_RUN_NO_STRING)
def test_a_shell_without_a_command_string_is_not_unwrapped(command: str) -> None:
    assert "test" not in classify_command(command).kinds
    assert classify_command(command).kinds <= {"run", "read", "lint"}  # `-n` parses it


@pytest.mark.parametrize(
    ("command", "is_test"),
    [
        ("cd build && ./tests/unit_tests", True),
        ("./build/test_parser --gtest_filter=Parser.*", True),
        ("build/backend-tests", True),
        ("./contest", False),
        ("./latest", False),
        ("./build/app --help", False),
    ],
)
def test_a_program_named_as_a_test_suite_is_a_test_run(command: str, is_test: bool) -> None:
    info = classify_command(command)
    assert ("test" in info.kinds) == is_test
    assert info.partial == is_test


@pytest.mark.parametrize(
    ("command", "runner"),
    [
        ("pnpm -C web test", "pnpm test"),
        ("yarn --cwd web test", "yarn test"),
        ("pnpm --dir web test", "pnpm test"),
        ("nix develop -c pytest", "pytest"),
        ("nix develop .#ci --command cargo test", "cargo test"),
        ("direnv exec . python -m pytest", "pytest"),
        ("pipx run pytest", "pytest"),
        ("flutter test", "flutter test"),
    ],
)
def test_a_test_run_inside_an_environment_or_folder_option_is_a_full_run(
    command: str, runner: str
) -> None:
    info = classify_command(command)
    assert "test" in info.kinds and info.test_runner == runner and not info.partial


@pytest.mark.parametrize(
    ("command", "kinds"),
    [
        ("odoo -d db -u sale_extra --stop-after-init", {"build"}),
        ("docker exec web odoo -d db --update=sale_extra --stop-after-init", {"build"}),
        ("odoo-bin -d db -i sale_extra --test-enable --stop-after-init", {"test"}),
        ("odoo shell -d db", set()),
        ("nix develop", set()),
        ("xcodebuild -scheme App build", {"build"}),
    ],
)
def test_a_module_upgrade_loads_it_and_entering_an_environment_checks_nothing(
    command: str, kinds: set[str]
) -> None:
    assert classify_command(command).kinds == kinds


@pytest.mark.parametrize(
    ("command", "partial"),
    [
        ("Invoke-Pester", False),
        ("Invoke-Pester -Output Detailed", False),
        ("pwsh -NoProfile -Command Invoke-Pester -CI", False),
        ('powershell -Command "Invoke-Pester -Output Detailed"', False),
        ("Invoke-Pester ./tests/Cart.Tests.ps1", True),
        ("Invoke-Pester -TagFilter x -TestName 'adds*'", True),
    ],
)
def test_pester_runs_are_test_runs(command: str, partial: bool) -> None:
    info = classify_command(command)
    assert info.test_runner == "pester" and info.partial is partial


@pytest.mark.parametrize(
    ("command", "runs"),
    [
        ("Get-Content .\\build.ps1 -Raw | Invoke-Expression", True),
        ("Get-Content 'C:\\work\\render.ps1' -Raw -Encoding UTF8 | iex", True),
        ('powershell.exe -Command "Get-Content .\\a.ps1 -Raw | Invoke-Expression"', True),
        ("pwsh -NoProfile -ExecutionPolicy Bypass -File ./build.ps1 -Target x", True),
        ("powershell -File build.ps1", True),
        ("& .\\build.ps1 -Verbose", True),
        ("Get-Content app.log | Select-String error", False),
        ("Get-Content notes.txt -Raw | Invoke-Expression", False),
    ],
)
def test_a_powershell_script_run_is_a_run(command: str, runs: bool) -> None:
    assert ("run" in classify_command(command).kinds) is runs


@pytest.mark.parametrize(
    ("command", "kind"),
    [
        ("zsh -n prompt.zsh", "run"),
        ("zsh prompt.zsh", "run"),
        ("nix-instantiate --parse a.nix", "lint"),
    ],
)
def test_parse_checks_of_scripts_are_checks(command: str, kind: str) -> None:
    assert kind in classify_command(command).kinds


@pytest.mark.parametrize(
    ("command", "partial"),
    [
        ("go test ./... -run .", False),
        ("go test ./... -run=.*", False),
        ("go test -run TestX ./...", True),
    ],
)
def test_a_go_run_pattern_that_matches_every_test_is_no_filter(command: str, partial: bool) -> None:
    assert classify_command(command).partial is partial


# A wrapper whose name says nothing of what it runs: the key the project model resolves.
@pytest.mark.parametrize(
    ("command", "wrappers"),
    [
        ("npm run ci", ("script:ci",)),
        ("pnpm verify", ("script:verify",)),
        ("yarn run precommit", ("script:precommit",)),
        ("bun run check:all", ("script:check:all",)),
        ("just ci", ("just:ci",)),
        ("make verify", ("make:verify",)),
        ("sh bin/bench.sh", ("file:bin/bench.sh",)),
        ("bash scripts/ci.sh --fast", ("file:scripts/ci.sh",)),
        ("./scripts/ci.sh", ("file:./scripts/ci.sh",)),
        ("make verify && npm run ci", ("make:verify", "script:ci")),
    ],
)
def test_a_wrapper_named_for_nothing_is_kept_for_the_project_model(
    command: str, wrappers: tuple[str, ...]
) -> None:
    assert classify_command(command).wrappers == wrappers


@pytest.mark.parametrize(
    ("command", "wrappers"),
    [
        ("npm test", ("script:test",)),  # named for its check, and what it runs is read too
        ("make typecheck", ("make:typecheck",)),
        ("mix ci", ("mix:ci",)),  # a mix.exs alias
        ("mix do compile, ci", ("mix:ci",)),
        ("bundle exec rake", ("rake:default",)),  # the Rakefile's default task
        ("rake ci", ("rake:ci",)),
        ("composer run-script ci", ("composer:ci",)),
        ("composer ci", ("composer:ci",)),
        ("hatch run test", ("hatch:test",)),  # pyproject's scripts of an environment manager
        ("hatch run lint:check", ("hatch:lint:check",)),
        ("pdm run lint", ("pdm:lint",)),
        ("poetry run poe test", ("poe:test",)),
        ("poe check", ("poe:check",)),
    ],
)
def test_a_wrapper_of_the_repository_is_kept_for_what_it_runs(
    command: str, wrappers: tuple[str, ...]
) -> None:
    assert classify_command(command).wrappers == wrappers


@pytest.mark.parametrize(
    "command",
    [
        "mix test",  # the toolchain's own test run
        "bundle exec rake spec",
        "./run_tests.sh",
        "pnpm --filter web ci",  # another package's scripts, not the root's
        "npm run ci --prefix web",
        "make -C backend verify",  # another directory's Makefile
        "make -f ci.mk verify",
        "python tools/gen.py",  # not a shell script
    ],
)
def test_a_toolchains_own_check_or_a_wrapper_elsewhere_is_not_kept(command: str) -> None:
    assert classify_command(command).wrappers == ()


@pytest.mark.parametrize(
    ("command", "filtered"),
    [
        ("helm template rel charts/api | grep -c 'kind: Ingress'", True),
        ("npm run build 2>&1 | tail -20", True),
        ("cat app.log | grep ERROR", True),
        ("kubectl get pods -o json | jq '.items | length'", True),
        ("set -o pipefail; helm lint . | tail", False),  # the status is the whole pipe's
        ("helm lint . | python3 check.py", False),  # not a filter
        ("grep -c Ingress out.yaml", False),  # no pipe
        ("helm lint . | tail -3; echo done", False),  # the line ends on its own command
    ],
)
def test_a_line_ending_on_a_piped_filter_takes_the_filters_status(
    command: str, filtered: bool
) -> None:
    assert classify_command(command).status_of_a_filter is filtered


# One line per STATE_LOOKS entry, in table order: a look at a system's state.
_STATE_LOOK_LINES = [
    "kubectl get pods -n prod",
    "kubectl describe deployment api",
    "kubectl logs deploy/api --tail=50",
    "kubectl top pods",
    "kubectl events --for pod/api-0",
    "kubectl rollout status deployment/api",
    "kubectl rollout history deployment/api",
    "helm list -A",
    "helm ls",
    "helm status api",
    "helm history api",
    "systemctl status api --no-pager",
    "systemctl is-active nginx",
    "systemctl is-failed api",
    "systemctl list-units --failed",
    "journalctl -u api --since today",
    "docker ps -a",
    "docker logs web --tail 20",
    "docker images",
    "docker inspect web",
    "docker compose ps",
    "docker compose logs api",
    "fly status",
    "fly logs -a api",
    "fly releases",
    "flyctl status --app api",
    "flyctl logs",
    "heroku ps -a api",
    "heroku logs --tail",
    "heroku releases",
    "pm2 status",
    "pm2 list",
    "pm2 ls",
    "pm2 logs api --lines 50",
    "vercel ls",
    "vercel logs https://app.example.com",
    "vercel inspect https://app.example.com",
    "railway status",
    "railway logs",
    "terraform show",
    "terraform output -json",
    "terraform state list",
]


def test_every_state_look_entry_has_an_example() -> None:
    from reflection_core.session.commands import STATE_LOOKS

    assert len(_STATE_LOOK_LINES) == len(STATE_LOOKS)


@pytest.mark.parametrize("line", [*_STATE_LOOK_LINES, "docker-compose ps", "podman ps"])
def test_a_look_at_a_systems_state_is_a_status_command(line: str) -> None:
    assert classify_command(line).kinds == {"status"}


@pytest.mark.parametrize(
    "line",
    [
        "fly deploy",
        "kubectl apply -f k8s/api.yaml",
        "kubectl rollout restart deployment/api",
        "helm upgrade api ./chart",
        "systemctl restart api",
        "docker compose up -d",
        "pm2 restart api",
        "terraform apply -auto-approve",
    ],
)
def test_a_command_that_changes_a_system_is_no_status_look(line: str) -> None:
    assert "status" not in classify_command(line).kinds


@pytest.mark.parametrize(
    ("line", "kinds"),
    [
        ("npx turbo run test --filter=web", {"test"}),
        ("pnpm turbo run test --filter=api", {"test"}),
        ("turbo run test lint --filter=api", {"test", "lint"}),
        ("turbo test", {"test"}),
        ("turbo run build", {"build"}),
        ("turbo build", {"build"}),
        ("npx nx test app", {"test"}),
        ("nx build app", {"build"}),
        ("npx nx affected -t test", {"test"}),
        ("nx run-many -t test,lint", {"test", "lint"}),
        ("yarn nx run-many --target=typecheck --all", {"typecheck"}),
        ("nx run api:test", {"test"}),
        ("nx run api:build:production", {"build"}),
        ("lerna run test --scope api", {"test"}),
        ("yarn workspaces foreach -A run test", {"test"}),
        ("nx graph", set()),
    ],
)
def test_a_monorepo_task_runner_runs_the_tasks_it_names(line: str, kinds: set[str]) -> None:
    assert classify_command(line).kinds == kinds


@pytest.mark.parametrize(
    "script", ["unit-test", "migrate-test", "e2e:test", "integration_tests", "ui-spec"]
)
def test_a_script_named_for_tests_at_its_end_is_a_test_run(script: str) -> None:
    assert "test" in classify_command(f"npm run {script}").kinds
    assert "test" in classify_command(f"make {script}").kinds


@pytest.mark.parametrize(
    ("line", "kinds"),
    [
        ("git stash -q", {"stash"}),
        ("git stash pop -q", {"unstash"}),
        ("git stash show -p", {"read"}),
        ("git stash -q && python -m app.evaluate; git stash pop -q", {"stash", "unstash"}),
    ],
)
def test_a_quiet_stash_is_set_aside_and_brought_back_not_changed(
    line: str, kinds: set[str]
) -> None:
    assert kinds <= classify_command(line).kinds and "modify" not in classify_command(line).kinds


# One (look, output) per FAILED_STATES entry, in table order.
_FAILED_STATE_LINES = [
    ("kubectl get pods", "api-7d9f  0/1  CrashLoopBackOff  4  2m"),
    ("systemctl status api", "   Active: failed (Result: exit-code)"),
    ("docker ps -a", "web  Exited (137) 3 minutes ago"),
    ("helm status api", "STATUS: failed"),
    ("fly status", "app  machine 1  failed"),
    ("flyctl status", "machine 2  crashed"),
    ("heroku ps", "web.1: crashed 2026/03/02"),
    ("pm2 status", "│ api │ errored │"),
]


def test_every_failed_state_entry_has_an_example() -> None:
    from reflection_core.session.commands import FAILED_STATES

    assert len(_FAILED_STATE_LINES) == len(FAILED_STATES)


@pytest.mark.parametrize(("line", "output"), _FAILED_STATE_LINES)
def test_a_look_whose_output_shows_a_failed_state_says_so(line: str, output: str) -> None:
    from reflection_core.session.commands import shows_failed_state

    assert shows_failed_state(classify_command(line), output)
    assert not shows_failed_state(classify_command(line), "all running and healthy")
    assert not shows_failed_state(classify_command("cat deploy.log"), output)


@pytest.mark.parametrize(
    "line", ["kubectl -n prod get pods", "sleep 30 && kubectl --context prod get pods -l app=api"]
)
def test_a_look_with_options_before_its_subcommand_is_still_a_look(line: str) -> None:
    assert classify_command(line).kinds == {"status"}


@pytest.mark.parametrize(
    ("line", "partial"),
    [
        ("vendor/bin/phpunit tests", False),
        ("vendor/bin/phpunit tests/SlugTest.php", True),
        ("bundle exec rspec spec/", False),
        ("bundle exec rspec spec/models/user_spec.rb", True),
        ("npx jest __tests__", False),
        ("npx jest src/cart", True),
    ],
)
def test_a_runner_given_the_whole_suites_folder_runs_the_whole_suite(
    line: str, partial: bool
) -> None:
    assert classify_command(line).partial is partial


@pytest.mark.parametrize(
    ("line", "kinds"),
    [
        ("bash -n scripts/backup.sh", {"run", "lint"}),
        ("sh -n x.sh", {"run", "lint"}),
        ("bash scripts/backup.sh -n", {"run"}),
    ],
)
def test_a_shell_given_n_parses_the_script_a_lint_too(line: str, kinds: set[str]) -> None:
    assert classify_command(line).kinds == kinds


@pytest.mark.parametrize("module", ["app.cli", "validation.validate_orders", "myapp", "uvicorn"])
def test_python_m_of_a_module_no_table_knows_is_a_run_of_the_program(module: str) -> None:
    assert "run" in classify_command(f"python -m {module} data/sample.csv").kinds


@pytest.mark.parametrize("module", [*sorted(TOOL_MODULES), "http.server", "json.tool", "venv"])
def test_python_m_of_a_tool_or_the_standard_library_is_no_run(module: str) -> None:
    assert "run" not in classify_command(f"python -m {module} x").kinds


@pytest.mark.parametrize(
    ("command", "status_is_the_search"),
    [
        ('python -m pytest -q && grep -rn "old_name" src tests', True),  # 1: nothing left
        ("pytest; rg old_name src", True),
        ("pytest && git grep -n old_name", True),
        ("pytest && echo done", False),
        ("grep -rn old_name src && pytest", False),  # the test's status
    ],
)
def test_a_line_ending_on_a_search_takes_the_searchs_status(
    command: str, status_is_the_search: bool
) -> None:
    assert classify_command(command).status_of_a_filter is status_is_the_search


@pytest.mark.parametrize(
    "script", ["i18n:check", "check:links", "schema-check", "validate", "verify:migrations"]
)
def test_a_script_named_for_a_check_is_a_check(script: str) -> None:
    assert "lint" in classify_command(f"npm run {script}").kinds
    assert "lint" not in classify_command("npm run checkout").kinds


@pytest.mark.parametrize(
    ("command", "builds"),
    [
        ("mvn -B verify", True),  # every phase from package on packages the artifact
        ("./mvnw install", True),
        ("mvn verify -DskipTests", True),
        ("mvn test", False),
        ("mvn dependency:tree", False),
    ],
)
def test_maven_phases_from_compile_on_build(command: str, builds: bool) -> None:
    assert ("build" in classify_command(command).kinds) is builds


@pytest.mark.parametrize(("program", "call"), CODE_TEST_CALLS)
def test_a_test_run_given_as_code_to_an_interpreter_is_a_test_run(program: str, call: str) -> None:
    assert "test" in classify_command(f"{program} -e 'library(x); {call})'").kinds
    assert "test" not in classify_command(f"{program} -e 'print(1)'").kinds


@pytest.mark.parametrize(("program", "runner"), ENGINE_TEST_RUNS)
def test_an_engines_test_runner_named_by_option_is_a_test_run(program: str, runner: str) -> None:
    assert "test" in classify_command(f"{program} --headless -batchmode -s addons/x/{runner}").kinds
    assert "test" in classify_command(f"/opt/engine/{program} -projectPath . {runner}").kinds
    assert "test" not in classify_command(f"{program} --headless -s addons/x/tool.gd").kinds


@pytest.mark.parametrize(
    ("command", "modules"),
    [
        (
            "python - <<'EOF'\nfrom app import app\nimport billing.refunds as r\nEOF",
            ["app", "billing.refunds"],
        ),
        ('python -c "import app.payments" && echo ok', ["app.payments"]),
        ('python -c "x = 1; from cfgkit import load_config"', ["cfgkit"]),
        ("python -c 'print(1)'", []),
    ],
)
def test_the_modules_python_code_on_a_command_line_imports(
    command: str, modules: list[str]
) -> None:
    from reflection_core.session.commands import imported_modules

    assert imported_modules(command) == modules
