"""The reader settings of one stop, resolved once from the configuration.

`reader.*` says who reads and within which budgets; the LLM reader's endpoint is the
`judge:` section (provider, base_url, api_key_env, models, votes, committee, ...), so
a configuration written for the judge keeps working and now feeds the decision.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from reflection_core.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:  # imported when a paid reader runs, not on the Stop hook's built-in path
    from typing import Any

    from reflection_core.verify.providers import Endpoint

PAID_KINDS = ("llm", "claude", "command")
CLAUDE_DEFAULT_MODEL = "haiku"


@record(frozen=True)
class ReaderSettings:
    kind: str  # builtin | llm | claude | command (auto resolved)
    when: str  # uncertain | always
    model: str | None
    claude_path: str
    command: tuple[str, ...]
    timeout_s: float
    budget_per_session: int
    budget_per_day: int
    trace_tokens: int  # cap of the turn's trace sent besides the digest; 0 = none
    judge: Mapping[str, Any]
    root: str | None  # the repository, as a string: pathlib is not on the prompt hook's path

    @property
    def paid(self) -> bool:
        return self.kind in PAID_KINDS

    def llm_models(self) -> list[str]:
        """The LLM reader's voters' models, first the chosen one, without repeats."""
        first = self.model or self.judge.get("model")
        models = [m for m in [first, *self.judge.get("models", [])] if m]
        return list(dict.fromkeys(models))

    def endpoint(self) -> Endpoint:
        """The `judge:` endpoint, its request timeout within the reader's wall clock."""
        timeout = min(float(self.judge.get("timeout", 30.0)), self.timeout_s)
        return judge_endpoint(self.judge, timeout)


def judge_endpoint(judge: Mapping[str, Any], timeout: float) -> Endpoint:
    """The model endpoint the `judge:` section describes (the key read from its variable)."""
    from reflection_core.verify.providers import Endpoint

    key_env = judge.get("api_key_env")
    return Endpoint(
        provider=str(judge.get("provider")),
        base_url=judge.get("base_url") or "",
        api_key=os.environ.get(key_env) if key_env else None,
        timeout=timeout,
        retries=int(judge.get("retries", 2)),
    )


def resolve(cfg: Any) -> ReaderSettings:
    """Settings from a `Config` or its plain data dict (defaults filled by validation)."""
    data: Mapping[str, Any] = getattr(cfg, "data", cfg)
    reader: Mapping[str, Any] = data.get("reader") or {}
    judge: Mapping[str, Any] = data.get("judge") or {}
    kind = str(reader.get("kind", "auto"))
    if kind == "auto":
        kind = "llm" if judge.get("provider", "none") != "none" else "builtin"
    return ReaderSettings(
        kind=kind,
        when=str(reader.get("when", "uncertain")),
        model=reader.get("model"),
        claude_path=str(reader.get("claude_path", "claude")),
        command=tuple(reader.get("command") or ()),
        timeout_s=float(reader.get("timeout_seconds", 20.0)),
        budget_per_session=int(reader.get("budget_tokens_per_session", 20000)),
        budget_per_day=int(reader.get("budget_tokens_per_day", 200000)),
        trace_tokens=int(reader.get("trace_tokens", 4000)),
        judge=judge,
        root=getattr(cfg, "root_dir", None),
    )
