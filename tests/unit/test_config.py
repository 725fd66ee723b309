from __future__ import annotations

import json
from pathlib import Path

import pytest

from reflection_core import config
from reflection_core.config import ConfigError


def write(root: Path, name: str, text: str) -> Path:
    path = root / name
    path.write_text(text, encoding="utf-8")
    return path


def test_no_file_gives_defaults(git_repo: Path) -> None:
    cfg = config.load(git_repo)
    assert cfg.source is None
    assert cfg.root == git_repo
    assert cfg.get("protected_branches") == ["main", "master"]
    assert cfg.get("stop.max_attempts") == 3
    assert cfg.get("prompt.mode") == "advise"


def test_outside_a_repo_gives_defaults(tmp_path: Path) -> None:
    cfg = config.load(tmp_path)
    assert cfg.root is None
    assert cfg.data == config.defaults()


def test_yaml_values_override_defaults_and_keep_the_rest(git_repo: Path) -> None:
    write(git_repo, ".reflection.yaml", "stop:\n  max_attempts: 5\nprotected_branches: [trunk]\n")
    cfg = config.load(git_repo)
    assert cfg.get("stop.max_attempts") == 5
    assert cfg.get("stop.run_gates") is False
    assert cfg.get("protected_branches") == ["trunk"]
    assert cfg.source == git_repo / ".reflection.yaml"


def test_pyproject_tool_section_is_read(git_repo: Path) -> None:
    write(
        git_repo,
        "pyproject.toml",
        '[project]\nname = "x"\n\n[tool.reflection]\nprotected-branches = ["main", "re:^rel-"]\n'
        '[tool.reflection.prompt]\nmode = "block"\n',
    )
    cfg = config.load(git_repo)
    assert cfg.get("protected_branches") == ["main", "re:^rel-"]
    assert cfg.get("prompt.mode") == "block"


def test_yaml_wins_over_pyproject(git_repo: Path) -> None:
    write(git_repo, "pyproject.toml", '[tool.reflection]\nprotected_branches = ["a"]\n')
    write(git_repo, ".reflection.yaml", "protected_branches: [b]\n")
    assert config.load(git_repo).get("protected_branches") == ["b"]


@pytest.mark.parametrize(
    ("text", "key", "expectation"),
    [
        ("stop:\n  max_attempt: 3\n", "stop.max_attempt", "unknown key"),
        ("stop:\n  max_attempts: three\n", "stop.max_attempts", "expected an integer"),
        ("stop:\n  max_attempts: -1\n", "stop.max_attempts", ">= 0"),
        ("protected_branches: ['re:(']\n", "protected_branches", "bad regex"),
        ("tests:\n  ignore: ['docs/[abc']\n", "tests.ignore", "unclosed '['"),
        ("prompt:\n  mode: loud\n", "prompt.mode", "'advise', 'block'"),
        ("prompt: 3\n", "prompt", "expected a mapping"),
        ("notify:\n  urls: json://x\n  on: sometimes\n", "notify.on", "one of"),
        ("stop:\n  required_gates: {coding: [tets]}\n", "stop.required_gates", "unknown gate"),
        ("gates:\n  - {name: lint}\n", "gates", "'run' must be"),
        ("gates:\n  - {name: lint, run: ruff, fix_patterns: ['(']}\n", "gates", "bad regex"),
        ("stop:\n  run_gates: 'yes'\n", "stop.run_gates", "true or false"),
        ("- just\n- a list\n", "", "mapping at the top level"),
    ],
)
def test_bad_values_name_the_file_the_key_and_the_expectation(
    git_repo: Path, text: str, key: str, expectation: str
) -> None:
    source = write(git_repo, ".reflection.yaml", text)
    with pytest.raises(ConfigError) as info:
        config.load(git_repo)
    message = str(info.value)
    assert str(source) in message
    assert info.value.key == key
    if key:
        assert f": {key}: " in message
    assert expectation in message


def test_thresholds_out_of_order_are_rejected(git_repo: Path) -> None:
    write(git_repo, ".reflection.yaml", "prompt:\n  thresholds: {pass: 2.5, note: 3.0}\n")
    with pytest.raises(ConfigError, match=r"prompt\.thresholds"):
        config.load(git_repo)


def test_invalid_yaml_is_a_config_error(git_repo: Path) -> None:
    write(git_repo, ".reflection.yaml", "stop: [unclosed\n")
    with pytest.raises(ConfigError, match="invalid YAML"):
        config.load(git_repo)


def test_a_yaml_error_names_the_file_and_where_in_it_in_one_whole_line(git_repo: Path) -> None:
    source = write(git_repo, ".reflection.yaml", "protected_branches: [main\n  foo: : bar\n")
    with pytest.raises(ConfigError) as info:
        config.load(git_repo)
    assert str(info.value) == (
        f"{source}: invalid YAML at line 2, column 6: expected ',' or ']', but got ':' "
        "(while parsing a flow sequence at line 1, column 21)"
    )


def test_invalid_toml_is_a_config_error(git_repo: Path) -> None:
    write(git_repo, "pyproject.toml", "[tool.reflection\nx = 1\n")
    with pytest.raises(ConfigError, match="invalid TOML"):
        config.load(git_repo)


def test_cache_is_used_until_the_file_changes(git_repo: Path, isolated_state: Path) -> None:
    source = write(git_repo, ".reflection.yaml", "stop:\n  max_attempts: 4\n")
    assert config.load(git_repo).get("stop.max_attempts") == 4
    cache_files = list((isolated_state / "config-cache").glob("*.json"))
    assert len(cache_files) == 1
    cached = json.loads(cache_files[0].read_text())
    assert cached["data"]["stop"]["max_attempts"] == 4
    source.write_text("stop:\n  max_attempts: 6\n  run_gates: true\n", encoding="utf-8")
    assert config.load(git_repo).get("stop.max_attempts") == 6


def test_a_corrupt_cache_is_ignored(git_repo: Path, isolated_state: Path) -> None:
    write(git_repo, ".reflection.yaml", "stop:\n  max_attempts: 4\n")
    config.load(git_repo)
    for cache in (isolated_state / "config-cache").glob("*.json"):
        cache.write_text("{not json", encoding="utf-8")
    assert config.load(git_repo).get("stop.max_attempts") == 4


def test_gate_entries_get_defaults_and_a_kind(git_repo: Path) -> None:
    write(
        git_repo,
        ".reflection.yaml",
        "gates:\n  - {name: tests, run: python -m pytest -q}\n"
        "  - {name: lint, run: ruff check ., fix: [ruff check --fix .]}\n",
    )
    gates = config.load(git_repo).get("gates")
    assert gates[0]["kind"] == "tests" and gates[0]["timeout"] == 600
    assert gates[1]["kind"] == "lint" and gates[1]["fix"] == ["ruff check --fix ."]


def test_reference_lists_every_leaf_key_with_a_description() -> None:
    rows = config.reference()
    keys = {key for key, _, _ in rows}
    assert {
        "protected_branches",
        "stop.max_attempts",
        "prompt.thresholds.pass",
        "judge.votes",
    } <= keys
    assert all(doc for _, _, doc in rows)


def test_on_and_yes_are_strings_not_booleans(git_repo: Path) -> None:
    write(git_repo, ".reflection.yaml", "notify:\n  on: always\n")
    assert config.load(git_repo).get("notify.on") == "always"
    write(git_repo, ".reflection.yaml", "stop:\n  run_gates: yes\n")
    with pytest.raises(ConfigError, match="true or false"):
        config.load(git_repo)
