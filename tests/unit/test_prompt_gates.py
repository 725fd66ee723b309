"""The substring gates in front of prompt patterns never skip a text the pattern matches.

A gate (a pattern's `needs`, `signals._holds` for errors, the word tuples in `classify`)
saves a regex scan when the words it needs are absent; each example below is one
alternative of the gated pattern, so a pattern that gains an alternative without its
word fails here.
"""

from __future__ import annotations

import pytest

from reflection_core.prompt import classify, scope, signals, smells

GATED_SIGNALS = [
    # (pattern, text it runs on): one example per alternative, through the gate and without it
    (signals._ERROR_RE, "got a KeyError in the loader"),
    (signals._ERROR_RE, "Traceback below"),
    (signals._ERROR_RE, "then panic: nil map"),
    (signals._ERROR_RE, "it segfault again"),
    (signals._ERROR_RE, "see the stacktrace"),
    (signals._ERROR_RE, "a DeprecationWarning shows"),
    (signals._ERROR_RE, "the job exited with code 3"),
    (signals._ERROR_RE, "see line 42"),
    (signals._ERROR_RE, "rustc says E0425 here"),
    (signals._ERROR_RE, "the route returns a 404 now"),
    (signals._ERROR_RE, "we see 503s at night"),
    (signals._ERROR_RE, "it got a 500"),
    (signals._ERROR_RE, "the form gives 422"),
    (signals._ERROR_RE, "it throws an 404"),
    (signals._ERROR_RE, "a 404 error on reload"),
    (signals._IDENT_RE, "rename load_rows"),
    (signals._IDENT_RE, "the HttpClient class"),
    (signals._IDENT_RE, "set MAX_RETRIES"),
    (signals._IDENT_RE, "call flush() first"),
    (signals._IDENT_RE, "pass --dry-run"),
    (signals._IDENT_RE, "pin 1.8.0 or 1.34.x"),
    (signals._IDENT_RE, "handle GET /users"),
    (signals._METRIC_RE, "under 200 ms"),
    (signals._METRIC_RE, "cut it by 30 percent"),
    (signals._METRIC_RE, "keep p95 low"),
    (signals._METRIC_RE, "make it o(n log n)"),
    (signals._METRIC_RE, "show an index scan"),
    (signals._METRIC_RE, "attach a flamegraph"),
    (signals._METRIC_RE, "run the benchmark"),
    (signals._METRIC_RE, "serve 500 req/s"),
    (signals._HASH_RE, "revert 3f2a9c1 please"),
    (signals._HASH_RE, "revert abcdef1 please"),
    (signals._HASH_RE, "revert 1234abc please"),
    (signals._FILE_RE, "edit config.yaml"),
    (signals._FILE_RE, "see app.test.tsx"),
    *(
        (signals._RESTRICTION_RE, text)
        for text in (
            "don't touch it",
            "do not log",
            "never retry",
            "it must not block",
            "you mustn't",
            "without a cache",
            "only the parser",
            "keep the api",
            "leave the rest",
            "raise instead of return",
            "patch rather than rewrite",
            "not the tests",
            "preserve order",
            "avoid locks",
            "as a fallback",
            "skip it for now",
            "one commit each",
            "no new deps",
            "no breaking change",
            "no behavior change",
            "no changes elsewhere",
            "the api stays unchanged",
            "use sqlite",
            "using sqlite",
        )
    ),
    *(
        (signals._CRITERION_RE, text)
        for text in (
            "add a test",
            "run pytest",
            "a jest run",
            "the spec says",
            "mark it xfail",
            "assert it",
            "it must return 1",
            "it should raise",
            "it will pass",
            "expected 3",
            "expect a row",
            "a -> b",
            "a => b",
            "so that it works",
            "until it is green",
            "the goal is speed",
            "done when it ships",
            "output identical",
            "keep the api unchanged",
            "no behaviour change",
            "tests still pass",
            "zero warnings",
            "under 2 s",
            "below 5",
            "at most 3",
            "at least 1",
            "less than 9",
            "raise instead of return",
            "an example row",
            "exit with 2",
            "list the findings",
            "cite file:line",
            "ranked by size",
        )
    ),
]


@pytest.mark.parametrize(("pattern", "text"), GATED_SIGNALS)
def test_signal_gate_lets_every_matching_form_through(pattern, text):
    assert pattern.pattern.findall(text)  # the compiled pattern, no gate
    assert pattern.findall(text) == pattern.pattern.findall(text)
    assert pattern.search(text) is not None


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        (signals._ERROR_RE, "it breaks on save (#1234)"),
        (signals._ERROR_RE, "it breaks on save (#450)"),
        (signals._IDENT_RE, "Rename the loader, see v1 (#12)"),
        (signals._METRIC_RE, "fix it (#123)"),
        (signals._HASH_RE, "fix issue 1234 in the cafe"),
        (signals._FILE_RE, "fix it. then ship."),
        (signals._CRITERION_RE, "make the header sticky"),
        (signals._RESTRICTION_RE, "make the header sticky"),
    ],
)
def test_signal_gate_skips_a_text_without_what_a_match_holds(pattern, text):
    assert pattern._absent(text)
    assert pattern.pattern.findall(text) == []


GATED_AREAS = [
    (classify._ARCH_SHAPES, classify._ARCH_SHAPE_WORDS, "split billing into two services"),
    (classify._ARCH_SHAPES, classify._ARCH_SHAPE_WORDS, "move it into a shared package"),
    (classify._ARCH_SHAPES, classify._ARCH_SHAPE_WORDS, "switch storage from s3"),
    (classify._ARCH_SHAPES, classify._ARCH_SHAPE_WORDS, "migrate users from mysql"),
    (classify._ARCH_SHAPES, classify._ARCH_SHAPE_WORDS, "an event-driven design"),
    (classify._ARCH_SHAPES, classify._ARCH_SHAPE_WORDS, "make it multi-tenant"),
    (classify._TEST_OBJECT, classify._TEST_OBJECT_WORDS, "write unit tests for slugify"),
    (classify._TEST_OBJECT, classify._TEST_OBJECT_WORDS, "add edge cases"),
    (classify._TEST_OBJECT, classify._TEST_OBJECT_WORDS, "extend the specs"),
    (classify._TEST_OBJECT, classify._TEST_OBJECT_WORDS, "add coverage for io"),
    (classify._TEST_OBJECT, classify._TEST_OBJECT_WORDS, "the tests are failing"),
    (classify._TEST_OBJECT, classify._TEST_OBJECT_WORDS, "tests/test_a.py has no asserts"),
    (classify._DOCS, classify._DOCS_WORDS, "update the docs"),
    (classify._DOCS, classify._DOCS_WORDS, "fix the readme"),
    (classify._DOCS, classify._DOCS_WORDS, "add a changelog entry"),
    (classify._DOCS, classify._DOCS_WORDS, "edit the wiki"),
    (
        classify._EXPLICIT_AREA["frontend"],
        classify._EXPLICIT_AREA_WORDS["frontend"],
        "on the client side",
    ),
    (
        classify._EXPLICIT_AREA["frontend"],
        classify._EXPLICIT_AREA_WORDS["frontend"],
        "a front-end bug",
    ),
    (
        classify._EXPLICIT_AREA["backend"],
        classify._EXPLICIT_AREA_WORDS["backend"],
        "server side only",
    ),
    (classify._EXPLICIT_AREA["backend"], classify._EXPLICIT_AREA_WORDS["backend"], "the back end"),
    (classify._RESTRUCTURE, ("into",), "split utils into modules"),
]


@pytest.mark.parametrize(("pattern", "words", "text"), GATED_AREAS)
def test_area_gate_lets_every_matching_form_through(pattern, words, text):
    assert pattern.search(text) is not None
    assert any(word in text for word in words)


@pytest.mark.parametrize(
    "text",
    [
        "fix the parser, and then add a test; also bump the version",
        "rename x then move y and update z.",
        "  and start here",
        "a,b, and c\nd!e?f",
    ],
)
def test_clause_split_matches_the_plain_alternation(text):
    import re

    plain = re.compile(
        r"[.!?;\n]+\s*|,\s*(?:and\s+)?|(?<!\s)\s+and\s+(?:then\s+)?|(?<!\s)\s+then\s+"
    )
    assert scope._CLAUSE_SPLIT.split(text) == plain.split(text)


@pytest.mark.parametrize(
    "text",
    [
        "fix the login and also add a logout button",
        "fix the login. While you're at it, add a logout button",
        "fix the login; on top of that add a logout button",
        "fix the login and then can you add a logout button",
        "fix the login. And add a logout button",
        "And add a logout button, fix the login",
        "fix the login\nand add a logout button",
        "fix the login!\tand add a logout button",
        "fix the login?  And add a logout button",
        "fix the login and could you add a logout button",
        "fix the login and then could you add a logout button",
        "fix the login\nplus add a logout button",
        "fix the login, also add a logout button",
        "fix the login. Additionally add a logout button",
        "fix the login as well as the logout button",
        "FIX THE LOGIN AND ALSO ADD A LOGOUT BUTTON",
    ],
)
def test_task_joiner_gate_lets_every_joiner_through(text):
    assert len(scope._CREEP.pattern.split(text)) == 2  # the compiled pattern, no gate
    assert scope._CREEP.split(text) == scope._CREEP.pattern.split(text)


def test_task_joiner_gate_keeps_a_text_without_joiners_whole():
    text = "fix the login, then add a logout button and a spinner"
    assert scope._CREEP._absent(text)
    assert scope._CREEP.split(text) == scope._CREEP.pattern.split(text) == [text]


def test_trailing_joiner_is_removed_only_where_the_gate_looks():
    assert scope._short("add a cache, and") == "add a cache"
    assert scope._short("add a cache and then") == "add a cache"
    assert scope._short("add a cache") == "add a cache"


SCOPE_FILLERS = [
    "please", "pls", "plz", "can you", "could you", "would you", "will you", "kindly", "also",
    "and", "then", "just", "now", "ok", "okay", "so", "hey", "first", "finally", "next",
    "i want you to", "i need you to", "we need to", "you should", "let's", "lets",
    "go ahead and", "make sure to",
]  # fmt: skip


@pytest.mark.parametrize("filler", SCOPE_FILLERS)
def test_scope_filler_gate_strips_every_filler_the_pattern_does(filler):
    clause = f"  {filler.upper()}, please fix the login form"
    assert scope._without_filler(clause) == scope._FILLER.sub("", clause.strip().lower())
    assert scope._without_filler(clause).startswith("fix")


@pytest.mark.parametrize(
    "filler",
    ["please", "pls", "can you", "could you", "would you", "just", "now", "ok", "okay", "so"],
)
def test_turn_filler_gate_strips_every_filler_the_pattern_does(filler):
    from reflection_core.prompt import turn

    text = f"{filler} explain the cache"
    assert turn._without_filler(text) == turn._FILLER.sub("", turn._normalized(text))
    assert turn._without_filler(text) == "explain the cache"


NEEDS_EXAMPLES = [
    (classify._REVIEW, "review the auth module"),
    (classify._REVIEW, "please audit payments"),
    (classify._REVIEW, "a security review of it"),
    (classify._REVIEW, "look for race conditions"),
    (scope._OVERRIDE, "do them all together"),
    (scope._OVERRIDE, "altogether now"),
    (scope._OVERRIDE, "in one go"),
    (scope._OVERRIDE, "all at once"),
    (scope._OVERRIDE, "in a single commit"),
    (scope._OVERRIDE, "in one pull request"),
    (scope._OVERRIDE, "hazlo todo junto"),
    (scope._OVERRIDE, "de una vez"),
    (smells._TOTAL, "fix everything"),
    (smells._TOTAL, "all of the modules"),
    (smells._TOTAL, "the whole app"),
    (smells._TOTAL, "our entire backend"),
    (smells._TOTAL, "every endpoint"),
    (smells._TOTAL, "across the board"),
    (smells._TOTAL, "the entire thing"),
    (smells._BUG, "login is broken"),
    (smells._BUG, "it doesn't work"),
    (smells._BUG, "stopped working"),
    (smells._BUG, "won't load"),
    (smells._BUG, "the build fails"),
    (smells._BUG, "it crashes"),
    (smells._BUG, "buggy ui"),
    (smells._BUG, "flaky test"),
    (smells._BUG, "the parser chokes"),
    (smells._BUG, "it hangs"),
    (smells._BUG, "the tab freezes"),
    (smells._BUG, "spins forever"),
    (smells._BUG, "totals are wrong"),
    (smells._BUG, "glitchy scroll"),
    (smells._BUG, "randomly logs out"),
    (smells._BUG, "intermittently empty"),
    (smells._BUG, "keeps timing out"),
    (smells._BUG, "a memory leak"),
    (smells._BUG, "the socket is leaking"),
    (smells._BUG, "fix the thing"),
    (smells._PERF, "make it faster"),
    (smells._PERF, "slowness on load"),
    (smells._PERF, "feels sluggish"),
    (smells._PERF, "speed it up"),
    (smells._PERF, "performance matters"),
    (smells._PERF, "latency is high"),
    (smells._PERF, "the ui lags"),
    (smells._PERF, "takes forever"),
    (smells._PERF, "optimise the query"),
    (smells._PERF, "more efficient"),
    (smells._PERF, "scalability issues"),
    (smells._PERF, "low throughput"),
    (smells._PERF, "memory usage"),
    (smells._PERF, "eats so much ram"),
    (smells._PERF, "too much cpu"),
    (smells._PERF, "cpu usage spikes"),
    (smells._PERF, "load time"),
    (smells._PERF, "snappier please"),
    (smells._PERF, "smoother scrolling"),
    (smells._PERF, "too heavy"),
    (smells._PERF, "bloated bundle"),
    (smells._MAGIC, "tests, docs etc."),
    (smells._MAGIC, "and so on"),
    (smells._MAGIC, "add logging as needed"),
    (smells._MAGIC, "however you like"),
    (smells._MAGIC, "whatever works"),
    (smells._MAGIC, "you should know"),
    (smells._MAGIC, "do the needful"),
    (smells._MAGIC, "you know what i mean"),
    (smells._MAGIC, "make it pop"),
    (smells._MAGIC, "somehow"),
    (smells._MAGIC, "the right way"),
    (smells._MAGIC, "wherever it makes sense"),
    (smells._MAGIC, "use your judgment"),
    (smells._MAGIC, "just handle it"),
    (smells._MAGIC, "magically"),
    (smells._MAGIC, "it just works"),
    (smells._VAGUE_VERB, "improve the parser"),
    (smells._VAGUE_VERB, "clean this up"),
    (smells._VAGUE_VERB, "tidy up"),
    (smells._VAGUE_VERB, "polish the ui"),
    (smells._VAGUE_VERB, "modernise the build"),
    (smells._VAGUE_VERB, "streamline it"),
    (smells._VAGUE_VERB, "revamp the page"),
    (smells._VAGUE_GOAL, "make the code better"),
    (smells._VAGUE_GOAL, "get it to look good"),
    (smells._VAGUE_GOAL, "it is messy"),
    (smells._VAGUE_GOAL, "a bit off"),
    (smells._VAGUE_GOAL, "easier to read"),
    (classify._EXPLAIN, "explain the cache"),
    (classify._EXPLAIN, "can you explain this"),
    (classify._EXPLAIN, "just tell me"),
    (classify._EXPLAIN, "don't change anything"),
    (classify._EXPLAIN, "no changes yet"),
    (classify._EXPLAIN, "what do you think"),
    (classify._EXPLAIN, "difference between a and b"),
    (classify._EXPLAIN, "thoughts on this"),
    (scope._RANGE, "do items 3-7"),
    (scope._RANGE, "tasks 1 to 4"),
    (scope._RANGE, "steps 2 through 5"),
    (scope._RANGE, "tickets 10-12"),
    (scope._RANGE, "issues 4 - 6"),
    (scope._RANGE, "points 1-3"),
    (scope._RANGE, "todos 1-2"),
    (scope._RANGE, "stories 5-8"),
    (scope._RANGE, "story 5-8"),
    (scope._RANGE, "bugs 1-9"),
    (smells._IMPLICIT, "use the usual format"),
    (smells._IMPLICIT, "as we discussed"),
    (smells._IMPLICIT, "as agreed"),
    (smells._IMPLICIT, "as we talked about"),
    (smells._IMPLICIT, "as planned"),
    (smells._IMPLICIT, "as i mentioned"),
    (smells._IMPLICIT, "as before"),
    (smells._IMPLICIT, "as always"),
    (smells._IMPLICIT, "as last time"),
    (smells._IMPLICIT, "like last time"),
    (smells._IMPLICIT, "like before"),
    (smells._IMPLICIT, "like we discussed"),
    (smells._IMPLICIT, "like usual"),
    (smells._IMPLICIT, "do the same way"),
    (smells._IMPLICIT, "the same fix"),
    (smells._IMPLICIT, "same as before"),
    (smells._IMPLICIT, "same as the other"),
    (smells._IMPLICIT, "the thing with the header"),
    (smells._IMPLICIT, "the stuff in main"),
    (smells._IMPLICIT, "the billing module issue"),
    (smells._IMPLICIT, "the auth service problem"),
    (smells._IMPLICIT, "the page bug"),
    (smells._IMPLICIT, "the component thing"),
    (smells._IMPLICIT, "from the sprint board"),
    (smells._IMPLICIT, "from jira"),
    (smells._IMPLICIT, "from the meeting"),
    (smells._IMPLICIT, "from standup"),
    (smells._IMPLICIT, "that bug we saw"),
    (smells._IMPLICIT, "the error you had"),
    (smells._IMPLICIT, "the issue i mentioned"),
    (smells._IMPLICIT, "the problem we talked"),
    (smells._IMPLICIT, "that thing from monday"),
    (smells._IMPLICIT, "that one from the call"),
    (smells._IMPLICIT, "you know the one"),
    (smells._IMPLICIT, "you know which"),
    (signals._NAMED_OBJECT_RE, "fix the settings page"),
    (signals._NAMED_OBJECT_RE, "the save button sticks"),
    (signals._NAMED_OBJECT_RE, "rename the parse function"),
    (signals._NAMED_OBJECT_RE, "add an export subcommand"),
    (signals._EXPECTED_ACTUAL_RE, "expected a, got b"),
    (signals._EXPECTED_ACTUAL_RE, "use x instead of y"),
    (signals._EXPECTED_ACTUAL_RE, "actual: none"),
    (signals._EXPECTED_ACTUAL_RE, "should be 3 but is 4"),
    (signals._EXPECTED_ACTUAL_RE, "but it returns null"),
    (signals._EXPECTED_ACTUAL_RE, "prints a rather than b"),
    (signals._EXPECTED_ACTUAL_RE, "a -> b"),
    (signals._EXPECTED_ACTUAL_RE, "a => b"),
    (signals._EXPECTED_ACTUAL_RE, "a → b"),
    (signals._EXAMPLE_RE, ">>> add(1, 2)"),
    (signals._EXAMPLE_RE, "dates, e.g. 2024-01-01"),
    (signals._EXAMPLE_RE, "for instance a name"),
    (signals._EXAMPLE_RE, "example: two rows"),
    (signals._EXAMPLE_RE, "given a user when they log in"),
    (signals._EXAMPLE_RE, "formats such as csv"),
    (signals._HEDGE_RE, "maybe add a cache"),
    (signals._HEDGE_RE, "use redis or something"),
    (signals._HEDGE_RE, "i guess it is fine"),
    (signals._HEDGE_RE, "some kind of queue"),
    (signals._HEDGE_RE, "sort of like a list"),
    (signals._HEDGE_RE, "if possible, today"),
    (signals._HEDGE_RE, "or whatever works"),
    (signals._HEDGE_RE, "not decided yet"),
    (signals._HEDGE_RE, "either postgres or mysql"),
    (signals._HEDGE_RE, "whichever is faster"),
]


@pytest.mark.parametrize(("pattern", "text"), NEEDS_EXAMPLES)
def test_needs_gate_lets_every_matching_form_through(pattern, text):
    assert pattern.pattern.search(text) is not None  # the compiled pattern, no gate
    assert pattern.search(text) is not None
    assert pattern.findall(text) == pattern.pattern.findall(text)


def test_needs_gate_skips_a_text_without_its_words():
    assert smells._BUG.search("add a dark theme toggle") is None
    assert list(smells._BUG.finditer("add a dark theme toggle")) == []
    assert smells._BUG.findall("add a dark theme toggle") == []


def test_score_prompt_with_settings_read_once_equals_reading_the_config():
    from reflection_core.config import Config
    from reflection_core.prompt.score import Settings, score_prompt

    cfg = Config()
    prompt = "make the settings page faster, maybe with a cache"
    once = score_prompt(prompt, None, settings=Settings.from_config(cfg))
    assert once == score_prompt(prompt, None, cfg)


@pytest.mark.parametrize(
    "text",
    [
        "Then DROP TABLE users",
        "drop_column orders",
        "TRUNCATE the logs",
        "DELETE FROM sessions",
        "rm -rf build",
        "force-push main",
        "git push --force",
        "git reset --hard",
        "run dropdb",
    ],
)
def test_ignorecase_needs_gate_lets_every_irreversible_step_through(text):
    from reflection_core.prompt import turn

    assert turn._IRREVERSIBLE.pattern.search(text) is not None
    assert turn._IRREVERSIBLE.search(text) is not None


def test_ignorecase_needs_gate_leaves_non_ascii_text_to_the_engine():
    from reflection_core.prompt import turn

    # U+017F folds to "s" in the engine but not in str.lower(): the gate must not decide.
    text = "git pu\u017fh --force"
    assert turn._IRREVERSIBLE.search(text) is not None
    assert turn._HERE_IS_MY_FILE.search("HERE IS MY config file") is not None


@pytest.mark.parametrize(
    "name",
    [
        "_IDENT_RE",
        "_ERROR_RE",
        "_METRIC_RE",
        "_CRITERION_RE",
        "_RESTRICTION_RE",
        "_HEDGE_RE",
        "_FILE_RE",
        "_NAMED_FILE_RE",
    ],
)
def test_signal_patterns_read_with_findall_have_no_capturing_group(name):
    # findall returns whole matches only for a pattern without groups (extract relies on it)
    assert getattr(signals, name).pattern.groups == 0


@pytest.mark.parametrize(
    "text",
    [
        "(1) add a cache (2) drop the old table",
        "1) add a cache 2) drop the old table",
        "a) add a cache\nb) drop the old table",
        "(1)\u00a0add a cache (2)\u2003drop the old table",  # white space beyond ASCII
    ],
)
def test_inline_enumeration_gate_lets_every_marker_through(text):
    assert scope._closes_before_space(text)
    assert len(scope._INLINE_ENUM.findall(text)) == 2
    assert scope.govern(text).tasks == ("add a cache", "drop the old table")


@pytest.mark.parametrize("text", ["call f(), then g()", "rename it (#12)", "add (x)"])
def test_inline_enumeration_gate_skips_a_paren_without_space_after(text):
    assert not scope._closes_before_space(text)
    assert scope._INLINE_ENUM.findall(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "pass --dry-run to parse_row() in v1.8.0",
        "call GET /users then set MAX_RETRIES and HttpClient--verbose",
        "x--flag and --flag-two, then load_rows()",
    ],
)
def test_word_patterns_with_a_lookbehind_alternative_match_as_written(text):
    import re

    plain = re.compile(signals._IDENT_RE._source)  # `\b` and `(?<!\w)` alternatives, unfolded
    assert signals._IDENT_RE.findall(text) == plain.findall(text)
    assert signals._IDENT_RE.pattern.pattern.count(r"(?<!\w)") == 1


def test_named_object_gate_skips_a_noun_inside_a_word():
    text = "the homepage and the dropdown"
    assert signals._NAMED_OBJECT_RE._absent(text)
    assert signals._NAMED_OBJECT_RE.pattern.findall(text) == []


@pytest.mark.parametrize(
    "text",
    ["- add a cache - drop the old table", "1. add a cache 2. drop the old table"],
)
def test_a_one_line_text_holds_no_list_of_tasks(text):
    assert len(list(scope._LIST_LINE.finditer(text))) <= 1  # what the newline test relies on
    assert scope._list_tasks(text) == []


def test_a_list_over_lines_is_still_read_as_tasks():
    text = "- add a cache\n- drop the old table"
    assert scope._list_tasks(text) == ["add a cache", "drop the old table"]


@pytest.mark.parametrize(
    "text",
    ["3 items, 1,200 rows and 4.5.6", "v2 x3 .5 7.", "12ab 9_000 (#42)", "٣ and ٤٫٥", "0"],
)
def test_number_pattern_finds_what_the_look_behind_first_form_finds(text):
    import re

    plain = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*\b")
    assert signals._NUMBER_RE.findall(text) == plain.findall(text)


@pytest.mark.parametrize(
    ("text", "share"),
    [("fix the e2e tests", 1.0), ("12 34", 0.0), ("--- !!!", 0.0), ("x", 1.0), ("café", 0.5)],
)
def test_latin_share_of_ascii_text_is_all_or_nothing_and_other_text_is_counted(text, share):
    from reflection_core.prompt import turn

    assert turn.latin_share(text) == share


@pytest.mark.parametrize(
    "text",
    [
        "Don't re-run the E2E tests in CI/CD -- just x-y-z",
        "it's rock'n'roll: O'Neil's x2 v1.8.0_rc",
        "a'b'c-d'e f''g h'-i",
        "",
        "  ...  ",
        "Café au lait, naïve résumé",
        "l’app d’aujourd’hui",
    ],
)
def test_lowered_words_split_from_the_joined_words_equal_a_scan(text):
    low = text.lower()
    assert signals._lowered_words(text, low) == signals.words(low)


def test_every_ascii_referent_phrase_holds_a_word_of_its_gate():
    from reflection_core.prompt import phrases, turn

    ascii_phrases = [p for p in phrases.MISSING_REFERENT if p.isascii()]
    assert ascii_phrases == list(turn._ASCII_REFERENTS)
    for phrase in ascii_phrases:
        assert any(word in phrase for word in turn._REFERENT_WORDS), phrase


def test_every_ascii_invitation_holds_a_word_of_its_gate():
    from reflection_core.prompt import phrases, turn

    ascii_phrases = [p for p in phrases.INVITED_QUESTIONS if p.isascii()]
    assert ascii_phrases == list(turn._ASCII_INVITATIONS)
    for phrase in ascii_phrases:
        assert any(word in phrase for word in turn._INVITATION_WORDS), phrase


def test_phrases_in_other_scripts_are_still_read_in_non_ascii_text():
    from reflection_core.prompt import turn

    assert turn.invites_questions("有问题可以问我")
    assert turn.invites_questions("Ask me clarifying questions — merci")
    assert turn.missing_referent("fix the bug in этот файл", False, None) == "этот файл"


@pytest.mark.parametrize(
    ("tail", "asks"),
    [
        ("Shall I go on?", True),
        ("Want me to push it", True),
        ("要我继续吗？", True),
        ("Done: the tests pass.", False),
        ("What next? Done.", True),
    ],
)
def test_asking_back_is_read_from_a_question_mark_or_the_pattern(tail, asks):
    from reflection_core.prompt import turn

    assert turn.asks_back(tail) is asks
    assert (turn._ASKS_BACK.search(tail) is not None) is asks


@pytest.mark.parametrize(
    "text",
    [
        "Want me to push it.",
        "Would you like a PR.",
        "Shall I go on.",
        "Should I merge.",
        "Let me know.",
        "Tell me which.",
        "Do you want both.",
        "Proceed (y/n)",
        "Please confirm.",
        "Choose one.",
        "Pick one.",
        "Soll ich weitermachen.",
        "Willst du das.",
        "Voulez-vous continuer.",
        "Veux-tu continuer.",
        "Tu veux que je continue.",
        "Quieres que siga.",
        "Prefieres la opción B.",
        "Deseja continuar.",
        "Quer que eu continue.",
    ],
)
def test_asking_back_gate_lets_every_ascii_phrase_through(text):
    from reflection_core.prompt import turn

    assert turn._ASKS_BACK.pattern.search(text) is not None  # the compiled pattern, no gate
    assert turn._ASKS_BACK.search(text) is not None


@pytest.mark.parametrize(
    "text", ["ship v2 and 3.5, x9 and 10,000 rows (#12)", "E0425 at line 3", "no digits here", "٣"]
)
def test_numbers_counted_from_the_first_digit_equal_a_whole_scan(text):
    import re

    plain = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*\b")
    assert signals.extract(text).numbers == len(plain.findall(text))
    assert signals.first_digit(text) == next((m.start() for m in re.finditer(r"\d", text)), -1)
