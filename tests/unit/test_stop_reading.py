"""The evidence digest, the built-in reader's phrase tables (a case per entry) and the
holding policy: stops that are never pushed on, whatever else is open."""

from __future__ import annotations

import re

import pytest

from reflection_core import config
from reflection_core.reading import builtin
from reflection_core.reading.builtin import handed_check, read_builtin
from reflection_core.reading.facts import Fact, Reading
from reflection_core.session import digest as digest_mod
from reflection_core.session.attempts import AttemptState
from reflection_core.session.categories import CATEGORY, GAP_WEIGHTS, STOP_CATEGORIES, gap_weight
from reflection_core.session.decide import (
    DecisionContext,
    RepoFacts,
    decide,
    holding_reason,
    with_defaults,
)
from reflection_core.session.model import Session
from tests.unit.sessionbuild import SessionBuilder

CTX = DecisionContext(config=config.defaults())
# `stop.require: tests`: an untested change pushes whatever the dev stops say.
STRICT = DecisionContext(config=with_defaults({"stop": {"require": "tests"}}))

# One example per table entry, in table order: each must match its own entry.
EXAMPLES = {
    "ANNOUNCED_NEXT_ACTION": [
        "Now let me run the build",
        "I'll now wire up the router",
        "Now I need to update the schema",
        "Moving on to PR #95",
        "I'm going to check the logs",
        "Context at 30% - continuing the patrol loop.",
        "이제 마이그레이션을 실행하겠습니다.",
        "接下来让我运行单元测试",
        "次にビルドを実行します。",
        "Als Nächstes lass mich die Tests starten",
        "Maintenant je vais corriger le parseur",
        "Ahora voy a revisar el esquema",
        "Agora vou atualizar o roteador",
        "Теперь я проверю сборку",
    ],
    "WAITS_ON_USER": [
        "I'll implement it as soon as you tell me which one.",
        "I'll implement whichever you choose.",
        "I'll wait for your go-ahead.",
        "Déjame saber si necesitas algo más.",
        "Vou ficar à disposição para ajustes.",
        "Je vais rester disponible si besoin.",
        "Lass mich wissen, falls du noch etwas brauchst.",
        "Я обновлю клиент, как только вы ответите.",
        "我将继续等待你的反馈。",
        "ご確認いただき次第、修正を実装します。",
        "승인되는 대로 배포를 진행하겠습니다.",
    ],
    "CONTINUE_OFFER": [
        "Would you like me to continue implementing the rest?",
        "Shall I proceed?",
        "Continue with the remaining endpoints now?",
        "나머지 엔드포인트도 계속 진행할까요?",
        "需要我继续实现剩下的接口吗？",
        "残りの画面も続けましょうか？",
        "Soll ich mit dem Export fortfahren?",
        "Voulez-vous que je continue avec le reste ?",
        "¿Quieres que continúe con las pruebas?",
        "Quer que eu continue com a migração?",
        "Хотите, чтобы я продолжил с остальными файлами?",
        "**Option 2**: Continue fixing the suite against the real API",
        "Or I can keep debugging the export route if you prefer.",
    ],
    "HANDED_TO_USER": [
        "Try it now: open the page.",
        "Try upgrading the module again.",
        "Try the build again.",
        "Relaunch `npm run dev` from your terminal.",
        "Reload the page to see it.",
        "Then upgrade the modules again.",
        "Clear the cache, then test:",
        "Added it. Run `python -m pytest` to verify everything still works.",
        "You can check it with:",
        "Added the check. To verify, run it twice in a row against a test folder.",
        "Restart nvim, then run `:ConformInfo` to check everything is picked up.",
        "Could you run `./gradlew test` and let me know if anything is red?",
        "Before deploying, run `DRY_RUN=1 ./deploy.sh` and check what it prints.",
        "Give it a quick `npm test` on your side.",
        "Start it with `python app.py` and open http://localhost:8000/healthz.",
        "서버를 재시작해 주세요.",
        "请重新运行构建命令。",
        "アプリを再起動してください。",
        "Bitte führen Sie das Skript erneut aus.",
        "Veuillez relancer le serveur de développement.",
        "Por favor, reinicie el servidor.",
        "Por favor, rode o comando de novo.",
        "Пожалуйста, перезапустите сервер.",
        "Lance `npm test` de ton côté quand tu peux.",
    ],
    "LOOK_AT_IT": [
        "Reload the page to see it stay put.",
        "Open index.html in your browser to see the header.",
        "페이지를 새로고침하면 보입니다.",
        "刷新页面即可看到效果。",
        "ページをリロードすると反映されます。",
        "Lade die Seite neu, dann siehst du es.",
        "Rechargez la page pour le voir.",
        "Recarga la página para verlo.",
        "Atualize a página para ver.",
        "Обновите страницу, чтобы увидеть.",
    ],
    "REMAINING_WORK": [
        "Now I need to wire up the settings page.",
        "I still need to port the CLI.",
        "Still failing: test_login",
        "Now moving on to the export step.",
        "The remaining 3 tests cover parsing.",
        "2 tests still failing in the suite.",
        "The migration is not finished yet.",
    ],
    "BACKGROUND_WAIT": [
        "The subagent is still running.",
        "I'll share the findings when it reports back.",
        "I'll post results when the agent reports back.",
        "Tests are running in the background; I'll check back shortly.",
        "Waiting for the CI pipeline.",
        "The monitor will notify me when the deploy ends.",
    ],
    "IRREVERSIBLE": [
        "Should I delete the old branch?",
        "Shall I drop the users table?",
        "Should I remove all files in build/?",
        "Do you want me to force-push?",
        "Can I overwrite the config?",
        "Should I wipe the cache?",
        "This cannot be undone: proceed?",
        "Run rm -rf dist?",
        "Shall I git reset --hard?",
        "Should I purge the queue?",
        "Shall I publish it to npm?",
        "오래된 브랜치를 삭제할까요?",
        "要删除旧的迁移文件吗？",
        "古いキャッシュを削除しますか？",
        "Soll ich den alten Branch löschen?",
        "Dois-je supprimer l'ancienne table ?",
        "¿Elimino la rama antigua?",
        "Posso apagar os arquivos antigos?",
        "Удалить старую ветку?",
    ],
    "USER_STEP": [
        "Next step: restart Claude Code.",
        "Next step: open a Codespace.",
        "Next step: log in to the portal.",
        "Next step: run it on your machine.",
        "Next steps: deploy when you're ready.",
    ],
    "STRONG_DRIFT": [
        "Phase 1 of 3 done.",
        "TODO: unicode",
        "Remaining work: the CLI",
        "Next steps: add docs",
        "다음 단계: 문서 추가",
        "下一步：补充文档",
        "次のステップ：ドキュメント追加",
        "Nächste Schritte: Doku ergänzen",
        "Prochaines étapes : la doc",
        "Próximos pasos: la documentación",
        "Próximos passos: a documentação",
        "Следующие шаги: документация",
    ],
    "DONE_CLAIM": [
        "All done.",
        "Fixed: the reset subject now includes the name.",
        "Installed successfully",
        "Fixed the rounding bug in `formatPrice`.",
        "I've created the file",
        "The API is now working",
        "All set, the coupon rules are in.",
        "Done and committed: balance() skips void entries.",
        "Pushed to main: balance() skips void entries.",
        "Deployed ✅ the API serves v41.",
        "설정 수정이 완료되었습니다.",
        "已经修复了登录问题。",
        "ログイン処理を修正しました。",
        "Alles erledigt.",
        "C'est fait, le bug est corrigé.",
        "Hecho: slugify acepta undefined.",
        "A migração foi concluído com sucesso.",
        "Всё готово.",
        "Fatto: la validazione ora rifiuta i codici vuoti.",
        "İş tamamlandı.",
    ],
    "CHECKED_IT_CLAIM": [
        "Tested it on samples/export.csv: March shows the total.",
        "Tested in the browser at mobile width.",
        "Implemented and tested: the third photo becomes _2.jpg. Tested, and it works.",
        "Hab es lokal getestet.",
        "Je l'ai testé sur un échantillon.",
        "Lo he probado con el fichero de ejemplo.",
        "Testei com o arquivo de exemplo.",
        "Проверил юнит через systemd-analyze verify.",
        "已测试，输出正确。",
        "動作確認済みです。",
        "로컬에서 테스트했습니다.",
    ],
    "SUCCESS_CLAIM": [
        "`./scripts/test.sh`: all checks pass.",
        "f_to_c rounds to 2 decimals now; all green.",
        "Type-check is clean.",
        "unitsctl now prints the distance; it builds cleanly.",
        "Implemented the heart toggle. It builds for the iOS simulator.",
        "Added `--header`; the CLI works.",
        "Types are fine: callers handle the null case.",
        "Added `available()`; `just test` passes for all affected projects.",
        "Hecho: slugify acepta undefined. Todas las pruebas pasan.",
        "Adicionei o helper; todos os testes passam.",
        "Le parseur est corrigé : tous les tests passent.",
        "Der Export ist fertig, alle Tests sind grün.",
        "テストはすべて合格しました。",
        "测试全部通过。",
        "테스트가 모두 통과했습니다.",
        "Все тесты проходят, сборка прошла успешно.",
        "Corretto l'arrotondamento. Tutti i test sono verdi.",
        "Doğrulama eklendi, tüm testler geçti.",
    ],
    "ERROR_OUTPUT": [
        "Error: boom",
        "bash: permission denied",
        "command not found",
        "fatal: not a git repository",
        "Traceback (most recent call last)",
        "Unhandled exception",
        "1 failed",
        "No such file or directory",
        "AttributeError: 'Namespace' object has no attribute 'headers'",
    ],
    "REPORTED_FAILURE": [
        "I'm still getting a 500 error on the export page",
        "The dashboard is still crashing after your change",
        "Same error as before when I open the modal",
        "The mermaid graph doesn't render in the preview",
        "The login page is not loading",
        "The worker keeps crashing on startup",
        "다시 시작해봤는데 안돼",
        "还是报错，页面打不开",
        "ボタンが動かない",
        "Der Export funktioniert immer noch nicht",
        "Le bouton ne fonctionne toujours pas",
        "El formulario no funciona",
        "O login não funciona",
        "Страница не работает",
    ],
    "ADMITS_FAILURE": [
        "The write failed.",
        "It shows an error.",
        "I couldn't create it.",
        "Access denied.",
        "It didn't work.",
        "The file was not created.",
        "빌드가 실패했습니다.",
        "构建失败了。",
        "ビルドが失敗しました。",
        "Der Export ist fertig, das Deployment hat aber nicht geklappt.",
        "La compilation a échoué.",
        "La compilación falló.",
        "O build falhou.",
        "Сборка завершилась с ошибкой.",
        "Il test di integrazione fallisce ancora.",
        "Entegrasyon testi başarısız oldu.",
    ],
}


def _table_cases() -> list[tuple[str, int, str]]:
    cases = []
    for name, examples in EXAMPLES.items():
        table = getattr(builtin, name)
        assert len(examples) == len(table), f"{name}: one example per entry"
        cases += [(name, i, example) for i, example in enumerate(examples)]
    return cases


@pytest.mark.parametrize(("table", "entry", "example"), _table_cases())
def test_each_phrase_entry_matches_its_example(table: str, entry: int, example: str) -> None:
    pattern = getattr(builtin, table)[entry]
    assert re.search(pattern, example, re.I | re.M), (table, entry, example)


HOST_EXAMPLES = [
    "API Error: 529 Overloaded",
    "API Error: overloaded_error, please try again",
    "You've hit your session limit · resets 3pm",
    "Usage limit reached for today.",
    "Autocompact is thrashing: the context refills right after compaction.",
    "Compaction failed: the conversation is too long.",
    "Prompt is too long",
    "Context window exceeded",
    "API Error: request timed out",
    "Credit balance is too low",
]


@pytest.mark.parametrize(("entry", "example"), list(enumerate(HOST_EXAMPLES)))
def test_each_host_failure_marker_matches_its_example(entry: int, example: str) -> None:
    assert len(HOST_EXAMPLES) == len(digest_mod.HOST_FAILURE_MARKERS)
    assert re.search(digest_mod.HOST_FAILURE_MARKERS[entry], example, re.I)


TASK_KIND_EXAMPLES = [
    ("Run the tests and tell me what's failing, don't fix anything", "report_only"),
    ("Just tell me where the config is read", "report_only"),
    ("Report back which endpoints lack auth", "report_only"),
    ("Only investigate the crash", "report_only"),
    ("Run the unit tests and make sure they pass", "verify_only"),
    ("Check that the migration applied", "verify_only"),
    ("Can you verify the release build", "verify_only"),
    ("Search for all usages of parse_date", "read_only"),
    ("Review the auth module", "read_only"),
    ("Why does the build take so long?", "read_only"),
    ("Install the skill globally", "ops"),
]


@pytest.mark.parametrize(("entry", "case"), list(enumerate(TASK_KIND_EXAMPLES)))
def test_each_task_kind_phrase_matches_its_example(entry: int, case: tuple[str, str]) -> None:
    assert len(TASK_KIND_EXAMPLES) == len(digest_mod.TASK_KIND_PHRASES)
    kind, pattern = digest_mod.TASK_KIND_PHRASES[entry]
    prompt, expected = case
    assert kind == expected and re.search(pattern, prompt, re.I)


@pytest.mark.parametrize(
    "prompt",
    [
        "Port the settings screen to the new store, don't change the xml layouts",
        "Refactor the parser; do not touch the public API",
    ],
)
def test_a_limit_on_what_may_change_is_not_a_report_only_task(prompt: str) -> None:
    kinds = [k for k, p in digest_mod.TASK_KIND_PHRASES if re.search(p, prompt, re.I)]
    assert "report_only" not in kinds


def test_every_gap_weight_is_known_and_unlisted_is_soft() -> None:
    assert {w for _, w in GAP_WEIGHTS} <= {"hard", "once", "evidence", "reader", "soft", "record"}
    assert gap_weight("reading:remaining_work") == "reader"
    assert gap_weight("reading:claim_contradicted") == "evidence"
    assert gap_weight("build:not_run") == "hard" and gap_weight("tests:not_run") == "soft"
    assert gap_weight("tests:not_run", "tests") == "hard"
    assert gap_weight("loop:action") == "soft" and gap_weight("work:no_change") == "record"
    assert gap_weight("loop:planning") == "record"


def test_a_stop_with_only_no_file_changed_open_says_nothing_but_records_it() -> None:
    session = SessionBuilder("Add a --json flag to the export command").build(
        "Should the JSON be one object per line, or a single array?"
    )
    d = decide(session, CTX)
    assert not d.should_block and d.note is None
    assert "work:no_change" in d.patterns and any("no file was changed" in m for m in d.missing)


def test_the_category_table_is_the_precedence_order_with_valid_statuses() -> None:
    assert STOP_CATEGORIES[0].name == "host_failure" and STOP_CATEGORIES[-1].name == "complete"
    statuses = {"complete", "incomplete", "waiting_for_user", "blocked"}
    assert all(c.status in statuses for c in STOP_CATEGORIES)
    assert not any(CATEGORY[name].may_block for name in ("host_failure", "background_pending"))


def untested_change(prompt: str = "Fix the parser") -> SessionBuilder:
    return SessionBuilder(prompt).edit("src/parser.py")


def test_the_digest_points_at_the_records_its_evidence_came_from() -> None:
    session = (
        untested_change()
        .bash("python -m pytest -q", output="3 passed")
        .bash("git push origin feat", output="ok")
        .build("Fixed; 3 passed and pushed.")
    )
    d = decide(session, CTX)
    calls = session.tool_calls
    assert d.digest["last_check_after_change"]["at"] == calls[1].index
    assert d.digest["last_check_after_change"]["passed"] is True
    assert d.digest["last_command"]["at"] == calls[2].index
    assert d.digest["pushes"][0]["at"] == calls[2].index
    assert d.digest["task_kind"] == "change"
    assert digest_mod.size_in_tokens(d.digest) < 1500


def test_a_host_failure_stop_is_never_pushed_and_the_user_is_told() -> None:
    d = decide(untested_change().build("API Error: 529 Overloaded"), CTX)
    assert not d.should_block and d.stop_category == "genuinely_stuck"
    assert d.note is not None and "host failed" in d.note


def test_a_stop_waiting_on_a_subagent_is_never_pushed() -> None:
    final = "The subagent is still running; I'll share the findings when it reports back."
    d = decide(untested_change().build(final), CTX)
    assert not d.should_block and d.note is not None and "background" in d.note


def test_a_confirmation_before_an_irreversible_delete_is_never_pushed() -> None:
    final = "I found 40 stale branches. Should I delete them? This cannot be undone."
    d = decide(untested_change("Clean up the stale branches").build(final), CTX)
    assert not d.should_block and d.status == "waiting_for_user"


def test_a_report_only_task_that_was_answered_is_not_pushed() -> None:
    session = (
        SessionBuilder("Run the tests and tell me what's failing, don't fix anything")
        .bash("python -m pytest -q", exit=1, output="2 failed, 10 passed")
        .build("Two tests fail: test_login (bad token) and test_export (missing column).")
    )
    d = decide(session, CTX)
    assert not d.should_block and d.complete


def test_a_read_only_search_is_not_pushed_for_changing_nothing() -> None:
    final = "parse_date is used in 4 places: api/views.py, cli.py, jobs/sync.py and tests."
    d = decide(SessionBuilder("Search for all usages of parse_date").build(final), CTX)
    assert not d.should_block


def test_announcing_the_next_step_after_an_unchecked_change_is_pushed_with_the_quote() -> None:
    d = decide(untested_change().build("The parser is fixed. Now let me update the CLI:"), CTX)
    assert d.should_block and d.feedback is not None
    assert "Now let me update the CLI" in d.feedback


def test_ending_the_turn_on_an_announced_step_pushes_once_even_after_a_passing_check() -> None:
    """The announcement is the turn's last record: the step it names never ran."""
    session = (
        untested_change()
        .bash("python -m pytest -q", output="4 passed")
        .build("The parser is fixed. Now let me update the CLI:")
    )
    first = decide(session, CTX)
    assert first.should_block and first.feedback is not None
    assert "Now let me update the CLI" in first.feedback
    again = DecisionContext(
        config=config.defaults(),
        attempts=AttemptState(attempts=1, sent_patterns=frozenset({"reading:announced_step"})),
    )
    second = decide(session, again)
    assert not second.should_block and second.note is not None


def test_a_step_announced_mid_message_and_taken_is_not_pushed() -> None:
    d = decide(
        untested_change()
        .bash("python -m pytest -q", output="4 passed")
        .build("Now let me update the CLI: done, it takes --strict too. The tests pass."),
        CTX,
    )
    assert not d.should_block


def test_a_failed_last_command_contradicts_a_done_claim() -> None:
    session = (
        SessionBuilder("Install the dependencies")
        .bash("npm install", exit=1, output="npm ERR! code EACCES permission denied")
        .build("All done. The dependencies are installed successfully.")
    )
    d = decide(session, CTX)
    assert d.should_block and d.feedback is not None and "npm install" in d.feedback


def test_an_offer_to_continue_is_pushed_not_held_as_a_question_under_strict_tests() -> None:
    final = "The helpers are written.\n\nWould you like me to continue with the contracts?"
    d = decide(untested_change("Implement the contracts").build(final), STRICT)
    assert d.should_block and d.feedback is not None and "continue" in d.feedback


def test_handing_the_user_a_retry_of_an_unchecked_change_is_pushed() -> None:
    d = decide(untested_change().build("Escaped the attribute. Try upgrading it again."), CTX)
    assert d.should_block and d.feedback is not None and "Run it yourself" in d.feedback


@pytest.mark.parametrize(
    "final",
    [
        "Added `discount`. Run `python -m pytest` to verify everything still works.",
        "Slugify now maps & to and. You can check it with:\n```sh\nnpm test\n```",
        "Added the column.\n\n## Next steps\n- Run `make migrate` and then `make test` to verify.",
    ],
)
def test_a_named_check_handed_to_the_user_after_an_unchecked_change_is_pushed(
    final: str,
) -> None:
    d = decide(untested_change().build(final), CTX)
    assert d.should_block and d.feedback is not None and "yourself" in d.feedback


def test_a_push_for_a_handed_over_check_names_the_command_it_handed_over() -> None:
    final = (
        "Escaped the attribute. Try upgrading the module again:\n"
        "```bash\n$ docker exec odoo odoo -u shop -d dev --stop-after-init\n```"
    )
    d = decide(untested_change().build(final), CTX)
    assert d.should_block and d.feedback is not None
    assert "Run `docker exec odoo odoo -u shop -d dev --stop-after-init` yourself" in d.feedback


@pytest.mark.parametrize(
    ("message", "named"),
    [
        ("Fixed. Please run `npm test` to confirm.", "npm test"),
        (
            "Run this:\n```\n$ cargo build --release\n```\nthen `cargo run`.",
            "cargo build --release",
        ),
        (
            "First `npx tsc --noEmit`, then `pytest -q tests/test_api.py`.",
            "pytest -q tests/test_api.py",
        ),
        ("Upgrade it with `odoo-bin -u shop -d <database>`.", None),  # left to fill in
        ("Upgrade it with `odoo-bin -u shop -d your_database`.", None),
        ("Start it with `npm run dev` and look.", None),  # a server is no check
        ("Check it with `go test ./...` please.", "go test ./..."),  # Go's wildcard, no blank
        ("Run `pytest ...` with your options.", None),
        ("The `path?.replace(` call is fixed.", None),
        ("```python\nprint(parse('x'))\n```", None),
    ],
)
def test_the_check_a_message_hands_over_is_its_last_runnable_check(
    message: str, named: str | None
) -> None:
    assert handed_check(message) == named


def test_the_check_handed_over_after_a_long_pasted_log_is_the_one_named() -> None:
    log = "\n".join(f"make[2]: building target {n}" for n in range(5000))
    message = f"Here is the log:\n```\n{log}\n```\nThen run `cargo test --workspace`."
    assert handed_check(message) == "cargo test --workspace"


def test_an_offer_to_run_the_check_of_an_unchecked_change_is_pushed_not_held() -> None:
    d = decide(untested_change().build("Done. Do you want to run the tests now?"), CTX)
    assert d.should_block and d.feedback is not None and "Run it yourself" in d.feedback
    assert d.stop_category != "waiting_for_user"


def test_an_offer_to_run_the_tests_again_after_a_passing_run_neither_pushes_nor_waits() -> None:
    session = (
        untested_change()
        .bash("python -m pytest -q", output="5 passed")
        .build("Fixed; 5 passed. Shall I run the tests again with coverage?")
    )
    d = decide(session, CTX)
    assert not d.should_block and d.stop_category != "waiting_for_user"


def test_an_offer_of_more_work_after_an_unchecked_change_is_still_a_question() -> None:
    final = "The parser is fixed. Would you like me to build the admin dashboard next?"
    d = decide(untested_change().build(final), CTX)
    assert "punt_to_user" not in [f.kind for f in read_builtin({"final_message": final}).facts]
    assert not any(p == "reading:punt_to_user" for p in d.open_patterns)


def test_handing_over_a_retry_after_a_passing_check_is_fine() -> None:
    session = (
        untested_change()
        .bash("python -m pytest -q", output="5 passed")
        .build("Fixed; 5 passed. Try it now in the browser.")
    )
    assert not decide(session, CTX).should_block


def test_a_failed_write_contradicts_a_claim_that_the_file_was_created() -> None:
    session = (
        SessionBuilder("Create CLAUDE.md")
        .write("/nowhere/CLAUDE.md", ok=False, output="permission to write was not granted")
        .build("I've written CLAUDE.md with the build and test commands.")
    )
    d = decide(session, CTX)
    assert d.should_block and d.feedback is not None and "CLAUDE.md" in d.feedback


def test_a_weak_reading_says_it_is_uncertain() -> None:
    digest = {"final_message": "Done.\n\nNext step: restart Claude Code.", "task_prompt": "x"}
    reading = read_builtin(digest)
    assert reading.uncertain and not reading.has("remaining_work", builtin.SURE)


def test_a_failure_read_in_the_prompt_does_not_make_a_weak_reading_sure() -> None:
    digest = {
        "final_message": "Done.\n\nNext step: restart Claude Code.",
        "task_prompt": "The export is still failing",
    }
    reading = read_builtin(digest)
    assert reading.has("reported_failure", builtin.SURE) and reading.uncertain


def test_still_failing_answered_with_an_unchecked_change_is_pushed_under_strict_tests() -> None:
    session = untested_change("The export page is still crashing, fix it").build(
        "Fixed the null check; the export page loads now."
    )
    d = decide(session, STRICT)
    assert d.should_block and d.feedback is not None
    assert "still crashing" in d.feedback and "show that it works" in d.feedback


@pytest.mark.parametrize(
    ("changed", "check"),
    [
        ("src/export.py", "python -m pytest -q"),
        ("_quarto.yml", "quarto render docs/plan.qmd"),
    ],
)
def test_a_reported_failure_checked_after_the_change_is_not_pushed(
    changed: str, check: str
) -> None:
    session = (
        SessionBuilder("The export page is still crashing, fix it")
        .edit(changed)
        .bash(check, output="3 passed; output created")
        .build("Fixed the null check; the export page loads now.")
    )
    no_tests = DecisionContext(config=config.defaults(), repo=RepoFacts(has_tests=False))
    assert not decide(session, no_tests).should_block


def test_a_reported_failure_answered_with_a_docs_edit_is_not_pushed() -> None:
    session = (
        SessionBuilder("The install steps in the README don't work")
        .edit("README.md", new="pip install .", old="python setup.py install")
        .build("Updated the README to use pip install.")
    )
    assert not decide(session, CTX).should_block


def test_a_pasted_error_that_still_fails_is_one_open_item_not_two() -> None:
    prompt = "Still getting this:\nTypeError: cannot read properties of undefined (reading 'min')"
    d = decide(untested_change(prompt).build("Fixed the undefined config."), CTX)
    assert d.should_block
    assert "error_fix:not_checked" in d.patterns and "reading:reported_failure" not in d.patterns


@pytest.mark.parametrize(
    "prompt", ["테이블을 삭제하면 안 돼", "Make sure the banner does not show"]
)
def test_a_prohibition_is_not_a_failure_report(prompt: str) -> None:
    reading = read_builtin({"final_message": "Done.", "task_prompt": prompt})
    assert not reading.has("reported_failure", 0.1)


def test_a_menu_offering_to_go_on_is_pushed_not_held_under_strict_tests() -> None:
    final = (
        "Two suites pass; the other two were written against a different API.\n\n"
        "**Option 1**: Keep the passing suites and document them\n"
        "**Option 2**: Continue fixing the other suites against the real API\n\n"
        "Which approach would you prefer?"
    )
    d = decide(untested_change("Write the security test suites").build(final), STRICT)
    assert d.should_block and d.status == "incomplete"


def test_a_menu_of_real_choices_still_holds_the_stop() -> None:
    final = (
        "The parser is fixed.\n\n**Option 1**: Keep the old date format\n"
        "**Option 2**: Switch every caller to ISO dates\n\nWhich do you prefer?"
    )
    session = untested_change().bash("python -m pytest -q", output="5 passed").build(final)
    d = decide(session, CTX)
    assert not d.should_block and d.status == "waiting_for_user"


@pytest.mark.parametrize(
    ("final", "human"),
    [
        ("Left for you:\n1. Log in to the dashboard in your browser and copy the token.", True),
        ("Remaining:\n- Log in manually and copy the session token", True),
        ("Remaining:\n1. Create an API key in your dashboard", True),
        ("Next steps:\n1. Add the API key handling to config.py\n2. Run the tests", False),
    ],
)
def test_a_human_only_ask_inside_a_list_is_recognised(final: str, human: bool) -> None:
    from reflection_core.session.human_action import assess_requests

    assert bool(assess_requests(final).human_only) is human


def test_a_command_quoted_as_text_to_replace_is_not_a_request_to_run_it() -> None:
    from reflection_core.session.coverage import requested_commands

    prompt = (
        "The README still tells people to run `python setup.py install`, which is "
        "deprecated. Replace it with `pip install .` and make sure it reads well."
    )
    assert requested_commands(prompt) == []
    assert requested_commands("Make sure `python manage.py check` passes.") == [
        "python manage.py check"
    ]


def test_a_push_that_went_through_proves_the_change_was_made() -> None:
    session = (
        SessionBuilder("Fix the login bug and push the fix")
        .bash("git push origin fix/login", output="To origin\n   abc..def  fix/login")
        .build("The fix is pushed to fix/login and the PR is merged.")
    )
    d = decide(session, CTX)
    assert not any("no file was changed" in m for m in d.missing), d.missing
    assert not d.should_block


def test_a_requested_check_with_no_result_yet_is_not_called_failed() -> None:
    from reflection_core.session.coverage import unrun_requested

    session = untested_change().running("python manage.py check").build("Checking.")
    gaps = unrun_requested(session, ["python manage.py check"])
    assert [g.pattern for g in gaps] == ["pending:python manage.py check"]
    assert "failed" not in gaps[0].missing


DRIFT_EXAMPLES = [
    "## Next steps: wire the CLI",
    "**Remaining**: the exporter",
    "In the next pass I'll add caching.",
    "Next, I'll add the exporter.",
    "Phase 1 of 3 is done.",
    "The remaining work: the exporter",
    "I'll now implement the exporter.",
    "The CLI still needs to be ported.",
    "Two endpoints are left to do.",
    "The exporter is not yet implemented.",
    "The exporter is up next.",
    "The CLI still uses the old parser.",
    "The docs have not been written yet.",
    "Caching comes in a follow-up PR.",
    "- [ ] TODO: unicode",
    "## 다음 단계: CLI 연결",
    "下一步：接入命令行",
    "## 次のステップ",
    "Nächste Schritte: den Exporter anbinden",
    "Prochaines étapes : brancher l'exporteur",
    "**Próximos pasos**: conectar el exportador",
    "Próximos passos: ligar o exportador",
    "Следующие шаги: подключить экспортёр",
]
STUCK_EXAMPLES = [
    "I'm unable to reach the registry.",
    "I can't proceed without the key.",
    "I'm stuck on the linker error.",
    "This is blocked by the proxy.",
    "bash: /usr/lib: Permission denied",
    "There is no network access here.",
    "I'm out of ideas.",
    "I've tried three versions but none links.",
    "That cannot be done from here.",
    "The rate limit was exceeded; it resets at 3pm.",
    "We hit the hourly API rate limit.",
    "write failed: No space left on device",
    "The disk is full.",
    "The build ran out of memory.",
    "Quota exceeded for the project.",
    "The registry is down.",
    "It is a known bug in pydantic 2.7.1.",
    "It needs an upstream fix.",
    "레지스트리에 접근할 수 없습니다.",
    "无法访问镜像仓库。",
    "レジストリにアクセスできません。",
    "Ich kann nicht auf die Registry zugreifen.",
    "Je ne peux pas accéder au registre.",
    "No puedo acceder al registro.",
    "Não consigo acessar o registro.",
    "Не могу получить доступ к реестру.",
]


@pytest.mark.parametrize(("entry", "example"), list(enumerate(DRIFT_EXAMPLES)))
def test_each_drift_phrase_matches_its_example(entry: int, example: str) -> None:
    from reflection_core.session.categories import DRIFT_PHRASES

    assert len(DRIFT_EXAMPLES) == len(DRIFT_PHRASES)
    assert re.search(DRIFT_PHRASES[entry], example, re.I | re.M), example


@pytest.mark.parametrize(("entry", "example"), list(enumerate(STUCK_EXAMPLES)))
def test_each_stuck_phrase_matches_its_example(entry: int, example: str) -> None:
    from reflection_core.session.categories import STUCK_PHRASES

    assert len(STUCK_EXAMPLES) == len(STUCK_PHRASES)
    assert re.search(STUCK_PHRASES[entry], example, re.I), example


@pytest.mark.parametrize("ledger_passed", [True, False, None])
def test_a_test_run_with_no_result_yet_is_unknown_and_the_ledger_judges_the_claim(
    ledger_passed: bool | None,
) -> None:
    from reflection_core.session.gates import LedgerEvidence

    session = (
        untested_change("Fix the parser and make sure `python -m pytest -q` passes")
        .running("python -m pytest -q")
        .build("Fixed. All tests pass.")
    )
    ledger = (
        None
        if ledger_passed is None
        else LedgerEvidence(passed=ledger_passed, reason="recorded for this tree")
    )
    d = decide(session, DecisionContext(config=config.defaults(), ledger=ledger))
    assert not any("failed" in m for m in d.missing), d.missing
    if ledger_passed:
        assert d.complete and not d.should_block, d.missing
    else:
        # No passing run on this exact tree backs the claim: it is open, never "failed".
        assert not d.complete
    if ledger_passed is None:
        assert not d.should_block  # a run still going is not evidence of a failure


@pytest.mark.parametrize(
    "final",
    [
        "接口已经改好了。缓存用 Redis 还是 Memcached？",
        "修正しました。キャッシュはどちらを使いますか？",
    ],
)
def test_a_question_ending_in_a_full_width_mark_is_a_real_question(final: str) -> None:
    from reflection_core.session.human_action import assess_requests

    assert assess_requests(final).questions
    facts = read_builtin({"final_message": final, "task_prompt": "Fix the cache"}).facts
    assert any(f.kind == "question_for_user" and f.confidence >= 0.8 for f in facts), facts


@pytest.mark.parametrize(
    "final",
    [
        "缓存层已经改好了。要不要把过期时间也改成一小时呢",
        "요청 핸들러를 고쳤습니다. 로그 형식은 JSON으로 바꿀까요",
        "ハンドラを直しました。ログはJSON形式にしますか",
    ],
)
def test_a_question_ending_in_a_particle_without_a_mark_holds_the_stop(final: str) -> None:
    facts = read_builtin({"final_message": final, "task_prompt": "Fix the handler"}).facts
    assert any(f.kind == "question_for_user" and f.confidence >= 0.8 for f in facts), facts
    assert not decide(untested_change().build(final), CTX).should_block


def test_a_particle_inside_a_statement_is_not_a_question() -> None:
    from reflection_core.session.human_action import ends_as_question

    assert not ends_as_question("한 번 더 실행하면 결과가 나옵니다.")
    assert ends_as_question("어느 쪽을 쓸까요 **")


@pytest.mark.parametrize(
    "final",
    [
        "解析器已修复。请重新运行 npm test 看看。",
        "パーサを直しました。アプリを再起動してください。",
        "Parser korrigiert. Bitte starten Sie den Server neu und testen Sie erneut.",
        "J'ai corrigé l'analyseur. Veuillez relancer le serveur.",
    ],
)
def test_a_run_handed_over_in_another_language_after_an_unchecked_change_is_pushed(
    final: str,
) -> None:
    d = decide(untested_change().build(final), CTX)
    assert d.should_block and d.feedback is not None and "Run it yourself" in d.feedback


def test_a_run_handed_over_in_another_language_after_a_passing_check_is_fine() -> None:
    session = (
        untested_change()
        .bash("python -m pytest -q", output="5 passed")
        .build("파서를 고쳤고 테스트 5개가 통과했습니다. 앱을 재시작해 주세요.")
    )
    assert not decide(session, CTX).should_block


def test_an_offer_to_continue_in_another_language_is_pushed_under_strict_tests() -> None:
    final = "辅助函数已经写好了。\n\n需要我继续实现合约部分吗？"
    d = decide(untested_change("Implement the contracts").build(final), STRICT)
    assert d.should_block and d.feedback is not None and "Go ahead" in d.feedback


@pytest.mark.parametrize(
    "final",
    ["缓存已清理。要删除旧的日志目录吗？", "キャッシュを整理しました。古いログを削除しますか？"],
)
def test_a_question_before_deleting_in_another_language_holds_the_stop(final: str) -> None:
    facts = read_builtin({"final_message": final, "task_prompt": "Tidy the cache"}).facts
    assert any(f.kind == "confirm_irreversible" for f in facts), facts
    assert not decide(untested_change("Tidy the cache").build(final), CTX).should_block


def _builtin_facts(session: SessionBuilder, final: str) -> list[Fact]:
    return list(read_builtin(decide(session.build(final), CTX).digest).facts)


@pytest.mark.parametrize(
    ("command", "output"),
    [
        ("go test ./...", "--- FAIL: TestAdd (0.00s)\n    calc_test.go:9: got 3\nFAIL\n"),
        ("npx mocha", "  3 passing (9ms)\n  1 failing\n\n  1) add\n     AssertionError"),
        ("node --test", "\u2716 adds (1.2ms)\n# pass 3\n# fail 1\n"),
    ],
)
def test_done_after_a_test_run_whose_summary_shows_a_failure_is_surely_contradicted(
    command: str, output: str
) -> None:
    # The runner's own failure summary, read as the tests gate reads it: no "error" needed.
    session = untested_change().bash(command, output=output, exit=1)
    facts = _builtin_facts(session, "Done.")
    assert any(f.kind == "claim_contradicted" and f.confidence >= 0.8 for f in facts), facts
    assert decide(session.build("Done."), CTX).should_block


@pytest.mark.parametrize(
    ("command", "output"),
    [
        ("bundle exec rspec 2>&1 | tail -20", "Finished in 0.01 s\n1 example, 1 failure\n"),
        ("npx jest 2>&1 | tail -5", "Tests:       1 failed, 4 passed, 5 total\n"),
        ("cmake --build build 2>&1 | tail", "src/calc.cpp:3:5: error: use of undeclared 'c'\n"),
    ],
)
def test_done_after_a_failing_check_whose_status_a_pipe_hid_is_contradicted(
    command: str, output: str
) -> None:
    # Exit 0 from `tail`: the check's own failure in its output is the evidence.
    session = untested_change().bash(command, output=output, exit=0)
    facts = _builtin_facts(session, "Done.")
    assert any(f.kind == "claim_contradicted" and f.confidence >= 0.8 for f in facts), facts
    assert decide(session.build("Done."), CTX).should_block
    # A command that checks nothing after it leaves the failure the latest word on the work.
    later = untested_change().bash(command, output=output, exit=0).bash("git status", output="")
    assert any(f.kind == "claim_contradicted" for f in _builtin_facts(later, "Done."))


@pytest.mark.parametrize(
    ("command", "output"),
    [
        # A failure phrase in a test's name, before the runner's pass summary.
        (
            "npx jest 2>&1 | tail -8",
            "  \u2713 returns 2 errors for bad rows\nTests:       5 passed, 5 total\n",
        ),
        (
            "python -m pytest -q",
            "test_retry[3 failed attempts] PASSED\n==== 5 passed in 0.1s ====\n",
        ),
        # An exit 0 nobody hid: the program's own report, not a check's failure.
        ("python validate.py samples/", "samples/bad.csv: 2 errors\nvalidated 3 files\n"),
    ],
)
def test_done_after_a_passing_check_with_failure_words_in_its_output_is_not_contradicted(
    command: str, output: str
) -> None:
    session = untested_change().bash(command, output=output, exit=0)
    assert not any(f.kind == "claim_contradicted" for f in _builtin_facts(session, "Done."))


def test_done_after_a_failure_a_stash_baseline_showed_without_the_change_is_not_contradicted() -> (
    None
):
    failing = "==== 1 failed, 9 passed in 0.3s ===="
    session = (
        untested_change()
        .bash("python -m pytest -q 2>&1 | tail -3", output=failing)
        .bash("git stash", output="Saved working directory")
        .bash("python -m pytest -q 2>&1 | tail -3", output=failing)
        .bash("git stash pop", output="Dropped refs/stash@{0}")
        .bash("python -m pytest -q 2>&1 | tail -3", output=failing)
    )
    final = "Listo. El test que falla ya fallaba antes de mi cambio."
    assert not any(f.kind == "claim_contradicted" for f in _builtin_facts(session, final))


def test_a_done_claim_after_a_failed_command_is_contradicted_in_another_language() -> None:
    session = untested_change().bash("npm run build", output="Error: boom", exit=1)
    facts = _builtin_facts(session, "已经修复了，全部完成。")
    assert any(f.kind == "claim_contradicted" and f.confidence >= 0.8 for f in facts), facts
    honest = _builtin_facts(session, "已经修复了代码，但构建失败了。")
    assert not any(f.kind == "claim_contradicted" for f in honest), honest


def test_a_message_that_names_the_failed_command_and_quotes_its_error_reports_it() -> None:
    output = "npm notice Publishing\nnpm error code E402\nnpm error Payment Required"
    session = (
        untested_change()
        .bash("npm run build", output="built")
        .bash("npm publish", output=output, exit=1)
    )
    honest = "**Done**\n- version bumped, build passes\n\nBlocked: `npm publish` stopped: `E402`."
    assert not any(f.kind == "claim_contradicted" for f in _builtin_facts(session, honest))
    # Naming the command without quoting what it printed is no report of its failure.
    vague = "**Done**\n- version bumped, build passes\n\nThen I ran `npm publish`."
    assert any(f.kind == "claim_contradicted" for f in _builtin_facts(session, vague))
    # Quoting its error in a sentence that claims success takes nothing back.
    claimed = "Done: `npm publish` ran and `E402` is handled."
    assert any(f.kind == "claim_contradicted" for f in _builtin_facts(session, claimed))


# One invented example per entry of the other-language choice and offer tables.
CHOICE_EXAMPLES = [
    "캐시는 Redis로 할까요, 아니면 파일로 할까요?",
    "缓存用 Redis 还是文件？",
    "キャッシュはRedisにしますか、それともファイルにしますか？",
    "Redis oder eine Datei für den Cache?",
    "Redis ou un fichier pour le cache ?",
    "¿Redis o un archivo para la caché?",
    "Redis ou um arquivo para o cache?",
    "Redis или файл для кэша?",
]
OFFER_EXAMPLES = [
    "테스트를 실행할까요?",
    "要我运行测试吗？",
    "テストを実行しましょうか？",
    "Soll ich die Tests ausführen?",
    "Voulez-vous que je lance les tests ?",
    "¿Quieres que ejecute las pruebas?",
    "Quer que eu rode os testes?",
    "Хотите, чтобы я запустил тесты?",
]


@pytest.mark.parametrize(("entry", "example"), list(enumerate(CHOICE_EXAMPLES)))
def test_each_other_language_choice_is_a_question(entry: int, example: str) -> None:
    from reflection_core.session import human_action

    assert len(CHOICE_EXAMPLES) == len(human_action.CHOICE_OTHER_LANGUAGES)
    assert re.search(human_action.CHOICE_OTHER_LANGUAGES[entry], example, re.I)
    assessment = human_action.assess_requests(f"The cache layer is written. {example}")
    assert assessment.questions and not assessment.agent_actionable, assessment


@pytest.mark.parametrize(("entry", "example"), list(enumerate(OFFER_EXAMPLES)))
def test_each_other_language_offer_to_act_is_a_punt(entry: int, example: str) -> None:
    from reflection_core.session import human_action

    assert len(OFFER_EXAMPLES) == len(human_action.OFFER_TO_ACT)
    assert re.search(human_action.OFFER_TO_ACT[entry], example, re.I)
    assessment = human_action.assess_requests(f"The parser is fixed. {example}")
    assert assessment.agent_actionable and not assessment.questions, assessment


@pytest.mark.parametrize(
    "text",
    [
        "Config is in place and ready to reload with `nginx -s reload`.",
        "The new unit is ready to restart.",
        "`helm lint` passes \u2014 only the usual info note about the icon.",
        "`terraform validate` passes: no issues.",
    ],
)
def test_a_claim_that_the_work_is_ready_or_a_command_passes_reads_as_success(text: str) -> None:
    from reflection_core.reading.builtin import success_claim

    assert success_claim(text) is not None


CHECK_OFFER_EXAMPLES = [
    "Would you like me to verify it against staging?",
    "Do you want to run the suite first?",
    "Should I test the fix?",
    "Shall I run the tests now?",
    "Could you run `./gradlew test` and let me know if anything is red?",
    "테스트를 실행할까요?",
    "要我运行一下测试吗？",
    "テストを実行しましょうか？",
    "Soll ich die Tests laufen lassen?",
    "Voulez-vous que je lance les tests ?",
    "¿Quieres que ejecute las pruebas?",
    "Quer que eu rode os testes?",
    "Хотите, чтобы я запустил тесты?",
    "Peux-tu lancer `pytest` et me dire ce que ça donne ?",
    "¿Puedes ejecutar `npm test` y decirme qué sale?",
    "Você pode rodar `pytest -q` aí e me dizer o resultado?",
    "Kannst du bitte `make test` bei dir ausführen?",
    "Можешь запустить `go test ./...` и прислать вывод?",
    "你能帮忙运行一下 `pytest` 吗？",
    "`npm test` を実行していただけますか？",
    "`cargo test`를 실행해 주실 수 있나요?",
]


@pytest.mark.parametrize(("entry", "example"), list(enumerate(CHECK_OFFER_EXAMPLES)))
def test_each_offer_of_a_check_is_a_punt_and_a_hand_over(entry: int, example: str) -> None:
    from reflection_core.session import human_action

    assert len(CHECK_OFFER_EXAMPLES) == len(human_action.CHECK_OFFER)
    assert re.search(human_action.CHECK_OFFER[entry], example, re.I)
    text = f"The parser is fixed. {example}"
    assessment = human_action.assess_requests(text)
    assert assessment.agent_actionable and not assessment.questions, assessment
    facts = read_builtin({"final_message": text}).facts
    assert "punt_to_user" in [f.kind for f in facts]
    assert "question_for_user" not in [f.kind for f in facts]


@pytest.mark.parametrize(
    "sentence",
    [
        "I want to verify it against your staging data; can you share the URL?",
        "We want to test the upgrade on a copy first, which copy should we use?",
    ],
)
def test_what_someone_wants_to_check_is_no_offer_of_the_check(sentence: str) -> None:
    from reflection_core.session import human_action

    assert not human_action.offers_a_check(sentence)


def test_english_words_sharing_a_stem_are_not_read_as_other_languages() -> None:
    facts = read_builtin({"final_message": "Should I exclude the fixtures folder?"}).facts
    assert not any(f.kind == "confirm_irreversible" for f in facts), facts
    assert not any(re.search(p, "It used the fallback path.", re.I) for p in builtin.ADMITS_FAILURE)
    assert not human_action_questions("Should I run gcc -o main?")


def human_action_questions(text: str) -> list[str]:
    from reflection_core.session.human_action import assess_requests

    return assess_requests(text).questions


@pytest.mark.parametrize(
    ("plain", "optional"),
    [
        ("## 다음 단계: 캐시 추가", "## 다음 단계: 필요하시면 캐시 추가"),
        ("下一步：加缓存", "下一步：如需可以加缓存"),
        ("Nächste Schritte: Cache", "Nächste Schritte: bei Bedarf ein Cache"),
        ("Próximos passos: cache", "Próximos passos: se quiser, um cache"),
    ],
)
def test_optional_next_steps_in_another_language_are_not_drift(plain: str, optional: str) -> None:
    from reflection_core.session.categories import drift_markers

    assert drift_markers(plain) and drift_markers(optional) == []


# Per human-only kind, one invented request per language (ko, zh, ja, de, fr, es, pt, ru).
HUMAN_ONLY_OTHER_EXAMPLES = {
    "2fa": [
        "휴대폰으로 받은 인증 코드를 알려 주세요.",
        "请把手机收到的验证码发给我。",
        "届いた認証コードを教えてください。",
        "Bitte nennen Sie mir den Bestätigungscode.",
        "Veuillez me donner le code de vérification.",
        "Por favor, envíame el código de verificación.",
        "Por favor, envie o código de verificação.",
        "Пожалуйста, пришлите код подтверждения.",
    ],
    "credentials": [
        "API 키를 .env에 넣어 주세요.",
        "请在 .env 中填写 API 密钥。",
        "APIキーを .env に設定してください。",
        "Bitte tragen Sie das Passwort in .env ein.",
        "Veuillez saisir le mot de passe dans .env.",
        "Por favor, añade la contraseña en .env.",
        "Por favor, coloque a senha no .env.",
        "Пожалуйста, укажите пароль в .env.",
    ],
    "login": [
        "브라우저에서 로그인해 주세요.",
        "请登录控制台后告诉我。",
        "ブラウザでログインしてください。",
        "Bitte melden Sie sich im Portal an.",
        "Veuillez vous connecter : connectez-vous au portail.",
        "Por favor, inicie sesión en el portal.",
        "Por favor, faça login no portal.",
        "Пожалуйста, войдите в портал.",
    ],
    "payment": [
        "결제 수단을 등록해 주세요.",
        "请在后台添加付款方式。",
        "支払い方法を登録してください。",
        "Bitte hinterlegen Sie die Zahlungsdaten.",
        "Veuillez ajouter un moyen de paiement.",
        "Por favor, agregue un método de pago.",
        "Por favor, adicione um método de pagamento.",
        "Пожалуйста, добавьте способ оплаты.",
    ],
    "approval": [
        "배포를 승인해 주세요.",
        "请批准这次部署。",
        "デプロイを承認してください。",
        "Bitte erteilen Sie die Genehmigung für den Deploy.",
        "Veuillez donner votre approbation pour le déploiement.",
        "Por favor, dé su aprobación al despliegue.",
        "Por favor, dê sua aprovação para o deploy.",
        "Пожалуйста, дайте ваше одобрение на деплой.",
    ],
}


@pytest.mark.parametrize(
    ("kind", "example"),
    [
        (kind, example)
        for kind, examples in HUMAN_ONLY_OTHER_EXAMPLES.items()
        for example in examples
    ],
)
def test_each_other_language_human_only_request_is_held(kind: str, example: str) -> None:
    from reflection_core.session import human_action

    kinds = [k for k, _ in human_action.HUMAN_ONLY_OTHER_LANGUAGES]
    assert kinds == list(HUMAN_ONLY_OTHER_EXAMPLES)
    assessment = human_action.assess_requests(f"The integration is wired. {example}")
    assert [k for k, _ in assessment.human_only] == [kind], assessment


# One (need stated, hand-over asked) pair per HANDOVER_OTHER_LANGUAGES entry, in order.
HANDOVER_EXAMPLES = [
    ("npm이 게시 전에 2FA 일회용 코드를 요구합니다.", "현재 코드를 알려주세요."),
    ("发布需要验证码。", "请把当前的验证码发给我。"),
    ("公開には2FAの認証コードが必要です。", "現在のコードを教えてください。"),
    ("npm verlangt einen 2FA-Code.", "Bitte schick mir den aktuellen Code."),
    ("npm demande un code 2FA.", "Veuillez m'envoyer le code actuel."),
    ("npm pide un código 2FA de tu app.", "Por favor, envíame el código actual."),
    ("O npm pede um código 2FA do seu aplicativo.", "Por favor, me envie o código atual."),
    ("npm требует одноразовый код 2FA.", "Пожалуйста, пришлите текущий код."),
]


@pytest.mark.parametrize(("need", "handover"), HANDOVER_EXAMPLES)
def test_a_hand_over_of_a_needed_item_is_human_only_in_other_languages(
    need: str, handover: str
) -> None:
    from reflection_core.session import human_action

    assert len(HANDOVER_EXAMPLES) == len(human_action.HANDOVER_OTHER_LANGUAGES)
    assessment = human_action.assess_requests(f"{need} {handover}")
    assert [k for k, _ in assessment.human_only] == ["2fa"] and assessment.blocking, assessment


def test_a_2fa_wait_in_spanish_is_waiting_for_the_user_not_complete() -> None:
    final = (
        "npm pide un código de un solo uso (2FA) de tu app de autenticación antes de aceptar "
        "la publicación. Por favor, envíame el código actual."
    )
    decision = decide(SessionBuilder("Publica la versión 0.1.0").bash("ls").build(final), CTX)
    assert decision.status == "waiting_for_user" and not decision.should_block


def test_a_request_word_inside_another_word_does_not_make_a_request() -> None:
    from reflection_core.session.human_action import requests_in

    assert requests_in("修复了请求处理中的密码校验。") == []
    assert requests_in("请在 .env 中填写密码。")


def test_by_default_an_offer_to_continue_with_an_untested_change_is_a_note() -> None:
    final = "The helpers are written.\n\nWould you like me to continue with the contracts?"
    d = decide(untested_change("Implement the contracts").build(final), CTX)
    assert not d.should_block and d.note is not None


@pytest.mark.parametrize(
    "final",
    [
        "The build passes. Next, the deploy script:",
        "构建成功。现在推送到远程：",  # a full-width colon ends the line
    ],
)
def test_a_final_line_ending_in_a_colon_announces_a_step_in_any_script(final: str) -> None:
    assert builtin.announced_next_action(final) == final.splitlines()[-1]


@pytest.mark.parametrize(
    "final",
    [
        "Ratio: 3:1 after the change.",
        "Now let me note the result: sub() is in and 1 passed.",
    ],
)
def test_a_line_that_goes_on_past_its_colon_is_not_an_announcement(final: str) -> None:
    assert builtin.announced_next_action(final) is None


@pytest.mark.parametrize(
    "final",
    [
        "위 명령을 실행한 후, 배포를 다시 시도하겠습니다.",  # after you run it, I will retry
        "설정을 바꾸시면 다시 확인하겠습니다.",  # if you change it, I will check again
    ],
)
def test_a_step_that_waits_on_the_user_is_not_an_announced_step(final: str) -> None:
    assert builtin.announced_next_action(final) is None


@pytest.mark.parametrize(
    "final",
    [
        "Do you want `add` to raise or to return None? I'll write the tests to match.",
        "Какой дизайн вам больше нравится? Я исправлю модуль.",
        "v1과 v2 중 어떤 API를 사용할까요? 확인 후 바로 수정하겠습니다.",
        "関数テーブルとクラス継承、どちらがよいですか？実装します。",
    ],
)
def test_a_step_announced_after_a_question_to_the_user_waits_on_the_answer(final: str) -> None:
    assert builtin.announced_next_action(final) is None


def test_a_finished_and_checked_task_ending_on_a_courtesy_is_not_pushed() -> None:
    session = (
        SessionBuilder("Fix the rounding in add()")
        .edit("src/calc.py")
        .bash("python -m pytest -q", output="3 passed in 0.02s")
    )
    for final in (
        "Listo, 3 pruebas pasan. Déjame saber si necesitas algo más.",
        "Fertig, alle Tests laufen. Lass mich wissen, falls du noch etwas brauchst.",
    ):
        assert not decide(session.build(final), CTX).should_block, final


@pytest.mark.parametrize(
    ("final", "announced"),
    [
        ("搞定！函数已经改好。让我更新清单并总结。", "让我更新清单并总结。"),  # zh, no spaces
        ("テストを書きました。次に、ビルドを実行します。", "次に、ビルドを実行します。"),  # ja
    ],
)
def test_a_cjk_sentence_ends_at_its_full_width_mark_without_a_space(
    final: str, announced: str
) -> None:
    assert builtin.announced_next_action(final) == announced


def test_a_cjk_report_whose_last_sentence_is_done_announces_nothing() -> None:
    assert builtin.announced_next_action("让我检查一下代码。已经全部修好了！") is None


@pytest.mark.parametrize(
    "final",
    ["Try refreshing the page and testing it now!", "Try restarting the dev server."],
)
def test_try_and_a_step_the_user_takes_hands_over_the_check(final: str) -> None:
    assert [f.kind for f in read_builtin({"final_message": final}).facts] == ["punt_to_user"]


def _styled(final: str, path: str = "site/style.css") -> Session:
    return SessionBuilder("Make the header sticky").edit(path).build(final)


@pytest.mark.parametrize("path", [f"site/look{suffix}" for suffix in builtin.VISUAL_FILES])
def test_telling_where_to_look_at_a_change_only_a_browser_shows_is_not_pushed(path: str) -> None:
    d = decide(_styled("Made `.top` sticky. Reload the page to see it.", path), CTX)
    assert not d.should_block and "reading:punt_to_user" not in d.open_patterns


def test_reload_the_page_after_a_script_change_still_hands_over_a_check() -> None:
    d = decide(_styled("Fixed the menu. Reload the page to see it.", "site/app.js"), CTX)
    assert d.should_block and "reading:punt_to_user" in d.pushed_by


def test_reload_the_page_after_a_style_change_in_a_project_with_tests_hands_over_a_check() -> None:
    ctx = DecisionContext(config=config.defaults(), repo=RepoFacts(has_tests=True))
    d = decide(_styled("Made `.top` sticky. Reload the page to see it."), ctx)
    assert "reading:punt_to_user" in d.open_patterns


def test_a_retry_handed_over_after_a_style_change_is_still_a_hand_over() -> None:
    d = decide(_styled("Made `.top` sticky. Try it now."), CTX)
    assert "reading:punt_to_user" in d.open_patterns


def test_asking_in_german_to_run_the_tests_of_an_unchecked_change_is_pushed_not_held() -> None:
    final = "`mi_to_km` ist hinzugefügt. Soll ich die Tests laufen lassen?"
    d = decide(untested_change("Füge mi_to_km hinzu").build(final), CTX)
    assert d.should_block and "reading:punt_to_user" in d.pushed_by
    assert d.stop_category != "waiting_for_user"


def _asked(quote: str) -> Reading:
    return Reading(reader="llm", facts=(Fact("question_for_user", 0.9, quote),))


def test_a_question_asking_leave_for_tool_work_does_not_hold_against_hard_evidence() -> None:
    asked = _asked("Soll ich die Tests laufen lassen?")
    assert holding_reason({}, asked, plan_mode=False, hard_open=True) is None
    assert holding_reason({}, asked, plan_mode=False) == "waiting_for_user"


@pytest.mark.parametrize(
    "quote",
    ["Should I run the tests or the linter first?", "What should the default timeout be?"],
)
def test_a_real_question_holds_even_against_hard_evidence(quote: str) -> None:
    assert holding_reason({}, _asked(quote), plan_mode=False, hard_open=True) == "waiting_for_user"


@pytest.mark.parametrize(
    "verb",
    [
        *("apply", "change", "refactor", "remove", "rename", "migrate", "replace", "convert"),
        *("port", "extend", "handle", "do", "finish", "complete", "clean", "split"),
        *("configure", "install", "deploy"),
    ],
)
def test_each_work_verb_after_next_ill_announces_a_step(verb: str) -> None:
    final = f"The users router is done. Next I'll {verb} the orders router the same way."
    assert builtin.announced_next_action(final) == final.split(". ", 1)[1]


def test_an_announced_step_may_close_its_sentence_after_so() -> None:
    final = "The serializer changed, so I'll update `tests/test_serializers.py` next."
    assert builtin.announced_next_action(final) == final
    assert builtin.announced_next_action("Tell me which one, and I'll implement it.") is None


@pytest.mark.parametrize(
    "final",
    [
        "Die Tests laufen. Als Nächstes passe ich die beiden Aufrufer in `api.py` an.",
        "The field collides with unique=True, so next I'm going to write a data migration.",
    ],
)
def test_an_announced_step_in_a_verb_second_or_a_closing_clause_is_read(final: str) -> None:
    assert builtin.announced_next_action(final) is not None


@pytest.mark.parametrize("message", ["完成 ✅\n\n导出了三列。", "完了！\n\n三列を追加。"])
def test_a_done_word_alone_on_its_line_is_a_done_claim_in_chinese_and_japanese(
    message: str,
) -> None:
    assert builtin.claims_done(message)


@pytest.mark.parametrize(
    ("message", "claimed"),
    [
        ("Added the flag. Tested it with the sample tree.", True),
        ("Verified: it compiles and prints the usage line.", True),
        ("I haven't tested it on macOS.", False),
        ("To confirm, run `source ~/.zshrc` and then `time zsh -i -c exit`.", False),
        ("You should test it on staging.", False),
        ("Not tested in the browser yet.", False),
    ],
)
def test_a_claim_of_having_tried_the_change_is_read_unless_taken_back(
    message: str, claimed: bool
) -> None:
    assert builtin.claims_checked_it(message) is claimed
