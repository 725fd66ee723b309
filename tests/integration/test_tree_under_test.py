"""Process tests run the checkout's code, not a previously installed `reflection`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import TREE

REFLECTION = str(Path(sys.executable).with_name("reflection"))


def test_the_reflection_command_imports_the_tree_under_test(tmp_path: Path) -> None:
    # PYTHONVERBOSE makes the interpreter name every module file it loads.
    env = {**os.environ, "PYTHONVERBOSE": "1"}
    proc = subprocess.run(
        [REFLECTION, "--version"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    loaded = [
        line
        for line in proc.stderr.splitlines()
        if "reflection_core" in line and "__init__" in line
    ]
    marker = str(TREE / "reflection_core" / "__init__.py")
    assert any(marker in line for line in loaded), loaded[:5]
    assert not any("site-packages/reflection_core" in line for line in loaded), loaded[:5]


def test_the_tree_comes_first_on_the_path_of_every_child_process() -> None:
    assert os.environ["PYTHONPATH"].split(os.pathsep)[0] == str(TREE)
