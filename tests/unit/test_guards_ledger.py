"""The test-run ledger: location, round trip, corrupt lines, rotation, concurrent writers."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import pytest

from reflection_core.guards import ledger
from reflection_core.guards.fingerprint import worktree_tree
from reflection_core.guards.ledger import Stamp
from tests.gitutil import git


def make_stamp(n: int) -> Stamp:
    return Stamp(tree=f"{n:040x}", command=f"pytest #{n}", exit_code=0, passed=True)


def test_the_ledger_lives_in_the_git_dir_like_git_path_says(git_repo: Path) -> None:
    expected = git(
        git_repo, "rev-parse", "--path-format=absolute", "--git-path", "reflection/ledger.jsonl"
    ).strip()
    assert ledger.ledger_path(git_repo) == Path(expected)


def test_a_linked_worktree_has_its_own_ledger_like_git_path_says(
    git_repo: Path, tmp_path: Path
) -> None:
    other = tmp_path / "wt"
    git(git_repo, "worktree", "add", "-q", "-b", "feat", str(other))
    expected = git(
        other, "rev-parse", "--path-format=absolute", "--git-path", "reflection/ledger.jsonl"
    ).strip()
    assert ledger.ledger_path(other).resolve() == Path(expected).resolve()
    assert not str(ledger.ledger_path(other)).startswith(str(other))


def test_record_run_fingerprints_and_round_trips(git_repo: Path) -> None:
    (git_repo / "new.py").write_text("x = 1\n")
    stamp = ledger.record_run(git_repo, "make test", 0, 1.23456, counts={"passed": 3})
    (read_back,) = ledger.read(git_repo)
    assert read_back == stamp
    assert read_back.passed and read_back.counts == {"passed": 3} and read_back.duration_s == 1.235
    assert read_back.tree == worktree_tree(git_repo)
    assert read_back.tree != git(git_repo, "rev-parse", "HEAD^{tree}").strip()  # new.py counts
    assert "python" in read_back.tool_versions and read_back.timestamp.endswith("Z")


def test_corrupt_lines_are_skipped_with_a_warning(
    git_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger.append(git_repo, make_stamp(1))
    path = ledger.ledger_path(git_repo)
    with path.open("ab") as handle:
        handle.write(b'{"tree": "abc", "comm\n\xff\xfe not json\n[1, 2]\n{"tree": "t"}\n')
    ledger.append(git_repo, make_stamp(2))
    stamps = ledger.read(git_repo)
    assert [s.command for s in stamps] == ["pytest #1", "pytest #2"]
    err = capsys.readouterr().err
    assert err.count("skipped a corrupt line") == 4
    assert "ledger.jsonl:2:" in err


def test_a_lazy_read_parses_only_the_lines_on_the_trees_asked_about(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(30):
        ledger.append(git_repo, make_stamp(n))
    decoy = Stamp(tree="f" * 40, command=f"echo {5:040x}", exit_code=1, passed=False)
    ledger.append(git_repo, decoy)  # names tree 5 in its command, runs on another tree
    ledger.append(git_repo, make_stamp(5))
    parsed: list[bytes] = []
    real_parse_line = ledger.parse_line

    def counted_parse_line(line: bytes, key: bytes | None) -> Stamp:
        parsed.append(line)
        return real_parse_line(line, key)

    monkeypatch.setattr(ledger, "parse_line", counted_parse_line)
    stamps = ledger.read_lazily(git_repo)
    found = stamps.on_trees([f"{5:040x}", f"{7:040x}", "e" * 40])
    assert [(s.tree, s.command) for s in found] == [
        (f"{5:040x}", "pytest #5"),
        (f"{7:040x}", "pytest #7"),
        (f"{5:040x}", "pytest #5"),
    ]
    assert len(parsed) == 4 and all(s.verified for s in found)
    assert [s.command for s in stamps.newest_first()][:2] == ["pytest #5", decoy.command]


def test_a_lazy_read_reports_the_corrupt_lines_it_reaches(
    git_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = ledger.ledger_path(git_repo)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"{broken\n\n")
    assert not ledger.read_lazily(git_repo)
    assert "ledger.jsonl:1: skipped a corrupt line" in capsys.readouterr().err
    ledger.append(git_repo, make_stamp(1))
    stamps = ledger.read_lazily(git_repo)
    assert stamps and [s.command for s in stamps.newest_first()] == ["pytest #1"]
    assert stamps.on_trees([f"{1:040x}"])[0].command == "pytest #1"


def test_a_truncated_last_line_is_survived(git_repo: Path) -> None:
    ledger.append(git_repo, make_stamp(1))
    path = ledger.ledger_path(git_repo)
    path.write_bytes(path.read_bytes() + make_stamp(2).to_json().encode()[:30])
    assert [s.command for s in ledger.read(git_repo, warn=False)] == ["pytest #1"]


def test_a_stamp_appended_after_a_truncated_last_line_starts_its_own_line(
    git_repo: Path,
) -> None:
    ledger.append(git_repo, make_stamp(1))
    path = ledger.ledger_path(git_repo)
    path.write_bytes(path.read_bytes() + make_stamp(2).to_json().encode()[:30])
    ledger.append(git_repo, make_stamp(3))
    assert [s.command for s in ledger.read(git_repo, warn=False)] == ["pytest #1", "pytest #3"]
    assert [s.command for s in ledger.read_lazily(git_repo, warn=False).newest_first()] == [
        "pytest #3",
        "pytest #1",
    ]


def test_rotation_keeps_the_newest_entries(git_repo: Path) -> None:
    for n in range(250):
        ledger.append(git_repo, make_stamp(n), max_entries=100)
    stamps = ledger.read(git_repo)
    assert len(stamps) <= 100
    assert stamps[-1].command == "pytest #249"
    numbers = [int(s.command.split("#")[1]) for s in stamps]
    assert numbers == sorted(numbers) and numbers == list(range(numbers[0], 250))


def _writer(root: str, worker: int, count: int) -> None:
    for n in range(count):
        ledger.append(Path(root), make_stamp(worker * 1000 + n), max_entries=100_000)


def test_concurrent_writers_lose_no_stamps(git_repo: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(git_repo), w, 50)) for w in range(4)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(60)
        assert proc.exitcode == 0
    lines = ledger.ledger_path(git_repo).read_text().splitlines()
    assert len(lines) == 200
    assert all(json.loads(line)["passed"] for line in lines)
    assert len({json.loads(line)["command"] for line in lines}) == 200


def test_concurrent_writers_with_rotation_keep_the_file_whole(git_repo: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_rotating_writer, args=(str(git_repo), w)) for w in range(3)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(60)
        assert proc.exitcode == 0
    raw = ledger.ledger_path(git_repo).read_bytes()
    stamps, warnings = ledger.parse_lines(raw)
    assert warnings == [] and 0 < len(stamps) <= 100


def _rotating_writer(root: str, worker: int) -> None:
    for n in range(120):
        ledger.append(Path(root), make_stamp(worker * 1000 + n), max_entries=100)


def test_secrets_in_the_command_are_redacted(git_repo: Path) -> None:
    token = "ghp_" + "a1" * 18
    ledger.record_run(git_repo, f"GITHUB_TOKEN={token} npm test", 0, 0.1)
    assert token not in ledger.ledger_path(git_repo).read_text()
    assert ledger.read(git_repo)[0].command == "GITHUB_TOKEN=[REDACTED] npm test"


def test_a_line_claiming_a_pass_with_a_failing_exit_code_is_not_a_pass() -> None:
    line = b'{"tree": "t", "command": "c", "exit_code": 1, "passed": true}\n'
    (stamp,), warnings = ledger.parse_lines(line)
    assert not stamp.passed and warnings == []


def test_a_stamps_payload_is_every_recorded_field_with_containers_copied() -> None:
    stamp = Stamp(
        tree="t" * 40,
        command="python -m pytest",
        exit_code=0,
        passed=True,
        counts={"passed": 3},
        tool_versions={"python": "3.11"},
        argv=["-q"],
        notes=["why"],
        mac="m",
    )
    payload = stamp.payload()
    assert set(payload) == set(Stamp._record_fields) and "verified" not in payload  # type: ignore[attr-defined]
    assert payload["counts"] == {"passed": 3} and payload["counts"] is not stamp.counts
    assert payload["argv"] == ["-q"] and payload["argv"] is not stamp.argv
    assert Stamp.from_dict(json.loads(stamp.to_json())) == stamp


@pytest.mark.parametrize(
    ("key", "message"),
    [
        (b"", b""),
        (b"k" * 32, b"stamp"),
        (b"long" * 40, b"a key longer than a block"),
        (b"\xff", b"\x00" * 500),
    ],
)
def test_the_stamp_mac_is_the_standard_hmac_sha256(key: bytes, message: bytes) -> None:
    import hashlib
    import hmac

    assert ledger.hmac_sha256(key, message) == hmac.new(key, message, hashlib.sha256).hexdigest()
