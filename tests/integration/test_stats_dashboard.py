"""The stats dashboard rendered by headless Chromium: axes, dated ticks, bars, outcomes.

With CI=true a missing Chromium fails the test; elsewhere it is skipped.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.integration.test_stats_cli import cli, seed
from tests.pngutil import read_png

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--force-device-scale-factor=1",
    "--hide-scrollbars",
)
AXIS = (26, 32, 44)  # #1a202c
STOPS, PUSHES, HELD = (43, 108, 176), (221, 107, 32), (107, 70, 193)
PASSED, FAILED = (47, 133, 90), (197, 48, 48)
PAID_OFF = (56, 161, 105)


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    if os.environ.get("CI") == "true":
        pytest.fail("chromium is not installed (apt-get install -y chromium)")
    pytest.skip("chromium is not installed")


def render(page: Path, tmp_path: Path) -> tuple[Path, str]:
    browser = chromium()
    shot = tmp_path / "dashboard.png"
    common = [browser, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    url = page.resolve().as_uri()
    subprocess.run(
        [*common, f"--screenshot={shot}", "--window-size=900,2400", url],
        capture_output=True,
        timeout=120,
        check=True,
    )
    dom = subprocess.run(
        [*common, "--dump-dom", url], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    return shot, dom


def longest_run(row: list[tuple[int, int, int]], color: tuple[int, int, int]) -> int:
    best = current = 0
    for pixel in row:
        current = current + 1 if pixel == color else 0
        best = max(best, current)
    return best


def test_the_dashboard_shows_dated_axes_bars_and_outcomes(tmp_path: Path) -> None:
    seed(tmp_path)
    page = tmp_path / "stats.html"
    assert cli("--html", str(page), "--days", "7", cwd=tmp_path).returncode == 0
    html = page.read_text(encoding="utf-8")
    assert "<script" not in html and "http" not in html.replace(
        'xmlns="http://www.w3.org/2000/svg"', ""
    )

    shot, dom = render(page, tmp_path)
    for text in (
        "Repository: shop",
        "Repository: blog",
        "Stops per day",
        "Pushed on",
        "Held for you",
        "Prompts flagged",
        "Test runs failed",
        "Push paid off",
        "Stopped too early",
        "Day (UTC)",
        time.strftime("%b %d", time.gmtime()),  # today's tick on the dated axis
    ):
        assert text in dom, text
    visible = dom.split("<body>")[-1]
    assert "block_paid_off" not in visible and "tests_failed" not in visible

    width, height, rows = read_png(shot)
    assert (width, height) == (900, 2400)
    colors = Counter(pixel for row in rows for pixel in row)
    for color in (STOPS, PUSHES, HELD, PASSED, FAILED, PAID_OFF):
        assert colors[color] > 40, color  # bars of every series are drawn
    axis_rows = [y for y, row in enumerate(rows) if longest_run(row, AXIS) > 600]
    assert len(axis_rows) >= 4  # the x axes of the per-day charts span the chart width
    axis_columns = sum(1 for x in range(width) if sum(1 for row in rows if row[x] == AXIS) > 150)
    assert axis_columns >= 2  # y axes
    keep = os.environ.get("REFLECTION_DASHBOARD_PNG")
    if keep:
        shutil.copy(shot, keep)
