"""The real-data evals split cases by user, the same way every run."""

import pytest

from reflection_core.evals.users import half_of, in_half, user_of


def test_user_is_owner_and_repository_of_the_case_id():
    assert user_of("alice__proj__0a1b-2c3d@17") == "alice__proj"
    assert user_of("bob__tool__sess#4") == "bob__tool"


def test_every_case_of_one_user_falls_in_the_same_half():
    halves = {half_of(f"alice__proj__session{i}@{i}") for i in range(20)}
    assert len(halves) == 1


def test_users_spread_over_both_halves():
    halves = {half_of(f"user{i}__repo__s@1") for i in range(40)}
    assert halves == {"A", "B"}


def test_in_half_keeps_only_that_half_and_none_keeps_all():
    rows = [{"id": f"user{i}__repo__s@1"} for i in range(40)]
    a, b = in_half(rows, "A"), in_half(rows, "B")
    assert len(a) + len(b) == 40 and a and b
    assert {half_of(r["id"]) for r in a} == {"A"}
    assert in_half(rows, None) == rows


def test_in_half_rejects_an_unknown_half():
    with pytest.raises(ValueError, match="half must be one of A, B"):
        in_half([], "C")
