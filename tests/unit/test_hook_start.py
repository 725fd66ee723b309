"""What a hook process pays before its work: the config read once, no heavy modules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reflection_core import config, hook_dispatch, hookio
from tests.unit.hookprobe import run_probe

_PROMPT = "In src/app.py, rename `load_rows` to `read_rows` and update tests/test_app.py."


def test_a_timed_prompt_hook_reads_the_repo_config_once(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (git_repo / ".reflection.yaml").write_text("hooks:\n  deadline_seconds: 20\n")
    monkeypatch.delenv(hookio.DEADLINE_ENV, raising=False)
    loads: list[Path] = []
    real_load = config.load

    def counting_load(start: object = None, **kwargs: bool) -> config.Config:
        loads.append(Path(str(start)))
        return real_load(start, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(config, "load", counting_load)
    payload = {"session_id": "s-1", "cwd": str(git_repo), "prompt": _PROMPT}
    hook_dispatch.answer("user-prompt-submit", json.dumps(payload).encode(), timed=True)
    assert loads == [git_repo]


def test_a_second_hook_in_one_process_sees_an_edited_config(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(hookio.DEADLINE_ENV, raising=False)
    payload = json.dumps({"session_id": "s-1", "cwd": str(git_repo), "prompt": _PROMPT}).encode()
    (git_repo / ".reflection.yaml").write_text("prompt:\n  mode: advise\n")
    first = hook_dispatch.answer("user-prompt-submit", payload, timed=True)
    (git_repo / ".reflection.yaml").write_text("prompt:\n  no_such_key: 1\n")
    second = hook_dispatch.answer("user-prompt-submit", payload)
    assert "configuration error" not in json.dumps(first.output)
    assert "configuration error" in json.dumps(second.output)


# Modules the prompt hook's process must not import: each costs milliseconds on every prompt.
_HEAVY = (
    "click",
    "yaml",
    "runpy",
    "argparse",
    "tempfile",
    "urllib.request",
    "email",
    "dataclasses",
    "inspect",
    "hashlib",
    "threading",
    "typing",
    "pathlib",
    "datetime",
    "contextlib",
    "copy",
    "signal",
)


def test_the_prompt_hook_process_imports_no_heavy_module(git_repo: Path, tmp_path: Path) -> None:
    probe = (
        "import sys\n"
        "before = set(sys.modules)\n"  # an editable install's finder imports some at start
        "from reflection_core.entry import main\n"
        "sys.argv = ['reflection', 'hook', 'user-prompt-submit']\n"
        "code = main()\n"
        f"loaded = [m for m in {_HEAVY!r} if m in sys.modules and m not in before]\n"
        "sys.stderr.write(repr(loaded))\n"
    )
    payload = json.dumps({"session_id": "s-1", "cwd": str(git_repo), "prompt": _PROMPT})
    run = run_probe(probe, git_repo, tmp_path / "state", payload, check=True)
    assert run.stderr.strip().splitlines()[-1] == "[]"


def test_an_agent_hook_process_ends_with_its_answer_written_and_exit_handlers_run(
    git_repo: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "exit-handler-ran"
    probe = (
        "import atexit, sys\n"
        f"atexit.register(lambda: open({str(marker)!r}, 'w').close())\n"
        "sys.argv = ['reflection', 'hook', 'user-prompt-submit']\n"
        "from reflection_core.entry import run\n"
        "run()\n"
        "raise SystemExit('run() returned')\n"
    )
    (git_repo / ".reflection.yaml").write_text("prompt:\n  show_score: true\n")  # an answer
    payload = json.dumps({"session_id": "s-1", "cwd": str(git_repo), "prompt": _PROMPT})
    run = run_probe(probe, git_repo, tmp_path / "state", payload)
    assert run.returncode == 0, run.stderr
    assert "systemMessage" in json.loads(run.stdout)
    assert marker.exists()


def test_plain_check_tests_runs_without_click_and_says_what_the_click_command_says(
    git_repo: Path, tmp_path: Path
) -> None:
    probe = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "from reflection_core.entry import main\n"
        "code = main(['check', 'tests', '--staged'])\n"
        "clicked = 'click' in set(sys.modules) - before\n"
        "sys.stderr.write(f'\\nexit {code} click loaded: {clicked}')\n"
        "from reflection_core.cli.main import cli\n"
        "try:\n"
        "    cli.main(args=['check', 'tests', '--staged'], standalone_mode=False)\n"
        "except SystemExit as exc:\n"
        "    sys.stderr.write(f'\\nexit {exc.code}')\n"
    )
    run = run_probe(probe, git_repo, tmp_path / "state")
    fast, _, through_click = run.stderr.partition("exit 1 click loaded: False")
    assert "no test evidence for the staged tree" in fast
    assert through_click.strip().endswith("exit 1")
    assert fast.strip() == through_click.strip().removesuffix("exit 1").strip()
