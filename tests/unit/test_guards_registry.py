"""The guard registry is the one table: every file and command that names a guard agrees with it."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import yaml

from reflection_core.cli.check_cmd import command as check_group
from reflection_core.guards import registry
from reflection_core.install import doctor, merge

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]


def test_the_manifest_is_generated_from_the_registry() -> None:
    text = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    assert text == registry.manifest_yaml(), (
        "regenerate it: python -m reflection_core.guards.registry --write"
    )
    ids = [hook["id"] for hook in yaml.safe_load(text)]
    assert ids == list(registry.hook_ids())


def test_pyproject_console_scripts_match_the_registry() -> None:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "scripts"
    ]
    guard_scripts = {k: v for k, v in scripts.items() if k != "reflection"}
    assert guard_scripts == registry.console_scripts()


def test_every_guard_module_has_a_console_main_and_a_native_check() -> None:
    for guard in registry.GUARDS:
        module = importlib.import_module(guard.module)
        assert callable(module.main), guard.id
        assert callable(guard.native()), guard.id
        assert set(guard.stages) <= set(registry.HOOK_TYPES)


def test_native_hooks_run_the_registry_guards_for_their_type() -> None:
    assert [g.id for g in registry.for_hook("pre-commit")] == [
        "reflection-protected-commit",
        "reflection-tests-ran",
    ]
    assert [g.id for g in registry.for_hook("pre-push")] == [
        "reflection-protected-push",
        "reflection-tests-ran",
    ]


def test_init_and_doctor_name_the_registry_guards() -> None:
    assert registry.hook_ids() == merge.HOOK_IDS
    assert set(doctor.CONSOLE_SCRIPTS) == {"reflection", *registry.hook_ids()}
    block = yaml.safe_load(merge.pre_commit_repo_block("sh .reflection-hook hook", ("pre-commit",)))
    hooks = block[0]["hooks"]
    assert [h["id"] for h in hooks] == [g.id for g in registry.for_hook("pre-commit")]
    assert [h["entry"] for h in hooks] == [f"sh .reflection-hook hook {h['id']}" for h in hooks]


def test_every_guard_id_is_a_git_event_the_launcher_can_run() -> None:
    """The shared framework entries run `reflection hook <guard id>`."""
    from reflection_core import hook_dispatch

    assert set(registry.hook_ids()) <= set(hook_dispatch.GIT_EVENTS)


def test_every_ci_check_is_a_check_subcommand() -> None:
    wanted = {g.ci_check for g in registry.GUARDS if g.ci_check}
    assert wanted <= set(check_group.commands)  # type: ignore[attr-defined]


OLD_FRAMEWORK_CONFIG = """repos:
# our guards
- repo: local
  hooks:
  - id: reflection-protected-commit
    name: refuse commits on protected branches
    entry: /home/dev/.venv/bin/reflection-protected-commit
    language: system
  - id: reflection-tests-ran
    name: require a passing test run for the tree
    entry: '/home/dev/my venv/bin/reflection-tests-ran'
    language: system
- repo: https://github.com/psf/black
  hooks:
  - id: black
    entry: /usr/bin/black
"""


def test_init_rewrites_an_older_configs_absolute_entries_to_the_shared_launcher() -> None:
    merged = merge.merge_pre_commit_config(OLD_FRAMEWORK_CONFIG, "sh .reflection-hook hook")
    doc = yaml.safe_load(merged)
    ours = doc["repos"][0]["hooks"]
    assert [h["entry"] for h in ours] == [
        "sh .reflection-hook hook reflection-protected-commit",
        "sh .reflection-hook hook reflection-tests-ran",
    ]
    assert doc["repos"][1]["hooks"][0]["entry"] == "/usr/bin/black"  # not ours: kept
    assert "# our guards" in merged
    assert merge.merge_pre_commit_config(merged, "sh .reflection-hook hook") == merged
