from __future__ import annotations

from importlib import resources

START = "<!-- reflection:prompt-protocol:start -->"
END = "<!-- reflection:prompt-protocol:end -->"


def snippet() -> str:
    return resources.files("reflection_core").joinpath("data/prompt_protocol.md").read_text("utf-8")


def test_snippet_is_wrapped_in_markers_init_can_detect() -> None:
    text = snippet().strip()
    assert text.startswith(START) and text.endswith(END)
    assert text.count(START) == 1 and text.count(END) == 1


def test_snippet_names_the_five_dimensions_and_when_to_ask() -> None:
    text = snippet()
    for word in ("Clarity", "Context", "Restrictions", "Verifiability", "Scope"):
        assert word in text
    assert "at most 3" in text


def test_snippet_costs_little_context() -> None:
    assert len(snippet()) < 900
