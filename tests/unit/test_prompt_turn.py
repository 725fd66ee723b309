"""The turn reader: replies, continuations, questions and chat are never asked about.

One test per phrase-table entry, then the behaviours a user meets: answers in any
language stay quiet, a new task is asked about only on evident gaps.
"""

from __future__ import annotations

import pytest

from reflection_core.prompt import phrases, rules, turn
from reflection_core.prompt.hook import build_response
from reflection_core.prompt.score import score_prompt

OFFER = "I can add the missing index to `orders.created_at`. Want me to do that?"
OPTIONS = (
    "Three ways to fix it:\n1. Add an index on `orders.created_at`.\n"
    "2. Cache the report for five minutes.\n3. Paginate the endpoint.\nWhich one?"
)
STATUS = "I updated `billing/tax.py` and the tests pass. Next I will look at the export job."


def _quiet(prompt: str, prev: str | None = None) -> bool:
    result = score_prompt(prompt, prev)
    return not result.needs_clarification and build_response(result).context is None


@pytest.mark.parametrize("opener", phrases.ANSWER_OPENERS)
def test_every_answer_opener_is_a_quiet_reply(opener: str) -> None:
    result = score_prompt(opener, OFFER)
    assert result.turn in turn.REPLY_KINDS
    assert _quiet(opener, OFFER)


@pytest.mark.parametrize("phrase", phrases.RESUME)
def test_every_resume_phrase_continues_without_a_question(phrase: str) -> None:
    assert turn.read(phrase, STATUS).kind == "continuation"
    assert _quiet(phrase, STATUS)


@pytest.mark.parametrize("opener", phrases.QUESTION_OPENERS)
def test_every_question_opener_reads_as_a_question(opener: str) -> None:
    assert turn.is_question(f"{opener} the retry loop stops after a timeout")


@pytest.mark.parametrize("marker", phrases.QUESTION_MARKERS)
def test_every_question_marker_reads_as_a_question(marker: str) -> None:
    assert turn.is_question(f"配置{marker}")


@pytest.mark.parametrize("phrase", phrases.INFORMATION_REQUESTS)
def test_every_information_request_is_not_scored_as_a_task(phrase: str) -> None:
    result = score_prompt(f"{phrase} the retry loop in the sync worker")
    assert result.turn == "question"
    assert _quiet(f"{phrase} the retry loop in the sync worker")


@pytest.mark.parametrize("phrase", phrases.CHAT)
def test_every_greeting_is_chat(phrase: str) -> None:
    assert score_prompt(phrase).turn == "chat"
    assert _quiet(phrase)


def test_a_pointer_mid_conversation_means_the_file_at_hand() -> None:
    done = "Done. The signup form now validates the email on blur. All tests pass."
    assert _quiet("add a comment at the top of this file explaining the rules", done)
    assert _quiet("このファイルにもテストを追加して", done)
    assert not _quiet("add a comment at the top of this file explaining the rules")


@pytest.mark.parametrize("noun", ["device", "IAM policy", "handlers", "EBS volumes", "avatar"])
def test_the_attached_before_a_thing_in_the_system_is_no_attachment(noun: str) -> None:
    assert _quiet(f"remove the attached {noun} in the teardown job")


@pytest.mark.parametrize("word", sorted(phrases.DOCUMENT_NOUNS))
def test_the_attached_before_a_document_or_the_end_of_its_phrase_points_at_one(word: str) -> None:
    assert not _quiet(f"use the attached {word} now")


@pytest.mark.parametrize("opener", phrases.CONDITION_OPENERS)
def test_a_condition_right_before_the_pointer_is_a_feature_test(opener: str) -> None:
    assert _quiet(f"show an error {opener} this file is over 10 MB")
    assert not _quiet("show an error for this file")


@pytest.mark.parametrize("closer", phrases.CONDITION_CLOSERS)
def test_a_condition_closing_after_the_pointer_is_a_feature_test(closer: str) -> None:
    assert _quiet(f"このファイルが10MBを超え{closer}エラーを出して")


@pytest.mark.parametrize("verb", phrases.MAKING_VERBS)
def test_a_pointer_back_at_what_the_prompt_made_first_is_not_asked(verb: str) -> None:
    assert _quiet(f"{verb} the monthly report and email this file to finance")
    assert not _quiet("email this file to finance")


@pytest.mark.parametrize("link", phrases.CLAUSE_LINKS)
def test_every_clause_link_ends_the_clause_that_made_the_thing(link: str) -> None:
    assert _quiet(f"generate the monthly report {link} email this file to finance")
    assert not _quiet("generate slides from this file")


@pytest.mark.parametrize("word", phrases.CONTAINER_WORDS)
def test_an_image_in_a_prompt_about_containers_is_a_container_image(word: str) -> None:
    assert _quiet(f"tag this image with the git sha before the {word} push")
    assert not _quiet("crop this image to a square")


@pytest.mark.parametrize("suffix", phrases.CODE_SUFFIXES)
def test_a_pascal_case_name_ending_in_a_kind_of_code_names_code(suffix: str) -> None:
    assert turn.names_code(f"rename User{suffix} to Account{suffix}")


@pytest.mark.parametrize("kind", phrases.CODE_KINDS)
def test_a_capitalised_name_before_a_kind_of_code_names_code(kind: str) -> None:
    assert turn.names_code(f"add an index to the Orders {kind}")
    assert not turn.names_code(f"Orders {kind}")


def test_product_names_in_pascal_case_are_not_code() -> None:
    assert not turn.names_code("make a PowerPoint of it and push it to GitHub with JavaScript")


def test_something_the_user_believes_they_sent_is_asked_for_on_a_cold_start() -> None:
    assert not _quiet("implement the design from the mockup I sent")
    assert not _quiet("fix the errors in the log I just pasted")
    assert _quiet("implement the design from the mockup I sent: designs/home.png")
    assert _quiet("implement the design from the mockup I sent", "The mockup shows a sidebar.")


def test_a_question_about_a_file_nobody_supplied_is_asked_about_on_a_cold_start() -> None:
    result = score_prompt("explain this file")
    assert result.needs_clarification and result.rule == "referent_nowhere"
    assert _quiet("explain this file", "I opened src/app.py: it wires the routes.")
    assert _quiet("what does parse_date in this file do?")


def test_a_vanished_screenshot_sent_as_a_reply_is_asked_for() -> None:
    asked = "I can't reproduce the layout bug. Could you send a screenshot of what you see?"
    result = score_prompt(f"sure {THUMBNAIL}.png", asked)
    assert result.needs_clarification and "Screenshot.png" in result.questions[0]


def test_a_path_opening_the_prompt_is_no_slash_command() -> None:
    assert score_prompt(f"{THUMBNAIL}.png the header overlaps").needs_clarification
    assert score_prompt("/compact keep the test names").action == "skip"


def test_the_attached_document_run_on_into_a_longer_noun_is_a_feature() -> None:
    assert _quiet("the attached screenshot feature in our bug reporter is broken")
    assert not _quiet("the attached screenshot shows the bug, fix it")


def test_a_pointer_nobody_supplied_gets_the_one_question_about_it() -> None:
    result = score_prompt("fix this file")
    assert result.rule == "referent_nowhere" and len(result.questions) == 1
    assert "this file" in result.questions[0]


def test_a_dragged_screenshot_name_with_bare_spaces_is_named_whole() -> None:
    prompt = f"this page is wrong {THUMBNAIL} 2026-03-01 at 09.15.22.png"
    assert turn.vanished_screenshot(prompt, False) == "Screenshot 2026-03-01 at 09.15.22.png"
    two = f"{THUMBNAIL} 1.png {THUMBNAIL} 2.png compare these"
    assert turn.vanished_screenshot(two, False) == "Screenshot 1.png"


def test_an_acronym_inside_japanese_text_is_no_shouting() -> None:
    assert not turn.is_interjection("このファイルのCSSを直して")
    assert turn.is_interjection("LISTEN")
    assert not _quiet("このファイルのCSSを直して")


def test_german_quotes_mark_quoted_text() -> None:
    assert _quiet("Ändere den Text „Diese Datei ist zu groß“ in „Datei zu groß (max. 10 MB)“")


@pytest.mark.parametrize("phrase", phrases.MISSING_REFERENT)
def test_every_missing_referent_is_asked_about_unless_the_conversation_names_a_file(
    phrase: str,
) -> None:
    prompt = f"make slides from {phrase}"
    result = score_prompt(prompt)
    assert result.needs_clarification
    assert "implicit_context" in {smell.id for smell in result.smells}
    assert _quiet(prompt, "The report is in docs/q3-report.md; I kept its structure.")


@pytest.mark.parametrize("word", phrases.COMMAND_WORDS)
def test_every_command_word_alone_is_not_a_fragment(word: str) -> None:
    assert _quiet(word)


@pytest.mark.parametrize(
    "reply",
    ["yes, option 2", "2-3 are fine", "fais les deux", "ja, bitte", "好的，按第二个来", "option 1"],
)
def test_answers_to_options_stay_quiet_in_any_language(reply: str) -> None:
    assert _quiet(reply, OPTIONS)


def test_a_long_reply_to_the_agents_question_is_not_scored() -> None:
    reply = (
        "no, keep the index as it is; the report is slow because of the CSV export, "
        "so cache the export for five minutes and leave the endpoint alone"
    )
    result = score_prompt(reply, OFFER)
    assert result.turn == "reply"
    assert _quiet(reply, OFFER)


def test_a_question_to_the_agent_is_not_a_task_to_clarify() -> None:
    for question in (
        "what does the retry decorator do?",
        "pourquoi le cache expire si vite ?",
        "这个项目用的是什么数据库",
    ):
        assert score_prompt(question).turn == "question"
        assert _quiet(question)


def test_a_request_phrased_as_a_question_is_a_task() -> None:
    assert score_prompt("can you make the dashboard faster?").turn == "task"
    assert score_prompt("can you make this file faster?").needs_clarification


@pytest.mark.parametrize("place", phrases.VANISHING_FILE_PLACES)
def test_every_vanishing_place_makes_a_dropped_screenshot_point_nowhere(place: str) -> None:
    prompt = f"'/var/folders/q1/zz9{place}k3Jd.png' still broken"
    result = score_prompt(prompt, STATUS)  # the files the agent named bring no picture back
    assert result.rule == "referent_nowhere"
    assert result.needs_clarification
    assert "k3Jd.png" in result.questions[0] and "paste the image" in result.questions[0]


THUMBNAIL = "/var/folders/q1/zz9/T/TemporaryItems/NSIRD_screencaptureui_Ab12/Screenshot"


def test_a_dropped_thumbnail_with_escaped_spaces_is_named_in_the_question() -> None:
    result = score_prompt(f"this page is wrong {THUMBNAIL}\\ 2026-03-01\\ at\\ 09.15.22.png")
    assert result.needs_clarification
    assert "“Screenshot 2026-03-01 at 09.15.22.png”" in result.questions[0]


def test_a_dropped_thumbnail_beside_a_full_description_or_an_attached_image_is_not_asked() -> None:
    described = (
        f"'{THUMBNAIL} 1.png' the invoice total on the checkout page shows 0.00 after a coupon "
        "is applied, although the cart still lists two items at 12.50 each and the coupon is "
        "only ten percent off"
    )
    assert turn.vanished_screenshot(described, attached=False) is None
    assert turn.vanished_screenshot(f"'{THUMBNAIL} 1.png' broken", attached=True) is None
    assert turn.vanished_screenshot("'/Users/dev/Desktop/Screenshot 1.png' broken", False) is None


def test_a_referent_whose_content_is_pasted_beside_it_is_not_asked_about() -> None:
    notes = "Q3 revenue grew 12 percent on the new plan.\nCosts fell 3 percent after the switch."
    for prompt in (
        f"Make slides from this document:\n\n{notes}",
        "fix this file\ndef total(items):\n    return sum(items) +\n",
        "proofread this file:\n\n# Install\n\nRun `npm instal` then `npm strat`.\n",
        "what does this function do?\ndef f(s): return s[::-1] == s",
        "explain this error: ECONNRESET",
        "¿qué hace esta función? `const once = fn => fn`",
        'When the upload is over 10MB, show this error: "This file is too large."',
        "このエラーの原因を教えてください：\nUnhandledPromiseRejectionWarning: ECONNREFUSED",
        "what does this error ECONNRESET mean?",
        "fix this error TS2322, I just enabled strict mode",
        "docker keeps killing the build with this error 137",
        "I keep hitting this error when I open settings - maximum update depth exceeded",
        "what does this script do? the bootstrap one at the repo root",
        "explain this error\nKilled",
        f"{notes}\n\nMake slides from this document.",
        "Make slides from this document: revenue grew 12 percent and costs fell 3 percent "
        "after the vendor switch",
    ):
        assert turn.missing_referent(prompt, False, None) is None
        assert not score_prompt(prompt).needs_clarification
    assert score_prompt("Make slides from this document.\nThanks!").needs_clarification


def test_a_referent_pointing_nowhere_is_asked_about_only_on_a_cold_start() -> None:
    assert score_prompt("add pagination to this file").needs_clarification
    assert _quiet("add pagination to this file", STATUS)


def test_a_new_task_in_a_language_the_phrase_rules_cannot_read_is_not_judged_by_them() -> None:
    assert _quiet("ajoute un bouton d'export CSV sur la page des factures")
    assert _quiet("在设置页面加一个导出按钮")


def test_nothing_to_act_on_is_recorded_and_asks_only_if_the_gate_lets_it() -> None:
    for prompt in (".", "login"):
        result = score_prompt(prompt)
        assert result.rule == "nothing_to_act_on", prompt
        assert result.needs_clarification is rules.asks("nothing_to_act_on")
        assert len(result.questions) == (1 if rules.asks("nothing_to_act_on") else 0)
    assert _quiet("https://example.invalid/team/repo")
    assert _quiet("~/deploy/releases/")  # a path alone is something to open, not to question


def test_a_number_is_doubted_only_against_options_the_message_numbered() -> None:
    assert _quiet("3", STATUS)  # no options read: its layout may number them another way
    assert _quiet("3", "How many worker processes should I start?")
    assert _quiet("3", OPTIONS)


def test_a_number_picks_an_option_the_turn_offered_before_its_last_message() -> None:
    assert score_prompt("3", STATUS, earlier_turn=OPTIONS).rule == ""
    beyond = score_prompt("5", STATUS, earlier_turn=OPTIONS)
    assert beyond.rule == "option_not_offered" and not beyond.questions  # recorded, silent


@pytest.mark.parametrize(
    "last",
    [
        "I found it: the export job reads every row into memory, and that is why it is slow.",
        "Recommendation: move the session store to Redis and keep the cookie signing as is.",
        "I'm going to rewrite the query in reports/monthly.py with a JOIN.",
        "Plan:\n\n1. Add an index on orders(created_at).\n2. Rewrite the query.\n\n"
        "Ready when you are.",
        "To fix this, change line 12 of src/app.py to return DEFAULTS when the file is empty.",
    ],
)
@pytest.mark.parametrize("reply", ["go for it", "go ahead", "do it", "let's do it"])
def test_a_go_ahead_is_never_asked_whether_the_message_proposed_something(
    reply: str, last: str
) -> None:
    # Whether a message proposed something is wording no phrase list reads reliably.
    assert not score_prompt(reply, last).questions


def test_a_go_ahead_on_an_irreversible_production_step_is_recorded_but_held_back() -> None:
    plan = (
        "Plan:\n1. Back up with pg_dump.\n2. Run `DROP TABLE legacy_users;` on production.\n"
        "3. Restart the API."
    )
    result = score_prompt("yes do all of it", plan)
    assert result.rule == "irreversible_step"  # seen on too few users to ask (prompt.rules)
    assert not result.needs_clarification
    assert _quiet("no, wait", plan)
    assert _quiet("yes do all of it", plan.replace("on production", "on the test database"))


def test_an_attachment_or_an_opened_file_supplies_the_referent() -> None:
    opened = (
        "<ide_opened_file>The user opened the file /srv/app/report.md in the IDE."
        "</ide_opened_file> make slides from this file"
    )
    assert turn.read(opened, None).attached
    assert _quiet(opened)
    assert _quiet("[Image #2] make the header look like this")


def test_word_count_counts_scripts_without_spaces() -> None:
    assert turn.word_count("generate the docs") == 3
    assert turn.word_count("生成文档") == 2
    assert turn.latin_share("在设置页面加一个导出按钮") < 0.6
    assert turn.latin_share("add an export button") == 1.0


def test_a_missing_referent_in_any_script_gets_exactly_that_question() -> None:
    for prompt in ("把这个文件翻译成英文", "このファイルを要約して", "이 파일 번역해줘"):
        result = score_prompt(prompt)
        assert result.action == "ask", prompt
        assert result.question_keys == ("implicit_context",), prompt
        assert "refers to something I can't see" in result.questions[0]


def test_halting_an_agent_is_a_command_not_a_fragment() -> None:
    for word in ("wait", "stop", "hold on"):
        assert _quiet(word, STATUS), word


@pytest.mark.parametrize("program", phrases.SHELL_PROGRAMS)
def test_every_shell_program_opens_a_command_not_a_task(program: str) -> None:
    prompt = f"{program} --version"
    assert score_prompt(prompt).turn == "command"
    assert _quiet(prompt)


@pytest.mark.parametrize("opener", phrases.ANALYSIS_OPENERS)
def test_every_analysis_opener_is_never_questioned(opener: str) -> None:
    assert _quiet(f"{opener} the project")
    assert _quiet(f"{opener} things")


@pytest.mark.parametrize("phrase", phrases.INVITED_QUESTIONS)
def test_every_invitation_to_ask_is_read_as_one(phrase: str) -> None:
    result = score_prompt(f"add a retry to the upload client. {phrase}")
    assert result.rule == "invited_questions"
    assert result.needs_clarification is rules.asks("invited_questions")


@pytest.mark.parametrize("negation", phrases.INVITATION_NEGATIONS)
def test_every_negated_invitation_is_not_one(negation: str) -> None:
    assert not turn.invites_questions(
        f"add a retry to the upload client, {negation} ask me questions"
    )
    assert score_prompt(f"add a retry to the upload client. {negation} ask me questions").rule != (
        "invited_questions"
    )


def test_encouragement_to_ask_is_still_an_invitation() -> None:
    assert turn.invites_questions(
        "add a retry to the upload client; don't hesitate to ask me questions"
    )


def test_an_invitation_phrase_inside_a_longer_word_is_not_one() -> None:
    assert not turn.invites_questions("add a tab that lists the interview meetings of a candidate")
    assert turn.invites_questions(
        "add a tab that lists the meetings of a candidate, interview me first"
    )


PROPOSAL = "I can move the retry logic into `http/client.py` and add a test for the backoff."


@pytest.mark.parametrize(
    "reply", ["확인해줘", "그렇게 해", "давай так", "проверь это", "نعم افعل ذلك", "راجعها"]
)
def test_a_short_reply_after_a_proposal_is_a_reply_in_any_script(reply: str) -> None:
    assert score_prompt(reply, PROPOSAL).turn == "reply"
    assert _quiet(reply, PROPOSAL)


def test_a_short_message_in_a_script_without_tables_is_never_questioned() -> None:
    for message in ("проверь", "اختبار", "확인"):
        assert _quiet(message)
        assert _quiet(message, STATUS)


def test_a_short_message_naming_a_new_target_is_not_taken_for_a_reply() -> None:
    assert score_prompt("now fix src/cache.py", PROPOSAL).turn == "task"
    assert score_prompt("look at `load_config`", PROPOSAL).turn == "task"


@pytest.mark.parametrize(
    "pasted",
    [
        'Traceback (most recent call last):\n  File "app.py", line 3, in <module>\n'
        "    main()\nValueError: bad input",
        '{\n  "name": "demo",\n  "version": "1.0.0"\n}',
        "2026-01-02 10:00:01 INFO started\n2026-01-02 10:00:02 ERROR db down\n"
        "2026-01-02 10:00:03 WARN retrying",
        "error[E0425]: cannot find value `conn` in this scope\n  --> src/main.rs:27:13\n"
        "   |\n27 |     let r = conn.query(1);\n   |             ^^^^ not found in this scope\n"
        "\nerror: aborting due to 1 previous error",
        "--- FAIL: TestPaginate (0.00s)\n    app_test.go:31: got [] want [5 6 7 8 9]\nFAIL\n"
        "FAIL\texample.com/app\t0.003s",
        "=========== FAILURES ===========\n________ test_last_page ________\n\n"
        "    def test_last_page():\n>       assert page(2) == [5, 6]\nE       assert [] == [5, 6]\n"
        "\ntests/test_app.py:31: AssertionError\n======= 1 failed, 13 passed in 0.21s =======",
    ],
)
def test_pasted_output_alone_is_not_a_task_to_question(pasted: str) -> None:
    assert score_prompt(pasted).turn == "output"
    assert _quiet(pasted)


def test_one_word_in_capitals_is_an_interjection() -> None:
    assert score_prompt("STOP").turn == "chat"
    assert _quiet("WAIT", STATUS)


@pytest.mark.parametrize(
    "prompt",
    [
        "rebuild this docker image with python 3.12",
        "update this docstring: it should say the timeout is in seconds",
        "fix this filesystem watcher so it ignores node_modules",
        "Fix the attachments table migration: the size column should be bigint",
        "Add a 'see attached' footer to outgoing invoice emails",
        "설정이 파일에 저장되지 않는 버그를 고쳐줘",
        "实现邮件附件上传功能，限制大小为10MB",
        "make slides from this pdf docs/q3-report.pdf",
        "add this file to the repo: .env.example",
        "use this file as the fixture: C:\\Users\\ana\\shop\\orders.xlsx",
        "fix this file\nrequests==2.31\nflask=2.0",
        "as discussed, move the nightly backup cron to 3am UTC",
        "fix that bug we saw in the CSV export where quotes get doubled",
    ],
)
def test_a_pointer_to_something_named_or_a_word_that_only_contains_one_is_not_asked(
    prompt: str,
) -> None:
    assert _quiet(prompt), prompt


def test_a_file_the_previous_message_showed_is_not_asked_about() -> None:
    shown = "Here's the updated manifest:\n```yaml\nkind: ConfigMap\n```"
    assert _quiet("apply the file above to the staging cluster", shown)
    assert _quiet("compress this pdf to under 2MB", "Done. The export is in out/report.pdf.")
    assert not _quiet("apply the file above to the staging cluster")


@pytest.mark.parametrize("word", sorted(phrases.REFERENT_RUN_ON_WORDS))
def test_every_run_on_word_makes_this_file_a_kind_of_thing(word: str) -> None:
    assert _quiet(f"fix this file {word} bug")
    assert not _quiet("fix this file bug")


@pytest.mark.parametrize("phrase", phrases.GENERIC_FILE_CONTEXT)
def test_every_generic_context_makes_this_file_any_such_file(phrase: str) -> None:
    assert _quiet(f"{phrase} 0 reject this file")
    assert not _quiet("reject this file")


@pytest.mark.parametrize("word", phrases.MENTION_WORDS)
def test_every_mention_word_makes_the_pointer_after_it_quoted_text(word: str) -> None:
    assert _quiet(f"Add a line {word}: this file is generated")
    assert not _quiet("Add a line: this file is generated")


def test_a_capitalised_label_after_a_mention_word_is_quoted_text() -> None:
    assert _quiet("The tooltip says Drop this file here when many are dragged; pluralize it")
    assert _quiet("Rename the menu entry Open this document in new tab to Open in new tab")
    assert not _quiet("fix the error message in this file")
    assert not _quiet("the tooltip in this file is wrong, fix it")


@pytest.mark.parametrize("word", phrases.QUOTATIVE_WORDS)
def test_every_quotative_after_the_pointer_makes_it_quoted_text(word: str) -> None:
    assert _quiet(f"fix this file {word}")
    assert not _quiet("fix this file")


@pytest.mark.parametrize("word", sorted(phrases.POSITION_OBJECTS))
def test_above_with_an_object_of_its_own_places_a_thing_rather_than_pointing(word: str) -> None:
    assert _quiet(f"move the link above {word} footer into the nav")
    assert not _quiet("open the link above")


def test_above_before_a_number_compares_rather_than_points() -> None:
    assert _quiet("Add a retry to the downloader; the file above 2 GB times out")
    assert not _quiet("Look at the file above and fix it")


@pytest.mark.parametrize("char", sorted(phrases.REFERENT_RUN_ON_CHARS))
def test_every_run_on_character_makes_a_pointer_a_longer_noun(char: str) -> None:
    assert _quiet(f"修复这个文件{char}的问题")
    assert not _quiet("修复这个文件的问题")


def test_a_korean_particle_after_a_run_on_word_still_runs_the_pointer_on() -> None:
    assert _quiet("지원하는 형식에 이 파일 형식(HEIC)을 추가해줘")
    assert _quiet("이 파일 크기를 줄여줘")
    assert not _quiet("이 파일 수정해줘")


@pytest.mark.parametrize("name", ["parse_date", "parseDate", "render()", "MAX_RETRIES"])
def test_a_pointer_beside_an_identifier_is_found_by_searching_the_code(name: str) -> None:
    assert turn.names_code(f"add tests for {name}")
    assert _quiet(f"Add unit tests for this file's {name}")
    assert not _quiet("Add unit tests for this file")


def test_product_names_in_mixed_case_are_not_identifiers() -> None:
    assert not turn.names_code("it fails on macOS and iPhone, and on eBay's JavaScript")


@pytest.mark.parametrize("marker", phrases.EXAMPLE_MARKERS)
def test_a_vanishing_path_given_as_an_example_is_data_not_a_dropped_picture(marker: str) -> None:
    assert turn.vanished_screenshot(f"handle {marker} {THUMBNAIL}.png", attached=False) is None
    assert turn.vanished_screenshot(f"handle {THUMBNAIL}.png", attached=False) == "Screenshot.png"


def test_the_staging_folder_as_a_pattern_is_not_a_dropped_picture() -> None:
    prompt = "Add /TemporaryItems/NSIRD_screencaptureui_ to the list of vanishing places"
    assert turn.vanished_screenshot(prompt, attached=False) is None
    assert _quiet(prompt)


def test_a_pointer_in_quotes_or_inline_code_is_mentioned_not_used() -> None:
    assert _quiet('Change the button label "Upload this file" to "Upload"')
    assert _quiet("the `this file` placeholder leaks into the form")
    assert _quiet("Ajoute un bouton « Télécharger ce fichier » sous chaque facture")
    assert not _quiet("Rename this file")


def test_here_is_the_list_with_its_items_on_the_line_is_not_asked() -> None:
    assert _quiet("Here's the list of locales to add: de, fr, es")
    assert not _quiet("here is my config file, can you check it")


@pytest.mark.parametrize(
    ("prompt", "asked_for"),
    [
        ("explain this error", "paste the full text, and say where it shows"),
        ("review the screenshot I attached", "attach or paste it again"),
        ("make slides from this file", "point me to the file"),
    ],
)
def test_the_question_asks_for_what_the_kind_of_thing_pointed_at_needs(
    prompt: str, asked_for: str
) -> None:
    (question,) = score_prompt(prompt).questions
    assert asked_for in question


@pytest.mark.parametrize(
    "prompt",
    [
        "use the attached PDF to seed the database",
        "이 파일 API 에러 고쳐줘",
        "fix this error please",
    ],
)
def test_an_acronym_after_the_pointer_names_a_kind_of_thing_not_the_thing(prompt: str) -> None:
    assert score_prompt(prompt).needs_clarification


@pytest.mark.parametrize(
    ("prompt", "quoted"),
    [
        ("see the attached image", "the attached image"),
        ("посмотри на скриншот, который я прикрепил", "скриншот, который я прикрепил"),
    ],
)
def test_the_question_quotes_the_whole_noun_phrase(prompt: str, quoted: str) -> None:
    (question,) = score_prompt(prompt).questions
    assert question.startswith(f"“{quoted}”")
