"""Planning and action loop detectors, with configurable thresholds."""

from __future__ import annotations

from reflection_core import config
from reflection_core.session.decide import DecisionContext, decide
from reflection_core.session.loops import LoopThresholds, action_loop, planning_loop
from tests.unit.sessionbuild import SessionBuilder

LIMITS = LoopThresholds()
CTX = DecisionContext(config=config.defaults())


def reads(n: int) -> SessionBuilder:
    builder = SessionBuilder("Fix the crash in the exporter")
    for i in range(n):
        builder.read(f"src/mod{i}.py")
    return builder


def test_many_reads_no_writes_on_coding_is_a_planning_loop() -> None:
    loop = planning_loop(reads(8).build(), "coding", LIMITS)
    assert loop is not None and "8 tool calls, 0 of them writes" in loop.evidence


def test_below_the_call_threshold_is_not_a_loop() -> None:
    assert planning_loop(reads(7).build(), "coding", LIMITS) is None


def test_research_tasks_never_planning_loop() -> None:
    assert planning_loop(reads(20).build(), "research", LIMITS) is None


def test_one_write_in_ten_calls_is_enough() -> None:
    assert planning_loop(reads(9).edit("src/a.py").build(), "coding", LIMITS) is None


def test_planning_threshold_comes_from_config() -> None:
    cfg = config.defaults()
    cfg["stop"]["loops"]["planning_min_calls"] = 20
    limits = LoopThresholds.from_config(cfg)
    assert planning_loop(reads(10).build(), "coding", limits) is None


def test_same_command_without_changes_is_an_action_loop() -> None:
    builder = SessionBuilder("Fix the build").edit("src/a.ts")
    for _ in range(3):
        builder.bash("npm run build", exit=1, output="TS2304: Cannot find name 'x'")
    loop = action_loop(builder.build(), LIMITS)
    assert loop is not None and "3 times" in loop.evidence
    assert "Change approach" in loop.feedback


def test_edit_test_cycles_are_progress_not_a_loop() -> None:
    builder = SessionBuilder("Fix the build")
    for i in range(4):
        builder.edit(f"src/a{i}.ts").bash("npm test", exit=1)
    assert action_loop(builder.build(), LIMITS) is None


def test_repeats_must_dominate_the_commands() -> None:
    builder = SessionBuilder("Fix it")
    for cmd in ("ls", "git status", "cat a", "cat b", "grep x -r ."):
        builder.bash(cmd)
    for _ in range(3):
        builder.bash("make", exit=2)
    assert action_loop(builder.build(), LIMITS) is None  # 3 of 8 < 60%


def test_an_action_loop_is_a_note_until_the_dev_stops_show_it_generalises() -> None:
    builder = SessionBuilder("Make the build pass")
    for _ in range(4):
        builder.bash("npm run deploy-check", exit=1, output="Error: connection refused")
    d = decide(builder.build("Still trying."), DecisionContext(config=config.defaults()))
    assert not d.should_block and "loop:action" in d.open_patterns
    assert d.note is not None and "action loop" in d.note


def test_a_planning_loop_is_recorded_not_said_nor_pushed() -> None:
    # As a line it was wrong on most real stops that stood (a long look before a small fix).
    d = decide(reads(10).build("Still looking around."), DecisionContext(config=config.defaults()))
    assert not d.should_block and "loop:planning" in d.open_patterns
    assert d.note is None or "planning loop" not in d.note
    assert any("planning loop" in item for item in d.missing)


def test_a_loop_the_agent_broke_out_of_by_changing_the_code_is_over() -> None:
    builder = SessionBuilder("Fix the add() bug").edit("src/calc.py")
    for _ in range(3):
        builder.bash("python -m pytest -q", exit=1, output="FAILED tests/test_x.py::test_add")
    builder.say("The tests keep failing, I will stop here.")
    looping = builder.build("The tests keep failing, I will stop here.")
    assert [loop.kind for loop in decide(looping, CTX).loops] == ["action"]
    builder.edit("src/calc.py", new="return a + b", old="return a - b")
    builder.bash("python -m pytest -q", output="1 passed")
    d = decide(builder.build("Found it: add() subtracted. Fixed; 1 passed."), CTX)
    assert d.loops == [] and d.status == "complete", d.missing


def test_the_same_command_piling_up_after_the_latest_change_is_a_loop_again() -> None:
    builder = SessionBuilder("Fix the build").edit("src/a.ts")
    for _ in range(3):
        builder.bash("npm run build", exit=1)
    builder.edit("src/a.ts", new="let y = 1")
    for _ in range(3):
        builder.bash("npm run build", exit=1)
    loop = action_loop(builder.build(), LIMITS)
    assert loop is not None and "3 times" in loop.evidence


def test_reading_around_before_a_tested_change_is_not_a_planning_loop() -> None:
    session = reads(20).edit("src/mod0.py").bash("python -m pytest -q", output="5 passed")
    assert planning_loop(session.build(), "coding", LIMITS) is None
