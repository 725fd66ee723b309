"""Partial-run detection for `reflection run` commands."""

from __future__ import annotations

import pytest

from reflection_core.guards.runners import is_partial


@pytest.mark.parametrize(
    "argv",
    [
        ["pytest"],
        ["python", "-m", "pytest", "-q"],
        ["uv", "run", "pytest", "-x"],
        ["npm", "test"],
        ["go", "test", "./..."],
        ["go", "test", "-count", "1", "-tags", "integration", "./..."],
        ["cargo", "test"],
        ["make", "test"],
        ["npx", "jest", "--ci"],
        ["CI=1", "vitest", "run"],
    ],
)
def test_full_suite_commands_are_not_partial(argv: list[str]) -> None:
    assert not is_partial(argv)


@pytest.mark.parametrize(
    "argv",
    [
        ["pytest", "-k", "login"],
        ["python3", "-m", "pytest", "tests/test_a.py"],
        ["pytest", "tests/test_a.py::test_x"],
        ["pytest", "--lf"],
        ["pytest", "-mslow"],
        ["go", "test", "-run", "TestX", "./..."],
        ["go", "test", "./pkg/a"],
        ["go", "test", "-count", "1", "./pkg/a/..."],
        ["cargo", "test", "parser"],
        ["npm", "test", "--", "src/a.test.js"],
        ["npx", "jest", "src/a.test.js"],
        ["vitest", "run", "-t", "login"],
    ],
)
def test_filtered_commands_are_partial(argv: list[str]) -> None:
    assert is_partial(argv)
