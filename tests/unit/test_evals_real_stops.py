"""The real-stops replay's arithmetic and exit codes (the data itself never enters the repo)."""

from __future__ import annotations

import json
from pathlib import Path

from reflection_core.evals.real_stops import (
    Replay,
    Summary,
    gate_failures,
    main,
    render,
    repaired_transcript,
    rule_figures,
    threshold_failures,
)
from reflection_core.session.categories import GAP_WEIGHTS, rule_id


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


def test_lines_the_user_reads_are_counted_with_those_on_fine_stops() -> None:
    noted = [replay(True, False), replay(False, False), replay(False, False)]
    for r in noted:
        r.line = True
    summary = Summary([*noted, replay(False, False), replay(True, True)])
    data = summary.to_dict()
    assert (data["lines"], data["lines_on_fine_stops"]) == (3, 2)
    assert "lines the user reads on stops that stand: 3 (2 on fine stops)" in render(summary, 0)
    assert summary.fine_line_rate == 2 / 3
    assert threshold_failures(summary, 0, 0, 1, 0.5) == ["lines on fine stops 0.667 > 0.5"]
    assert threshold_failures(summary, 0, 0, 1, 0.7) == []


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


def pushed(user: str, should_block: bool, rule: str) -> Replay:
    category = "unverified_change" if should_block else "complete_verified"
    return Replay(f"{user}__repo__s@1", category, should_block, "high", True, "", None, [rule])


def test_the_gate_fails_a_pushing_rule_right_on_too_few_users_or_too_often_wrong() -> None:
    alone = sorted({rule_id(p) for p, w in GAP_WEIGHTS if w in ("hard", "once")} - {"gate_run"})
    rows = [pushed(u, True, rule) for rule in alone for u in ("ann", "bob", "cy")]
    assert gate_failures(Summary(rows), 3, 0.8) == []
    few = [r for r in rows if not (r.pushed_by == ["build:not_run"] and "cy" in r.case_id)]
    assert gate_failures(Summary(few), 3, 0.8) == [
        "gate: build:not_run pushes right on 2 users, 1.00 of its blocks (needs 3 users, 0.80)"
    ]
    wrong = rows + [pushed("dee", False, "build:not_run")] * 2
    assert gate_failures(Summary(wrong), 3, 0.8) == [
        "gate: build:not_run pushes right on 3 users, 0.60 of its blocks (needs 3 users, 0.80)"
    ]


def test_the_gate_fails_a_rule_that_may_push_alone_but_blocked_nothing() -> None:
    failures = gate_failures(Summary([]), 3, 0.8)
    assert "gate: build:not_run may push alone but blocked no stop here" in "\n".join(failures)
    assert not any("gate_run" in line for line in failures)  # the user's own gates


def test_a_redaction_marker_replays_as_the_one_word_it_replaced(tmp_path: Path) -> None:
    """`PGPASSWORD=<REDACTED> psql` ran as `PGPASSWORD=value psql`: the marker's `<`/`>` must
    not replay as redirections that write a file named `psql`, and a bare marker must
    still load as JSON."""
    from reflection_core.session.commands import classify_command

    record = (
        '{"command":"PGPASSWORD=<REDACTED> psql -f fix.sql","token":<REDACTED>,'
        '"gh":"GH_TOKEN=<REDACTED:github-token> gh repo list"}\n'
    )
    source = tmp_path / "t.jsonl"
    source.write_text(record, encoding="utf-8")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    fixed = json.loads(repaired_transcript(source, scratch).read_text(encoding="utf-8"))
    for key in ("command", "gh"):
        info = classify_command(fixed[key])
        assert "modify" not in info.kinds and info.modified_files == ()
    assert fixed["token"] == "REDACTED"
