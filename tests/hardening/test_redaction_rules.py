"""One test per redaction rule and per extra example: the secret never survives, and the
rule's near miss (an identifier or prose of the same shape) is left exactly as it is."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reflection_core.redact import EXAMPLES, REDACTED, RULES, Rule, redact, redact_obj

NAMES = {rule.name for rule in RULES}


@pytest.mark.parametrize("rule", RULES, ids=[rule.name for rule in RULES])
def test_each_rule_redacts_its_example(rule: Rule) -> None:
    assert rule.pattern.search(rule.example), "the rule must match its own example"
    out = redact(rule.example)
    assert rule.secret not in out and REDACTED in out


@pytest.mark.parametrize("rule", RULES, ids=[rule.name for rule in RULES])
def test_each_rule_leaves_its_near_miss_alone(rule: Rule) -> None:
    assert redact(rule.near_miss) == rule.near_miss


@pytest.mark.parametrize(("name", "text", "secret"), EXAMPLES, ids=[e[1][:30] for e in EXAMPLES])
def test_each_shape_is_redacted(name: str, text: str, secret: str) -> None:
    assert name in NAMES
    out = redact(text)
    assert secret not in out and REDACTED in out


SAMPLES = [(rule, rule.example) for rule in RULES] + [
    (next(rule for rule in RULES if rule.name == name), text) for name, text, _ in EXAMPLES
]


@pytest.mark.parametrize(("rule", "text"), SAMPLES, ids=[text[:30] for _, text in SAMPLES])
def test_every_match_of_a_rule_holds_one_of_its_hints(rule: Rule, text: str) -> None:
    matches = [match.group(0).lower() for match in rule.pattern.finditer(text)]
    assert matches, "the rule must match its own sample"
    for match in matches:
        assert any(hint in match for hint in rule.hints), f"{rule.name}: {match!r}"


@pytest.mark.parametrize("rule", RULES, ids=[rule.name for rule in RULES])
def test_hints_are_lower_cased_literals(rule: Rule) -> None:
    assert rule.hints and all(hint and hint == hint.lower() for hint in rule.hints)


@pytest.mark.parametrize(
    "prose",
    [
        "basic functionality works for the token bucket",
        "the password is in the vault; use the auth module",
        "run pytest -k test_password_reset",
        "see https://example.com/a:b for details",
        "risk_level = high; skeleton_key_ring; risk-free",
        "npm_config_cache npm_package_name hf_hub_download github_pat",
        "sk_live_mode and sk_test_helpers are settings, not keys",
        "glpat- tokens rotate; npm_ tokens too; hf_ tokens also",
    ],
)
def test_prose_about_secrets_is_left_alone(prose: str) -> None:
    assert redact(prose) == prose


def test_keys_and_nested_values_are_redacted() -> None:
    data = {"cmd": ["deploy", "--token=abc123xyz"], "url https://u:pw123456@h": 1}
    out = redact_obj(data)
    assert "abc123xyz" not in str(out) and "pw123456" not in str(out)


@pytest.mark.parametrize(
    ("argv", "secret"),
    [
        (["deploy", "--password", "hunter2x9"], "hunter2x9"),
        (["curl", "-H", "Authorization: Bearer abcdef123456"], "abcdef123456"),
        (["env", "DB_PASS=s3cr3tvalue", "make"], "s3cr3tvalue"),
    ],
)
def test_a_secret_in_its_own_argument_is_redacted_in_argv(argv: list[str], secret: str) -> None:
    from reflection_core.redact import redact_argv

    redacted = redact_argv(argv)
    assert secret not in " ".join(redacted)
    assert redacted[0] == argv[0]


def _rule_by_rule(text: str) -> str:
    for rule in RULES:
        text = rule.pattern.sub(rule.keep, text)
    return text


_FRAGMENTS = [
    *(rule.example for rule in RULES),
    *(rule.near_miss for rule in RULES),
    *(text for _, text, _ in EXAMPLES),
    "ghp_",
    "AKIA",
    "Bearer ",
    "password",
    "=",
    ": ",
    "'",
    '"',
    "\n",
    " ",
    "-----BEGIN RSA PRIVATE KEY-----",
    "abcdef0123456789ABCDEF",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=6), st.booleans())
def test_the_one_search_shortcut_redacts_what_the_rules_one_by_one_do(
    parts: list[str], upper: bool
) -> None:
    text = "".join(parts)
    text = text.upper() if upper else text
    assert redact(text) == _rule_by_rule(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*_FRAGMENTS, "--password", "--token", "hunter2x9"]), max_size=5))
def test_argv_is_redacted_as_the_rules_one_by_one_do(argv: list[str]) -> None:
    from reflection_core.redact import redact_argv, secret_values

    hidden = {value for value in secret_values(" ".join(argv)) if value}
    expected = [
        REDACTED if arg in hidden or arg.strip("\"'") in hidden else _rule_by_rule(arg)
        for arg in argv
    ]
    assert redact_argv(argv) == expected


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=6), st.booleans())
def test_text_without_a_hint_is_never_redacted(parts: list[str], upper: bool) -> None:
    text = "".join(parts)
    text = text.upper() if upper else text
    if not any(hint in text.lower() for rule in RULES for hint in rule.hints):
        assert not any(rule.pattern.search(text) for rule in RULES)  # what redact skips on


def test_text_without_a_hint_is_answered_without_compiling_the_rules(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import reflection_core.redact as redact_module

    monkeypatch.setattr(redact_module, "_any_rule", None)
    monkeypatch.setattr(redact_module, "_redacted_short", {})
    assert (
        redact("pytest -q -p no:cacheprovider tests/unit")
        == "pytest -q -p no:cacheprovider tests/unit"
    )
    assert redact_module._any_rule is None
    assert (
        redact("GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789AB")
        == "GITHUB_TOKEN=[REDACTED]"
    )
    assert redact_module._any_rule is not None
