from __future__ import annotations

import pytest

from reflection_core.consumers import notify
from reflection_core.consumers.speech import SpeechError, clean_for_speech, speech_argv
from tests.verdictutil import verdict_data

SECRET = "sk-ant-abcdefghijklmnopqrstuvwxyz0123456789"


def test_complete_verdict_makes_a_task_complete_notice_with_the_summary() -> None:
    notice = notify.choose_notice(
        verdict_data("s", complete=True),
        on="complete",
        attention=False,
        last_message="Fixed the **login** bug; `pytest` passed.",
        project="shop",
    )
    assert notice is not None and notice.kind == notify.DONE
    assert notice.title == "reflection: task complete · shop"
    assert notice.body == "Fixed the login bug; passed."


def test_incomplete_verdict_suppresses_the_done_message() -> None:
    verdict = verdict_data("s", complete=False)
    assert notify.choose_notice(verdict, on="complete", attention=False) is None


def test_attention_lists_missing_items_and_next_actions() -> None:
    verdict = verdict_data("s", complete=False, missing=["a", "b", "c", "d"])
    notice = notify.choose_notice(verdict, on="complete", attention=True)
    assert notice is not None and notice.kind == notify.ATTENTION
    assert notice.body.startswith("Not complete (incomplete). Missing: a; b; c (+1 more).")
    assert "Next: run python -m pytest -q." in notice.body


def test_waiting_for_user_is_announced_even_when_only_complete_is_wanted() -> None:
    verdict = verdict_data(
        "s", complete=False, status="waiting_for_user", stop_category="waiting_for_user"
    )
    notice = notify.choose_notice(
        verdict, on="complete", attention=False, last_message="Which database should I use?"
    )
    assert notice is not None and notice.kind == notify.NEEDS_INPUT
    assert notice.body == "Which database should I use?"


@pytest.mark.parametrize(
    ("on", "complete", "sent"),
    [("incomplete", True, False), ("incomplete", False, True), ("always", True, True)],
)
def test_notify_on_selects_which_verdicts_notify(on: str, complete: bool, sent: bool) -> None:
    notice = notify.choose_notice(verdict_data("s", complete=complete), on=on, attention=False)
    assert (notice is not None) is sent


def test_secrets_in_the_last_message_never_reach_a_notice() -> None:
    message = f"Deployed with token {SECRET} and password=hunter2"
    notice = notify.choose_notice(
        verdict_data("s", complete=True), on="complete", attention=False, last_message=message
    )
    assert notice is not None
    for text in (notice.title, notice.body, notice.spoken):
        assert SECRET not in text and "hunter2" not in text


def test_terminal_sequence_is_one_osc9_notification_and_a_bell() -> None:
    notice = notify.Notice(notify.DONE, "t\x1b[31m", "body\nline\x07", "")
    sequence = notify.terminal_sequence(notice)
    assert sequence.startswith("\x1b]9;") and sequence.endswith("\x07\x07")
    assert "\x1b[" not in sequence and "\n" not in sequence


def test_channel_label_hides_tokens_in_apprise_urls() -> None:
    assert notify.channel_label("tgram://123456:ABCdef/987") == "tgram://…"
    assert notify.channel_label("not a url") == "apprise URL"


def test_clean_for_speech_strips_markdown_code_and_links() -> None:
    text = (
        "## Done\n\n- Added [the parser](https://x.y/z) to `src/p.py`\n"
        "```python\nprint('no')\n```\n**All** 12 tests pass. See https://ci.example/run."
    )
    assert clean_for_speech(text, 400) == "Done Added the parser to All 12 tests pass. See"


def test_clean_for_speech_caps_at_a_sentence_end() -> None:
    text = "First sentence is here. Second one is longer and goes on and on and on."
    assert clean_for_speech(text, 40) == "First sentence is here."
    assert len(clean_for_speech("word " * 100, 50)) <= 51


def test_speech_argv_keeps_the_text_as_one_argument() -> None:
    argv = speech_argv("espeak-ng -s 150", "done; rm -rf / $(x)")
    assert argv == ["espeak-ng", "-s", "150", "--", "done; rm -rf / $(x)"]
    with pytest.raises(SpeechError, match="cannot be parsed"):
        speech_argv("say 'unterminated", "x")


def test_unfinished_work_the_hook_pushes_on_is_no_news() -> None:
    verdict = verdict_data("s", complete=False)
    quiet = notify.choose_notice(verdict, on="incomplete", attention=True, agent_continues=True)
    assert quiet is None
    loud = notify.choose_notice(verdict, on="incomplete", attention=True, agent_continues=False)
    assert loud is not None and loud.kind == notify.ATTENTION
    assert notify.choose_notice(verdict, on="always", attention=False, agent_continues=True)


def test_run_until_abandons_a_job_still_running_at_the_deadline() -> None:
    import threading
    import time

    never = threading.Event()

    def stuck() -> notify.Delivery:
        never.wait(30)
        return notify.Delivery("json://…", True)

    jobs = [("json://…", stuck), ("speech", lambda: notify.Delivery("speech", True))]
    began = time.monotonic()
    results = notify.run_until(jobs, time.monotonic() + 0.3)
    never.set()
    assert time.monotonic() - began < 2
    assert results == [
        notify.Delivery("json://…", False, notify.ABANDONED),
        notify.Delivery("speech", True),
    ]
