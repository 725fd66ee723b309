"""The turn reader's cost eval over a folder of stops (synthetic transcripts, no real data)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reflection_core.evals.trace_cost import main, percentiles
from reflection_core.evals.transcript_builder import build_records, write_jsonl


def _stops(folder: Path, searches: list[int]) -> Path:
    """One stop per entry: that many searches with long results, then an edit and a test."""
    cases = []
    for n, count in enumerate(searches):
        output = "\n".join(f"src/mod_{i}.py:{i}: def handler(request):" for i in range(40))
        steps = [{"bash": f"grep -rn handler_{i} src", "output": output} for i in range(count)]
        steps += [{"edit": "src/app.py"}, {"bash": "python -m pytest -q", "output": "3 passed"}]
        spec = {
            "task": "Make the handler return 404 for unknown ids.",
            "steps": steps,
            "final": "Unknown ids now get a 404.",
        }
        write_jsonl(build_records(spec), folder / "transcripts" / f"s{n}.jsonl")
        cases.append({"id": f"u{n}__repo__s@1", "transcript": f"transcripts/s{n}.jsonl"})
    (folder / "cases.jsonl").write_text("\n".join(json.dumps(c) for c in cases), "utf-8")
    return folder


def test_percentiles_are_the_median_the_nearest_rank_p90_and_the_max() -> None:
    assert percentiles([5, 1, 3, 2, 4, 6, 7, 8, 9, 10]) == {"median": 5.5, "p90": 9, "max": 10}
    assert percentiles([]) == {"median": 0, "p90": 0, "max": 0}


def test_the_eval_reports_trace_sizes_within_the_cap_and_the_cost_per_stop(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _stops(tmp_path, [1, 2, 200])
    out = tmp_path / "summary.json"
    assert main([str(folder), "--cap", "1500", "--json", str(out)]) == 0
    summary = json.loads(out.read_text("utf-8"))
    assert summary["stops"] == 3 and summary["errors"] == 0
    assert summary["cut_by_cap"] == 1  # only the long turn
    assert summary["trace_tokens"]["max"] <= 1500 < summary["uncapped_trace_tokens"]["max"]
    assert summary["usd_per_stop"]["max"] > summary["usd_per_stop"]["median"] > 0
    assert "cut by the cap on 1" in capsys.readouterr().out


def test_a_folder_without_cases_is_an_input_error(tmp_path: Path) -> None:
    assert main([str(tmp_path)]) == 2
