"""Render the prompt history summary: plain text and a self-contained HTML page.

The HTML page has no external assets: an inline SVG score trend line and an
inline SVG smell histogram, so it can be opened offline or attached anywhere.
"""

from __future__ import annotations

import html

from reflection_core.prompt.history import Summary

_WIDTH = 560
_HEIGHT = 180
_PAD = 28


def text(summary: Summary) -> str:
    if not summary.total:
        return "reflection: no prompts scored yet (the prompt hook records them as you work)."
    scores = " ".join(f"{e.score:.1f}" for e in summary.recent)
    lines = [
        f"prompts scored: {summary.total}   average: {summary.average:.2f}   "
        f"trend: {summary.trend}",
        f"last {len(summary.recent)} scores (oldest first): {scores}",
    ]
    if summary.smell_histogram:
        lines.append("smells:")
        width = max(len(name) for name in summary.smell_histogram)
        top = max(summary.smell_histogram.values())
        for name, count in summary.smell_histogram.items():
            bar = "#" * max(1, round(20 * count / top))
            lines.append(f"  {name:<{width}}  {count:>4}  {bar}")
    else:
        lines.append("smells: none recorded")
    return "\n".join(lines)


def trend_svg(scores: list[float]) -> str:
    """A polyline of scores on a 1-5 axis."""
    inner_w, inner_h = _WIDTH - 2 * _PAD, _HEIGHT - 2 * _PAD
    step = inner_w / max(1, len(scores) - 1)
    points = [
        (_PAD + i * step, _PAD + inner_h * (5.0 - score) / 4.0) for i, score in enumerate(scores)
    ]
    grid = "".join(
        f'<line x1="{_PAD}" x2="{_WIDTH - _PAD}" y1="{_PAD + inner_h * (5 - v) / 4:.1f}" '
        f'y2="{_PAD + inner_h * (5 - v) / 4:.1f}" stroke="#ddd"/>'
        f'<text x="4" y="{_PAD + inner_h * (5 - v) / 4 + 4:.1f}" font-size="11">{v}</text>'
        for v in (1, 2, 3, 4, 5)
    )
    polyline = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
    dots = "".join(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="#2b6cb0"/>' for x, y in points)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{_HEIGHT}" '
        f'role="img" aria-label="score trend">{grid}'
        f'<polyline fill="none" stroke="#2b6cb0" stroke-width="2" points="{polyline}"/>{dots}</svg>'
    )


def histogram_svg(histogram: dict[str, int]) -> str:
    bar_h, gap, label_w = 18, 6, 210
    height = max(1, len(histogram)) * (bar_h + gap) + gap
    top = max(histogram.values(), default=1)
    rows = []
    for index, (name, count) in enumerate(histogram.items()):
        y = gap + index * (bar_h + gap)
        width = (_WIDTH - label_w - 50) * count / top
        rows.append(
            f'<text x="0" y="{y + 13}" font-size="12">{html.escape(name)}</text>'
            f'<rect x="{label_w}" y="{y}" width="{width:.1f}" height="{bar_h}" fill="#dd6b20"/>'
            f'<text x="{label_w + width + 6:.1f}" y="{y + 13}" font-size="12">{count}</text>'
        )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{height}" '
        f'role="img" aria-label="smell histogram">{"".join(rows)}</svg>'
    )


def html_page(summary: Summary) -> str:
    """A self-contained page: headline figures, trend chart, smell histogram."""
    scores = [e.score for e in summary.recent]
    average = f"{summary.average:.2f}" if summary.average is not None else "n/a"
    trend = trend_svg(scores) if scores else "<p>No prompts scored yet.</p>"
    smells = (
        histogram_svg(summary.smell_histogram)
        if summary.smell_histogram
        else "<p>No smells recorded.</p>"
    )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>reflection: prompt stats</title>
<style>body{{font-family:system-ui,sans-serif;margin:2rem;color:#222}}h2{{margin-top:2rem}}</style>
</head><body>
<h1>Prompt stats</h1>
<p>Prompts scored: <b>{summary.total}</b> · average <b>{average}</b> · trend
<b>{html.escape(summary.trend)}</b></p>
<h2>Last {len(scores)} scores</h2>
{trend}
<h2>Smells</h2>
{smells}
</body></html>
"""
