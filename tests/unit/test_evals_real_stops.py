"""The real-stops replay's arithmetic and exit codes (the data itself never enters the repo)."""

from __future__ import annotations

import json
from pathlib import Path

from reflection_core.evals.real_stops import (
    Replay,
    Summary,
    main,
    rule_figures,
    threshold_failures,
)


def replay(should_block: bool, blocked: bool, category: str = "complete_verified") -> Replay:
    return Replay("s@1", category, should_block, "high", blocked, "")


def test_precision_recall_and_false_block_rate() -> None:
    summary = Summary(
        [replay(True, True), replay(True, False), replay(False, True), replay(False, False)]
    )
    assert summary.precision == 0.5 and summary.recall == 0.5
    assert summary.false_block_rate == 0.5
    assert summary.to_dict()["false_blocks_by_category"] == {"complete_verified": 1}
    assert threshold_failures(summary, 0.85, 0.6, 0.03) == [
        "precision 0.500 < 0.85",
        "recall 0.500 < 0.6",
        "false-block rate 0.500 > 0.03",
    ]
    assert threshold_failures(summary, 0.5, 0.5, 0.5) == []


def test_a_folder_without_cases_is_an_input_error(tmp_path: Path) -> None:
    assert main([str(tmp_path)]) == 2


def test_rule_figures_count_blocks_right_and_wrong_and_the_users_behind_them() -> None:
    rows = [
        Replay(
            "ann__repo__s1@3", "unverified_change", True, "high", True, "", None, ["tests:not_run"]
        ),
        Replay(
            "ann__repo__s2@9", "unverified_change", True, "high", True, "", None, ["tests:not_run"]
        ),
        Replay(
            "bob__repo__s1@4", "complete_verified", False, "high", True, "", None, ["tests:not_run"]
        ),
        Replay(
            "cy__repo__s1@4", "complete_verified", False, "high", False, "", None, [], ["punt:ask"]
        ),
    ]
    figures = rule_figures(rows)
    assert list(figures) == ["tests:not_run"]
    row = figures["tests:not_run"]
    assert (row.right, row.wrong, len(row.users_right), len(row.users)) == (2, 1, 1, 2)
    assert rule_figures(rows, pushed=False)["punt:ask"].wrong == 1
    assert Summary(rows).to_dict()["rules"]["tests:not_run"]["users_right"] == 1


def test_json_output_carries_the_contract_fields(tmp_path: Path) -> None:
    (tmp_path / "cases.jsonl").write_text("", encoding="utf-8")
    out = tmp_path / "out.json"
    assert main([str(tmp_path), "--half", "A", "--json", str(out)]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert {"precision", "recall", "false_block_rate", "cases", "errors"} <= set(data)
