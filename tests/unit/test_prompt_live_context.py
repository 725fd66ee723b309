"""Live context (mode 2): a short prompt right after a menu earns +1.0, capped at 5."""

from __future__ import annotations

from reflection_core.prompt.live_context import ends_with_menu
from reflection_core.prompt.score import score_prompt

MENU = "Options:\n\n1. Raise the timeout.\n2. Make the export async.\n3. Stream the CSV."
TABLE = "| option | cost |\n|---|---|\n| cache | low |\n| replica | high |\n"


def test_list_of_two_or_more_items_at_the_end_is_a_menu() -> None:
    assert ends_with_menu(MENU)
    assert ends_with_menu("- one\n- two")
    assert ends_with_menu(TABLE)


def test_single_item_or_prose_is_not_a_menu() -> None:
    assert not ends_with_menu("1. Only one step here.")
    assert not ends_with_menu("I fixed it; the tests pass now.")
    assert not ends_with_menu(None)


def test_list_far_above_the_last_kilobyte_does_not_count() -> None:
    prev = MENU + "\n" + ("Then a long explanation without any list. " * 60)
    assert not ends_with_menu(prev)


def test_short_prompt_after_a_menu_gets_the_bonus() -> None:
    prompt = "none of these, just revert a91f3e0 for now"
    plain = score_prompt(prompt)
    boosted = score_prompt(prompt, MENU)
    assert boosted.live_context_bonus
    assert not plain.live_context_bonus
    assert boosted.score == min(5.0, round(plain.score + 1.0, 1))


def test_long_prompt_after_a_menu_gets_no_bonus() -> None:
    prompt = " ".join(["word"] * 16) + " revert a91f3e0"
    assert not score_prompt(prompt, MENU).live_context_bonus


def test_bonus_is_capped_at_five() -> None:
    prompt = "revert a91f3e0 in `src/app.py`; tests/test_app.py must pass, keep the API"
    assert score_prompt(prompt, MENU).score <= 5.0
