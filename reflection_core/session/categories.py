"""Why the agent stopped: one deterministic category from its last message and the gates.

complete            required gates satisfied, no work announced as remaining
working             gates still open (the default for an unfinished task)
waiting_for_user    a real question or choice, or something only a human can do
genuinely_stuck     the agent says it cannot proceed and explains why
summary_drift_stop  stopped with "Next steps"/TODO/"Phase 1 of 3" still to do
tool_available_punt asks the user to do or approve what its own tools can do
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from reflection_core.session.gates import GateResult
from reflection_core.session.human_action import HumanActionAssessment
from reflection_core.session.model import Session

CATEGORIES = (
    "complete",
    "working",
    "waiting_for_user",
    "genuinely_stuck",
    "summary_drift_stop",
    "tool_available_punt",
)

_DRIFT = re.compile(
    r"^\s*(#+\s*|\*\*)?(next steps?|remaining (work|tasks|items|steps)|todo|to do|still to do|"
    r"follow[- ]ups?)\b\s*(\*\*)?\s*:?|^\s*(#+\s*|\*\*)?(remaining|left to do)\s*(\*\*)?\s*:|"
    r"\b(in|for|during) (the )?(next|second|later|(phase|step|part|stage) [2-9])\b[^.\n]{0,40}"
    r"\b(i|we)('ll| will)\b|\bnext,? (i|we)('ll| will)\b|"
    r"\b(phase|step|part|stage) (\d+) (of|/) (\d+)\b|"
    r"\b(next steps?|remaining (work|tasks|items|steps)|still to do)\s*(\*\*)?\s*:|"
    r"\b(i('ll| will)|we('ll| will)) (now |next |then )?(continue|implement|add|finish|"
    r"handle|tackle|address|work on)\b|\bstill (need|needs|have|has) to\b|"
    r"\b(left|remaining) to (do|implement)\b|\bnot yet (implemented|done|finished)\b|"
    r"\b(is|are) (up )?next\b|\bstill (use|uses|lack|lacks|missing|unchanged|to be)\b|"
    r"\b(has|have) not (been )?(done|written|implemented|posted|pushed|added) yet\b|"
    r"\bin a (follow[- ]up|later|future|separate) (pr|change|step|session|commit)\b|"
    r"^\s*(?:[-*]\s*)?(\[ \]\s*)?TODO\b",
    re.I | re.M,
)
_OPTIONAL = re.compile(
    r"\b(optional(ly)?|if you (want|like|wish)|could also|future improvements?|nice to have)\b",
    re.I,
)
_NOTHING_LEFT = re.compile(
    r"\s*(?:[-:\u2014]+\s*)?(none|nothing|n/a|no (further|more|remaining) (steps|work|action))\b"
    r"|\s*(list )?is empty\b",
    re.I,
)
_STUCK = re.compile(
    r"\b(i('m| am) (unable|not able) to|i (can(no|')t|could(n't| not)) (proceed|continue|"
    r"access|reach|install|find a way|complete|resolve|fix)|i('m| am) stuck|"
    r"(blocked|blocker) (by|on)|permission denied|no (network|internet) access|"
    r"out of ideas|i('ve| have) (tried|exhausted) .{0,60}(but|without)|"
    r"cannot be (done|completed) (from|in) (here|this environment)|"
    r"rate[- ]limit(ed)?\b.{0,40}\b(exceeded|hit|reached|resets?)|(hit|exceeded|reached) "
    r"(the |its |our |github's |an? )?(hourly |daily )?(api )?(rate[- ]limit|quota)|"
    r"no space left on device|disk is full|out of (disk|memory)|quota exceeded|"
    r"(service|server|api|registry|host) (is |was )?(down|unreachable|unavailable)|"
    r"(a|an) (known |upstream )?bug in [\w.-]+ v?\d+(\.\d+)+|\bupstream (bug|issue|fix)\b)",
    re.I,
)
_TEST_CLAIM = re.compile(
    r"\b(all )?(the )?(unit |integration )?tests? (now )?(pass(es|ing)?|are (passing|green)|"
    r"succeed\w*|(are |is )?green)\b|\b(verified|confirmed|validated)\b|"
    r"\bworks (correctly|as expected|now)\b|\bbuild (passes|succeeds|is green)\b|"
    r"\bci is green\b|\beverything (works|passes)\b|\bfully (tested|working)\b",
    re.I,
)
_NEGATED = re.compile(
    r"n't\b|\b(not|never|unable|without|cannot|no longer|once|if|should|would|will|to be|until)\b",
    re.I,
)


# After a passing partial run, only a claim about the whole suite overstates it:
# "the serializer tests pass" is true, "all tests pass" is not known.
_WHOLE_SUITE = re.compile(
    r"\b(all|every|entire|whole|full|everything)\b|\btest suite\b|\bno regressions?\b", re.I
)


_DONE_CLAIM = {
    "push": re.compile(r"\bpushed\b", re.I),
    "commit": re.compile(r"\bcommitted\b", re.I),
}


# "Do you want me to commit this?" names the action it asks permission for.
_PERMISSION_VERB = re.compile(
    r"\b(?:(?:want|like) me to|(?:should|shall|can|may) i(?: go ahead and)?)\s+(\w+)", re.I
)
_EXTRA = re.compile(r"\b(also|more|additional|another|other|further|extra|too)\b", re.I)


def asks_for_requested_work(punts: list[str], task_prompt: str) -> list[str]:
    """Punts asking permission for an action the task itself asked for ("commit it" +
    "Do you want me to commit this?"): the work is not done, however green the gates.
    Offers of extras ("also", "more tests") are not."""
    asked = {word.lower() for word in re.findall(r"[A-Za-z]+", task_prompt or "")}
    found = []
    for punt in punts:
        match = _PERMISSION_VERB.search(punt)
        if match and match.group(1).lower() in asked and not _EXTRA.search(punt):
            found.append(punt)
    return found


@dataclass
class StopAssessment:
    category: str
    unsupported_claims: list[str] = field(default_factory=list)
    drift: list[str] = field(default_factory=list)
    punts: list[str] = field(default_factory=list)
    questions: list[str] = field(default_factory=list)
    stuck: str | None = None


def unsupported_claims(text: str, tests: GateResult | None) -> list[str]:
    """Claims of passing/verified work that no passing test run after the change backs."""
    if tests is None or tests.satisfied:
        return []
    partial_pass = tests.pattern == "tests:partial"
    claims = []
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", text or ""):
        if partial_pass and not _WHOLE_SUITE.search(sentence):
            continue
        for match in _TEST_CLAIM.finditer(sentence):
            before = sentence[max(0, match.start() - 40) : match.start()]
            if _NEGATED.search(before) or _NEGATED.search(match.group(0)):
                continue
            claims.append(sentence.strip()[:200])
            break
    return claims


def contradicted_claims(text: str, session: Session) -> list[str]:
    """ "Pushed"/"committed" said of work whose last push/commit failed, with no
    successful one after it: the tool output contradicts the message."""
    found = []
    for kind, claim in _DONE_CLAIM.items():
        attempts = [
            call.ok for call in session.tool_calls if call.command and kind in call.command.kinds
        ]
        if not attempts or attempts[-1] is not False:
            continue
        for sentence in re.split(r"(?<=[.!?])\s+|\n+", text or ""):
            match = claim.search(sentence)
            if match and not _NEGATED.search(sentence[max(0, match.start() - 40) : match.start()]):
                found.append(f'"{sentence.strip()[:160]}" but the last {kind} failed')
                break
    return found


def drift_markers(text: str) -> list[str]:
    """Lines announcing work still to do, unless optional or empty ("Next steps: none")."""
    found = []
    lines = (text or "").splitlines()
    for number, line in enumerate(lines):
        match = _DRIFT.search(line)
        if not match:
            continue
        phase = re.search(r"\b(?:phase|step|part|stage) (\d+) (?:of|/) (\d+)\b", line, re.I)
        if phase and int(phase.group(1)) >= int(phase.group(2)):
            continue  # "Step 3 of 3" is the last step, not drift
        if _OPTIONAL.search(line) or _NOTHING_LEFT.match(line[match.end() :]):
            continue
        if not line[match.end() :].strip():
            following = next((n for n in lines[number + 1 :] if n.strip()), "")
            if _NOTHING_LEFT.match(following.lstrip(" -*")):
                continue
        found.append(line.strip()[:200])
    return found


def stuck_reason(text: str) -> str | None:
    match = _STUCK.search(text or "")
    if not match:
        return None
    start = (text or "").rfind("\n", 0, match.start()) + 1
    end = (text or "").find("\n", match.end())
    return (text or "")[start : end if end != -1 else None].strip()[:200]


def categorize(
    last_message: str,
    gates: dict[str, GateResult],
    requests: HumanActionAssessment,
    *,
    other_gaps: bool = False,
    claims_basis: GateResult | None = None,
    task_prompt: str = "",
) -> StopAssessment:
    """The stop category; `other_gaps` says something besides the gates is still open.

    `claims_basis` is the tests gate as the transcript alone shows it: a claim is
    false when nothing the agent ran backs it, whatever the ledger recorded.
    """
    failing = [g for g in gates.values() if g.failing]
    claims = unsupported_claims(last_message, claims_basis or gates.get("tests"))
    drift = drift_markers(last_message)
    stuck = stuck_reason(last_message)
    requested_punts = asks_for_requested_work(requests.agent_actionable, task_prompt)
    open_work = bool(failing or other_gaps or claims or requested_punts)
    base = StopAssessment(
        "working",
        unsupported_claims=claims,
        drift=drift,
        punts=list(requests.agent_actionable),
        questions=list(requests.questions),
        stuck=stuck,
    )
    # Checks not yet run (MEDIUM) wait with the agent when a human-only item blocks it;
    # a failed check (HIGH) or a false claim is the agent's own work to fix first.
    waiting_with_checks_open = (
        requests.blocking and not claims and all(g.severity in ("LOW", "MEDIUM") for g in failing)
    )
    if requests.human_only and not other_gaps and (not failing or waiting_with_checks_open):
        base.category = "waiting_for_user"
    elif requests.agent_actionable and (open_work or drift) and not requests.questions:
        base.category = "tool_available_punt"
    elif stuck:
        base.category = "genuinely_stuck"
    elif requests.questions and not claims:
        base.category = "waiting_for_user"
    elif requests.human_only:
        base.category = "working"  # human-only items, but agent work is still open too
    elif drift:
        base.category = "summary_drift_stop"
    elif not open_work:
        base.category = "complete"
    return base
