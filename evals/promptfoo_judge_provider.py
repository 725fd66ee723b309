"""promptfoo provider: the optional LLM judge's second opinion on a judge-suite case.

The case runs through the same deterministic analysis as `reflection eval`, then
`reflection_core.verify.judge.second_opinion` asks the configured model (prompt:
evals/prompts/judge.md). Only the fields a judge decides are returned, and
`_judged_fields` tells the shared assert to compare just those.

Provider config (promptfooconfig.llm.yaml), each overridable by environment:
provider (REFLECTION_JUDGE_PROVIDER), base_url (REFLECTION_JUDGE_BASE_URL),
model (REFLECTION_JUDGE_MODEL), api_key_env (REFLECTION_JUDGE_API_KEY_ENV).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

EVALS_DIR = Path(__file__).resolve().parent
JUDGED_FIELDS = ["complete", "requires_human_action"]
_SETTINGS = ("provider", "base_url", "model", "api_key_env")


def judge_config(options: dict[str, Any]) -> dict[str, Any]:
    """The `judge:` config section from the provider options and the environment."""
    given = dict((options or {}).get("config") or {})
    section: dict[str, Any] = {"votes": 1, "timeout": float(given.pop("timeout", 60.0))}
    for key in _SETTINGS:
        value = os.environ.get(f"REFLECTION_JUDGE_{key.upper()}") or given.get(key)
        if value:
            section[key] = value
    return section


def call_api(prompt: str, options: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
    from reflection_core import config as config_mod
    from reflection_core.evals import targets
    from reflection_core.evals.suite import load_suite
    from reflection_core.verify.judge import second_opinion

    variables = context.get("vars") or {}
    suite = load_suite(EVALS_DIR / f"{variables['suite']}.yaml")
    case = next((c for c in suite.cases if c.id == variables["case_id"]), None)
    if case is None or suite.target != "session":
        return {"error": f"{variables.get('case_id')!r} is not a session case of {suite.name!r}"}
    cfg = config_mod.Config(
        data=config_mod.validate({"judge": judge_config(options)}, "promptfoo judge provider")
    )
    from reflection_core.session.analyze import analyze_transcript

    with tempfile.TemporaryDirectory(prefix="reflection-promptfoo-judge-") as scratch:
        path = targets.transcript_for(case, Path(scratch), EVALS_DIR)
        decision = analyze_transcript(
            path,
            last_assistant_message=case.inputs.get("final"),
            cfg=targets.case_config(case),
            use_ledger=False,
            permission_mode=case.inputs.get("permission_mode"),
        ).to_dict()
    evidence = {
        "task_prompt": case.inputs.get("task", ""),
        "last_assistant_message": case.inputs.get("final", ""),
    }
    opinion = second_opinion(decision, evidence, cfg)
    if opinion is None:
        return {"error": "the judge gave no opinion (off, unreachable, or unparseable answers)"}
    got = {
        "complete": opinion.get("status") == "complete",
        "requires_human_action": bool(opinion.get("needs_user_action")),
        "status": opinion.get("status"),
        "rules_status": decision.get("status"),
        "_judged_fields": JUDGED_FIELDS,
    }
    return {"output": json.dumps(got, sort_keys=True)}
