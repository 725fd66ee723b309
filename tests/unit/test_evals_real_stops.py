"""The real-stops replay's arithmetic and exit codes (the data itself never enters the repo)."""

from __future__ import annotations

from pathlib import Path

from reflection_core.evals.real_stops import Replay, Summary, main, threshold_failures


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
