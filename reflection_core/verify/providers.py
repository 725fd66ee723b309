"""Chat-model providers over HTTP: OpenAI-compatible and Anthropic, through `requests`.

OpenAI-compatible covers OpenAI, Azure-style deployment URLs, Ollama, vLLM, the
llama.cpp server and DeepSeek (`POST {base_url}/chat/completions`); Anthropic is
`POST {base_url}/v1/messages`. 429 and 5xx answers and dropped connections are
retried with exponential backoff (honouring a short Retry-After); a timeout is
not retried, because a judge that is slow once will be slow again and the Stop
hook is waiting. Every call reports tokens and latency for the full record.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

DEFAULT_BASE_URLS = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
}
ANTHROPIC_VERSION = "2023-06-01"
BACKOFF_BASE_S = 0.5
MAX_RETRY_AFTER_S = 8.0


class ProviderError(Exception):
    """A call that produced no usable reply; `kind` is timeout, http, connection or format."""

    def __init__(self, kind: str, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.status = status


@dataclass
class ChatReply:
    text: str
    model: str
    input_tokens: int
    output_tokens: int
    latency_s: float
    attempts: int
    estimated_usage: bool = False  # the server reported no usage; tokens are estimates


@dataclass
class Endpoint:
    """Where and how to call one configured provider."""

    provider: str  # openai | anthropic
    base_url: str
    api_key: str | None
    timeout: float
    retries: int


def estimate_tokens(text: str) -> int:
    """A rough token count (4 characters a token) for budgets and servers without usage."""
    return max(1, len(text) // 4)


def chat(
    endpoint: Endpoint,
    *,
    model: str,
    system: str,
    messages: list[dict[str, str]],
    max_tokens: int,
    json_mode: bool = True,
    deadline: float | None = None,
) -> ChatReply:
    """One chat completion with retries; raises ProviderError when no reply comes.

    With a `deadline` (a `time.monotonic()` value) every attempt's timeout is cut to the
    time left and no retry starts after it: the caller's wall clock holds.
    """
    import requests

    url, headers, body = _request(endpoint, model, system, messages, max_tokens, json_mode)
    started = time.monotonic()
    attempt = 0
    while True:
        attempt += 1
        timeout = endpoint.timeout
        if deadline is not None:
            timeout = min(timeout, deadline - time.monotonic())
            if timeout <= 0:
                raise ProviderError("timeout", f"time budget spent after {attempt - 1} attempts")
        try:
            response = requests.post(url, json=body, headers=headers, timeout=timeout)
        except requests.Timeout:
            raise ProviderError("timeout", f"no answer within {timeout:g}s") from None
        except requests.ConnectionError as exc:
            if attempt <= endpoint.retries:
                _sleep_backoff(attempt, None, deadline)
                continue
            raise ProviderError("connection", f"cannot reach {url}: {exc}") from None
        status = response.status_code
        if status == 400 and json_mode and "response_format" in body:
            body = {k: v for k, v in body.items() if k != "response_format"}
            continue  # a server without JSON mode: the prompt still asks for JSON
        if status == 429 or status >= 500:
            if attempt <= endpoint.retries:
                _sleep_backoff(attempt, response.headers.get("Retry-After"), deadline)
                continue
            raise ProviderError("http", f"HTTP {status} after {attempt} attempts", status)
        if status >= 400:
            raise ProviderError("http", f"HTTP {status}: {response.text[:200]}", status)
        try:
            data = response.json()
        except ValueError:
            raise ProviderError("format", "the answer is not JSON", status) from None
        reply = _parse(endpoint.provider, data, model)
        reply.latency_s = round(time.monotonic() - started, 3)
        reply.attempts = attempt
        if reply.estimated_usage:
            prompt_text = system + "".join(m["content"] for m in messages)
            reply.input_tokens = estimate_tokens(prompt_text)
            reply.output_tokens = estimate_tokens(reply.text)
        return reply


def _sleep_backoff(attempt: int, retry_after: str | None, deadline: float | None) -> None:
    delay = BACKOFF_BASE_S * (2 ** (attempt - 1))
    if retry_after:
        try:
            delay = min(float(retry_after), MAX_RETRY_AFTER_S)
        except ValueError:
            pass
    if deadline is not None:
        delay = min(delay, deadline - time.monotonic())
    time.sleep(max(0.0, delay))


def _request(
    endpoint: Endpoint,
    model: str,
    system: str,
    messages: list[dict[str, str]],
    max_tokens: int,
    json_mode: bool,
) -> tuple[str, dict[str, str], dict[str, Any]]:
    base = endpoint.base_url or DEFAULT_BASE_URLS[endpoint.provider]
    headers = {"content-type": "application/json"}
    if endpoint.provider == "anthropic":
        root = base.rstrip("/")
        root = root[: -len("/v1")] if root.endswith("/v1") else root
        headers["anthropic-version"] = ANTHROPIC_VERSION
        if endpoint.api_key:
            headers["x-api-key"] = endpoint.api_key
        body: dict[str, Any] = {
            "model": model,
            "max_tokens": max_tokens,
            "system": system,
            "messages": messages,
        }
        return root + "/v1/messages", headers, body
    url = _join_path(base, "chat/completions")
    if endpoint.api_key:
        if _is_azure(base):
            headers["api-key"] = endpoint.api_key
        else:
            headers["authorization"] = f"Bearer {endpoint.api_key}"
    body = {
        "model": model,
        "max_tokens": max_tokens,
        "temperature": 0,
        "messages": [{"role": "system", "content": system}, *messages],
    }
    if json_mode:
        body["response_format"] = {"type": "json_object"}
    return url, headers, body


def _join_path(base: str, tail: str) -> str:
    """`base` + `/tail`, keeping a query string (Azure's `?api-version=`) at the end."""
    parts = urlsplit(base)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/" + tail))


def _is_azure(base: str) -> bool:
    parts = urlsplit(base)
    return "api-version=" in parts.query or (
        parts.hostname is not None and (parts.hostname.endswith(".azure.com"))
    )


def _parse(provider: str, data: Any, model: str) -> ChatReply:
    try:
        if provider == "anthropic":
            text = "".join(
                block.get("text", "") for block in data["content"] if block.get("type") == "text"
            )
            usage = data.get("usage") or {}
            inp, out = usage.get("input_tokens"), usage.get("output_tokens")
        else:
            text = data["choices"][0]["message"]["content"] or ""
            usage = data.get("usage") or {}
            inp, out = usage.get("prompt_tokens"), usage.get("completion_tokens")
    except (KeyError, IndexError, TypeError, AttributeError):
        raise ProviderError("format", "the answer has no message content") from None
    estimated = not isinstance(inp, int) or not isinstance(out, int)
    return ChatReply(
        text=text,
        model=str(data.get("model") or model),
        input_tokens=inp if isinstance(inp, int) else 0,
        output_tokens=out if isinstance(out, int) else 0,
        latency_s=0.0,
        attempts=1,
        estimated_usage=estimated,
    )
