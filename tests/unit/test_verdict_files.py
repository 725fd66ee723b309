"""Verdict files: schema-valid, atomic, redacted records, bounded, finalized on SessionEnd."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from reflection_core import config
from reflection_core.session import verdict
from reflection_core.session.decide import DecisionContext, decide
from tests.unit.sessionbuild import SessionBuilder


def schema() -> dict[str, Any]:
    text = resources.files("reflection_core.data").joinpath("verdict.schema.json").read_text()
    return dict(json.loads(text))


def validate(data: dict[str, Any]) -> None:
    jsonschema.Draft202012Validator(
        schema(), format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    ).validate(data)


def write(
    root: Path, final: str = "Changed it.", session_id: str = "sess-1", **extra: Any
) -> tuple[Path, Path]:
    session = SessionBuilder("Fix the parser bug").edit("src/p.py").build(final)
    decision = decide(session, DecisionContext(config=config.defaults()))
    return verdict.write_verdict(
        root, decision, session, extra={"session_id": session_id, "prompt_id": "p-1", **extra}
    )


def test_schema_is_valid_draft_2020_12() -> None:
    jsonschema.Draft202012Validator.check_schema(schema())


def test_written_verdict_matches_the_schema_and_links_its_record(tmp_path: Path) -> None:
    verdict_file, record_file = write(tmp_path)
    data = json.loads(verdict_file.read_text())
    validate(data)
    assert verdict_file == tmp_path / ".reflection" / "verdict_sess-1.json"
    assert (tmp_path / data["record"]) == record_file and record_file.is_file()
    assert data["status"] == "incomplete" and data["gates"]["tests"]["required"] is True
    assert data["prompt_id"] == "p-1" and data["event"] == "stop" and data["final"] is False
    record = json.loads(record_file.read_text())
    assert record["verdict"] == data and record["decision"]["task_type"] == "coding"


def test_every_status_validates(tmp_path: Path) -> None:
    complete = (
        SessionBuilder("Fix it").edit("a.py").bash("pytest -q", output="1 passed").build("Done.")
    )
    d = decide(complete, DecisionContext(config=config.defaults()))
    path, _ = verdict.write_verdict(tmp_path, d, complete, extra={"session_id": "s2"})
    validate(json.loads(path.read_text()))
    skipped = verdict.skipped_fields("ValueError: boom", 3)
    path, _ = verdict.write_fields(
        tmp_path, skipped, session_id="s3", prompt_id=None, event="stop", record_body={}
    )
    data = json.loads(path.read_text())
    validate(data)
    assert data["status"] == "skipped"


def test_secrets_are_redacted_in_the_record(tmp_path: Path) -> None:
    _, record_file = write(tmp_path, final="Used token ghp_abcdefghijklmnopqrstuvwxyz0123456789AB.")
    text = record_file.read_text()
    assert "ghp_abcdefghijklmnopqrstuvwxyz" not in text and "[REDACTED]" in text


@pytest.mark.parametrize("raw", ["../../etc/passwd", "a/b", "ses_" + "x" * 200, ""])
def test_hostile_session_ids_stay_inside_the_verdict_dir(tmp_path: Path, raw: str) -> None:
    verdict_file, record_file = write(tmp_path, session_id=raw)
    base = (tmp_path / ".reflection").resolve()
    assert verdict_file.resolve().parent == base
    assert record_file.resolve().parent == base / "records"
    validate(json.loads(verdict_file.read_text()))


def test_similar_ids_do_not_collide(tmp_path: Path) -> None:
    first, _ = write(tmp_path, session_id="ses_abc/1")
    second, _ = write(tmp_path, session_id="ses_abc_1")
    assert first != second


def test_records_are_bounded(tmp_path: Path) -> None:
    for _ in range(5):
        write(tmp_path, keep_records=3)
    assert len(list((tmp_path / ".reflection" / "records").glob("*.json"))) == 3


def test_session_end_marks_the_verdict_final(tmp_path: Path) -> None:
    write(tmp_path)
    assert verdict.finalize_verdict(tmp_path, "sess-1", reason="logout") is not None
    data = json.loads((tmp_path / ".reflection" / "verdict_sess-1.json").read_text())
    validate(data)
    assert data["final"] is True and data["end_reason"] == "logout"


def test_finalize_without_a_verdict_does_nothing(tmp_path: Path) -> None:
    assert verdict.finalize_verdict(tmp_path, "nobody", reason=None) is None
    assert not (tmp_path / ".reflection" / "verdict_nobody.json").exists()


def test_subagent_record_leaves_the_session_verdict_alone(tmp_path: Path) -> None:
    verdict_file, _ = write(tmp_path)
    before = verdict_file.read_text()
    _, record = write(tmp_path, compact=False, event="subagent-stop")
    assert verdict_file.read_text() == before and record.is_file()


def test_schema_enums_match_the_code() -> None:
    from reflection_core.config import GATE_NAMES
    from reflection_core.session.categories import CATEGORIES
    from reflection_core.session.decide import SEVERITIES

    props = schema()["properties"]
    assert set(props["stop_category"]["enum"]) == set(CATEGORIES)
    assert set(props["severity"]["enum"]) == set(SEVERITIES)
    assert set(props["gates"]["propertyNames"]["enum"]) == set(GATE_NAMES)
