from __future__ import annotations

import json
import os
import threading
import time
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from reflection_core.cli.verdict_cmd import EXIT_TIMEOUT
from reflection_core.cli.verdict_cmd import command as verdict_command
from reflection_core.consumers import verdict_files as vf
from tests.verdictutil import iso_utc, verdict_data, write_verdict


def test_latest_verdict_reads_the_session_file_by_its_safe_name(git_repo: Path) -> None:
    path = write_verdict(git_repo, "../../etc/passwd", complete=True)
    assert path.parent == git_repo / ".reflection"
    verdict = vf.latest_verdict(git_repo, "../../etc/passwd")
    assert verdict is not None and verdict.complete and verdict.path == path


def test_hand_written_test_verdicts_match_the_published_schema() -> None:
    schema = json.loads(
        resources.files("reflection_core").joinpath("data/verdict.schema.json").read_text("utf-8")
    )
    jsonschema.validate(verdict_data("s", complete=False), schema)
    jsonschema.validate(verdict_data("s", complete=True), schema)


def test_list_verdicts_is_newest_first_and_reports_broken_files(git_repo: Path) -> None:
    write_verdict(git_repo, "old", created_at=iso_utc(120))
    write_verdict(git_repo, "new", created_at=iso_utc(1))
    (git_repo / ".reflection" / "verdict_torn.json").write_text('{"status": "comp', "utf-8")
    (git_repo / ".reflection" / "verdict_bad.json").write_bytes(b"\xff\xfe[1, 2]")
    verdicts, problems = vf.list_verdicts(git_repo)
    assert [v.session_id for v in verdicts] == ["new", "old"]
    assert len(problems) == 2
    assert any("verdict_torn.json" in p and "not valid JSON" in p for p in problems)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"status": "done"}, "status 'done'"),
        ({"complete": "yes"}, "'complete' must be true or false"),
        ({"created_at": "yesterday"}, "bad created_at"),
    ],
)
def test_parse_verdict_names_the_bad_field(change: dict, message: str, tmp_path: Path) -> None:
    data = {"status": "complete", "complete": True, "created_at": iso_utc(), **change}
    with pytest.raises(vf.VerdictError, match=message):
        vf.parse_verdict(json.dumps(data).encode(), tmp_path / "verdict_x.json")


def test_fresh_means_recent_and_not_before_the_reader_started(tmp_path: Path) -> None:
    now = time.time()
    raw = json.dumps({"status": "complete", "complete": True, "created_at": iso_utc(5)})
    verdict = vf.parse_verdict(raw.encode(), tmp_path / "v.json")
    assert vf.is_fresh(verdict, now=now, stale_seconds=30)
    assert not vf.is_fresh(verdict, now=now, stale_seconds=2)
    assert not vf.is_fresh(verdict, now=now, stale_seconds=30, since=now - 1)
    assert vf.is_fresh(verdict, now=now, stale_seconds=30, since=now - 10)


def test_wait_returns_the_verdict_a_parallel_writer_produces(git_repo: Path) -> None:
    write_verdict(git_repo, "s1", complete=False, created_at=iso_utc(60))
    started = time.time()
    writer = threading.Timer(0.3, lambda: write_verdict(git_repo, "s1", complete=True))
    writer.start()
    try:
        found = vf.wait_for_verdict(git_repo, "s1", since=started, timeout=5, stale_seconds=30)
    finally:
        writer.join()
    assert found is not None and found.complete


def test_wait_ignores_a_stale_verdict_and_times_out(git_repo: Path) -> None:
    write_verdict(git_repo, "s1", complete=True, created_at=iso_utc(45))
    found = vf.wait_for_verdict(
        git_repo, "s1", since=time.time() - 100, timeout=0.3, stale_seconds=30
    )
    assert found is None


def test_check_verdict_passes_only_a_complete_verdict(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(git_repo)
    write_verdict(git_repo, "s1", complete=True)
    assert vf.check_verdict("s1", ci=False) == 0
    write_verdict(git_repo, "s2", complete=False)
    assert vf.check_verdict("s2", ci=True) == 1
    out = capsys.readouterr()
    assert "::error::" in out.out and "tests did not run" in out.out
    assert "run python -m pytest -q" in out.err


def test_check_verdict_fails_when_no_verdict_exists(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(git_repo)
    assert vf.check_verdict(None, ci=False) == 1
    assert "no verdict" in capsys.readouterr().err


def test_verdict_cli_show_list_and_wait_exit_codes(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(git_repo)
    runner = CliRunner()
    assert runner.invoke(verdict_command, ["show"]).exit_code == 1
    write_verdict(git_repo, "done-1", complete=True)
    write_verdict(git_repo, "open-1", complete=False, created_at=iso_utc(2))

    shown = runner.invoke(verdict_command, ["show", "--session", "open-1", "--json"])
    assert shown.exit_code == 0
    assert json.loads(shown.output)["missing"] == ["tests did not run after the latest edit"]

    listed = runner.invoke(verdict_command, ["list", "--json"])
    assert [v["session_id"] for v in json.loads(listed.output)] == ["done-1", "open-1"]
    table = runner.invoke(verdict_command, ["list"]).output
    assert "incomplete" in table and "done-1" in table

    since = str(time.time() - 10)
    waited = runner.invoke(verdict_command, ["wait", "--session", "open-1", "--since", since])
    assert waited.exit_code == 1
    waited = runner.invoke(verdict_command, ["wait", "--session", "done-1", "--since", since])
    assert waited.exit_code == 0
    timed_out = runner.invoke(verdict_command, ["wait", "--session", "x", "--timeout", "0.2"])
    assert timed_out.exit_code == EXIT_TIMEOUT


def test_wait_takes_a_verdict_written_just_before_it_started_but_not_an_old_one(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(git_repo)
    runner = CliRunner()
    write_verdict(git_repo, "race-1", complete=True, created_at=iso_utc(1))
    write_verdict(git_repo, "old-1", complete=True, created_at=iso_utc(20))
    assert runner.invoke(verdict_command, ["wait", "--session", "race-1"]).exit_code == 0
    waited = runner.invoke(verdict_command, ["wait", "--session", "old-1", "--timeout", "0.3"])
    assert waited.exit_code == EXIT_TIMEOUT


def test_readers_never_see_a_torn_verdict_while_a_writer_rewrites_it(git_repo: Path) -> None:
    stop = threading.Event()

    def rewrite() -> None:
        flip = False
        while not stop.is_set():
            write_verdict(git_repo, "busy", complete=flip, missing=["x" * 5000] * (not flip))
            flip = not flip

    write_verdict(git_repo, "busy", complete=True)
    writer = threading.Thread(target=rewrite)
    writer.start()
    try:
        seen = []
        for _ in range(300):
            verdict = vf.latest_verdict(git_repo, "busy")
            assert verdict is not None
            seen.append(verdict.complete)
    finally:
        stop.set()
        writer.join()
    assert len(seen) == 300  # every read parsed; a torn file would have raised VerdictError


def test_pick_noted_takes_the_first_note_or_the_named_sessions() -> None:
    def noted(session: str) -> vf.Verdict:
        raw = json.dumps(verdict_data(session)).encode()
        return vf.parse_verdict(raw, Path(f"refs/notes/reflection:{session}"))

    head, pr_head = noted("on-head"), noted("on-pr-head")
    assert vf.pick_noted([head, pr_head], None) is head
    assert vf.pick_noted([head, pr_head], "on-pr-head") is pr_head
    assert vf.pick_noted([head, pr_head], "elsewhere") is None
    assert vf.pick_noted([], None) is None


FUTURE = "2099-01-01T00:00:00.000Z"


def test_a_verdict_dated_in_the_future_is_never_fresh_nor_the_newest(git_repo: Path) -> None:
    write_verdict(git_repo, "real", complete=False, created_at=iso_utc(3))
    write_verdict(git_repo, "skewed", complete=False, created_at=iso_utc(-60))  # clock skew
    write_verdict(git_repo, "future", complete=True, created_at=FUTURE)
    verdicts, problems = vf.list_verdicts(git_repo)
    assert [v.session_id for v in verdicts] == ["skewed", "real"]
    assert len(problems) == 1 and "verdict_future.json" in problems[0]
    assert "in the future" in problems[0]
    assert vf.latest_verdict(git_repo).session_id == "skewed"  # type: ignore[union-attr]
    with pytest.raises(vf.VerdictError, match="in the future"):
        vf.latest_verdict(git_repo, "future")
    ahead = vf.parse_verdict(json.dumps(verdict_data("f", created_at=FUTURE)).encode(), Path("f"))
    assert not vf.is_fresh(ahead, now=time.time(), stale_seconds=30)
    found = vf.wait_for_verdict(git_repo, "future", since=0, timeout=0.2, stale_seconds=1e12)
    assert found is None


def test_mcp_latest_verdict_skips_a_verdict_from_the_future(git_repo: Path) -> None:
    from reflection_core.consumers import mcp_server

    write_verdict(git_repo, "real", complete=False, created_at=iso_utc(3))
    write_verdict(git_repo, "future", complete=True, created_at=FUTURE)
    assert mcp_server.latest_verdict(repo=str(git_repo))["session_id"] == "real"


def test_committed_verdict_names_reads_git_ls_files_output() -> None:
    listed = b".reflection/verdict_a.json\0.reflection/records/x.json\0.reflection/notes.txt\0"
    assert vf.committed_verdict_names(listed) == frozenset({"verdict_a.json"})
    assert vf.committed_verdict_names(b"") == frozenset()
    assert vf.committed_verdict_names(b".reflection\0") is None  # the directory is a link


def test_nesting_is_counted_without_recursion() -> None:
    deep: list = []
    for _ in range(10_000):
        deep = [deep]
    assert vf.nesting({"a": 1}) == 1
    assert vf.nesting({"gates": {"tests": {"evidence": "x"}}}) == 3
    assert vf.nesting(deep) > vf.MAX_VERDICT_DEPTH


def test_hostile_verdict_files_are_refused_before_they_are_read(git_repo: Path) -> None:
    directory = git_repo / ".reflection"
    directory.mkdir()
    (directory / "verdict_zero.json").symlink_to("/dev/zero")
    os.mkfifo(directory / "verdict_fifo.json")  # opening it must not block
    with open(directory / "verdict_huge.json", "wb") as sparse:
        sparse.truncate(vf.MAX_VERDICT_BYTES + 1)
    (directory / "verdict_deep.json").write_text("[" * 100_000 + "]" * 100_000, "utf-8")
    deep_object = {"status": "complete", "complete": True, "created_at": iso_utc(), "x": []}
    for _ in range(40):
        deep_object["x"] = [deep_object["x"]]
    (directory / "verdict_nested.json").write_text(json.dumps(deep_object), "utf-8")
    write_verdict(git_repo, "real", complete=True)
    verdicts, problems = vf.list_verdicts(git_repo)
    assert [v.session_id for v in verdicts] == ["real"]
    by_file = {p.split(": ", 1)[0].rsplit("/", 1)[-1]: p for p in problems}
    assert "symbolic link" in by_file["verdict_zero.json"]
    assert "not a regular file" in by_file["verdict_fifo.json"]
    assert "larger than a verdict can be" in by_file["verdict_huge.json"]
    assert "nested too deeply" in by_file["verdict_deep.json"]
    assert "nested deeper than 32 levels" in by_file["verdict_nested.json"]
