"""`reflection score` and `reflection stats` through the console script."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from tests.unit.test_prompt_score import CONTRACT_KEYS as CONTRACT

REFLECTION = str(Path(sys.executable).parent / "reflection")


def _cli(
    *args: str, stdin: bytes = b"", cwd: Path | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [REFLECTION, *args], input=stdin, capture_output=True, cwd=cwd, timeout=60
    )


def test_score_json_has_the_contract_fields(tmp_path: Path) -> None:
    proc = _cli("score", "add pagination to this file", "--json", cwd=tmp_path)
    assert proc.returncode == 0
    data = json.loads(proc.stdout)
    assert set(data) >= CONTRACT
    assert data["action"] == "ask"


def test_score_reads_stdin_when_prompt_is_omitted(tmp_path: Path) -> None:
    proc = _cli("score", "--json", stdin=b"make everything in this file better", cwd=tmp_path)
    assert json.loads(proc.stdout)["action"] == "reformulate"


def test_score_prev_assistant_enables_live_context(tmp_path: Path) -> None:
    prev = "Options:\n1. cache\n2. replica\n3. index"
    proc = _cli("score", "revert a91f3e0", "--prev-assistant", prev, "--json", cwd=tmp_path)
    assert json.loads(proc.stdout)["live_context_bonus"] is True


def test_score_of_an_empty_prompt_is_a_usage_error_not_a_bypass(tmp_path: Path) -> None:
    for args, stdin in ((("score",), b""), (("score", "   "), b"")):
        proc = _cli(*args, stdin=stdin, cwd=tmp_path)
        assert proc.returncode == 2
        assert b"the prompt is empty" in proc.stderr
        assert proc.stdout == b""


def test_score_human_report_is_compact_and_shows_questions(tmp_path: Path) -> None:
    proc = _cli("score", "fix the bug in this file", cwd=tmp_path)
    text = proc.stdout.decode()
    assert proc.returncode == 0
    assert text.startswith("reflection: prompt ")
    assert "smell bug_without_repro" in text
    assert "To do this well I need" in text


def test_score_jsonl_yields_one_result_per_line_and_errors_for_bad_lines(tmp_path: Path) -> None:
    batch = tmp_path / "batch.jsonl"
    batch.write_bytes(
        b'{"prompt": "add caching to this file"}\n'
        b"not json\n"
        b"\n"
        b'{"prompt": "1 and 3", "prev_assistant": "1. a\\n2. b\\n3. c", "id": "x"}\n'
        b'{"prompt": 5}\n'
        b'{"prompt": "fix \xff bytes in src/a.py"}\n'
        b'{"prompt": "fix \\ud800 surrogates in src/a.py"}\n'
    )
    proc = _cli("score", "--jsonl", str(batch), cwd=tmp_path)
    assert proc.returncode == 0
    lines = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    assert len(lines) == 6
    assert lines[0]["action"] == "ask"
    assert lines[1] == {"line": 2, "error": lines[1]["error"]}
    assert "not valid JSON" in lines[1]["error"]
    assert lines[2]["id"] == "x" and lines[2]["skipped"] is True
    assert lines[3]["line"] == 5
    assert set(lines[4]) >= CONTRACT
    assert set(lines[5]) >= CONTRACT


def test_score_jsonl_reads_stdin_with_dash(tmp_path: Path) -> None:
    proc = _cli("score", "--jsonl", "-", stdin=b'{"prompt": "go ahead"}\n', cwd=tmp_path)
    assert json.loads(proc.stdout)["skipped"] is True


def test_score_jsonl_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    proc = _cli("score", "--jsonl", str(tmp_path / "nope.jsonl"), cwd=tmp_path)
    assert proc.returncode == 2
    assert b"does not exist" in proc.stderr  # click names it


def test_score_jsonl_batch_runs_without_importing_click(tmp_path: Path) -> None:
    batch = tmp_path / "batch.jsonl"
    batch.write_text('{"prompt": "fix the login form"}\n', encoding="utf-8")
    probe = (
        "import sys; from reflection_core.entry import main; "
        f"code = main(['score', '--jsonl', {str(batch)!r}]); "
        "print('click' in sys.modules, code, file=sys.stderr)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, cwd=tmp_path, timeout=60
    )
    assert proc.stderr.decode().split() == ["False", "0"]
    assert json.loads(proc.stdout)["action"]


def test_score_jsonl_into_a_reader_that_stops_early_ends_quietly(tmp_path: Path) -> None:
    batch = tmp_path / "batch.jsonl"
    line = json.dumps({"prompt": "add retries to the upload client in net/upload.py"})
    batch.write_text((line + "\n") * 2000, encoding="utf-8")  # far more than a pipe holds
    proc = subprocess.Popen(
        [REFLECTION, "score", "--jsonl", str(batch)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert json.loads(proc.stdout.readline())["action"]  # `| head -1`
    proc.stdout.close()
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141  # as a shell reports a command a closed pipe ended
    assert stderr == ""  # no traceback, no "Exception ignored" at exit


def test_score_jsonl_with_a_bad_config_is_a_usage_error(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".reflection.yaml").write_text("prompt:\n  max_chars: many\n")
    batch = tmp_path / "batch.jsonl"
    batch.write_text('{"prompt": "fix the login form"}\n', encoding="utf-8")
    proc = _cli("score", "--jsonl", str(batch), cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.decode().startswith("reflection: configuration error:")


def test_stats_with_no_history_says_so_and_creates_nothing(isolated_state: Path) -> None:
    proc = _cli("stats")
    assert proc.returncode == 0
    assert "no prompts scored yet" in proc.stdout.decode()
    assert not (isolated_state / "state.db").exists()


def test_stats_json_and_html_page(isolated_state: Path, tmp_path: Path) -> None:
    from reflection_core.prompt import history

    now = time.time()
    conn = history.connect()
    try:
        for index, score in enumerate([2.0, 2.1, 2.4, 2.2, 2.0, 3.5, 3.9, 4.2, 4.4, 4.6, 4.8]):
            smells = ["vague_improvement"] if index < 4 else []
            history.record(conn, "s", score, "pass", "backend", smells, now=now - 3600 + index)
    finally:
        conn.close()
    page = tmp_path / "stats.html"
    proc = _cli("stats", "--json", "--html", str(page))
    data = json.loads(proc.stdout)
    assert data["total"] == 11
    assert len(data["last_scores"]) == 10
    assert data["trend"] == "rising"
    assert data["smell_histogram"] == {"vague_improvement": 4}
    html = page.read_text(encoding="utf-8")
    assert html.count("<svg") == 1  # the score chart; no stops yet, so no stop charts
    assert html.count("<circle") == 11  # every score in the window, on its dated axis
    assert "Vague improvement" in html and "vague_improvement" not in html  # readable labels
    assert "http" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")  # self-contained

    text = _cli("stats").stdout.decode()
    assert "trend: rising" in text
    assert "vague_improvement" in text
