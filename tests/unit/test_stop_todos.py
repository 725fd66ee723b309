"""TodoWrite patterns as a pure function."""

from __future__ import annotations

from reflection_core.session.todos import TodoItem, parse_todos, todo_reflections


def items(*pairs: tuple[str, str]) -> list[TodoItem]:
    return [TodoItem(content, status) for content, status in pairs]


def test_large_list_threshold() -> None:
    six = items(*((f"Run check {n}", "pending") for n in range(6)))
    seven = items(*((f"Run check {n}", "pending") for n in range(7)))
    assert todo_reflections(six, large_list=7, already=set()) == []
    assert [r.pattern for r in todo_reflections(seven, large_list=7, already=set())] == [
        "large_list"
    ]


def test_implementation_without_verification() -> None:
    plan = items(("Implement the parser", "pending"), ("Add CLI flag", "pending"))
    assert [r.pattern for r in todo_reflections(plan, large_list=7, already=set())] == [
        "no_verification"
    ]
    plan.append(TodoItem("Run the test suite", "pending"))
    assert todo_reflections(plan, large_list=7, already=set()) == []


def test_all_complete_while_gates_fail() -> None:
    done = items(("Implement it", "completed"), ("Run tests", "completed"))
    found = todo_reflections(
        done, large_list=7, already=set(), failing_gates=["tests fail after the latest change"]
    )
    assert [r.pattern for r in found] == ["all_complete_gates_fail"]
    assert "tests fail" in found[0].text
    assert todo_reflections(done, large_list=7, already=set(), failing_gates=[]) == []


def test_already_reflected_patterns_are_not_repeated() -> None:
    plan = items(("Implement the parser", "pending"))
    assert todo_reflections(plan, large_list=7, already={"no_verification"}) == []


def test_malformed_todo_input_is_skipped_not_fatal() -> None:
    raw = {"todos": [{"content": "ok", "status": "pending"}, "junk", {"status": "x"}, None]}
    assert parse_todos(raw) == [TodoItem("ok", "pending")]
    assert parse_todos("not a dict") == []
    assert parse_todos({"todos": "nope"}) == []
