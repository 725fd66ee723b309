"""`reflection eval [SUITE...] [--json] [--min-accuracy X]`: labelled suites, accuracy tables.

Exit 0 when every suite meets the thresholds in its file, 1 when one does not
(or its core API is missing), 2 for usage errors (unknown suite, bad suite file).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from reflection_core import paths
from reflection_core.atomic import write_text_atomic
from reflection_core.cli.common import echo_json

if TYPE_CHECKING:
    from reflection_core.evals.runner import SuiteReport
    from reflection_core.evals.suite import Suite

NO_SUITES_HERE = (
    "reflection eval: no eval suites in {directory}. The labelled suites (judge, stop, "
    "post-compaction, agent, prompts) measure reflection itself and live in reflection's "
    "own repository, not in the installed package. Run it there: "
    '`cd "$REFLECTION_SOURCE" && reflection eval`, or point at them: '
    "`reflection eval --dir PATH/TO/reflection/evals`; a suite file of your own: "
    "`reflection eval my-suite.yaml`."
)


def _evals_dir(option: str | None) -> Path:
    if option:
        return Path(option)
    root = paths.find_repo_root()
    return (root or Path.cwd()) / "evals"


def _read_baseline(path: str) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        click.echo(f"reflection eval: cannot read baseline {path}: {exc}", err=True)
        raise SystemExit(2) from None
    if not isinstance(data, dict):
        click.echo(f"reflection eval: baseline {path} is not a --report JSON object", err=True)
        raise SystemExit(2)
    return data


@click.command("eval")
@click.argument("suites", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
@click.option(
    "--min-accuracy",
    type=click.FloatRange(0.0, 1.0),
    default=None,
    help="Accuracy floor for every suite, overriding the suite files.",
)
@click.option(
    "--dir",
    "evals_dir",
    default=None,
    help="Where the suite files are (default: evals/ at the repo root).",
)
@click.option("--case", "case_ids", multiple=True, help="Run only this case id (repeatable).")
@click.option(
    "--report", type=click.Path(dir_okay=False), default=None, help="Also write JSON here."
)
@click.option(
    "--keep",
    "keep_dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Keep the built transcripts here (DIR/<suite>/<case>.jsonl) to replay them "
    "with `reflection analyze`.",
)
@click.option(
    "--baseline",
    type=click.Path(dir_okay=False, exists=True),
    default=None,
    help="A previous --report JSON: list the cases fixed and broken since then.",
)
@click.option("--list", "list_only", is_flag=True, help="List the suites and their cases.")
def command(
    suites: tuple[str, ...],
    as_json: bool,
    min_accuracy: float | None,
    evals_dir: str | None,
    case_ids: tuple[str, ...],
    report: str | None,
    keep_dir: str | None,
    baseline: str | None,
    list_only: bool,
) -> None:
    """Run eval suites (judge, stop, post-compaction, agent, prompts) against the core.

    Prints per suite: accuracy, false-complete and false-incomplete rates, severity
    accuracy, per-category accuracy and every failing case with expected vs got.
    """
    from reflection_core.evals.metrics import flipped_cases

    loaded = _load_suites(evals_dir, suites)
    if list_only:
        for suite in loaded:
            click.echo(f"{suite.name:<18} {len(suite.cases):>4} cases  {suite.path}")
        raise SystemExit(0)
    loaded = _only_cases(loaded, case_ids)
    previous = _read_baseline(baseline) if baseline else None
    reports = _run_suites(loaded, as_json, min_accuracy, set(case_ids) or None, keep_dir)
    if previous is not None:
        for suite_report in reports:
            suite_report.flips = flipped_cases(previous, suite_report.results, suite_report.suite)
    payload = {
        "ok": all(r.status == "pass" for r in reports),
        "suites": [r.to_dict() for r in reports],
    }
    if report:
        write_text_atomic(Path(report), json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    _print_reports(reports, payload, as_json)
    raise SystemExit(0 if payload["ok"] else 1)


def _load_suites(evals_dir: str | None, suites: tuple[str, ...]) -> list[Suite]:
    """The suites asked for (all in the evals directory when none); exits 2 when there are
    none here or a suite file is bad."""
    from reflection_core.evals.suite import SuiteError, find_suites, load_suite

    directory = _evals_dir(evals_dir)
    if not suites and not evals_dir and not (directory / "judge.yaml").exists():
        click.echo(NO_SUITES_HERE.format(directory=directory), err=True)
        raise SystemExit(2)
    try:
        return [load_suite(path) for path in find_suites(directory, suites)]
    except SuiteError as exc:
        click.echo(f"reflection eval: {exc}", err=True)
        raise SystemExit(2) from None


def _only_cases(loaded: list[Suite], case_ids: tuple[str, ...]) -> list[Suite]:
    """The suites holding one of `case_ids` (all when none given); exits 2 on an unknown id."""
    if not case_ids:
        return loaded
    wanted = set(case_ids)
    known = {case.id for suite in loaded for case in suite.cases}
    unknown = sorted(wanted - known)
    if unknown:
        click.echo(f"reflection eval: unknown case id(s): {', '.join(unknown)}", err=True)
        raise SystemExit(2)
    return [s for s in loaded if any(c.id in wanted for c in s.cases)]


def _run_suites(
    loaded: list[Suite],
    as_json: bool,
    min_accuracy: float | None,
    wanted: set[str] | None,
    keep_dir: str | None,
) -> list[SuiteReport]:
    """Each suite's report, with a progress bar on a terminal (a line per suite otherwise)."""
    from reflection_core.evals.render import ProgressBar
    from reflection_core.evals.runner import run_suite

    overrides = {"accuracy": min_accuracy} if min_accuracy is not None else None
    progress = ProgressBar(sys.stderr) if sys.stderr.isatty() and not as_json else None
    reports = []
    for suite in loaded:
        if progress is None and not as_json:
            click.echo(f"running {suite.name} ({len(suite.cases)} cases)...", err=True)
        reports.append(
            run_suite(
                suite,
                progress=progress,
                threshold_overrides=overrides,
                case_ids=wanted,
                keep_dir=Path(keep_dir) if keep_dir else None,
            )
        )
    return reports


def _print_reports(reports: list[SuiteReport], payload: dict[str, Any], as_json: bool) -> None:
    """The payload as JSON, or each suite's table and then the summary."""
    from reflection_core.evals.render import render_report, render_summary

    if as_json:
        echo_json(payload)
        return
    for suite_report in reports:
        click.echo(render_report(suite_report))
        click.echo("")
    click.echo(render_summary(reports))
