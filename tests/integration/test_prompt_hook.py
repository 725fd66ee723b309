"""`reflection hook user-prompt-submit` through the installed console script, real payloads."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.gitutil import make_repo

REFLECTION = shutil.which("reflection", path=str(Path(sys.executable).parent)) or "reflection"
MENU = "Three options:\n\n1. Raise the ALB timeout.\n2. Make the export async.\n3. Stream it."


def _run(
    stdin: bytes, env_extra: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, **(env_extra or {})}
    return subprocess.run(
        [REFLECTION, "hook", "user-prompt-submit"],
        input=stdin,
        capture_output=True,
        env=env,
        timeout=60,
    )


def _payload(prompt: object, cwd: Path, **extra: Any) -> dict[str, Any]:
    return {
        "session_id": "c0ffee-1234",
        "transcript_path": str(cwd / "missing-transcript.jsonl"),
        "cwd": str(cwd),
        "hook_event_name": "UserPromptSubmit",
        "permission_mode": "default",
        "prompt": prompt,
        **extra,
    }


def _hook(payload: dict[str, Any]) -> dict[str, Any]:
    proc = _run(json.dumps(payload).encode())
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _write_transcript(path: Path, assistant_text: str) -> None:
    records = [
        {"type": "user", "message": {"role": "user", "content": "why do reports 502?"}},
        {
            "type": "assistant",
            "message": {
                "id": "msg_1",
                "role": "assistant",
                "content": [{"type": "text", "text": assistant_text}],
            },
        },
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


GOOD_TASK = (
    "In src/billing/invoice.py, `compute_tax` rounds each line before summing. Sum the "
    "Decimal amounts and round once. Add a test to tests/billing/test_invoice.py."
)


def test_a_good_prompt_gets_no_answer_and_is_still_recorded(git_repo: Path) -> None:
    proc = _run(json.dumps(_payload(GOOD_TASK, git_repo)).encode())
    assert proc.returncode == 0 and proc.stdout.strip() == b"", proc.stdout
    stats = subprocess.run([REFLECTION, "stats", "--json"], capture_output=True, timeout=60)
    assert json.loads(stats.stdout)["total"] == 1


def test_with_show_score_a_good_prompt_gets_one_line_and_no_context(git_repo: Path) -> None:
    (git_repo / ".reflection.yaml").write_text("prompt:\n  show_score: true\n")
    out = _hook(_payload(GOOD_TASK, git_repo))
    assert out["systemMessage"].startswith("reflection: prompt ")
    assert "· backend" in out["systemMessage"]
    assert "\n" not in out["systemMessage"]
    assert "hookSpecificOutput" not in out
    assert "decision" not in out


def test_a_task_with_only_a_tip_shows_nothing_unless_tips_are_configured(git_repo: Path) -> None:
    payload = json.dumps(_payload("add dark mode to the settings page", git_repo)).encode()
    quiet = _run(payload)
    assert quiet.returncode == 0 and quiet.stdout.strip() == b"", quiet.stdout
    (git_repo / ".reflection.yaml").write_text("prompt:\n  tips: true\n")
    shown = json.loads(_run(payload).stdout)
    assert " · tip: " in shown["systemMessage"] and "hookSpecificOutput" not in shown


def test_a_prompt_pointing_nowhere_hands_the_agent_its_one_question(git_repo: Path) -> None:
    out = _hook(_payload("fix the bug in this file", git_repo))
    context = out["hookSpecificOutput"]["additionalContext"]
    assert "in the user's language: “this file” refers to something I can't see" in context
    assert out["systemMessage"].endswith("1 question passed to the agent")


def test_menu_in_the_transcript_gives_the_live_context_bonus(git_repo: Path) -> None:
    transcript = git_repo / "session.jsonl"
    _write_transcript(transcript, MENU)
    (git_repo / ".reflection.yaml").write_text(  # a line, any score
        "prompt:\n  tips: true\n  show_score: true\n"
    )
    prompt = "none of these, just revert a91f3e0 for now"
    with_menu = _hook(_payload(prompt, git_repo, transcript_path=str(transcript)))
    without = _hook(_payload(prompt, git_repo, session_id="other-session"))
    score_with = float(with_menu["systemMessage"].split("prompt ")[1].split("/")[0])
    score_without = float(without["systemMessage"].split("prompt ")[1].split("/")[0])
    assert score_with == pytest.approx(min(5.0, score_without + 1.0))


def test_an_option_number_never_offered_is_recorded_but_not_asked(git_repo: Path) -> None:
    """`option_not_offered` has been right on one real user: the gate keeps it silent."""
    transcript = git_repo / "session.jsonl"
    _write_transcript(transcript, MENU)
    proc = _run(
        json.dumps(_payload("option 4", git_repo, transcript_path=str(transcript))).encode()
    )
    assert proc.returncode == 0 and proc.stdout.strip() == b"", proc.stdout


def test_a_pick_from_a_list_the_turn_offered_before_a_tool_call_is_not_questioned(
    git_repo: Path,
) -> None:
    """Claude Code writes each message of a turn apart: the list, the tool call and its
    result, then a last message without the list. The user's "2" answers the turn."""
    transcript = git_repo / "session.jsonl"
    records = [
        {"type": "user", "message": {"role": "user", "content": "why do reports 502?"}},
        _assistant("msg_1", {"type": "text", "text": MENU}),
        _assistant("msg_1", {"type": "tool_use", "id": "tu_1", "name": "Bash", "input": {}}),
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "ok"}],
            },
        },
        _assistant("msg_2", {"type": "text", "text": "All three fit the config. Tell me which."}),
    ]
    transcript.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    proc = _run(json.dumps(_payload("2", git_repo, transcript_path=str(transcript))).encode())
    assert proc.returncode == 0 and proc.stdout.strip() == b"", proc.stdout
    beyond = _run(json.dumps(_payload("5", git_repo, transcript_path=str(transcript))).encode())
    assert beyond.returncode == 0 and beyond.stdout.strip() == b"", beyond.stdout  # recorded


def _assistant(message_id: str, block: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "assistant",
        "message": {"id": message_id, "role": "assistant", "content": [block]},
    }


def test_a_continuation_gets_no_answer_at_all(git_repo: Path) -> None:
    proc = _run(json.dumps(_payload("go ahead", git_repo)).encode())
    assert proc.returncode == 0 and proc.stdout.strip() == b"" and proc.stderr == b""


def test_bypass_prefix_and_slash_command_produce_no_output(git_repo: Path) -> None:
    for prompt in ("* whatever, no check", "/compact"):
        proc = _run(json.dumps(_payload(prompt, git_repo)).encode())
        assert proc.returncode == 0
        assert proc.stdout.strip() == b""


def test_block_mode_blocks_a_very_vague_prompt(git_repo: Path) -> None:
    (git_repo / ".reflection.yaml").write_text("prompt:\n  mode: block\n  block_below: 2.0\n")
    out = _hook(_payload("make everything in this file better", git_repo))
    assert out["decision"] == "block"
    assert "below 2.0" in out["reason"]
    assert "`*`" in out["reason"]


def test_block_mode_never_blocks_in_plan_mode(git_repo: Path) -> None:
    (git_repo / ".reflection.yaml").write_text("prompt:\n  mode: block\n")
    out = _hook(_payload("make everything in this file better", git_repo, permission_mode="plan"))
    assert "decision" not in out


def test_bad_config_fails_open_with_a_visible_warning(git_repo: Path) -> None:
    (git_repo / ".reflection.yaml").write_text("prompt:\n  mode: shout\n")
    out = _hook(_payload("add caching to this file", git_repo))
    assert "configuration error" in out["systemMessage"]
    assert "prompt.mode" in out["systemMessage"]


@pytest.mark.parametrize(
    "stdin",
    [
        b"",
        b"not json at all",
        b'{"prompt": "unterminated',
        b"[1, 2, 3]",
        b'{"session_id": "x"}',
        b'{"prompt": 42, "cwd": 7, "transcript_path": ["x"], "session_id": {"a": 1}}',
        b'{"prompt": "fix the \xff\xfe parser in this file\xc3", "session_id": "../../etc"}',
        b'{"prompt": "make everything \\ud800 better in this file", "session_id": "x"}',
    ],
)
def test_malformed_input_exits_zero_with_valid_json(stdin: bytes, tmp_path: Path) -> None:
    proc = _run(stdin)
    assert proc.returncode == 0
    out = json.loads(proc.stdout)
    assert out["systemMessage"].startswith("reflection:")


def test_huge_prompt_is_scored_and_exits_zero(git_repo: Path) -> None:
    (git_repo / ".reflection.yaml").write_text("prompt:\n  show_score: true\n")  # its line
    prompt = "Fix `parse_row` in etl/rows.py so tests/test_rows.py passes. " * 40000  # ~2.4 MB
    out = _hook(_payload(prompt, git_repo))
    assert out["systemMessage"].startswith("reflection: prompt ")


def test_same_question_is_not_asked_twice_in_a_session(git_repo: Path) -> None:
    first = _hook(_payload("add caching to this file", git_repo))
    assert "Before acting, ask" in first["hookSpecificOutput"]["additionalContext"]
    second = _run(json.dumps(_payload("add caching to this file", git_repo)).encode())
    assert second.returncode == 0 and second.stdout.strip() == b"", second.stdout  # silent
    (git_repo / ".reflection.yaml").write_text("prompt:\n  tips: true\n")
    third = _hook(_payload("add caching to this file", git_repo))
    assert "already asked" in third["systemMessage"]
    assert "hookSpecificOutput" not in third


def test_scores_land_in_stats(git_repo: Path) -> None:
    _hook(_payload("add caching to this file", git_repo))
    _hook(_payload("make everything in this file better", git_repo, session_id="s2"))
    proc = subprocess.run([REFLECTION, "stats", "--json"], capture_output=True, timeout=60)
    data = json.loads(proc.stdout)
    assert data["total"] == 2
    assert data["smell_histogram"] == {"implicit_context": 2, "total_system": 1}


def test_a_lesson_from_memory_is_appended_to_the_context(git_repo: Path) -> None:
    from reflection_core.verify import memory

    memory.store_lesson(
        git_repo,
        "add a retry with backoff to the payment webhook handler",
        {"text": "the webhook tests need REDIS_URL set"},
    )
    out = _hook(_payload("add a retry with backoff to the payment webhook handler", git_repo))
    assert "REDIS_URL" in out["hookSpecificOutput"]["additionalContext"]


def test_hook_works_outside_any_git_repo(tmp_path: Path) -> None:
    out = _hook(_payload("add caching to this file", tmp_path))
    assert out["systemMessage"] == "reflection: 1 question passed to the agent"


def test_hook_path_imports_no_click_yaml_git_or_requests(git_repo: Path) -> None:
    code = (
        "import sys, io, json;"
        "from reflection_core.hosts import claude;"
        "from reflection_core.prompt.hook import handle;"
        f"payload = {{'prompt': 'add caching', 'cwd': {str(git_repo)!r}, 'session_id': 's'}};"
        "handle(claude.HOST.parse('user-prompt-submit', payload));"
        "bad = [m for m in ('click', 'yaml', 'git', 'requests') if m in sys.modules];"
        "print(json.dumps(bad))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert json.loads(proc.stdout) == []


def test_make_repo_is_used_for_a_nested_cwd(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    (repo / "pkg" / "sub").mkdir(parents=True)
    (repo / ".reflection.yaml").write_text('prompt:\n  bypass_prefix: ["!!"]\n')
    proc = _run(json.dumps(_payload("!! skip me", repo / "pkg" / "sub")).encode())
    assert proc.stdout.strip() == b""


def test_a_reply_to_the_agents_question_is_silent_and_touches_no_database(
    git_repo: Path,
) -> None:
    transcript = git_repo / "session.jsonl"
    _write_transcript(transcript, "Le timeout vient de l'ALB. Tu veux que je le passe à 180 s ?")
    state = Path(os.environ["REFLECTION_STATE_DIR"])
    before = sorted(state.rglob("*")) if state.exists() else []
    for reply in ("oui, vas-y, mais garde les logs", "non", "好的"):
        proc = _run(json.dumps(_payload(reply, git_repo, transcript_path=str(transcript))).encode())
        assert proc.stdout.strip() == b"", (reply, proc.stdout)
    after = sorted(state.rglob("*")) if state.exists() else []
    assert after == before


def test_a_gap_the_gate_holds_back_shows_nothing_but_lands_in_stats(git_repo: Path) -> None:
    payload = _payload("clean up utils.py, it has gotten really messy", git_repo)
    proc = _run(json.dumps(payload).encode())
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == b""  # no line, no context: unsure, so silent
    stats = subprocess.run([REFLECTION, "stats", "--json"], capture_output=True, timeout=60)
    assert json.loads(stats.stdout)["total"] == 1
