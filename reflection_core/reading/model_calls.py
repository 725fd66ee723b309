"""Asking a chat model for a JSON answer: a token budget, one repair, a deadline.

Shared by the LLM reader (facts) and the judge (verdicts, committee). A call that
might overrun the per-read token budget is not made; a malformed answer gets one
repair request; no call starts after the deadline, and each call's timeout is cut
to the time left. Every call, made or skipped, goes into the `CallLog`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from reflection_core.reading.call_log import CallLog
from reflection_core.verify.providers import Endpoint, ProviderError, chat, estimate_tokens

MIN_CALL_S = 0.5  # a call with less time left than this is not started


@dataclass
class TokenBudget:
    """Tokens for one read across every call; a call that might overrun is not made."""

    limit: int
    used: int = 0
    refused: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reserve(self, tokens: int) -> bool:
        with self.lock:
            if self.used + tokens > self.limit:
                self.refused += 1
                return False
            self.used += tokens
            return True

    def settle(self, reserved: int, actual: int) -> None:
        with self.lock:
            self.used += actual - reserved


@dataclass
class Asker:
    """One read's model context: endpoint, answer size, budget, call log and deadline."""

    endpoint: Endpoint
    max_tokens: int
    budget: TokenBudget
    log: CallLog
    repair_prompt: str  # formatted with {error}
    deadline: float | None = None  # time.monotonic() after which no call starts

    def ask(
        self, model: str, role: str, system: str, user: str, parse: Callable[[str], Any]
    ) -> Any:
        """One parsed answer: call, parse, one repair on a malformed reply; None on failure.

        `parse` raises ValueError (with the reason) on a reply of the wrong shape.
        """
        messages = [{"role": "user", "content": user}]
        for attempt in ("first", "repair"):
            if self.deadline is not None and self.deadline - time.monotonic() < MIN_CALL_S:
                self.log.add(model, role, "timeout", "reader time budget spent", None, 0.0)
                return None
            reserved = estimate_tokens(system + "".join(m["content"] for m in messages))
            reserved += self.max_tokens
            if not self.budget.reserve(reserved):
                self.log.add(model, role, "skipped", "token budget spent", None, 0.0)
                return None
            started = time.monotonic()
            try:
                reply = chat(
                    self.endpoint,
                    model=model,
                    system=system,
                    messages=messages,
                    max_tokens=self.max_tokens,
                    deadline=self.deadline,
                )
            except ProviderError as exc:
                self.budget.settle(reserved, 0)
                self.log.add(model, role, exc.kind, str(exc), None, time.monotonic() - started)
                return None
            self.budget.settle(reserved, reply.input_tokens + reply.output_tokens)
            try:
                parsed = parse(reply.text)
            except ValueError as exc:
                self.log.add(model, role, "malformed", f"{attempt}: {exc}", reply, reply.latency_s)
                messages += [
                    {"role": "assistant", "content": reply.text[:4000]},
                    {"role": "user", "content": self.repair_prompt.format(error=exc)},
                ]
                continue
            self.log.add(model, role, "ok", attempt, reply, reply.latency_s)
            return parsed
        return None
