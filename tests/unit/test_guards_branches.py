"""The pure pre-push decision: stdin parsing and which refs a push may not touch."""

from __future__ import annotations

from pathlib import Path

import pytest

from reflection_core.config import Config, validate
from reflection_core.guards.branches import (
    PushedRef,
    PushParseError,
    decide_push,
    parse_push_lines,
    protected_rule,
    refs_from_pre_commit_env,
)

SHA_A = "a" * 40
SHA_B = "b" * 40
ZERO = "0" * 40
ZERO_256 = "0" * 64
SHA256_A = "a" * 64


def cfg(**data: object) -> Config:
    return Config(data=validate(data, "test"))


def ref(local: str, remote: str, local_sha: str = SHA_A, remote_sha: str = SHA_B) -> PushedRef:
    return PushedRef(local, local_sha, remote, remote_sha)


def test_parses_every_line_of_a_multi_ref_push() -> None:
    text = (
        f"refs/heads/feat {SHA_A} refs/heads/main {SHA_B}\n"
        f"refs/tags/v1 {SHA_A} refs/tags/v1 {ZERO}\n"
        f"(delete) {ZERO} refs/heads/old {SHA_B}\n"
    )
    refs = parse_push_lines(text)
    assert [r.remote_ref for r in refs] == ["refs/heads/main", "refs/tags/v1", "refs/heads/old"]
    assert refs[1].is_new and refs[2].is_delete and not refs[0].is_delete


def test_accepts_sha256_ids_and_their_zero_id() -> None:
    (pushed,) = parse_push_lines(f"(delete) {ZERO_256} refs/heads/main {SHA256_A}\n")
    assert pushed.is_delete and pushed.branch == "main"


def test_blank_input_means_no_refs() -> None:
    assert parse_push_lines("\n  \n") == []


@pytest.mark.parametrize(
    "line, expected",
    [
        ("refs/heads/main abc refs/heads/main def", "not a 40- or 64-character hex id"),
        (f"refs/heads/main {SHA_A} refs/heads/main", "has 3 fields, expected 4"),
        (f"a b {SHA_A} refs/heads/main {SHA_B}", "has 5 fields"),
        (f"refs/heads/main {'A' * 40} refs/heads/main {SHA_B}", "local object id"),
        (f"refs/heads/main {SHA_A} refs/heads/main {'1' * 41}", "remote object id"),
    ],
)
def test_unparseable_lines_raise_a_clear_error(line: str, expected: str) -> None:
    with pytest.raises(PushParseError, match=expected):
        parse_push_lines(line)


def test_the_remote_ref_decides_not_the_local_branch() -> None:
    refusals = decide_push([ref("refs/heads/feat", "refs/heads/main")], cfg(), [])
    assert len(refusals) == 1
    message = refusals[0].message
    assert "protected branch 'main'" in message
    assert "rule 'main'" in message
    assert "open a pull request" in message and "gh pr create --base main" in message


def test_head_to_main_from_a_feature_branch_is_refused() -> None:
    (refusal,) = decide_push([ref("HEAD", "refs/heads/main")], cfg(), [])
    assert "pushing HEAD" in refusal.message


def test_pushing_main_to_a_feature_branch_is_allowed() -> None:
    assert decide_push([ref("refs/heads/main", "refs/heads/feat")], cfg(), []) == []


def test_only_the_protected_refs_of_a_multi_ref_push_are_refused() -> None:
    refs = [
        ref("refs/heads/feat", "refs/heads/feat"),
        ref("refs/heads/main", "refs/heads/master"),
        ref("refs/heads/x", "refs/heads/main"),
    ]
    refused = [r.ref.branch for r in decide_push(refs, cfg(), [])]
    assert refused == ["master", "main"]


def test_deleting_a_protected_branch_is_refused_with_its_own_message() -> None:
    (refusal,) = decide_push([ref("(delete)", "refs/heads/main", local_sha=ZERO)], cfg(), [])
    assert "refusing to delete protected branch 'main'" in refusal.message


def test_tags_are_not_branches() -> None:
    assert decide_push([ref("refs/tags/main", "refs/tags/main")], cfg(), []) == []


def test_new_protected_branch_is_refused() -> None:
    refusals = decide_push([ref("HEAD", "refs/heads/main", remote_sha=ZERO)], cfg(), [])
    assert len(refusals) == 1


def test_globs_and_regexes_protect_branches() -> None:
    config = cfg(protected_branches=["release/*", "re:^hotfix-[0-9]+$"])
    assert protected_rule("release/1.0", config.get("protected_branches")) == "release/*"
    assert protected_rule("refs/heads/hotfix-12", config.get("protected_branches")) == (
        "re:^hotfix-[0-9]+$"
    )
    assert protected_rule("main", config.get("protected_branches")) is None
    (refusal,) = decide_push([ref("HEAD", "refs/heads/release/2")], config, [])
    assert "rule 'release/*'" in refusal.message


def test_allow_listed_identity_may_push_to_protected_branches() -> None:
    config = cfg(guards={"allow_push": ["*[bot]@users.noreply.github.com", "ci-bot"]})
    refs = [ref("HEAD", "refs/heads/main")]
    assert decide_push(refs, config, ["release[bot]@users.noreply.github.com"]) == []
    assert decide_push(refs, config, ["ci-bot"]) == []
    assert len(decide_push(refs, config, ["dev@example.com"])) == 1


def test_pre_commit_framework_variables_describe_one_ref() -> None:
    env = {
        "PRE_COMMIT_REMOTE_BRANCH": "refs/heads/main",
        "PRE_COMMIT_LOCAL_BRANCH": "refs/heads/feat",
        "PRE_COMMIT_TO_REF": SHA_A,
        "PRE_COMMIT_FROM_REF": SHA_B,
    }
    refs = refs_from_pre_commit_env(env)
    assert refs is not None and refs[0].branch == "main" and refs[0].local_sha == SHA_A
    assert len(decide_push(refs, cfg(), [])) == 1
    assert refs_from_pre_commit_env({}) is None


def test_notes_refs_need_no_evidence_while_branches_and_tags_do() -> None:
    notes = ref("refs/notes/reflection", "refs/notes/reflection")
    assert notes.is_notes and not notes.needs_evidence and notes.branch is None
    assert ref("refs/heads/f", "refs/heads/f").needs_evidence
    assert ref("refs/tags/v1", "refs/tags/v1").needs_evidence  # a tag stands for its commit
    assert not ref("(delete)", "refs/heads/f", local_sha=ZERO).needs_evidence


def test_a_notes_push_under_the_pre_commit_framework_has_no_commits_to_check() -> None:
    from reflection_core.guards.tests_ran import push_targets_from_env

    env = {"PRE_COMMIT_REMOTE_BRANCH": "refs/notes/reflection", "PRE_COMMIT_TO_REF": SHA_A}
    assert push_targets_from_env(Path("."), env) == []
