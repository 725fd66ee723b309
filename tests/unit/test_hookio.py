from __future__ import annotations

import io
import json
import threading
import time

import pytest

from reflection_core.hook_dispatch import fail_open
from reflection_core.hookio import (
    HookDeadline,
    HookResponse,
    PayloadError,
    deadline,
    parse_payload,
    render,
)
from reflection_core.hosts import claude


def test_lone_surrogates_in_output_never_crash_rendering() -> None:
    payload = parse_payload(b'{"prompt": "bad \\ud800 text"}')
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    code = render(
        HookResponse(output={"systemMessage": payload["prompt"]}, stderr=payload["prompt"]),
        stdout=out,
        stderr=err,
    )
    assert code == 0
    out.seek(0)
    assert json.loads(out.read())["systemMessage"].startswith("bad ")


def test_non_utf8_bytes_are_replaced_not_fatal() -> None:
    assert parse_payload(b'{"prompt": "caf\xe9"}')["prompt"] == "caf\ufffd"


@pytest.mark.parametrize(
    ("raw", "message"),
    [(b"", "empty"), (b"{nope", "not valid JSON"), (b"[1, 2]", "expected an object")],
)
def test_bad_payloads_say_what_was_wrong(raw: bytes, message: str) -> None:
    with pytest.raises(PayloadError, match=message):
        parse_payload(raw)


def test_fail_open_allows_and_says_so_visibly() -> None:
    response = claude.HOST.render("stop", fail_open("stop", RuntimeError("boom")))
    assert response.exit_code == 0
    assert response.output is not None
    assert "did not block" in response.output["systemMessage"]
    assert "decision" not in response.output


def test_the_deadline_interrupts_the_main_thread() -> None:
    with pytest.raises(HookDeadline), deadline(0.05):
        time.sleep(2)


def test_the_deadline_is_off_in_another_thread_where_no_signal_can_land() -> None:
    outcome: list[str] = []

    def work() -> None:
        with deadline(0.01):
            time.sleep(0.05)
        outcome.append("finished")

    thread = threading.Thread(target=work)
    thread.start()
    thread.join(5)
    assert outcome == ["finished"]


def test_a_guard_fails_closed_when_its_deadline_is_swallowed_where_python_ignores_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from reflection_core.guards.hookenv import within_deadline

    def check_that_swallows_the_deadline() -> int:
        try:
            time.sleep(1)  # the deadline lands here, as it may in a finalizer
        except BaseException:
            pass  # what Python does with an exception raised in a `__del__`
        return 0

    monkeypatch.setenv("REFLECTION_HOOK_DEADLINE", "0.02")
    assert within_deadline(check_that_swallows_the_deadline, "push") == 1
    assert "refusing the push (fails closed)" in capsys.readouterr().err
    monkeypatch.setenv("REFLECTION_HOOK_DEADLINE", "5")
    assert within_deadline(lambda: 0, "push") == 0
