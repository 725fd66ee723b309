from __future__ import annotations

import threading
from pathlib import Path

from reflection_core.consumers import notify_ledger as nl
from reflection_core.consumers.verdict_files import Verdict, read_verdict
from tests.verdictutil import iso_utc, write_verdict


def written(repo: Path, session: str, seconds_ago: float = 0.0, **kwargs: object) -> Verdict:
    return read_verdict(write_verdict(repo, session, created_at=iso_utc(seconds_ago), **kwargs))


def test_a_verdict_is_news_until_it_or_a_later_one_was_handled() -> None:
    handled = nl.Mark(100.0, "records/a.json")
    assert nl.is_newer(nl.Mark(100.0, "records/a.json"), None)
    assert not nl.is_newer(nl.Mark(100.0, "records/a.json"), handled)
    assert not nl.is_newer(nl.Mark(99.5, "records/z.json"), handled)
    assert nl.is_newer(nl.Mark(100.001, "records/b.json"), handled)
    assert nl.is_newer(nl.Mark(100.0, "records/b.json"), handled)  # same millisecond, new write


def test_claim_succeeds_once_per_verdict_and_only_for_newer_ones(git_repo: Path) -> None:
    older = written(git_repo, "s1", 2, record=".reflection/records/s1_a.json")
    newer = written(git_repo, "s1", 0, record=".reflection/records/s1_b.json")
    ledger = nl.Ledger.open(git_repo)
    try:
        assert ledger.claim(newer)
        assert not ledger.claim(newer)
        assert not ledger.claim(older)
        assert ledger.handled("s1") == nl.mark_of(newer)
        assert ledger.handled("other") is None
    finally:
        ledger.close()


def test_is_new_compares_with_what_was_handled_when_the_run_began(git_repo: Path) -> None:
    verdict = written(git_repo, "s2")
    earlier = nl.Ledger.open(git_repo)
    reader = nl.Ledger.open(git_repo)
    try:
        assert reader.is_new(verdict)
        assert earlier.claim(verdict)
        fresh_reader = nl.Ledger.open(git_repo)
        try:
            assert not fresh_reader.is_new(verdict)
        finally:
            fresh_reader.close()
    finally:
        earlier.close()
        reader.close()


def test_ledgers_are_per_repo(git_repo: Path, tmp_path: Path) -> None:
    other_repo = tmp_path / "other"
    other_repo.mkdir()
    verdict = written(git_repo, "same-id")
    first = nl.Ledger.open(git_repo)
    second = nl.Ledger.open(other_repo)
    try:
        assert first.claim(verdict)
        assert second.is_new(verdict)
    finally:
        first.close()
        second.close()


def test_of_many_concurrent_notifiers_exactly_one_claims_the_verdict(git_repo: Path) -> None:
    verdict = written(git_repo, "s3")
    notifiers = 8
    start = threading.Barrier(notifiers, timeout=30)  # a failed opener breaks it, not hangs
    results: list[bool] = []
    errors: list[BaseException] = []

    def claim() -> None:
        try:
            # One connection per notifier, as in separate processes.
            ledger = nl.Ledger.open(git_repo)
            try:
                start.wait()
                results.append(ledger.claim(verdict))
            finally:
                ledger.close()
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)
            start.abort()

    threads = [threading.Thread(target=claim) for _ in range(notifiers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(results) == [False] * (notifiers - 1) + [True]
