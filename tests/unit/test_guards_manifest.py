"""The hook manifest: valid for pre-commit, every entry an installed console script, documented."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib
import yaml

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / ".pre-commit-hooks.yaml"
EXPECTED_STAGES = {
    "reflection-protected-push": ["pre-push"],
    "reflection-protected-commit": ["pre-commit"],
    "reflection-protected-merge": ["pre-merge-commit"],
    "reflection-tests-ran": ["pre-commit", "pre-push"],
}


def test_pre_commit_accepts_the_manifest() -> None:
    pre_commit = Path(sys.executable).parent / "pre-commit"
    result = subprocess.run(
        [str(pre_commit), "validate-manifest", str(MANIFEST)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_hook_is_explicit_and_points_at_a_console_script() -> None:
    hooks = yaml.safe_load(MANIFEST.read_text())
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert {h["id"]: h["stages"] for h in hooks} == EXPECTED_STAGES
    for hook in hooks:
        assert hook["entry"] in scripts
        assert hook["language"] == "python" and hook["description"]
        assert hook["pass_filenames"] is False and hook["always_run"] is True
        assert hook["minimum_pre_commit_version"] == "3.2.0"


def test_every_hook_id_is_documented() -> None:
    docs = (ROOT / "docs" / "git-guards.md").read_text()
    for hook_id in EXPECTED_STAGES:
        assert f"`{hook_id}`" in docs
