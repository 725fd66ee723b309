"""`reflection stats --html`: one self-contained page (inline SVG, no script, no assets).

Per repository and host: stops judged, pushed on and held for you per day; prompts
flagged and test runs (passed, failed) per day; what happened after the stops; the
estimated precision and recall with the counts behind them. Then the prompt scores.
Every axis is dated (UTC days) and every label is readable text.
"""

from __future__ import annotations

import calendar
import html
import math
import time
from typing import Any

from reflection_core.outcomes.grade import OUTCOMES
from reflection_core.outcomes.labels import OUTCOME_LABELS, SERIES_LABELS, readable

WIDTH, HEIGHT = 760, 250
LEFT, RIGHT, TOP, BOTTOM = 48, 16, 16, 56
COLORS = {
    "stops": "#2b6cb0",
    "pushes": "#dd6b20",
    "holds": "#6b46c1",
    "flagged": "#d69e2e",
    "tests_passed": "#2f855a",
    "tests_failed": "#c53030",
}
OUTCOME_COLORS = {
    "premature": "#c53030",
    "fine": "#2f855a",
    "answered": "#3182ce",
    "block_paid_off": "#38a169",
    "block_wasted": "#dd6b20",
    "unknown": "#a0aec0",
}
_STYLE = (
    "body{font-family:system-ui,sans-serif;margin:2rem;color:#1a202c;max-width:820px}"
    "table{border-collapse:collapse;font-size:14px}td,th{border:1px solid #cbd5e0;"
    "padding:4px 8px;text-align:right}th:first-child,td:first-child{text-align:left}"
    ".legend span{display:inline-block;margin-right:1rem;font-size:13px}"
    ".swatch{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-1px}"
    "h2{margin-top:2.5rem;border-top:1px solid #e2e8f0;padding-top:1rem}.muted{color:#4a5568}"
)


def _esc(value: object) -> str:
    return html.escape(str(value))


def _nice_max(value: int) -> int:
    if value <= 4:
        return 4
    step = 10 ** int(math.log10(value))
    return int(math.ceil(value / step) * step)


def _short_day(day: str) -> str:
    return time.strftime("%b %d", time.strptime(day, "%Y-%m-%d"))


def _axes(
    days: list[str],
    y_labels: list[str],
    inner_w: float,
    inner_h: float,
    caption: str,
    y_title: str = "Count per day",
) -> str:
    """Five y grid lines with `y_labels` (bottom up), dated x ticks, both axes, titles."""
    parts = []
    for i in range(5):
        y = TOP + inner_h * (1 - i / 4)
        parts.append(
            f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e2e8f0"/>'
            f'<text x="{LEFT - 6}" y="{y + 4:.1f}" font-size="11" text-anchor="end">'
            f"{_esc(y_labels[i])}</text>"
        )
    step = max(1, math.ceil(len(days) / 8))
    slot = inner_w / max(1, len(days))
    for i in range(0, len(days), step):
        x = LEFT + slot * (i + 0.5)
        parts.append(
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{TOP + inner_h}" y2="{TOP + inner_h + 5}" '
            f'stroke="#1a202c"/><text x="{x:.1f}" y="{TOP + inner_h + 18}" font-size="11" '
            f'text-anchor="middle">{_esc(_short_day(days[i]))}</text>'
        )
    bottom = TOP + inner_h
    parts.append(
        f'<line x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{bottom}" stroke="#1a202c"/>'
        f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{bottom}" y2="{bottom}" stroke="#1a202c"/>'
        f'<text x="{LEFT + inner_w / 2:.1f}" y="{HEIGHT - 10}" font-size="12" '
        f'text-anchor="middle">{_esc(caption)}</text>'
        f'<text x="12" y="{TOP + inner_h / 2:.1f}" font-size="12" text-anchor="middle" '
        f'transform="rotate(-90 12 {TOP + inner_h / 2:.1f})">{_esc(y_title)}</text>'
    )
    return "".join(parts)


def daily_chart(title: str, days: list[str], series: dict[str, list[int]], names: list[str]) -> str:
    """Grouped bars per UTC day for the `names` series, on dated axes, with a legend."""
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    top = _nice_max(max((v for n in names for v in series[n]), default=0))
    slot = inner_w / max(1, len(days))
    bar = slot * 0.8 / len(names)
    bars = []
    for n_index, name in enumerate(names):
        for d_index, value in enumerate(series[name]):
            if not value:
                continue
            h = inner_h * value / top
            x = LEFT + slot * d_index + slot * 0.1 + bar * n_index
            bars.append(
                f'<rect x="{x:.1f}" y="{TOP + inner_h - h:.1f}" width="{max(bar, 1.5):.1f}" '
                f'height="{h:.1f}" fill="{COLORS[name]}"><title>{_esc(days[d_index])}: '
                f"{value} {_esc(SERIES_LABELS[name].lower())}</title></rect>"
            )
    caption = f"Day (UTC), {days[0]} to {days[-1]}" if days else "Day (UTC)"
    legend = "".join(
        f'<span><i class="swatch" style="background:{COLORS[n]}"></i>{_esc(SERIES_LABELS[n])}'
        f"</span>"
        for n in names
    )
    return (
        f'<h3>{_esc(title)}</h3><div class="legend">{legend}</div>'
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" role="img" '
        'shape-rendering="crispEdges" '
        f'aria-label="{_esc(title)}">'
        f"{_axes(days, [str(top * i // 4) for i in range(5)], inner_w, inner_h, caption)}"
        f"{''.join(bars)}</svg>"
    )


def outcome_chart(outcomes: dict[str, int]) -> str:
    """Horizontal bars: how many stops had each outcome, with readable names."""
    bar_h, gap, label_w = 20, 8, 250
    top = max(max(outcomes.values(), default=0), 1)
    rows = []
    for index, name in enumerate(OUTCOMES):
        count = outcomes.get(name, 0)
        y = gap + index * (bar_h + gap)
        width = (WIDTH - label_w - 60) * count / top
        rows.append(
            f'<text x="0" y="{y + 15}" font-size="13">{_esc(OUTCOME_LABELS[name])}</text>'
            f'<rect x="{label_w}" y="{y}" width="{width:.1f}" height="{bar_h}" '
            f'fill="{OUTCOME_COLORS[name]}"/>'
            f'<text x="{label_w + width + 6:.1f}" y="{y + 15}" font-size="13">{count}</text>'
        )
    height = len(OUTCOMES) * (bar_h + gap) + gap
    axis = f'<line x1="{label_w}" x2="{label_w}" y1="0" y2="{height}" stroke="#1a202c"/>'
    return (
        f'<h3>What happened after the stops</h3><svg xmlns="http://www.w3.org/2000/svg" '
        f'width="{WIDTH}" height="{height}" role="img" aria-label="outcomes" '
        f'shape-rendering="crispEdges">{axis}'
        f"{''.join(rows)}</svg>"
    )


def _estimate_text(estimate: dict[str, Any]) -> tuple[str, str]:
    paid, wasted = estimate["pushes_paid_off"], estimate["pushes_wasted"]
    missed = estimate["premature_let_through"]
    precision = estimate["precision"]
    recall = estimate["recall"]
    p = f"{precision:.2f}" if precision is not None else "n/a"
    r = f"{recall:.2f}" if recall is not None else "n/a"
    return (
        f"{p} ({paid} paid off of {paid + wasted} pushes)",
        f"{r} ({paid} of {paid + missed} stops that needed a push)",
    )


def summary_table(groups: list[dict[str, Any]]) -> str:
    head = (
        "<tr><th>Repository</th><th>Host</th><th>Stops judged</th><th>Pushed on</th>"
        "<th>Held for you</th><th>Prompts flagged</th><th>Test runs passed</th>"
        "<th>Test runs failed</th><th>Stopped too early</th><th>Push paid off</th>"
        "<th>Push wasted</th></tr>"
    )
    rows = "".join(
        f"<tr><td>{_esc(g['repository'])}</td><td>{_esc(g['host'])}</td><td>{g['stops']}</td>"
        f"<td>{g['pushes']}</td><td>{g['holds']}</td><td>{g['prompts_flagged']}</td>"
        f"<td>{g['tests']['passed']}</td><td>{g['tests']['failed']}</td>"
        f"<td>{g['outcomes']['premature']}</td><td>{g['outcomes']['block_paid_off']}</td>"
        f"<td>{g['outcomes']['block_wasted']}</td></tr>"
        for g in groups
    )
    return f"<table>{head}{rows}</table>"


def repository_section(group: dict[str, Any], days: list[str]) -> str:
    precision, recall = _estimate_text(group["estimate"])
    daily = group["daily"]
    return (
        f"<h2>Repository: {_esc(group['repository'])} "
        f'<span class="muted">({_esc(group["host"])})</span></h2>'
        f'<p class="muted">{_esc(group["path"])}</p>'
        f"<p>Estimated precision of the pushes: <b>{_esc(precision)}</b><br>"
        f"Estimated recall: <b>{_esc(recall)}</b></p>"
        + daily_chart("Stops per day", days, daily, ["stops", "pushes", "holds"])
        + daily_chart(
            "Prompts flagged and test runs per day",
            days,
            daily,
            ["flagged", "tests_passed", "tests_failed"],
        )
        + outcome_chart(group["outcomes"])
    )


def score_chart(days: list[str], points: list[tuple[float, float]]) -> str:
    """Each prompt's score (1 to 5) at its time, on the window's dated axis."""
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    start = calendar.timegm(time.strptime(days[0], "%Y-%m-%d"))
    span = len(days) * 86400.0

    def xy(at: float, score: float) -> tuple[float, float]:
        x = LEFT + inner_w * min(max((at - start) / span, 0.0), 1.0)
        return x, TOP + inner_h * (5.0 - score) / 4.0

    placed = [xy(at, score) for at, score in points]
    line = " ".join(f"{x:.1f},{y:.1f}" for x, y in placed)
    dots = "".join(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="#2b6cb0"/>' for x, y in placed)
    caption = f"Day (UTC), {days[0]} to {days[-1]}"
    axes = _axes(days, ["1", "2", "3", "4", "5"], inner_w, inner_h, caption, "Score (1 to 5)")
    return (
        f'<h3>Prompt scores over time</h3><svg xmlns="http://www.w3.org/2000/svg" '
        f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-label="prompt scores">{axes}'
        f'<polyline fill="none" stroke="#2b6cb0" stroke-width="2" points="{line}"/>{dots}</svg>'
    )


def prompt_section(
    prompts: dict[str, Any], days: list[str], points: list[tuple[float, float]]
) -> str:
    """The prompt scores (not per repository: the prompt history has none)."""
    if not prompts.get("total"):
        return "<h2>Prompt scores</h2><p>No prompts scored yet.</p>"
    chart = score_chart(days, points) if points and days else ""
    rows = "".join(
        f"<tr><td>{_esc(e['created_at'][:16].replace('T', ' '))}</td><td>{e['score']:.1f}</td>"
        f"<td>{_esc(readable(e['classification']))}</td>"
        f"<td>{_esc(', '.join(readable(s) for s in e['smells']) or 'none')}</td></tr>"
        for e in prompts["last_scores"]
    )
    smells = "".join(
        f"<tr><td>{_esc(readable(name))}</td><td>{count}</td></tr>"
        for name, count in prompts["smell_histogram"].items()
    )
    average = prompts.get("average")
    return (
        f"<h2>Prompt scores</h2><p>Prompts scored: <b>{prompts['total']}</b> · average "
        f"<b>{average if average is not None else 'n/a'}</b> · trend "
        f"<b>{_esc(prompts['trend'])}</b></p>{chart}"
        "<h3>Latest prompts</h3><table><tr><th>When (UTC)</th><th>Score (1 to 5)</th>"
        "<th>Kind</th><th>Smells</th>"
        f"</tr>{rows}</table><h3>Smells found</h3>"
        + (
            f"<table><tr><th>Smell</th><th>Prompts</th></tr>{smells}</table>"
            if smells
            else "<p>No smells recorded.</p>"
        )
    )


def html_page(
    summary: dict[str, Any],
    prompts: dict[str, Any],
    score_points: list[tuple[float, float]] | None = None,
) -> str:
    """The whole self-contained page; `score_points` are (time, score) in the window."""
    window = summary["window"]
    days = window["days"]
    groups = summary["repositories"]
    precision, recall = _estimate_text(summary["estimate"])
    body = "".join(repository_section(g, days) for g in groups) or (
        "<p>No stops judged in this window: the Stop hook records them as you work.</p>"
    )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>reflection: stats</title>
<style>{_STYLE}</style></head><body>
<h1>reflection: what the hooks did</h1>
<p>From <b>{_esc(window["since"])}</b> to <b>{_esc(window["until"])}</b> ({len(days)} days, UTC)
· {summary["stops"]} stops judged · {summary["pushes"]} pushed on · {summary["holds"]} held for
you · {summary["prompts_flagged"]} prompts flagged.</p>
<p>Estimated precision of the pushes on this machine: <b>{_esc(precision)}</b><br>
Estimated recall: <b>{_esc(recall)}</b></p>
{summary_table(groups) if groups else ""}
{body}
{prompt_section(prompts, days, score_points or [])}
</body></html>
"""
