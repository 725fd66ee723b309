"""`@record` builds the hook's classes as `dataclasses.dataclass` would, for what they use."""

from __future__ import annotations

import pytest

from reflection_core.records import NamedTuple, asdict, field, record, replace


@record(frozen=True, eq=False)
class _Base:
    """A frozen base with a required and a defaulted field."""

    name: str
    size: int = 0


@record(frozen=True, kw_only=True, eq=False)
class _Child(_Base):
    """Adds a field with a factory: every instance gets its own list."""

    tags: list[str] = field(default_factory=list)
    secret: str = field(default="", repr=False)


@record
class _Plain:
    """Mutable, compared by value."""

    items: dict[str, int] = field(default_factory=dict)
    label: str | None = None


def test_a_record_takes_positional_and_keyword_arguments_with_defaults() -> None:
    base = _Base("a")
    assert (base.name, base.size) == ("a", 0)
    child = _Child(name="b", size=2, tags=["x"])
    assert (child.name, child.size, child.tags, child.secret) == ("b", 2, ["x"], "")


def test_default_factories_give_every_instance_its_own_value() -> None:
    first, second = _Child(name="a"), _Child(name="b")
    first.tags.append("x")
    assert second.tags == []


def test_a_missing_or_unknown_argument_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="name"):
        _Base()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="colour"):
        _Base("a", colour="red")  # type: ignore[call-arg]


def test_a_frozen_record_refuses_assignment() -> None:
    base = _Base("a")
    with pytest.raises(AttributeError):
        base.name = "b"  # type: ignore[misc]


def test_records_compare_by_value_unless_eq_is_off() -> None:
    assert _Plain({"a": 1}, "x") == _Plain(items={"a": 1}, label="x")
    assert _Plain(label="x") != _Plain(label="y")
    assert _Base("a") != _Base("a")  # eq=False: identity, as the events use


def test_the_repr_names_the_fields_and_hides_repr_false_ones() -> None:
    assert repr(_Child(name="a", secret="s3cret")) == "_Child(name='a', size=0, tags=[])"


def test_replace_copies_a_record_with_some_fields_changed() -> None:
    child = _Child(name="a", size=1, tags=["x"])
    changed = replace(child, size=2)
    assert (changed.name, changed.size, changed.tags) == ("a", 2, ["x"])
    assert child.size == 1


class _Point(NamedTuple):
    """A named tuple with a default and a method."""

    x: int
    y: int = 0

    def moved(self, by: int) -> _Point:
        return self._replace(x=self.x + by)


def test_a_named_tuple_has_its_fields_defaults_methods_and_docstring() -> None:
    point = _Point(1)
    assert point == (1, 0) and isinstance(point, tuple)
    assert (point.x, point.y) == (1, 0)
    assert point.moved(2) == _Point(3, 0)
    assert _Point._fields == ("x", "y")
    assert _Point.__doc__ == "A named tuple with a default and a method."
    assert _Point.__name__ == "_Point" and _Point.__module__ == __name__


@record(frozen=True)
class _Checked:
    """Refuses a negative size once its fields are set, as a dataclass's __post_init__ would."""

    size: int

    def __post_init__(self) -> None:
        if self.size < 0:
            raise ValueError("negative size")


def test_post_init_runs_once_the_fields_are_set() -> None:
    assert _Checked(1).size == 1
    with pytest.raises(ValueError, match="negative"):
        _Checked(-1)


@record
class _Bag:
    """Records inside a list and a tuple."""

    children: list[_Child]
    pair: tuple[_Plain, ...] = ()


def test_asdict_converts_nested_records_lists_and_tuples_in_field_order() -> None:
    bag = _Bag([_Child(name="a", tags=["t"])], (_Plain(items={"a": 1}, label="x"),))
    assert asdict(bag) == {
        "children": [{"name": "a", "size": 0, "tags": ["t"], "secret": ""}],
        "pair": ({"items": {"a": 1}, "label": "x"},),
    }
    assert list(asdict(bag)["children"][0]) == ["name", "size", "tags", "secret"]
