"""One synthetic prompt per phrase-table entry of the next-turn reader, in its table's language."""

from __future__ import annotations

import re

import pytest

from reflection_core.outcomes import phrases

EXAMPLES: dict[str, list[str]] = {
    "REPORTS_BROKEN": [
        "the export button is still broken after your change",
        "the sidebar doesn't load at all",
        "the settings page is not showing anything",
        "your patch didn't fix the login redirect",
        "you broke the checkout form",
        "same error as before on save",
        "the worker keeps crashing on start",
        "nothing changed on the page",
        "I'm getting this error when I click save",
        "i still get a weird exception when I upload",
        "재시작했는데 안돼",
        "还是不行，页面是空的",
        "まだエラーが出ます",
        "es funktioniert immer noch nicht",
        "ça ne marche toujours pas",
        "sigue fallando al guardar",
        "continua dando erro no login",
        "кнопка не работает",
    ],
    "PASTES_ERROR": [
        "Traceback (most recent call last):\n  File 'app.py', line 3",
        "TypeError: cannot read properties of undefined",
        "ValueError: bad widget id from the form",
        "error: linker command failed",
        "bash: ./run.sh: No such file or directory",
        "zsh: command not found: flowctl",
        "Cannot find module './widgets'",
        "the job exited 2 with an error in the log",
        "the api now answers 500 Internal Server Error",
    ],
    "ASKS_FOR_CHECK": [
        "did you actually run it?",
        "you didn't test the new parser",
        "please test it before saying it's done",
        "run the tests first.",
        "make sure the build passes",
        "테스트 안 했죠?",
        "你测试了吗",
        "テストしましたか",
        "hast du das getestet?",
        "as-tu testé la migration ?",
        "¿lo probaste en el navegador?",
        "você testou a rota nova?",
        "ты проверил это?",
    ],
    "PUSHES_ON": [
        "continue",
        "you're not done yet",
        "you forgot to update the docs",
        "why did you stop halfway",
        "계속 해줘",
        "继续",
        "続けてください",
        "mach weiter",
        "continuez",
        "sigue",
        "pode continuar",
        "продолжай",
    ],
    "THANKS": [
        "thanks, that's it for today",
        "perfect, now add a footer",
        "it works now",
        "감사합니다",
        "谢谢，下一个任务",
        "ありがとう",
        "danke, passt",
        "merci beaucoup",
        "gracias, ahora el siguiente",
        "obrigado!",
        "спасибо",
    ],
    "NOT_TYPED": [
        "<command-name>/clear</command-name>",
        "[Request interrupted by user]",
        "/compact",
    ],
}


def _cases() -> list[tuple[str, int, str, str]]:
    out = []
    for table, examples in EXAMPLES.items():
        entries = getattr(phrases, table)
        for index, (pattern, example) in enumerate(zip(entries, examples, strict=True)):
            out.append((table, index, pattern, example))
    return out


def test_every_entry_has_its_own_example() -> None:
    for table, examples in EXAMPLES.items():
        assert len(examples) == len(getattr(phrases, table)), table


@pytest.mark.parametrize(("table", "index", "pattern", "example"), _cases())
def test_each_phrase_entry_matches_its_example(
    table: str, index: int, pattern: str, example: str
) -> None:
    assert re.search(pattern, example, re.I | re.M), f"{table}[{index}] misses {example!r}"
