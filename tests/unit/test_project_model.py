"""The project model: every ecosystem table entry on a synthetic repository, the session's
commands, and the bounds of what the model reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reflection_core import project_model as pm
from reflection_core.project_model import (
    Command,
    ProjectModel,
    combine,
    read_repo,
    repo_model,
    session_model,
)


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def commands(model: ProjectModel, purpose: str) -> list[str]:
    return [c.text for c in model.all(purpose)]


# ---------------------------------------------------------------- ecosystems with fixed commands


@pytest.mark.parametrize(
    "ecosystem",
    [e for e in pm.ECOSYSTEMS if e.commands],
    ids=lambda e: e.name,
)
def test_a_marker_file_gives_its_ecosystems_commands(
    tmp_path: Path, ecosystem: pm.Ecosystem
) -> None:
    marker = ecosystem.markers[0].replace("*", "app")
    model = repo_model(write(tmp_path, {marker: ""}))
    assert ecosystem.name in model.ecosystems
    for purpose, text in ecosystem.commands:
        assert text in commands(model, purpose), (purpose, text, model.commands)


@pytest.mark.parametrize(
    ("marker", "expected"),
    [(m, e.name) for e in pm.ECOSYSTEMS for m in e.markers],
)
def test_every_marker_names_its_ecosystem(tmp_path: Path, marker: str, expected: str) -> None:
    name = marker.replace("*", "app")
    assert expected in repo_model(write(tmp_path, {name: ""})).ecosystems


def test_go_runs_one_package_and_rust_one_crate(tmp_path: Path) -> None:
    go = repo_model(write(tmp_path / "go", {"go.mod": "module x\n"}))
    assert go.test_package_command("internal/api") == "go test ./internal/api/..."
    rust = repo_model(write(tmp_path / "rust", {"Cargo.toml": "[package]\n"}))
    assert rust.test_package_command("core") == "cargo test -p core"


# ---------------------------------------------------------------- python


@pytest.mark.parametrize(
    ("purpose", "command", "config"),
    [
        ("test", "python -m pytest", "[tool.pytest.ini_options]\n"),
        ("lint", "ruff check .", "[tool.ruff]\nline-length = 100\n"),
        ("lint", "flake8", "[flake8]\nmax-line-length = 100\n"),
        ("typecheck", "mypy", "[tool.mypy]\nstrict = true\n"),
        ("typecheck", "pyright", "[tool.pyright]\n"),
        ("build", "python -m build", "[build-system]\nrequires = ['setuptools']\n"),
    ],
)
def test_python_tools_a_config_names(
    tmp_path: Path, purpose: str, command: str, config: str
) -> None:
    model = repo_model(write(tmp_path, {"pyproject.toml": config}))
    assert command in commands(model, purpose)
    assert model.ecosystems == ("python",)


@pytest.mark.parametrize(("file", "wrapper"), pm.PYTHON_TEST_WRAPPERS)
def test_python_wrappers_run_the_same_pytest(tmp_path: Path, file: str, wrapper: str) -> None:
    model = repo_model(write(tmp_path, {"pyproject.toml": "[tool.pytest.ini_options]\n", file: ""}))
    found = next(c for c in model.all("test") if c.text == wrapper)
    assert found.runs == "python -m pytest"
    # A uv or Poetry lock means the tests need that environment: its runner is named.
    named = wrapper if file in pm.PYTHON_ENVIRONMENT_LOCKS else "python -m pytest"
    assert model.text("test") == named


@pytest.mark.parametrize(
    ("files", "source"),
    [
        ({"test_calc.py": ""}, "pytest: test_*.py files"),
        ({"calc_test.py": ""}, "pytest: test_*.py files"),
        ({"conftest.py": ""}, "pytest: conftest.py"),
        ({"tests/test_calc.py": ""}, "pytest: test_*.py files in tests/"),
        ({"spec/test_calc.py": ""}, "pytest: test_*.py files in spec/"),
    ],
)
def test_bare_python_test_files_mean_pytest(
    tmp_path: Path, files: dict[str, str], source: str
) -> None:
    model = repo_model(write(tmp_path, files))
    test = model.command("test")
    assert test is not None and test.text == "python -m pytest" and test.source == source


def test_django_without_pytest_uses_its_own_runner(tmp_path: Path) -> None:
    model = repo_model(write(tmp_path, {"manage.py": "", "app/models.py": ""}))
    assert model.text("test") == "python manage.py test"


def test_one_python_test_file_runs_through_pytest(tmp_path: Path) -> None:
    model = repo_model(write(tmp_path, {"pyproject.toml": "[tool.pytest.ini_options]\n"}))
    assert model.test_file_command("tests/test_a b.py") == "python -m pytest 'tests/test_a b.py'"


# ---------------------------------------------------------------- node


@pytest.mark.parametrize(("lock", "manager"), pm.NODE_PACKAGE_MANAGERS)
def test_the_lock_file_names_the_package_manager(tmp_path: Path, lock: str, manager: str) -> None:
    package = json.dumps({"scripts": {"test": "vitest run", "build": "vite build"}})
    model = repo_model(write(tmp_path, {"package.json": package, lock: ""}))
    assert model.text("test") == pm.script_command(manager, "test")
    assert model.text("build") == f"{manager} run build"


def test_bun_runs_the_test_script_not_its_own_runner() -> None:
    assert pm.script_command("bun", "test") == "bun run test"
    assert pm.script_command("npm", "test") == "npm test"


def test_package_manager_field_wins_over_the_lock_file(tmp_path: Path) -> None:
    package = json.dumps({"packageManager": "pnpm@9.1.0", "scripts": {"test": "jest"}})
    model = repo_model(write(tmp_path, {"package.json": package, "package-lock.json": "{}"}))
    assert model.text("test") == "pnpm test"


@pytest.mark.parametrize(
    ("purpose", "script"), [(p, name) for p, names in pm.NODE_SCRIPTS for name in names]
)
def test_each_script_name_gives_its_purpose(tmp_path: Path, purpose: str, script: str) -> None:
    model = repo_model(write(tmp_path, {"package.json": json.dumps({"scripts": {script: "x"}})}))
    assert model.text(purpose) == pm.script_command("npm", script)
    command = model.command(purpose)
    assert command is not None and command.runs == "x"


@pytest.mark.parametrize(
    "script",
    ['echo "Error: no test specified" && exit 1', 'echo "no tests yet" && exit 0', "true"],
)
def test_a_placeholder_test_script_is_no_test_command(tmp_path: Path, script: str) -> None:
    package = {"scripts": {"test": script}}
    model = repo_model(write(tmp_path, {"package.json": json.dumps(package)}))
    assert model.text("test") is None and not model.has_tests


def test_a_make_test_target_that_only_echoes_is_no_test_command(tmp_path: Path) -> None:
    model = repo_model(write(tmp_path, {"Makefile": "test:\n\t@echo 'no tests yet'\n"}))
    assert model.text("test") is None and not model.has_tests
    real = repo_model(write(tmp_path, {"Makefile": "test:\n\t@echo running\n\t./run_tests\n"}))
    assert real.text("test") == "make test"


@pytest.mark.parametrize(
    ("script", "placeholder"),
    [
        ('echo "Error: no test specified" && exit 1', True),
        ("printf 'none'; exit 0", True),
        ("@echo nothing to test", True),
        ("echo start && jest", False),
        ('echo "a && b" && vitest run', False),
        ("jest", False),
    ],
)
def test_a_script_that_only_prints_or_exits_is_a_placeholder(
    script: str, placeholder: bool
) -> None:
    assert pm.is_placeholder(script) is placeholder


def test_tsconfig_without_a_typecheck_script_means_tsc(tmp_path: Path) -> None:
    model = repo_model(write(tmp_path, {"package.json": "{}", "tsconfig.json": "{}"}))
    assert model.text("typecheck") == "npx tsc --noEmit"


@pytest.mark.parametrize("runner", pm.NODE_FILE_RUNNERS)
def test_file_taking_runners_run_one_test_file(tmp_path: Path, runner: str) -> None:
    package = json.dumps({"scripts": {"test": f"{runner} --color"}})
    model = repo_model(write(tmp_path, {"package.json": package}))
    assert model.test_file_command("src/a.test.ts") == "npm test -- src/a.test.ts"


def test_an_unparsable_package_json_is_node_without_commands(tmp_path: Path) -> None:
    model = repo_model(write(tmp_path, {"package.json": "{ not json"}))
    assert model.ecosystems == ("node",) and model.commands == ()


# ---------------------------------------------------------------- make and just


@pytest.mark.parametrize(
    ("purpose", "target"), [(p, name) for p, names in pm.TASK_TARGETS for name in names]
)
@pytest.mark.parametrize(("file", "tool"), [("Makefile", "make"), ("justfile", "just")])
def test_each_task_target_gives_its_purpose(
    tmp_path: Path, purpose: str, target: str, file: str, tool: str
) -> None:
    text = f"VAR := 1\n.PHONY: {target}\n{target}:\n\t./tools/{target}.sh\n"
    model = repo_model(write(tmp_path, {file: text}))
    assert model.text(purpose) == f"{tool} {target}"


@pytest.mark.parametrize(("words", "runs"), pm.RECIPE_RUNNERS)
def test_a_test_target_knows_what_its_recipe_runs(tmp_path: Path, words: str, runs: str) -> None:
    model = repo_model(
        write(tmp_path, {"Makefile": f"test: build\n\t{words} -q\nbuild:\n\ttrue\n"})
    )
    test = model.command("test")
    assert test is not None and test.text == "make test" and test.runs == runs


def test_make_variables_and_special_targets_are_not_targets() -> None:
    targets = pm.make_targets("CC := gcc\nX = a:b\n.PHONY: test\ntest:\n\tpytest\n")
    assert list(targets) == ["test"] and targets["test"] == ["pytest"]


def test_a_recipe_on_the_targets_line_is_its_recipe() -> None:
    assert pm.make_targets("test: build ; pytest -q\n")["test"] == ["pytest -q"]


def test_a_justfile_recipe_with_arguments_is_a_target() -> None:
    assert "test" in pm.make_targets("test *args:\n    cargo test {{args}}\n")


# ---------------------------------------------------------------- jvm, cmake, ruby, php


@pytest.mark.parametrize(
    ("files", "test", "build"),
    [
        ({"build.gradle": ""}, "gradle test", "gradle build"),
        ({"build.gradle.kts": "", "gradlew": ""}, "./gradlew test", "./gradlew build"),
        ({"pom.xml": "<project/>"}, "mvn test", "mvn package"),
        ({"pom.xml": "<project/>", "mvnw": ""}, "./mvnw test", "./mvnw package"),
    ],
)
def test_gradle_and_maven_use_their_wrapper_when_present(
    tmp_path: Path, files: dict[str, str], test: str, build: str
) -> None:
    model = repo_model(write(tmp_path, files))
    assert model.text("test") == test and model.text("build") == build


def test_a_single_test_class_runs_through_the_jvm_tool(tmp_path: Path) -> None:
    model = repo_model(write(tmp_path, {"pom.xml": "<project/>", "mvnw": ""}))
    assert model.test_package_command("CalcTest") == "./mvnw test -Dtest=CalcTest"


def test_cmake_tests_only_when_the_lists_add_them(tmp_path: Path) -> None:
    plain = repo_model(write(tmp_path / "a", {"CMakeLists.txt": "project(x)\n"}))
    assert plain.text("test") is None and plain.text("build") is not None
    tested = repo_model(write(tmp_path / "b", {"CMakeLists.txt": "enable_testing()\n"}))
    assert tested.text("test") == "cmake --build build && ctest --test-dir build"


@pytest.mark.parametrize(
    ("files", "test"),
    [
        ({"Gemfile": "", ".rspec": ""}, "bundle exec rspec"),
        ({"Gemfile": "", "spec/calc_spec.rb": ""}, "bundle exec rspec"),
        ({"Gemfile": "", "Rakefile": ""}, "bundle exec rake test"),
        ({"composer.json": json.dumps({"scripts": {"test": "phpunit"}})}, "composer test"),
        ({"composer.json": "{}", "phpunit.xml": ""}, "vendor/bin/phpunit"),
        (
            {
                "composer.json": json.dumps({"require-dev": {"pestphp/pest": "^2"}}),
                "phpunit.xml": "",
            },
            "vendor/bin/pest",
        ),
        ({"composer.json": "{}", "phpunit.xml": "", "tests/Pest.php": ""}, "vendor/bin/pest"),
        ({"pubspec.yaml": "name: calc\n"}, "dart test"),
        ({"pubspec.yaml": "dependencies:\n  flutter:\n    sdk: flutter\n"}, "flutter test"),
    ],
)
def test_ruby_php_and_dart_test_runners(tmp_path: Path, files: dict[str, str], test: str) -> None:
    assert repo_model(write(tmp_path, files)).text("test") == test


def test_one_pest_or_flutter_test_file_runs_through_its_own_runner(tmp_path: Path) -> None:
    pest = repo_model(write(tmp_path / "a", {"composer.json": "{}", "tests/Pest.php": ""}))
    assert (
        pest.test_file_command("tests/Unit/CalcTest.php")
        == "vendor/bin/pest tests/Unit/CalcTest.php"
    )
    flutter = {"pubspec.yaml": "dependencies:\n  flutter:\n    sdk: flutter\n"}
    model = repo_model(write(tmp_path / "b", flutter))
    assert model.test_file_command("test/calc_test.dart") == "flutter test test/calc_test.dart"
    assert model.text("typecheck") == "flutter analyze"


def test_a_flake_names_its_check_only_when_no_other_build_is_known(tmp_path: Path) -> None:
    alone = repo_model(write(tmp_path / "a", {"flake.nix": "{ }\n"}))
    assert alone.text("build") == "nix flake check"
    beside = repo_model(write(tmp_path / "b", {"flake.nix": "{ }\n", "Cargo.toml": "[package]\n"}))
    assert beside.text("build") == "cargo build"


def test_a_stack_project_with_its_generated_cabal_file_names_stack(tmp_path: Path) -> None:
    model = repo_model(write(tmp_path, {"stack.yaml": "", "calc.cabal": "", "test/Spec.hs": ""}))
    assert model.text("test") == "stack test" and model.text("build") == "stack build"


# ---------------------------------------------------------------- test sources of a toolchain


@pytest.mark.parametrize(
    ("files", "has_tests"),
    [
        ({"go.mod": "module x\n", "main.go": ""}, False),
        ({"go.mod": "module x\n", "internal/api/handler_test.go": ""}, True),
        ({"go.mod": "module x\n", "vendor/lib/lib_test.go": "", "testdata/a_test.go": ""}, False),
        ({"go.mod": "module x\n", ".cache/a_test.go": ""}, False),
        ({"build.gradle": "", "app/src/main/kotlin/Main.kt": ""}, False),
        ({"build.gradle": "", "app/src/test/kotlin/MainTest.kt": ""}, True),
        ({"settings.gradle.kts": "", "app/src/androidTest/java/UiTest.java": ""}, True),
        ({"pom.xml": "<project/>", "src/main/java/App.java": ""}, False),
        ({"pom.xml": "<project/>", "src/test/java/AppTest.java": ""}, True),
        ({"Cargo.toml": "[package]\n", "src/main.rs": "fn main() {}\n"}, False),
        ({"Cargo.toml": "[package]\n", "src/lib.rs": "#[cfg(test)]\nmod tests {}\n"}, True),
        ({"Cargo.toml": "[package]\n", "src/io.rs": "#[tokio::test]\nasync fn reads() {}\n"}, True),
        ({"Cargo.toml": "[workspace]\n", "crates/core/tests/parse.rs": ""}, True),
        ({"deno.json": "{}", "main.ts": "", "latest.ts": ""}, False),
        ({"deno.json": "{}", "lib/server_test.ts": ""}, True),
        ({"deno.json": "{}", "lib/util.test.js": ""}, True),
        ({"Shop.sln": "", "Api/Api.csproj": ""}, False),
        ({"Shop.sln": "", "Api.Tests/Api.Tests.csproj": ""}, True),
        ({"Package.swift": "", "Sources/Shop/Cart.swift": ""}, False),
        ({"Package.swift": "", "Tests/ShopTests/CartTests.swift": ""}, True),
        ({"mix.exs": "", "lib/cart.ex": ""}, False),
        ({"mix.exs": "", "apps/shop/test/cart_test.exs": ""}, True),
        ({"build.zig": "", "src/main.zig": "pub fn main() void {}\n"}, False),
        ({"build.zig": "", "src/cart.zig": 'test "adds" {\n}\n'}, True),
        ({"dune-project": "", "bin/main.ml": ""}, False),
        ({"dune-project": "", "lib/test/dune": ""}, True),
        ({"build.sbt": "", "src/main/scala/Calc.scala": ""}, False),
        ({"build.sbt": "", "src/test/scala/CalcSpec.scala": ""}, True),
        ({"calc.cabal": "", "src/Calc.hs": ""}, False),
        ({"stack.yaml": "", "test/Spec.hs": ""}, True),
        ({"pubspec.yaml": "name: calc\n", "lib/calc.dart": ""}, False),
        ({"pubspec.yaml": "name: calc\n", "test/calc_test.dart": ""}, True),
        # A test target of the project's own stands for a suite, whatever the walk sees.
        ({"go.mod": "module x\n", "Makefile": "test:\n\tgo test ./...\n"}, True),
    ],
)
def test_a_toolchains_test_command_means_a_suite_only_beside_test_sources(
    tmp_path: Path, files: dict[str, str], has_tests: bool
) -> None:
    model = repo_model(write(tmp_path, files))
    assert model.has_tests is has_tests
    assert model.text("test") is not None  # still the project's check: it compiles the code


def test_a_directory_too_large_to_list_whole_leaves_the_tests_assumed(tmp_path: Path) -> None:
    crowded = {f"api/h{n}.go": "" for n in range(pm.MAX_LISTING + 1)}
    root = write(tmp_path, {"go.mod": "module x\n", **crowded})
    assert pm.find_test_sources(root, ["go"]) is None
    (root / "api" / "h0.go").unlink()
    assert pm.find_test_sources(root, ["go"]) is False


def test_a_source_the_walk_cannot_read_holds_no_test(tmp_path: Path) -> None:
    root = write(tmp_path, {"Cargo.toml": "[package]\n", "src/main.rs": "fn main() {}\n"})
    (root / "src" / "gone.rs").symlink_to(root / "src" / "missing.rs")
    assert pm.find_test_sources(root, ["rust"]) is False
    (root / "src" / "lib.rs").write_text("#[test]\nfn adds() {}\n")
    assert pm.find_test_sources(root, ["rust"]) is True


def test_the_git_guards_ask_for_the_test_command_without_the_walk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from reflection_core import config
    from reflection_core.guards.tests_ran import project_test_command

    root = write(tmp_path, {"go.mod": "module x\n", "main.go": ""})

    def no_walk(root: Path, ecosystems: object) -> bool | None:
        raise AssertionError("walked")

    monkeypatch.setattr(pm, "find_test_sources", no_walk)
    assert project_test_command(root, config.Config(root=root)) == "go test ./..."
    with pytest.raises(AssertionError, match="walked"):
        repo_model(root)


def test_every_toolchain_that_offers_a_test_command_has_test_sources() -> None:
    fixed = {e.name for e in pm.ECOSYSTEMS if any(p == "test" for p, _ in e.commands)}
    assert fixed | {"gradle", "maven", "dart"} == set(pm.TEST_SOURCES)


def test_a_tree_larger_than_the_walk_is_assumed_to_hold_tests(tmp_path: Path) -> None:
    many = {f"pkg{n}/file.go": "" for n in range(pm.MAX_WALKED_DIRS + 5)}
    root = write(tmp_path, {"go.mod": "module x\n", **many})
    assert pm.find_test_sources(root, ["go"]) is None
    assert repo_model(root).has_tests


def test_the_walk_reads_a_bounded_number_of_sources_for_inline_tests(tmp_path: Path) -> None:
    many = {f"src/m{n}.rs": "pub fn f() {}\n" for n in range(pm.MAX_READ_SOURCES + 5)}
    root = write(tmp_path, {"Cargo.toml": "[package]\n", **many})
    assert pm.find_test_sources(root, ["rust"]) is None


def test_the_walk_runs_only_for_a_toolchain_that_offers_tests_without_them(
    tmp_path: Path,
) -> None:
    assert pm.find_test_sources(write(tmp_path, {"package.json": "{}"}), ["python", "node"]) is None


# ---------------------------------------------------------------- precedence


@pytest.mark.parametrize(
    ("files", "test"),
    [
        (
            {
                "pyproject.toml": "[tool.pytest.ini_options]\n",
                "package.json": '{"scripts":{"test":"jest"}}',
            },
            "python -m pytest",
        ),
        ({"package.json": '{"scripts":{"test":"jest"}}', "go.mod": ""}, "npm test"),
        ({"go.mod": "", "Makefile": "test:\n\tgo test ./...\n"}, "go test ./..."),
        ({"Makefile": "test:\n\tpytest\n", "test_x.py": ""}, "make test"),
    ],
)
def test_the_first_ecosystem_in_table_order_names_the_test_command(
    tmp_path: Path, files: dict[str, str], test: str
) -> None:
    model = repo_model(write(tmp_path, files))
    assert model.text("test") == test


def test_an_empty_repository_knows_nothing(tmp_path: Path) -> None:
    model = repo_model(tmp_path)
    assert model == ProjectModel()


# ---------------------------------------------------------------- the session


@pytest.mark.parametrize(("prefix", "ecosystem", "purpose"), pm.SESSION_COMMANDS)
def test_each_session_command_is_a_check_of_its_ecosystem(
    prefix: tuple[str, ...], ecosystem: str, purpose: str
) -> None:
    model = session_model([(" ".join(prefix), True)], [])
    assert model.ecosystems == (ecosystem,)
    assert model.text(purpose) == " ".join(prefix)


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("npm test", ("node", "test")),
        ("pnpm run build", ("node", "build")),
        ("yarn lint", ("node", "lint")),
        ("bun run typecheck", ("node", "typecheck")),
        ("make test", ("make", "test")),
        ("make -j4 build", ("make", "build")),
        ("make check", ("make", "test")),
        ("just lint", ("just", "lint")),
        ("python3 -m pytest -q", ("python", "test")),
        ("uv run pytest tests/test_a.py", ("python", "test")),
        ("CI=1 npx vitest run", ("node", "test")),
        ("timeout 60 go test ./...", ("go", "test")),
        ("bundle exec rspec", ("ruby", "test")),
        ("/usr/bin/cargo build", ("rust", "build")),
        ("npm install", None),
        ("make clean", None),
        ("ls -la", None),
    ],
)
def test_session_commands_are_classified_through_their_wrappers(
    command: str, expected: tuple[str, str] | None
) -> None:
    segments = pm.command_segments(command)
    assert pm.classify_segment(segments[0]) == expected


@pytest.mark.parametrize(
    ("command", "segments"),
    [
        ("pnpm build 2>&1 | tail -80", [["pnpm", "build"], ["tail", "-80"]]),
        ("npm test > out.log 2>&1", [["npm", "test"]]),
        ("go test ./... 2>/dev/null", [["go", "test", "./..."]]),
        ("sort < names.txt && make test", [["sort"], ["make", "test"]]),
        ("serve & npm test", [["serve"], ["npm", "test"]]),
    ],
)
def test_redirections_are_no_words_of_a_command(command: str, segments: list[list[str]]) -> None:
    assert pm.command_segments(command) == segments


def test_only_succeeded_commands_become_the_sessions_checks() -> None:
    model = session_model(
        [("cargo test", False), ("cd web && npm test && npm run build", True)], []
    )
    assert commands(model, "test") == ["npm test"]
    assert commands(model, "build") == ["npm run build"]
    assert model.ecosystems == ("node",)


def test_touched_files_give_ecosystems_and_test_files() -> None:
    model = session_model(
        [], ["src/lib.rs", "pkg/api/handler_test.go", "web/a.test.tsx", "README.md"]
    )
    assert set(model.ecosystems) == {"rust", "go", "node"}
    assert model.test_files == ("pkg/api/handler_test.go", "web/a.test.tsx")
    assert model.has_tests


def test_the_repositorys_commands_come_before_the_sessions() -> None:
    repo = ProjectModel(
        ecosystems=("node",),
        commands=(Command("npm test", "test", "node", "package.json scripts.test"),),
    )
    session = session_model([("go build ./...", True), ("npm test", True)], ["x_test.go"])
    merged = combine(repo, session)
    assert merged.text("test") == "npm test" and merged.text("build") == "go build ./..."
    assert merged.ecosystems == ("node", "go") and merged.test_files == ("x_test.go",)
    assert [c.text for c in merged.commands].count("npm test") == 1


@pytest.mark.parametrize(
    ("path", "is_test"),
    [
        ("tests/test_api.py", True),
        ("src/calc_test.go", True),
        ("web/src/a.spec.ts", True),
        ("web/__tests__/a.js", True),
        ("spec/models/user_spec.rb", True),
        ("tests/helpers.rs", True),
        ("src/test/java/CalcTest.java", True),
        ("src/calc.py", False),
        ("docs/testing.md", False),
    ],
)
def test_test_files_by_any_ecosystems_shape(path: str, is_test: bool) -> None:
    assert pm.is_test_file(path) is is_test


# ---------------------------------------------------------------- what the edge reads


def test_reading_is_capped_and_stays_at_the_root(tmp_path: Path) -> None:
    big = "test:\n\tpytest\n" + "# padding\n" * (pm.MAX_FILE_BYTES // 5)
    write(tmp_path, {"Makefile": big, "src/pyproject.toml": "[tool.pytest.ini_options]\n"})
    files = read_repo(tmp_path)
    assert len(files["Makefile"] or "") == pm.MAX_FILE_BYTES
    assert "src/" in files and "src/pyproject.toml" not in files
    assert repo_model(tmp_path).text("test") == "make test"


def test_files_the_readers_do_not_need_are_seen_not_read(tmp_path: Path) -> None:
    write(tmp_path, {"package-lock.json": "{}", "tests/test_a.py": "x = 1\n"})
    files = read_repo(tmp_path)
    assert files["package-lock.json"] is None and files["tests/test_a.py"] is None
    assert files["tests/"] is None


@pytest.mark.parametrize(
    "ecosystem", [e for e in pm.ECOSYSTEMS if e.test_file or e.test_package], ids=lambda e: e.name
)
def test_each_narrower_run_template_is_offered_for_its_ecosystem(
    tmp_path: Path, ecosystem: pm.Ecosystem
) -> None:
    marker = ecosystem.markers[0].replace("*", "app")
    model = repo_model(write(tmp_path, {marker: "{}" if marker.endswith(".json") else ""}))
    if ecosystem.test_file:
        path = f"t/x{ecosystem.extensions[0]}" if ecosystem.extensions else "t/x.ts"
        if ecosystem.extensions:
            assert model.test_file_command(path) == ecosystem.test_file.format(path=path)
        else:
            assert (ecosystem.name, ecosystem.test_file) in model.test_file_templates
    if ecosystem.test_package:
        command = model.test_package_command("unit", ecosystem.name)
        template = ecosystem.test_package.replace("{tool}", command.split()[0] if command else "")
        assert command == template.format(package="unit")


def test_a_go_module_knows_which_of_its_packages_have_tests(tmp_path: Path) -> None:
    files = {
        "go.mod": "module x\n",
        "main.go": "",
        "calc/calc.go": "",
        "calc/calc_test.go": "",
        "util/util.go": "",
        "vendor/dep/dep_test.go": "",  # not the project's
    }
    model = repo_model(write(tmp_path, files))
    assert model.has_tests and model.tested_dirs == frozenset({"calc"})
    (tmp_path / "main_test.go").write_text("")
    assert repo_model(tmp_path).tested_dirs == frozenset({"", "calc"})


def test_a_go_module_too_large_to_walk_knows_no_tested_packages(tmp_path: Path) -> None:
    many = {f"pkg{n}/file.go": "" for n in range(pm.MAX_WALKED_DIRS + 5)}
    root = write(tmp_path, {"go.mod": "module x\n", "a/a_test.go": "", **many})
    assert pm.go_test_dirs(root) is None


# ---------------------------------------------------------------- what named wrappers run


def test_wrapped_commands_read_package_scripts_and_make_and_just_targets() -> None:
    files = {
        "package.json": json.dumps({"scripts": {"ci": "vitest run && tsc --noEmit", "x": 1}}),
        "Makefile": "verify: lint unit\n\t@$(MAKE) e2e\nunit:\n\t-python -m pytest -q\n",
        "justfile": "ci: fmt\n    cargo test\n",
    }
    wrapped = dict(pm.wrapped_commands(files))
    assert wrapped["script:ci"] == "vitest run && tsc --noEmit"
    assert "script:x" not in wrapped  # not a command line
    assert wrapped["make:verify"] == "make lint\nmake unit\nmake e2e"
    assert wrapped["make:unit"] == "python -m pytest -q"
    assert wrapped["just:ci"] == "just fmt\ncargo test"


MIX_EXS = """\
defmodule Shop.MixProject do
  def project, do: [app: :shop, deps: deps(), aliases: aliases()]
  defp deps, do: [{:phoenix, "~> 1.7"}]

  defp aliases do
    [
      setup: ["deps.get", "ecto.setup"],
      "ecto.setup": ["ecto.create", "ecto.migrate"],
      lint: "credo --strict",
      ci: [
        "format --check-formatted",
        "test"
      ],
      seed: &seed/1
    ]
  end
end
"""


def test_mix_aliases_run_the_mix_tasks_they_list() -> None:
    aliases = pm.mix_aliases(MIX_EXS)
    assert aliases["ci"] == ["mix format --check-formatted", "mix test"]
    assert aliases["ecto.setup"] == ["mix ecto.create", "mix ecto.migrate"]
    assert aliases["lint"] == ["mix credo --strict"]
    assert aliases["seed"] == []  # a function, not tasks
    assert "phoenix" not in aliases  # deps are not aliases


RAKEFILE = """\
require "rspec/core/rake_task"
RSpec::Core::RakeTask.new(:spec)
RuboCop::RakeTask.new
Rake::TestTask.new do |t|
  t.pattern = "test/**/*_test.rb"
end
task default: %i[spec rubocop]
task :ci => [:spec, "rubocop"]
task(:all => :ci)
"""


def test_rake_tasks_run_their_prerequisites_and_library_tasks() -> None:
    tasks = pm.rake_tasks(RAKEFILE)
    assert tasks["default"] == ["rake spec", "rake rubocop"]
    assert tasks["ci"] == ["rake spec", "rake rubocop"]
    assert tasks["all"] == ["rake ci"]
    assert tasks["spec"] == ["rspec"]
    assert tasks["rubocop"] == ["rubocop"]
    assert tasks["test"] == ["rake test"]  # Rake::TestTask's default name


def test_composer_scripts_run_their_steps_and_other_scripts() -> None:
    manifest = json.dumps(
        {"scripts": {"ci": ["@lint", "@test"], "test": "@php artisan test", "x": 1}}
    )
    scripts = pm.composer_scripts(manifest)
    assert scripts["ci"] == ["composer lint", "composer test"]
    assert scripts["test"] == ["php artisan test"]
    assert scripts["x"] == []


def test_a_repository_model_reads_mix_aliases_rake_tasks_and_composer_scripts(
    tmp_path: Path,
) -> None:
    composer = '{"scripts": {"qa": "phpunit"}}'
    write(tmp_path, {"mix.exs": MIX_EXS, "Rakefile": RAKEFILE, "composer.json": composer})
    wrapped = dict(repo_model(tmp_path).wrapped)
    assert wrapped["mix:ci"] == "mix format --check-formatted\nmix test"
    assert wrapped["rake:default"] == "rake spec\nrake rubocop"
    assert wrapped["composer:qa"] == "phpunit"


PYPROJECT_SCRIPTS = """\
[tool.hatch.envs.default.scripts]
test = "pytest {args:tests}"
[tool.hatch.envs.lint.scripts]
check = ["ruff check src", "ruff format --check src"]
[tool.pdm.scripts]
unit = "pytest -q"
lint = {cmd = ["ruff", "check", "."]}
all = {composite = ["lint", "unit"]}
main = {call = "pkg.cli:main"}
[tool.poe.tasks]
verify = {sequence = ["mypy src", "pytest"]}
"""


def test_pyproject_scripts_of_hatch_pdm_and_poe_run_their_lines() -> None:
    scripts = pm.pyproject_scripts(PYPROJECT_SCRIPTS)
    assert scripts["hatch:test"] == ["pytest"]  # the `{args:tests}` placeholder dropped
    assert scripts["hatch:lint:check"] == ["ruff check src", "ruff format --check src"]
    assert scripts["pdm:lint"] == ["ruff check ."]
    assert scripts["pdm:all"] == ["ruff check .", "pytest -q"]  # its sibling scripts' lines
    assert scripts["pdm:main"] == []  # a Python function, no command line
    assert scripts["poe:verify"] == ["mypy src", "pytest"]
    assert pm.pyproject_scripts("[project]\nname = 'x'\n") == {}
    assert pm.pyproject_scripts("[tool.pdm.scripts\nbroken") == {}


def test_a_repository_model_holds_what_its_wrappers_run(tmp_path: Path) -> None:
    write(tmp_path, {"Makefile": "ci:\n\tgo test ./...\n", "go.mod": "module x\n"})
    assert ("make:ci", "go test ./...") in repo_model(tmp_path).wrapped


def test_read_scripts_reads_scripts_inside_the_repository_only(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"scripts/ci.sh": "#!/bin/sh\npytest -q\n"})
    write(tmp_path, {"outside.sh": "pytest\n"})
    (repo / "escape.sh").symlink_to(tmp_path / "outside.sh")
    read = dict(
        pm.read_scripts(
            repo,
            ["scripts/ci.sh", "./scripts/ci.sh", "../outside.sh", "escape.sh", "missing.sh",
             str(repo / "scripts/ci.sh"), "scripts", "bad\x00name.sh"],
        )
    )  # fmt: skip
    assert read == {
        "file:scripts/ci.sh": "#!/bin/sh\npytest -q\n",
        "file:./scripts/ci.sh": "#!/bin/sh\npytest -q\n",
        f"file:{repo / 'scripts/ci.sh'}": "#!/bin/sh\npytest -q\n",
    }


@pytest.mark.parametrize(
    ("name", "marker", "marks"),
    [
        ("go.mod", "go.mod", True),
        ("go.mod.bak", "go.mod", False),
        ("App.csproj", "*.csproj", True),
        ("App.csproj.user", "*.csproj", False),
        ("pkg.cabal", "*.cab?l", True),
    ],
)
def test_a_marker_names_its_file_or_its_suffix(name: str, marker: str, marks: bool) -> None:
    from reflection_core.project_model import is_marker

    assert is_marker(name, marker) is marks
