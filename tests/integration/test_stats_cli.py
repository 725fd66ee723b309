"""`reflection stats` over a real state database and a real repository's test-run ledger."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from reflection_core.guards import ledger
from reflection_core.outcomes import store
from reflection_core.outcomes.grade import Graded
from tests.gitutil import make_repo

REFLECTION = str(Path(sys.executable).parent / "reflection")
DAY = 86400.0


def seed(tmp_path: Path) -> Path:
    """Two repositories' stops over the last five days, graded; two test runs today."""
    shop = make_repo(tmp_path / "shop")
    now = time.time()
    conn = store.connect()
    try:
        plan = [
            (4, "complete", False, False, Graded("premature", "reports_broken")),
            (3, "incomplete", True, False, Graded("block_paid_off", "new_check")),
            (2, "incomplete", True, False, Graded("block_wasted", "nothing_new")),
            (2, "waiting_for_user", False, True, Graded("answered", "answers_question")),
            (1, "complete", False, False, Graded("fine", "thanks")),
            (0, "incomplete", True, False, Graded("block_paid_off", "failure_found")),
        ]
        for days_ago, status, pushed, held, graded in plan:
            row = store.StopRow(
                now - days_ago * DAY,
                "",
                str(shop),
                "claude",
                "s",
                status,
                pushed,
                held,
                held,
                4,
                ("tests_after_edit",) if pushed else (),
            )
            store.set_outcome(conn, store.record_stop(conn, row), graded)
        blog = store.StopRow(
            now - DAY, "", str(tmp_path / "blog"), "codex", "t", "complete", False, False, False, 1
        )
        store.record_stop(conn, blog)
        store.record_prompt_flag(conn, str(shop), "claude", "s", now=now - 2 * DAY)
    finally:
        conn.close()
    ledger.record_run(shop, "python -m pytest", 0, 1.0, counts={"passed": 3})
    ledger.record_run(shop, "python -m pytest", 1, 1.0, counts={"failed": 1})
    return shop


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [REFLECTION, "stats", *args], capture_output=True, text=True, cwd=cwd, timeout=60
    )


def test_json_carries_the_outcome_counts_per_repository_and_host(tmp_path: Path) -> None:
    seed(tmp_path)
    data = json.loads(cli("--json", "--days", "7", cwd=tmp_path).stdout)
    assert data["outcomes"] == {
        "premature": 1,
        "fine": 1,
        "answered": 1,
        "block_paid_off": 2,
        "block_wasted": 1,
        "unknown": 0,
    }
    assert (data["stops"], data["pushes"], data["holds"], data["prompts_flagged"]) == (7, 3, 1, 1)
    assert data["estimate"]["precision"] == round(2 / 3, 3)
    assert data["estimate"]["recall"] == round(2 / 3, 3)
    by_name = {(g["repository"], g["host"]): g for g in data["repositories"]}
    assert by_name[("shop", "claude")]["tests"] == {"passed": 1, "failed": 1}
    assert by_name[("blog", "codex")]["stops"] == 1
    assert data["total"] == 0  # the prompt score keys are still there


def test_a_short_window_leaves_older_stops_out(tmp_path: Path) -> None:
    seed(tmp_path)
    data = json.loads(cli("--json", "--days", "2", cwd=tmp_path).stdout)
    assert data["stops"] == 3
    assert len(data["window"]["days"]) == 2


def test_text_report_names_counts_and_the_estimate(tmp_path: Path) -> None:
    seed(tmp_path)
    out = cli("--days", "7", cwd=tmp_path).stdout
    assert "shop (claude): 6 stops, 3 pushes, 1 holds" in out
    assert "premature 1" in out and "block_paid_off 2" in out
    assert "estimated precision 0.67 (2 of 3 pushes paid off)" in out


def test_export_writes_counts_and_rule_ids_only(tmp_path: Path) -> None:
    shop = seed(tmp_path)
    target = tmp_path / "pool.json"
    assert cli("--export", str(target), "--days", "7", cwd=tmp_path).returncode == 0
    pooled = target.read_text(encoding="utf-8")
    assert str(shop) not in pooled and "shop" not in pooled
    data = json.loads(pooled)
    assert data["outcomes"]["block_paid_off"] == 2
    assert data["rules"] == {"tests_after_edit": 3}
    assert data["outcome_rules"]["premature:reports_broken"] == 1


def test_a_bad_since_is_a_usage_error(tmp_path: Path) -> None:
    assert cli("--since", "last tuesday", cwd=tmp_path).returncode == 2
