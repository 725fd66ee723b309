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
