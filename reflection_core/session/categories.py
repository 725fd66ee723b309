"""Why the agent stopped, and what each reason means: one table, one precedence order.

`STOP_CATEGORIES` below is the only place a category's status, whether it may push the
agent on, and the one line the user or agent reads are defined. `GAP_WEIGHTS` says which
open items are hard evidence (may block alone) and which are soft (a one-line note).
`categorize` picks the category from the last message and the gates.
"""

from __future__ import annotations

import re

from reflection_core.lazyre import lazy
from reflection_core.records import field, record
from reflection_core.session.gates import GateResult
from reflection_core.session.human_action import HumanActionAssessment, prose_lines
from reflection_core.session.model import Session

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@record(frozen=True)
class StopCategory:
    """One reason an agent stops: the verdict status it maps to, whether a stop in it may
    be pushed on (with hard evidence), and the one line that explains it."""

    name: str
    status: str
    may_block: bool
    line: str
    recorded: str = ""  # the verdict schema's stop_category, when it names this one otherwise

    @property
    def record_as(self) -> str:
        return self.recorded or self.name


# Precedence: when several apply, the first listed wins (decide.py walks this order).
STOP_CATEGORIES: tuple[StopCategory, ...] = (
    StopCategory(
        "host_failure",
        "blocked",
        False,
        "the host failed (API error, usage limit "
        "or compaction); nothing to push: retry when it is back",
        "genuinely_stuck",
    ),
    StopCategory(
        "background_pending",
        "incomplete",
        False,
        "work started in the background is still running; the agent waits for it",
        "working",
    ),
    StopCategory(
        "plan_mode",
        "waiting_for_user",
        False,
        "plan mode: the plan waits for you",
        "waiting_for_user",
    ),
    StopCategory(
        "confirm_irreversible",
        "waiting_for_user",
        False,
        "asks you to confirm an action that cannot be undone",
        "waiting_for_user",
    ),
    StopCategory(
        "waiting_for_user",
        "waiting_for_user",
        False,
        "a real question or something only you can do",
    ),
    StopCategory("genuinely_stuck", "blocked", False, "says it cannot proceed and why"),
    StopCategory(
        "report_delivered",
        "complete",
        False,
        "a report-only or read-only task, answered",
        "complete",
    ),
    StopCategory(
        "tool_available_punt",
        "incomplete",
        True,
        "asks you to do or approve what its own tools can do",
    ),
    StopCategory(
        "summary_drift_stop", "incomplete", True, "stopped with work it announced as remaining"
    ),
    StopCategory("working", "incomplete", True, "checks or work still open"),
    StopCategory("complete", "complete", False, "done, with the evidence it needs"),
)
CATEGORY = {c.name: c for c in STOP_CATEGORIES}
PRECEDENCE = tuple(c.name for c in STOP_CATEGORIES)
# The categories a verdict records (the schema's enum): the finer reasons map onto these.
CATEGORIES = tuple(dict.fromkeys(c.record_as for c in STOP_CATEGORIES))

# How sure an open item is, by its pattern (first matching prefix wins). "hard": evidence
# that may block the stop alone. "once": blocks the first time its pattern is reported in
# a task, a note after that. "evidence": a reading of the words that blocks when hard
# evidence agrees, or when a configured reader is sure of it. "reader": blocks only when a
# configured reader is sure of it (the built-in reading with evidence has not met the gate
# below). "record": kept in the verdict file, never a block nor a line the user reads.
# Anything unlisted is "soft": a one-line note, never a block.
GAP_WEIGHTS: tuple[tuple[str, str], ...] = (
    # Each entry's weight is held to the figures `python -m reflection_core.evals.real_stops`
    # prints per rule: a rule pushes alone only when, on the real dev stops, its blocks are
    # right on at least 3 different users and at least 80% of the time. Below that it is a
    # note (its item still counts as evidence for the readings, see CHECK_EVIDENCE).
    ("tests:failing", "soft"),  # a failed test run after the latest change (4/2: 67%)
    ("tests:not_rerun", "once"),  # tests ran before the latest change, not after (4/0, 3)
    # No test ran in the task after a code change, nothing else (build, typecheck, lint, a
    # run of the program) checked it, and the final message says it is done: the evidence
    # and the words agree (8/1 pushing, 5 users). Without the claim, or after another check,
    # a note (5/8 as open items, 3 users; 10/6 when the whole of tests:not_run pushed).
    ("tests:not_run_claimed", "once"),
    ("tests:not_run", "soft"),
    # The last run's line masks its exit status and its output shows no summary (`| grep
    # Ran`): not a failure, not a pass; a note naming the unfiltered run.
    ("tests:outcome_hidden", "soft"),
    ("check:not_run", "soft"),  # nothing checked the change; the project has a check (2/7)
    ("check:failing", "soft"),  # the check of a change the tests do not reach failed
    ("tests:ledger", "soft"),  # the ledger has no passing run for the tree (no blocks yet)
    ("build:failing", "soft"),  # (no blocks yet)
    ("build:not_run", "hard"),  # compiled source changed, nothing compiled it (10/1, 5 users)
    # A script changed, nothing ran or parsed it, and the message says it is done: the words
    # and the evidence agree (14/3, 7 of 8 users; 11/1 on half A, 3/2 on half B).
    ("script:not_run", "once"),
    # The same for a container, infrastructure or service definition (`docker build .`,
    # `terraform validate`): the dev stops hold none yet, so it is a note.
    ("infra:not_checked", "soft"),
    ("error_fix:not_checked", "hard"),  # the task pastes an error; nothing checked (6/1, 5)
    ("ship:unchecked", "once"),  # a push of a change nothing checked, claimed done (4/0, 3)
    ("typecheck:failing", "soft"),  # (no blocks yet)
    ("lint:failing", "soft"),  # (no blocks yet)
    ("gate_run:", "hard"),  # a gate the user configured (stop.run_gates) failed: their rule
    ("claims:contradicted", "soft"),  # "pushed" when the push failed (no blocks yet)
    # A merge, rebase or cherry-pick left stopped on conflicts: no task on the dev stops
    # ends that way yet, so it is a note until one does.
    ("git:unfinished", "soft"),
    ("claims:no_test_run", "soft"),  # "tests pass" when no test ran in the task (1/2)
    ("requested:", "soft"),  # a check the task names has not run or failed (2/0, 2 users)
    # Security findings that bypass or endanger what runs: notes until the dev stops show
    # them right on 3 users (no_verify 1/0, 1 user).
    ("security:no_verify", "soft"),
    # Open work read from the words: it pushes only when hard evidence agrees (CHECK_EVIDENCE
    # items, a failed last check or command, the agent's own open todo items).
    # Work announced as remaining: with hard evidence agreeing, its blocks were right 2 of 2
    # times but on 1 user (3/3 as an open item, 2 users), so only a configured reader pushes it.
    ("reading:remaining_work", "reader"),
    # The turn ended on its own announced next step: the announcement is the last record,
    # so the step never ran. The one reading that pushes without a check item agreeing,
    # once a task (8/0, 7 users).
    ("reading:announced_step", "once"),
    ("reading:punt_to_user", "hard"),  # read only while the change is unchecked (10/1, 7)
    ("reading:reported_failure", "soft"),  # (no blocks on the dev stops yet)
    ("reading:claim_contradicted", "evidence"),  # (3/0, 3 users)
    # Read from the turn's trace by a configured reader only (the replay reads built-in):
    # they push when the reader is sure and no passing check contradicts a reading about
    # checking (decide.reader_insists), or when hard evidence agrees.
    ("reading:unfinished_work", "evidence"),
    ("reading:unexercised_change", "evidence"),
    # The agent's own open todo items agree with readings (4/1 as open items, 3 users); pushing
    # alone added no right block and one wrong one on the dev stops, so alone it is a note.
    ("todos:open", "soft"),
    ("claims:unsupported", "evidence"),  # (7/1, 4 users)
    ("drift:remaining", "soft"),  # (3/0, 2 users)
    ("loop:action", "soft"),  # (no blocks yet)
    # "Many tool calls, few writes" as a line the user reads was right on 5 of 17 real dev
    # stops that stood (3 users) and wrong on 12 (9 users): a long investigation before a
    # small fix, or a question answered by reading, looks the same. Recorded, not said.
    ("loop:planning", "record"),
    # On the real dev stops "no file changed" came with 10 fine stops for 1 that should
    # have been pushed on: an answer or a question looks the same. Recorded, not said.
    ("work:no_change", "record"),
)

# Open items that are hard evidence about the checks of the change, whether or not they
# push alone: a reading of the words may push when one of them agrees.
CHECK_EVIDENCE: tuple[str, ...] = (
    "tests:failing",
    "tests:not_run",
    "tests:not_rerun",
    "tests:ledger",
    "check:not_run",
    "check:failing",
    "build:failing",
    "build:not_run",
    "typecheck:failing",
    "error_fix:not_checked",
    "gate_run:",
)


# Under `stop.require: tests` the user asks for the project's tests after every code change:
# these items push whatever the dev stops say about them, since the user chose the rule.
STRICT_WEIGHTS: tuple[tuple[str, str], ...] = (
    ("tests:failing", "hard"),
    ("tests:not_run", "hard"),
    ("tests:not_rerun", "hard"),
    ("tests:ledger", "hard"),
    ("tests:partial", "hard"),
    ("tests:outcome_hidden", "once"),
    ("check:not_run", "once"),
    ("check:failing", "hard"),
    ("build:failing", "hard"),
    ("typecheck:failing", "hard"),
)


def gap_weight(pattern: str, require: str = "check") -> str:
    """hard | once | evidence | soft | record for an open item's pattern (GAP_WEIGHTS, and
    STRICT_WEIGHTS first under `stop.require: tests`)."""
    tables = (STRICT_WEIGHTS, GAP_WEIGHTS) if require == "tests" else (GAP_WEIGHTS,)
    for table in tables:
        for prefix, weight in table:
            if pattern.startswith(prefix):
                return weight
    return "soft"


# Patterns that carry a command, a gate or a path after the prefix: the rule is the prefix.
_RULE_PREFIXES = ("requested:", "gate_run:", "coverage:", "pending:")


def rule_id(pattern: str) -> str:
    """The rule an open item's pattern comes from (`requested:pytest` -> `requested`)."""
    prefix = next((p for p in _RULE_PREFIXES if pattern.startswith(p)), None)
    return prefix[:-1] if prefix else pattern


def rule_pushes(rule: str) -> str:
    """Whether a rule's open item may push the agent on: `alone`, `with evidence` or `no`."""
    weight = gap_weight(rule + ":" if rule + ":" in _RULE_PREFIXES else rule)
    pushes = {"hard": "alone", "once": "alone", "evidence": "with evidence"}
    return pushes.get(weight, "with a configured reader" if weight == "reader" else "no")


# Lines announcing work still to do, one phrase family a line (a test per entry). A line
# matches when any entry does; the leftmost match decides where the announcement ends.
DRIFT_PHRASES: tuple[str, ...] = (
    r"^\s*(#+\s*|\*\*)?(next steps?|remaining (work|tasks|items|steps)|todo|to do|still to do|"
    r"follow[- ]ups?)\b\s*(\*\*)?\s*:?",
    r"^\s*(#+\s*|\*\*)?(remaining|left to do)\s*(\*\*)?\s*:",
    r"\b(in|for|during) (the )?(next|second|later|(phase|step|part|stage) [2-9])\b[^.\n]{0,40}"
    r"\b(i|we)('ll| will)\b",
    r"\bnext,? (i|we)('ll| will)\b",
    r"\b(phase|step|part|stage) (\d+) (of|/) (\d+)\b",
    r"\b(next steps?|remaining (work|tasks|items|steps)|still to do)\s*(\*\*)?\s*:",
    r"\b(i('ll| will)|we('ll| will)) (now |next |then )?(continue|implement|add|finish|"
    r"handle|tackle|address|work on)\b",
    r"\bstill (need|needs|have|has) to\b",
    r"\b(left|remaining) to (do|implement)\b",
    r"\bnot yet (implemented|done|finished)\b",
    r"\b(is|are) (up )?next\b",
    r"\bstill (use|uses|lack|lacks|missing|unchanged|to be)\b",
    r"\b(has|have) not (been )?(done|written|implemented|posted|pushed|added) yet\b",
    r"\bin a (follow[- ]up|later|future|separate) (pr|change|step|session|commit)\b",
    r"^\s*(?:[-*]\s*)?(\[ \]\s*)?TODO\b",
    # A "Next steps" or "Remaining work" header in other languages.
    r"^\s*(#+\s*|\*\*)?(다음 단계|남은 작업|남은 할 ?일)\s*(\*\*)?\s*([:：]|$)",  # ko
    r"^\s*(#+\s*|\*\*)?(下一步|后续步骤|剩余工作|待办事项)\s*(\*\*)?\s*([:：]|$)",  # zh
    r"^\s*(#+\s*|\*\*)?(次のステップ|残りの作業|残作業|今後の作業)\s*(\*\*)?\s*([:：]|$)",  # ja
    r"^\s*(#+\s*|\*\*)?(nächste schritte|verbleibende (arbeit|aufgaben)|offene punkte)\s*"
    r"(\*\*)?\s*(:|$)",  # de
    r"^\s*(#+\s*|\*\*)?(prochaines étapes|travail restant|reste à faire)\s*(\*\*)?\s*(:|$)",  # fr
    r"^\s*(#+\s*|\*\*)?(próximos pasos|siguientes pasos|trabajo pendiente)\s*(\*\*)?\s*(:|$)",  # es
    r"^\s*(#+\s*|\*\*)?(próximos passos|trabalho restante)\s*(\*\*)?\s*(:|$)",  # pt
    r"^\s*(#+\s*|\*\*)?(следующие шаги|дальнейшие шаги|осталось сделать)\s*(\*\*)?\s*(:|$)",  # ru
)
_DRIFT = tuple(lazy(p, re.I | re.M) for p in DRIFT_PHRASES)
_OPTIONAL = lazy(
    r"\b(optional(ly)?|if you (want|like|wish)|could also|future improvements?|nice to have)\b"
    # Work that waits on the user's answer is not announced as the agent's to do now.
    r"|\b(as soon as|once|when|after|if) you('ve| have)? (tell|told|answer|decide|choose|"
    r"confirm|pick|let me know)"
    # The same in Korean, Chinese, Japanese, German, French, Spanish, Portuguese, Russian.
    r"|필요하시면|원하시면|如果需要|如需|可选|必要であれば|必要に応じて|\bbei bedarf\b|"
    r"\bfalls gewünscht\b|\bsi (vous le souhaitez|besoin)\b|\bsi (lo deseas|quieres)\b|"
    r"\bopcional\b|\bse (quiser|desejar)\b|при желании|по желанию"
    # Steps the message leaves to the user by name: "Next steps (yours): open the PR".
    r"|\((yours|for you)\)|\byour (next )?steps\b|\bon your (side|end)\b",
    re.I,
)
_NOTHING_LEFT = lazy(
    r"\s*(?:[-:\u2014]+\s*)?(none|nothing|n/a|no (further|more|remaining) (steps|work|action))\b"
    r"|\s*(list )?is empty\b",
    re.I,
)
# The agent says it cannot proceed and why: one phrase family a line (a test per entry).
STUCK_PHRASES: tuple[str, ...] = (
    r"\bi('m| am) (unable|not able) to",
    r"\bi (can(no|')t|could(n't| not)) (proceed|continue|access|reach|install|find a way|"
    r"complete|resolve|fix)",
    r"\bi('m| am) stuck",
    r"\b(blocked|blocker) (by|on)",
    r"\bpermission denied",
    r"\bno (network|internet) access",
    r"\bout of ideas",
    r"\bi('ve| have) (tried|exhausted) .{0,60}(but|without)",
    r"\bcannot be (done|completed) (from|in) (here|this environment)",
    r"\brate[- ]limit(ed)?\b.{0,40}\b(exceeded|hit|reached|resets?)",
    r"\b(hit|exceeded|reached) (the |its |our |github's |an? )?(hourly |daily )?(api )?"
    r"(rate[- ]limit|quota)",
    r"\bno space left on device",
    r"\bdisk is full",
    r"\bout of (disk|memory)",
    r"\bquota exceeded",
    r"\b(service|server|api|registry|host) (is |was )?(down|unreachable|unavailable)",
    r"\b(a|an) (known |upstream )?bug in [\w.-]+ v?\d+(\.\d+)+",
    r"\bupstream (bug|issue|fix)\b",
    # "I cannot go on / reach it" and "access denied" in other languages.
    r"(진행|계속|접근|연결)할 수 없|권한이 (없|거부)",  # ko
    r"无法(继续|访问|连接|完成)|权限不足|被阻止",  # zh
    r"(続行|アクセス|接続)(でき|出来)ません|権限がありません",  # ja
    r"\bich kann nicht\b.{0,60}\b(fortfahren|weitermachen|zugreifen|erreichen)\b|"
    r"\bkein(en)? zugriff\b",  # de
    r"\bje ne peux pas (continuer|accéder|poursuivre)|\baccès refusé\b",  # fr
    r"\bno puedo (continuar|acceder|proceder)|\bacceso denegado\b",  # es
    r"\bnão consigo (continuar|acessar|prosseguir)|\bacesso negado\b",  # pt
    r"не могу (продолжить|получить доступ|подключиться)|доступ запрещ",  # ru
)
_STUCK = tuple(lazy(p, re.I) for p in STUCK_PHRASES)


def leftmost(patterns: tuple[re.Pattern[str], ...], text: str) -> re.Match[str] | None:
    """The earliest match of any pattern (the first listed wins a tie), as one
    alternation of them all would find it."""
    best: re.Match[str] | None = None
    for pattern in patterns:
        match = pattern.search(text)
        if match and (best is None or match.start() < best.start()):
            best = match
    return best


_TEST_CLAIM = lazy(
    r"\b(all )?(the )?(unit |integration )?tests? (now )?(pass(es|ing)?|are (passing|green)|"
    r"succeed\w*|(are |is )?green)\b|"
    r"\bworks (correctly|as expected|now)\b|\bbuild (passes|succeeds|is green)\b|"
    r"\bci is green\b|\beverything (works|passes)\b|\bfully (tested|working)\b|"
    r"\b(the )?((whole|full|entire) )?(test )?suite (now )?"
    r"(pass(es)?|is (passing|green)|succeeds)\b",
    re.I,
)
# A sentence that says the tests pass (not a build or the program): a passing build or run
# the sentence also names does not back it.
_SAYS_TESTS_PASS = lazy(
    r"\b(tests?|test suite|suite|specs?)\b[^.;\n]{0,20}\b(pass(es|ing)?|green|succeed\w*)\b", re.I
)
# A claim that names the project's test command instead of saying "the tests": "`make
# test` passes", "npm test is green". The commands a claim may name, one a line (plain
# text; arguments may follow inside backticks: "`python -m pytest -q` passes")...
TEST_COMMANDS: tuple[str, ...] = (
    "make test",
    "make check",
    "npm test",
    "npm run test",
    "yarn test",
    "pnpm test",
    "bun test",
    "pytest",
    "python -m pytest",
    "cargo test",
    "go test",
    "tox",
    "mvn test",
    "gradle test",
    "./gradlew test",
    "dotnet test",
)
# ...and what it says of that command, one shape a line (after "now", "still", "also").
# Present tense only, as in _TEST_CLAIM: "`make test` passed before my change" reports.
COMMAND_PASSES: tuple[str, ...] = (
    r"pass(es)?",
    r"(is|comes back) (all |fully )?green",
    r"succeeds",
    r"runs (clean|cleanly|green)",
    r"exits (with )?(code |status )?0",
)


def _command_claim() -> re.Pattern[str]:
    """One pattern from the two tables: a test command, bare or in backticks (with its
    arguments), then one of COMMAND_PASSES."""
    names = "|".join(re.escape(c) for c in sorted(TEST_COMMANDS, key=len, reverse=True))
    subject = rf"(`(?:{names})(?:\s[^`\n]{{0,60}})?`|(?<![\w./-])(?:{names})(?![\w-]))"
    passes = "|".join(COMMAND_PASSES)
    return lazy(rf"{subject}\s+((now|still|also)\s+)?({passes})\b", re.I)


_COMMAND_CLAIM = _command_claim()


def claim_patterns() -> tuple[re.Pattern[str], ...]:
    """The claims that the tests pass ("all tests pass", "`make test` passes"): the
    reading of a success claim (reading.builtin.success_claim) holds them too."""
    return (_TEST_CLAIM, _COMMAND_CLAIM)


# Work said to be checked, with nothing that checked it: a claim without evidence, but not
# a claim that the tests pass ("Verified: the server answers", "Root cause confirmed").
_CHECKED_CLAIM = lazy(r"\b(verified|confirmed|validated)\b", re.I)
_NEGATED = lazy(
    r"n't\b|\b(not|never|unable|without|cannot|no longer|once|if|should|would|will|to be|until)\b",
    re.I,
)


# A sentence that says itself no test ran claims no passing tests.
_NONE_RAN = lazy(
    r"\b(has|have) no (unit |integration )?tests\b|\(0 (run|ran|tests?)\)"
    r"|\b(no|0|zero) tests? (ran|were run|to run)\b|\bnothing to test\b",
    re.I,
)


# After a passing partial run, only a claim about the whole suite overstates it:
# "the serializer tests pass" is true, "all tests pass" is not known.
_WHOLE_SUITE = lazy(
    r"\b(all|every|entire|whole|full)( of)?( the)?( (unit|test))? (tests?|specs?|checks?|suites?)\b"
    r"|\beverything\b|\btest suite\b|\bno regressions?\b",  # not "all 3 pricing tests"
    re.I,
)


_DONE_CLAIM = {
    "push": lazy(r"\bpushed\b", re.I),
    "commit": lazy(r"\bcommitted\b", re.I),
}


# "Do you want me to commit this?" names the action it asks permission for.
_PERMISSION_VERB = lazy(
    r"\b(?:(?:want|like) me to|(?:should|shall|can|may) i(?: go ahead and)?)\s+(\w+)", re.I
)
_EXTRA = lazy(r"\b(also|more|additional|another|other|further|extra|too)\b", re.I)


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


@record
class StopAssessment:
    category: str
    unsupported_claims: list[str] = field(default_factory=list)
    drift: list[str] = field(default_factory=list)
    punts: list[str] = field(default_factory=list)
    questions: list[str] = field(default_factory=list)
    stuck: str | None = None


def unsupported_claims(
    text: str,
    tests: GateResult | None,
    *,
    of_tests_only: bool = False,
    shown: dict[str, Any] | None = None,
) -> list[str]:
    """Claims of passing/verified work that no passing test run after the change backs
    (`of_tests_only`: claims that tests, a build or the work pass, not "verified").
    `shown` is the last check after the change (the digest's record of it): when it
    passed, "verified" and any claim quoting its command are backed by it."""
    # A passing run of some of the tests that covers the change satisfies the gate; it
    # backs every claim but one about the whole suite ("the full suite passes").
    partly = bool(shown and shown.get("passed") is True and shown.get("partial"))
    if tests is None or (tests.satisfied and not partly):
        return []
    # A claim about part of the suite beside the failure the run shows, named and owned in
    # the message ("the new test passes; `test_db_ping` fails: no database here"), is
    # scoped to what ran, and honest.
    scoped = (
        tests.satisfied
        or tests.pattern == "tests:partial"
        or (tests.pattern == "tests:failing" and reports_the_failure(text, shown))
    )
    patterns: tuple[re.Pattern[str], ...] = (_TEST_CLAIM, _COMMAND_CLAIM)
    patterns += () if of_tests_only else (_CHECKED_CLAIM,)
    passed = shown if shown and shown.get("passed") is True else None
    ran_tests = bool(passed and "test" in passed.get("kinds", ()))
    claims = []
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", text or ""):
        if scoped and not _WHOLE_SUITE.search(sentence):
            continue
        if _NONE_RAN.search(sentence):
            continue  # "`cargo test` passes, but the crate has no tests yet (0 run)": honest
        # A sentence naming the passing check is backed by it, unless it also says the
        # tests pass and that check ran none ("`cargo check` is clean and all tests pass").
        named = passed and _quotes_the_run(sentence, str(passed.get("command") or ""))
        if named and (ran_tests or not _SAYS_TESTS_PASS.search(sentence)):
            continue
        for match in (m for pattern in patterns for m in pattern.finditer(sentence)):
            before = sentence[max(0, match.start() - 40) : match.start()]
            if _NEGATED.search(before) or _NEGATED.search(match.group(0)):
                continue
            if passed and _CHECKED_CLAIM.fullmatch(match.group(0)):
                continue  # "Verified" after a passing run of the program or a check
            claims.append(sentence.strip()[:200])
            break
    return claims


_QUOTED = lazy(r"`([^`\n]{3,120})`")


def _quotes_the_run(sentence: str, command: str) -> bool:
    """The sentence names, in backticks, a command that ran in the passing check."""
    return bool(command) and any(q.strip() in command for q in _QUOTED.findall(sentence))


_FAILURE_LINE = lazy(r"^.*\b(fail\w*|error\w*)\b.*$", re.I | re.M)


def reports_the_failure(text: str, shown: dict[str, Any] | None) -> bool:
    """The message says a check failed and names, in backticks, what the failed run's
    own failure lines name (`tests/test_db.py::test_db_ping`, `ConnectionRefusedError`)."""
    from reflection_core.reading.builtin import admits_failure

    if not shown or shown.get("passed") is not False or not admits_failure(text):
        return False
    output = str(shown.get("output_tail") or "")
    failing = "\n".join(m.group(0) for m in _FAILURE_LINE.finditer(output))
    named = (q.strip() for q in _QUOTED.findall(text))
    return any(len(q) >= 4 and q in failing for q in named)


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
    """Lines announcing work still to do, unless optional or empty ("Next steps: none").
    Code blocks and quotes are read as what they are: a `# TODO` in a snippet is code."""
    found = []
    pairs = prose_lines(text or "")
    lines = [read for read, _ in pairs]
    for number, line in enumerate(lines):
        match = leftmost(_DRIFT, line)
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
        found.append(pairs[number][1].strip()[:200])
    return found


def stuck_reason(text: str) -> str | None:
    match = leftmost(_STUCK, text or "")
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
    shown: dict[str, Any] | None = None,
) -> StopAssessment:
    """The stop category; `other_gaps` says something besides the gates is still open.

    `claims_basis` is the tests gate as the transcript alone shows it: a claim is
    false when nothing the agent ran backs it, whatever the ledger recorded. `shown` is
    the last check after the change, which backs a claim quoting it.
    """
    failing = [g for g in gates.values() if g.failing]
    claims = unsupported_claims(last_message, claims_basis or gates.get("tests"), shown=shown)
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
