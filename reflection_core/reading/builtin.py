"""The built-in reader: deterministic phrase tables over the evidence digest, no tokens.

`read_builtin(digest)` turns the words of a stop (the final message and the task prompt,
as the digest carries them) into `Fact`s with a confidence. High confidence (>= 0.8) is
kept for shapes that are rarely anything else: the last line announcing an action and
stopping there, a question before a destructive step, the host's own error text. Softer
findings get lower confidence; when only those are found the reading says `uncertain`,
so a paid reader may be asked. The decision, not the reader, owns what a fact means.

Phrase lists hold one entry per line; each entry has its own test.
"""

from __future__ import annotations

import re

from reflection_core.lazyre import lazy
from reflection_core.reading.facts import Fact, Reading
from reflection_core.session.categories import (
    asks_for_requested_work,
    claim_patterns,
    drift_markers,
    stuck_reason,
)
from reflection_core.session.human_action import (
    HumanActionAssessment,
    assess_requests,
    ends_as_question,
    offers_a_check,
    prose_of,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SURE = 0.8  # the decision's bar for acting on a fact alone

# The final line announces the next action and the turn ends there: "Now let me run the
# build:", "Let me check the logs." The agent stopped mid-task.
_WORK_VERBS = (
    r"(run|check|look|create|write|add|fix|update|implement|start|continue|verify|test|build|"
    r"try|make|move|wire|investigate|apply|change|refactor|remove|rename|migrate|replace|"
    r"convert|port|extend|handle|do|finish|complete|clean|split|configure|install|deploy|"
    r"register)\b"
)
ANNOUNCED_NEXT_ACTION: tuple[str, ...] = (
    r"^(now|next|first|then|ok(ay)?|great|good|perfect|alright)?[,!.]?\s*let me (?!know\b)\w+",
    # "Next I'll apply ...", and the same after "so" ("..., so I'll update the tests next";
    # not "tell me which, and I'll do it": that waits on the user).
    r"(^(now|next|then|so)?[,]?\s*|[,;]\s*so\s+)i('ll| will) (now |next |then )?" + _WORK_VERBS,
    r"^(now|next)[,]? (i need to|i have to|i must|we need to)\b",
    r"^(now )?moving on to\b",
    r"(^(now|next|then|so)?[,]?\s*|[,;]\s*so (next )?)(i'?m )?(now )?(going to|about to) "
    + _WORK_VERBS,
    r"\b(continuing|proceeding) (with |to |on )?(the )?[\w -]{0,40}\W*$",
    # The same announcement in other languages (a final line ending in a colon is caught
    # above whatever its language).
    # not "once you run it, I will": "...면" (if) and "...한 후" (after) wait on someone
    r"^(?!.*(면|한 후|하신 후)[ ,])(이제|다음으로|먼저)?\s*.{0,60}(하겠습니다|해 ?보겠습니다|"
    r"할게요|해 ?볼게요)[.!]?$",  # ko
    r"^(现在|接下来|下一步|然后|好的)?[,，]?\s*(让我|我来|我将|我先|我现在)(运行|执行|检查|查看|"
    r"创建|修改|更新|实现|测试|构建|修复|添加|编写|继续)",  # zh
    r"^(では|次に|まず|それでは|続いて)?[、,]?.{0,60}(実行|確認|作成|修正|更新|実装|テスト|ビルド|"
    r"調査)(します|しましょう|していきます|してみます)[。.]?$",  # ja
    r"^(jetzt|nun|als nächstes|zunächst|danach)\s+\w+e ich\b|"
    r"^(jetzt|nun|als nächstes|zunächst)?[,]?\s*(lass(e)? (mich|uns)|ich werde (jetzt |nun )?)"
    r"\s?\w+",  # de
    r"^(maintenant|ensuite)?[,]?\s*(je vais|laissez-moi|laisse-moi) (maintenant )?\w+",  # fr
    r"^(ahora|luego|a continuaci[oó]n)?[,]?\s*(voy a|d[eé]jame|perm[ií]teme) \w+",  # es
    r"^(agora|em seguida)?[,]?\s*(vou|deixe-me|deixa eu) \w+",  # pt
    r"^(теперь|сейчас|далее)?[,]?\s*(давайте|я (сейчас )?(запущу|проверю|создам|исправлю|"
    r"обновлю|добавлю))",  # ru
)
# A step that waits on the user is not one the turn could have taken: its last words are
# a courtesy or a promise for after the user's answer ("I'll implement it as soon as you
# tell me which one", "Déjame saber si necesitas algo más"). One phrase a line, by
# language; the Korean entry above keeps its own "if/after" exclusion.
WAITS_ON_USER: tuple[str, ...] = (
    r"\b(once|when|whenever|after|as soon as|if|unless|until) you\b",
    r"\b(whichever|whatever|however) you\b|\bif (you'?d like|you want|needed|necessary)\b"
    r"|\byour (answer|reply|decision|choice|approval|go-ahead|confirmation)\b",
    r"\b(wait|waiting) (for|on) your\b|\bawait your\b|\bstand by\b|\b(stay|remain) available\b",
    r"\bd[eé]jame saber\b|\bav[ií]same\b|\b(en cuanto|cuando|una vez que|si) (me |lo |la )*"
    r"(dig|confirm|respond|aprueb|decid|necesit|quier)\w*|\bquedo (atento|a la espera)",  # es
    r"\bdeixe-me saber\b|\bme avise\b|\b(assim que|quando|se|depois que) (voc[eê] )?(me )?"
    r"(responder|disser|confirmar|aprovar|decidir|precisar|quiser)\b|\b(à|a) disposi[cç][aã]o\b"
    r"|\baguard\w+",  # pt
    r"\blaisse(z)?-moi savoir\b|\b(dès que|quand|lorsque|si|une fois que) (tu|vous)\b"
    r"|\bdisponible\b|\bj'attends\b|\ben attendant\b|\battendre (ta|votre)\b",  # fr
    r"\blass (mich|es mich) wissen\b|\bbescheid\b|\b(sobald|wenn|falls|nachdem) (du|sie)\b"
    r"|\bwarte\w*|\bverf[üu]gung\b",  # de
    r"\b(когда|как только|после того как|если) (вы|ты)\b|\bесли (нужно|потребуется)\b"
    r"|\bпри необходимости\b|\bжд(у|ать)\b|\bдайте знать\b|\bпосле (вашего|твоего)\b",  # ru
    r"等待|等你|等您|(你|您)(确认|同意|批准|回复|决定|选择|告诉我)(后|之后|以后)|如果(你|您)",  # zh
    r"次第|ましたら|いただ(ければ|いたら)|必要(に応じて|であれば)|ご要望|お待ち|待機",  # ja
    r"주시면|주시는 대로|되는 대로|기다리",  # ko
)
# Asks leave to go on with the task it was given: the task already asked for it.
CONTINUE_OFFER: tuple[str, ...] = (
    r"\b(would you like|do you want|want) me to (continue|proceed|keep going|carry on|finish)\b",
    r"\b(shall|should) i (continue|proceed|keep going|carry on|finish)\b",
    r"\b(continue|proceed) with the (rest|remaining)\b.{0,60}\?",
    r"(계속|진행)\s?(할까요|하시겠습니까|해도 될까요|하시겠어요|할까)",  # ko
    r"(是否|要不要|需要我|要我)(继续|接着)|继续(吗|么)",  # zh
    r"(続け|進め|続行し|続行)(ましょうか|ますか|てもよろしいですか|てもいいですか)",  # ja
    r"\bsoll ich\b.{0,40}\b(weitermachen|fortfahren|weiter machen)\b",  # de
    r"\b(voulez-vous|souhaitez-vous|dois-je|puis-je) (que je )?(continu|poursuiv)\w*",  # fr
    r"\b(quieres|quiere|desea|deseas) que (contin[uú]e|siga|prosiga)\b",  # es
    r"\b(quer|deseja|gostaria) que eu (continue|prossiga|siga)\b",  # pt
    r"\b(хотите|нужно|мне),? (чтобы я )?(продолж\w+)\b.{0,60}\?",  # ru
    # A menu whose option is to go on with the work ("Option 2: Continue fixing C-3").
    r"^\W*(option|choice) \w{1,3}\W{0,6}(continue|keep) (fixing|working|going|debugging|with)\b",
    r"\b(or|otherwise) i (can|could) (continue|keep) (fixing|working|going|debugging)\b",
)
# Work still open, in words no "Next steps:" header would catch.
REMAINING_WORK: tuple[str, ...] = (
    r"\bnow i need to\b",
    r"\bi still need to\b",
    r"\bstill failing\s*:",
    r"\bnow moving on to\b",
    r"\b(the )?remaining \d+ (tests?|files?|items?|tasks?|steps?|errors?|failures?)\b",
    r"\b\d+ (tests?|checks?) (are )?still failing\b",
    r"\bnot (yet )?(finished|complete|completed|done) yet\b",
)
# Waiting on work it started: a subagent, a background job, CI, a monitor.
BACKGROUND_WAIT: tuple[str, ...] = (
    r"\b(subagent|sub-agent|agent|task)s? (is|are) (still )?running\b",
    r"\b(i'll|i will) (share|report|post|summari[sz]e|let you know)\b.{0,60}\bwhen (it|they)"
    r" (report|finish|complete|return|come back|are done|is done)",
    r"\bwhen (it|the (subagent|agent|job|build|run|task)) reports back\b",
    r"\b(running|started|kicked off|launched) in the background\b.{0,80}\b(wait|check back|"
    r"report|once|when)\b",
    r"\bwaiting (for|on) (the )?(subagent|sub-agent|background|ci|build|job|workflow|"
    r"pipeline|deploy\w*|monitor)\b",
    r"\b(the )?monitor (is|will) (watch|running|notify)\w*\b",
)
# Words that make a question a confirmation before something that cannot be undone.
IRREVERSIBLE: tuple[str, ...] = (
    r"\bdelet(e|ing|ion)\b",
    r"\b(drop|truncate)\b",
    r"\bremov(e|ing)\b.{0,40}\b(permanently|all|every|data|branch|database|table|files?|"
    r"directory|folder|repo\w*)\b",
    r"\bforce[- ]push\w*\b",
    r"\boverwrit(e|ing)\b",
    r"\bwip(e|ing)\b",
    r"\b(irreversibl[ey]|cannot be undone|can'?t be undone|permanent(ly)?)\b",
    r"\brm -rf\b",
    r"\breset --hard\b",
    r"\b(purge|destroy)\b",
    r"\bpublish\w*\b.{0,40}\b(public|npm|pypi|release)\b",
    r"삭제|덮어쓰|초기화|영구적",  # ko
    r"删除|清空|覆盖|强制推送|不可恢复|无法撤销",  # zh
    r"削除|上書き|強制プッシュ|元に戻せ",  # ja
    r"\b(lösch\w*|überschreib\w*|unwiderruflich|endgültig entfernen)\b",  # de
    r"\b(supprim\w*|écras\w*|irréversible|définitivement)\b",  # fr
    r"\b(elimin(o|ar|amos)|borr(o|ar|amos)|sobrescrib\w*|irreversible)\b",  # es
    r"\b(exclu(o|ir|imos)|apag(o|ar|amos)|sobrescrev\w*|irrevers[ií]vel)\b",  # pt
    r"(удал\w*|перезапис\w*|безвозвратно|необратим\w*)",  # ru
)
# The user is handed a run, retry or check of the change ("Try it now", "Relaunch the dev
# server"): after an unchecked change, work the agent's own tools can do.
HANDED_TO_USER: tuple[str, ...] = (
    r"\btry (it|them|this) (now|again)\b",
    r"\btry (running|upgrading|reloading|refreshing|relaunching|restarting|rebuilding|reinstalling|"
    r"opening|testing) ",
    r"\btry (the|your) (build|install|upgrade|command|page|app) again\b",
    r"\b(relaunch|re-launch|re-run|rerun) (`|the |your |it\b)",
    r"\b(reload|refresh) the (page|browser|app)\b",
    r"\bupgrad(e|ing) the modules? again\b",
    r"\b(then|and) (re-?run|relaunch|restart|re-?test|test)( it| them| this)?( again)?\s*:\s*$",
    # "Run `pytest` to verify it", "You can check it with: ```npm test```": a check named
    # and handed over.
    # Also as a list item, and as a chain ("Run `x` and then `y` to verify").
    r"(^|[.!]\s+)([-*\u2022]\s+|\d+[.)]\s+)?(please )?(re-?run|run|execute) `[^`\n]{2,80}`"
    r"((,|,? and|,? then|,? and then) `[^`\n]{2,80}`){0,3} to (verify|check|confirm|test|"
    r"make sure|see (if|whether))\b",
    r"\byou can (check|verify|test|confirm) (it|this|that|the (change|fix|result))( works)? "
    r"(with|by running)\b",
    # The purpose first, or the run as a later step: "To confirm, run `x`", "restart nvim,
    # then run `:ConformInfo` to check it".
    r"\bto (verify|check|confirm|test)( (it|this|that))?,? (please )?(re-?run|run|execute) "
    r"(`[^`\n]{2,80}`|(it|this|them)\b)",
    r"\b(then|and) (re-?run|run|execute) `[^`\n]{2,80}` to (verify|check|confirm|test|"
    r"make sure|see (if|whether))\b",
    # A command for the user to run on their side, asked or told ("Could you run
    # `./gradlew test` and let me know?", "Give it a quick `npm test` on your side"), and
    # a local page to open: the agent's own tools reach all of them.
    r"\b(could|can|would) you (please )?(re-?run|run|execute|try) `[^`\n]{2,80}`",
    r"(^|[.!,]\s+)(please )?(re-?run|run|execute) `[^`\n]{2,80}` and (then )?(check|verify|"
    r"confirm|make sure|see)\b",
    r"`[^`\n]{2,80}`[^.\n]{0,30}\bon your (side|end|machine)\b",
    r"\bopen (https?://)?(localhost|127\.0\.0\.1|0\.0\.0\.0)[:/]",
    # Polite requests to run, rerun, restart, reload or retry, in other languages ("check
    # it" is left out, as in English: it is as often a hand-over of what only the user sees).
    r"(실행|테스트|재시작|새로\s?고침|다시\s?시도|시도)\s?(해|하여)\s?(주세요|주십시오|보세요|"
    r"보십시오|봐 ?주세요)",  # ko
    r"请(您)?(重新)?(运行|执行|测试|重启|刷新|尝试|再试)",  # zh
    r"(実行|テスト|再起動|リロード|再読み込み|再試行|お試し|試して)(して)?(みて)?ください",  # ja
    r"\bbitte\b.{0,40}\b(aus(führen)?|neu ?starten|neu laden|testen|erneut versuchen)\b",  # de
    r"\b(veuillez|merci de) (ré|re)?(exécuter|lancer|tester|démarrer|redémarrer|charger|"
    r"recharger|essayer)\b",  # fr
    r"\bpor favor,? (ejecut[ae]|prueb[ae]|reinici[ae]|recarg[ae]|vuelv[ae] a (ejecutar|"
    r"probar|intentar|cargar))\b",  # es
    r"\bpor favor,? (rode|teste|reinicie|recarregue|tente novamente|execute novamente)\b",  # pt
    r"(^|пожалуйста,?\s)(запустите|перезапустите|обновите страницу|попробуйте)",  # ru
    # A named command for the user to run on their side, in French (English above).
    r"`[^`\n]{2,80}`[^.\n]{0,30}\bde (ton|votre) côté\b",  # fr
)
# Where to look at a change, not a check to run: "Reload the page to see it". After a
# change only a browser shows (a stylesheet, markup, an image) and in a project with no
# check that could run it, the look is the user's. One phrase a line, by language.
LOOK_AT_IT: tuple[str, ...] = (
    r"\b(reload|refresh|hard[- ]refresh|reopen) (the |your )?(page|browser|tab|site)\b",
    r"\bopen [\w./-]+\.html? in (the|your|a) browser\b",
    r"새로\s?고침",  # ko
    r"刷新(页面|浏览器)",  # zh
    r"(ページ|ブラウザ)を?(リロード|再読み込み|更新)",  # ja
    r"\b(seite|browser) neu laden\b|\blade die seite neu\b",  # de
    r"\brecharge[zr]? la page\b",  # fr
    r"\brecarg(a|ue|ar) la p[aá]gina\b",  # es
    r"\b(recarregue|atualize) a p[aá]gina\b",  # pt
    r"обновите страницу",  # ru
)
# Files only a browser shows: a change to them alone is looked at, not run.
VISUAL_FILES: tuple[str, ...] = (
    ".css",
    ".scss",
    ".sass",
    ".less",
    ".styl",
    ".html",
    ".htm",
    ".svg",
    ".png",
    ".jpg",
    ".jpeg",
    ".gif",
    ".webp",
    ".ico",
)
# Drift lines that name the user's own next step ("Next step: restart the app"), not the
# agent's remaining work.
USER_STEP: tuple[str, ...] = (
    r"\b(restart|reload|reopen|relaunch) (claude|the app|your|vs ?code|the ide|the editor)",
    r"\bopen (a|the|your) (codespace|browser|terminal|new session|editor)\b",
    r"\b(log|sign) ?in\b",
    r"\byour (own|side|machine|terminal)\b",
    r"\bwhen(ever)? you('re| are)? ready\b",
)
# Drift lines that are the strongest kind: a numbered phase short of its total, an open
# TODO, a "remaining work" header.
STRONG_DRIFT: tuple[str, ...] = (
    r"\b(phase|step|part|stage) \d+ (of|/) \d+\b",
    r"^\s*[-*]?\s*(\[ \]\s*)?todo\b",
    r"\b(remaining (work|tasks|items|steps)|still to do|left to do)\b",
    # not the user's own ("Next steps (yours): open the PR", "your next steps")
    r"(?<!your )\bnext steps?\b(?!\s*[(:]?\s*(yours|for you|on your (side|end))\b)",
    r"다음 단계|남은 작업",  # ko
    r"下一步|后续步骤|剩余工作",  # zh
    r"次のステップ|残りの作業|残作業",  # ja
    r"\b(nächste schritte|verbleibende (arbeit|aufgaben))\b",  # de
    r"\b(prochaines étapes|travail restant|reste à faire)\b",  # fr
    r"\b(próximos pasos|siguientes pasos|trabajo pendiente)\b",  # es
    r"\b(próximos passos|trabalho restante)\b",  # pt
    r"(следующие шаги|дальнейшие шаги|осталось сделать)",  # ru
)
# A claim that the work is finished.
DONE_CLAIM: tuple[str, ...] = (
    # The word ends its sentence or line, or an emoji follows it ("Done ✅", "Refactor
    # complete").
    r"\b(all )?(done|fixed|complete|completed|finished|resolved)\b\s*([.!]|$|[\u2705\u2714"
    r"\U0001f389\U0001f680])",
    # The word opens the message or a sentence and the rest follows it: "Done, it works."
    # "Fixed: the subject includes the name."
    r"(^|[.!]\s+)[*_\s]*([\w-]+ ){0,2}(all )?(done|fixed|complete|completed|finished|resolved)"
    r"\s*[:,\u2014\u2013]",
    r"\bsuccessfully\b",
    # The message or a sentence opens on the finished act and its object: "Fixed the
    # rounding bug in `formatPrice`."
    r"(^|[.!]\s+)[*_\s]*(fixed|resolved|completed|finished) (the|a|an|both|all|this|it)\b",
    r"\bi'?ve (created|added|fixed|updated|installed|written|implemented)\b",
    r"\b(is|are) (now )?(working|fixed|installed|ready|in place)\b",
    r"\b(all set|good to go|ready to (go|merge|ship|deploy|reload|restart|use|apply)|shipped)\b",
    r"\b(done|fixed|finished) and (committed|pushed|deployed|merged)\b",
    r"(^|[.!]\s+)[*_\s]*(pushed|committed|deployed|merged) (to|on|into)\b",
    # An action said done with a check mark or a rocket: "Deployed ✅", "✅ Pushed".
    r"\b(deployed|pushed|committed|merged|published|released|tagged)\s*[\u2705\u2714\U0001f680]"
    r"|[\u2705\u2714]\s*(deployed|pushed|committed|merged|published|released|tagged)\b",
    r"완료(했습니다|되었습니다|됐습니다)|수정(했습니다|되었습니다)|성공적으로",  # ko
    r"(已|已经)(完成|修复|解决|创建|添加|更新)|全部完成|成功(地)?|^\W*完成\W*$",  # zh
    r"(完了|修正|作成|追加|実装)しました|正常に|^\W*完了\W*$",  # ja
    r"\b(erledigt|fertig|erfolgreich|behoben)\b",  # de
    r"\b(terminé|corrigé|réussi|avec succès|c'est fait)\b",  # fr
    r"\b(listo|completado|corregido|con éxito|exitosamente)\b|^\W*hecho\b",  # es
    r"\b(concluído|corrigido|com sucesso|pronto)\b",  # pt
    r"(готово|исправлен\w*|успешно|завершен\w*)",  # ru
    r"^\W*fatto\b|\bho (fatto|completato|corretto|risolto|sistemato)\b|\b(completat|risolt|"
    r"sistemat)[oa]\b|\bcon successo\b",  # it
    r"\b(tamamlandı|tamamladım|düzeltildi|düzelttim|bitti|hazır)\b",  # tr
)
# A claim that the agent itself ran, tried or checked the change: "Tested it on the sample",
# "Verified: it compiles", "Проверил юнит". Said with nothing run after the change, it is
# evidence the transcript contradicts. One shape a line, English first.
CHECKED_IT_CLAIM: tuple[str, ...] = (
    r"\b(tested|tried|ran|exercised) (it|this|that|them|the (script|change|fix|page|site|app|"
    r"cli|tool|command|function|config))\b",
    r"\btested (in|on|with|against|locally|manually|end[- ]to[- ]end)\b",
    r"(^|[.!]\s+)[*_\s]*([\w-]+ and )?(verified|tested|checked)\s*([:\u2014\u2013]|, and\b)",
    r"\b(getestet|geprüft|ausprobiert)\b",  # de
    r"\b(testé|vérifié)\b",  # fr
    r"\b(probado|probé|verificado|verifiqué)\b",  # es
    r"\b(testado|testei|verificado|verifiquei)\b",  # pt
    r"(проверил|протестировал|проверено|протестировано)",  # ru
    r"(测试过|验证过|已测试|已验证|测试了|验证了)",  # zh
    r"(動作確認|確認済み|テストしました|検証しました)",  # ja
    r"(테스트했|확인했|검증했)",  # ko
)
# A claim that the change works or that its checks pass, in words DONE_CLAIM does not
# hold ("all green", "`just test` passes", "it builds cleanly", "the CLI works"). With a
# failed last check after the change and no failure admitted, the claim is contradicted.
# One shape a line, English first, then one entry per other language.
SUCCESS_CLAIM: tuple[str, ...] = (
    r"\b(all|every) (of )?(the )?([\w-]+ )?(tests?|checks?|specs?|suites?) (now )?(pass|succeed|"
    r"are (passing|green|ok))\b",
    r"\b(it'?s |is |are |everything'?s )?all (green|passing|clean)\b",
    r"\b(tests?|specs?|checks?|suite|build|type-?checks?|typecheck(ing)?|lint(ing)?|ci|run)"
    r" (is|are|comes back|came back) (now )?(all )?(green|clean|fine|passing|ok|happy)\b",
    r"\b(builds|compiles|runs|passes) (cleanly|clean|fine|successfully|without (errors?|"
    r"warnings?|failures?))\b",
    # The thing said to build, full stop or for a target: "It builds for the iOS simulator."
    r"\b(it|everything|the (app|project|code|crate|package))( now| still)? (builds|compiles)"
    r"(?=\s*([.!;]|$)| for\b)",
    r"(\b(it|this|that|everything|the [\w-]+( [\w-]+){0,2})( now| still)? |(^|[.!]\s+)[*_\s]*)"
    r"works( now| again| fine| correctly| as (expected|intended|requested))?\s*([.!;:]|$)",
    r"\btypes (are|look) (fine|clean|ok|good)\b|\bno (test )?failures\b",
    # A command in backticks said to pass: "`just test` passes", "`make check` is fine".
    r"`[^`\n]{2,80}`:?\s+((now|still|also) )?(pass(es)?|succeeds|clean|green|is (all )?(fine|"
    r"clean|green|ok|happy|passing)|runs (clean|cleanly|green))"
    r"(?=\s*([.,;:!)\u2014\u2013]|$|(now|again|too|locally|for (all|every|each))\b))",
    r"\b(todas las |las )?(pruebas|tests?) (ya )?(pasan|est[aá]n en verde)\b|\bfunciona"
    r"( correctamente| bien)?\s*([.!]|$)",  # es
    r"\b(todos os |os )?testes (j[aá] )?(passam|est[aã]o passando|est[aã]o verdes)\b|"
    r"\bfunciona( corretamente| bem)?\s*([.!]|$)",  # pt
    r"\b(tous les |les )?tests (passent|sont (au )?verts?)\b|\bfonctionne( correctement|"
    r" bien)?\s*([.!]|$)|\bcompile sans erreur",  # fr
    r"\b(alle )?tests (sind )?(grün|bestanden|laufen (durch|erfolgreich))\b|\bfunktioniert"
    r"( jetzt| wieder| korrekt)?\s*([.!]|$)|\bbaut (sauber|fehlerfrei|ohne fehler)\b",  # de
    r"テスト(は|が|も)?(すべて|全て|全部)?(合格|成功|パス|通過)(?!し(ませ|てい?な|なかっ))|"
    r"正常に動作(?!し(ませ|てい?な|なかっ))|ビルド(は|が)?成功",  # ja
    r"测试(已经?|都|全部)*(通过|成功)|(运行|工作)正常|(构建|编译)(成功|通过)",  # zh
    r"테스트(가|를|는|도)? ?(모두 |전부 )?(통과|성공)(했|하였|합|됩|되었)|정상(적으로)? (작동|동작)"
    r"(합|하)|빌드(가|는)? 성공",  # ko
    r"тесты (проходят|прошли|зел[её]ные)|(вс[её]|все) работает|работает (корректно|правильно)|"
    r"(сборка|компиляция) (прошла )?успешн",  # ru
    r"\b(tutti i |i )?test (sono (tutti )?(verdi|passati)|passano)\b|\bfunziona( correttamente|"
    r" bene)?\s*([.!]|$)",  # it
    r"\b(tüm |bütün )?testler (geçti|geçiyor|başarılı)\b|\bçalışıyor\s*([.!]|$)",  # tr
)
# Words before a claim that take it back or make it a condition, in the languages above
# ("not all green", "once `make test` passes", "no funciona", "не работает").
_NOT_SAID = lazy(
    r"n't\b|\b(not|never|no|unless|once|if|until|should|would|will|be|almost|nearly|"
    r"partially|partly|nicht|kein\w*|ne|pas|"
    r"nunca|não|nao|sin|sem|когда|если|quando)\b|\bnon\b(?!-)|не\s|没|不|未|못|안\s",
    re.I,
)

# Output of a failed command that shows a real error, not just a non-zero status.
ERROR_OUTPUT: tuple[str, ...] = (
    r"\berror\b",
    r"\bpermission denied\b",
    r"\bnot found\b",
    r"\bfatal\b",
    r"\btraceback\b",
    r"\bexception\b",
    r"\bfailed\b",
    r"\bno such file\b",
    r"^[\w.$]*(Error|Exception)\b:",  # the last line of a stack trace: "AttributeError: ..."
)
_KILLED = (130, 137, 143)  # interrupted, killed, terminated: the work may be done
# Words that show the agent reports a failure honestly rather than claiming success.
ADMITS_FAILURE: tuple[str, ...] = (
    r"\bfail(ed|s|ing|ure)?\b",
    r"\berror\b",
    r"\b(could ?n[o']t|can ?n[o']t|unable|not able)\b",
    r"\bdenied\b",
    r"\bdid ?n[o']t\b",
    r"\bnot (been )?(created|written|installed|applied)\b",
    r"실패|오류|에러|못했|할 수 없",  # ko
    r"失败|错误|报错|无法|未能|没有成功",  # zh
    r"失敗|エラー|できません|できなかった",  # ja
    r"\b(fehlgeschlagen|fehler\w*|konnte nicht|nicht (möglich|geklappt|funktioniert|erledigt|"
    r"gelungen)|(ge)?scheiter\w*)\b",  # de
    r"\b(échou\w*|erreur|impossible de|n'a pas pu)\b",  # fr
    r"\b(fall[oó]|fallaron|fallid[oa]s?|errores|no (se )?pudo|no fue posible)\b",  # es
    r"\b(falh\w*|erro|não (foi possível|consegui))\b",  # pt
    r"(ошибк\w*|не удалось|не получилось|сбой)",  # ru
    r"\b(fallit\w*|fallisce|falliscono|error[ei]|non (è stato possibile|sono riuscit\w*))\b",  # it
    r"(başarısız|hata|yapılamadı|olmadı)",  # tr
)


# The task says something does not work: the work is "make it work", and a change nothing
# ran afterwards is a guess. Read in the prompt, one phrase family a line.
REPORTED_FAILURE: tuple[str, ...] = (
    r"\b(still|again) (getting|get|seeing|see|having|has|have|shows?|showing|throws?|throwing|"
    r"gives?|giving|returns?|returning)\b[^.?!\n]{0,30}\b(errors?|exceptions?|fail\w*|crash\w*)\b",
    r"\bstill (broken|failing|fails|crashing|crashes|erroring|not working|does ?n[o']t work)\b",
    r"\bsame (error|issue|problem|exception)\b",
    r"\b(does ?n[o']t|did ?n[o']t|is ?n[o']t|are ?n[o']t|wo ?n[o']t|ca ?n[o']t|cannot) (work|load"
    r"|render|start|compile)\b",
    r"\bnot (working|loading|rendering|starting|compiling|showing up)\b",
    r"\b(is|are|keeps?) (broken|crashing|failing)\b",
    # ko; "-면 안 돼" is "must not", not a failure
    r"(?<!면 )(?<!면)안\s?(돼|되|됨)|(작동|동작)(하지 않|을 안|이 안)",
    r"(还是|仍然|依然)(不行|报错|失败|有问题)|不(起作用|能用了)|没(有)?(效果|反应)",  # zh
    r"動か(ない|なかった|なくなった)|直って(い)?ない|(まだ|また)エラー",  # ja
    r"\bfunktioniert (immer noch |noch |weiterhin )?nicht\b|\bgeht (noch )?nicht\b",  # de
    r"\bne (marche|fonctionne) (toujours |plus )?pas\b|\btoujours la même erreur\b",  # fr
    r"\bno funciona\b|\bsigue (fallando|sin funcionar|dando error)\b|\bel mismo error\b",  # es
    r"\bnão funciona\b|\bcontinua (falhando|dando erro)\b|\bo mesmo erro\b",  # pt
    r"не работает|вс[её] ещ[её] (ошибка|падает)|та же ошибка",  # ru
)


def _compile(phrases: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    return tuple(lazy(p, re.I | re.M) for p in phrases)


_ANNOUNCED = _compile(ANNOUNCED_NEXT_ACTION)
_WAITS_ON_USER = _compile(WAITS_ON_USER)
_REMAINING = _compile(REMAINING_WORK)
_BACKGROUND = _compile(BACKGROUND_WAIT)
_IRREVERSIBLE = _compile(IRREVERSIBLE)
_DONE = _compile(DONE_CLAIM)
_CHECKED_IT = _compile(CHECKED_IT_CLAIM)
_SUCCESS = _compile(SUCCESS_CLAIM)
_USER_STEP = _compile(USER_STEP)
_HANDED = _compile(HANDED_TO_USER)
_LOOK = _compile(LOOK_AT_IT)
_CONTINUE = _compile(CONTINUE_OFFER)
_STRONG_DRIFT = _compile(STRONG_DRIFT)
_ADMITS = _compile(ADMITS_FAILURE)
_ERROR_OUTPUT = _compile(ERROR_OUTPUT)
_REPORTED_FAILURE = _compile(REPORTED_FAILURE)
# A sentence ends at . ! ? and a space, or right after the full-width marks CJK text uses
# without one ("完成了。让我更新清单。").
_SENTENCE_END = lazy(r"(?<=[.!?])\s+|(?<=[\u3002\uff01\uff1f])")
_REPORT_KINDS = ("report_only", "read_only")
_QUESTION_MARKS = ("?", "\uff1f")  # the full-width mark ends Chinese and Japanese questions


def claims_done(text: str) -> bool:
    """The message says the work is finished (done, fixed, working, ready), in any of
    DONE_CLAIM's languages."""
    return any(pattern.search(text or "") for pattern in _DONE)


def claims_checked_it(text: str) -> bool:
    """The message says the agent ran, tried or checked the change itself
    (CHECKED_IT_CLAIM), unless the words right before take it back ("haven't tested it")."""
    text = text or ""
    return any(
        not _NOT_SAID.search(_words_before(text, match.start()))
        for pattern in _CHECKED_IT
        for match in pattern.finditer(text)
    )


def admits_failure(text: str) -> bool:
    """The message reports a failure (ADMITS_FAILURE), in any of its languages."""
    return _first(_ADMITS, text or "") is not None


def success_claim(text: str, *, of_checks: bool = True) -> str | None:
    """The line where the message says the work is done (DONE_CLAIM) or, `of_checks`,
    that it works or passes its checks (SUCCESS_CLAIM, and "the tests pass" or "`make
    test` passes" as the claim tables read it), unless the words right before take it
    back. The one reading of a success claim: what it is worth is the evidence's to say."""
    found = _success(text or "", of_checks)
    return found[0] if found else None


def _success(text: str, of_checks: bool) -> tuple[str, str] | None:
    """The claim's line and its sentence (see `success_claim`)."""
    patterns = (*_DONE, *_SUCCESS, *claim_patterns()) if of_checks else _DONE
    for pattern in patterns:
        for match in pattern.finditer(text):
            if not _NOT_SAID.search(_words_before(text, match.start())):
                return _line_of(text, match), _sentence_at(text, match)
    return None


def _words_before(text: str, at: int) -> str:
    """Up to 24 characters before `at` on its line and in its sentence: the words that
    could take a claim back ("not all green"), not the end of the sentence before it
    ("... and not expired. All green.")."""
    start = max(text.rfind("\n", 0, at) + 1, at - 24)
    before = text[start:at]
    ends = [m.end() for m in _SENTENCE_END.finditer(before)]
    return before[ends[-1] :] if ends else before


def _sentence_at(text: str, match: re.Match[str]) -> str:
    line = _line_of(text, match)
    at = line.find(match.group(0))
    ends = [m.end() for m in _SENTENCE_END.finditer(line)]
    start = max((e for e in ends if e <= at), default=0)
    end = min((e for e in ends if e > at), default=len(line))
    return line[start:end]


def _about_other_checks(sentence: str, failed: str) -> bool:
    """The claim's sentence names, in backticks, checks other than the one that failed
    ("`terraform validate` passes" beside a failed `terraform plan`)."""
    from reflection_core.session.commands import classify_command

    quoted = [q.strip() for q in _INLINE.findall(sentence)]
    checks = [q for q in quoted if classify_command(q).kinds & _CHECK_KINDS]
    # Compared without redirections: "`python3 j2c.py > out.csv`" names the failed run.
    return bool(checks) and not any(_REDIRECT.split(q)[0].strip() in failed for q in checks)


_REDIRECT = lazy(r"\s(\||\d?>)")


def _quotes_the_failure(text: str, failed: str, printed: list[str]) -> bool:
    """A sentence names the failed command and quotes what it printed ("`npm publish`
    stopped with `EOTP`"; `printed`: the message's quotes found in its output), and
    claims no success: the message reports that failure, in whatever words."""
    for line in text.splitlines():
        for sentence in _SENTENCE_END.split(line):
            quoted = [q.strip() for q in _INLINE.findall(sentence)]
            names = any(_names_command(q, failed) for q in quoted)
            quotes = any(q in printed for q in quoted if not _names_command(q, failed))
            if names and quotes and _success(sentence, True) is None:
                return True
    return False


def _names_command(quoted: str, failed: str) -> bool:
    """`npm publish` names `npm publish --access public`; one word names only itself."""
    core = _REDIRECT.split(quoted)[0].strip()
    return core == failed.strip() or (" " in core and core in failed)


def shows_where_to_look(sentence: str, changed: list[str]) -> bool:
    """The sentence tells the user where to look (LOOK_AT_IT) at a change to files only
    a browser shows (VISUAL_FILES): no check is handed over."""
    visual = bool(changed) and all(p.lower().endswith(VISUAL_FILES) for p in changed)
    return visual and _first(_LOOK, sentence or "") is not None


def _first(patterns: tuple[re.Pattern[str], ...], text: str) -> re.Match[str] | None:
    for pattern in patterns:
        match = pattern.search(text)
        if match:
            return match
    return None


def _line_of(text: str, match: re.Match[str]) -> str:
    start = text.rfind("\n", 0, match.start()) + 1
    end = text.find("\n", match.end())
    return text[start : end if end != -1 else None].strip()[:200]


def last_line(text: str) -> str:
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return lines[-1] if lines else ""


def announced_next_action(text: str) -> str | None:
    """The final line (or its last sentence) announces an action the turn never took."""
    line = last_line(text).strip("*_# ")
    if not line or line.startswith(("```", "|")):
        return None
    sentence = [s for s in _SENTENCE_END.split(line) if s.strip("*_ ")][-1].strip("*_ ")
    if line.endswith((":", "\uff1a")) and len(line) <= 200:  # and the full-width colon
        return line
    if sentence.endswith(_QUESTION_MARKS):
        return None
    if _first(_WAITS_ON_USER, sentence) or _asks_before(line, sentence):
        return None  # a courtesy, or a step for after the user's answer
    if _first(_ANNOUNCED, sentence) and not sentence.partition(":")[2].strip():
        return sentence[:200]  # "Let me sum up: it works" went on to say it
    return None


def _asks_before(line: str, sentence: str) -> bool:
    """The final line asks the user something before its last sentence ("Raise or return
    None? I'll write the tests to match."): the step it then announces waits on the
    answer, in any language."""
    before = line[: line.rfind(sentence)].rstrip("*_ ")
    return before.endswith(_QUESTION_MARKS)


# Code a message hands over: fenced blocks (each line a candidate) and inline spans.
_FENCED = lazy(r"```[^\n`]*\n(.*?)(?:```|\Z)", re.S)
_INLINE = lazy(r"`([^`\n]{2,200})`")
_PROMPT_SIGN = lazy(r"^\s*(\$|>|PS>|#>)\s+")
# A value the user is to fill in: `<database>`, `your_db`, `YOUR_TOKEN`, `...` (Go's
# `./...` names every package: no placeholder).
_PLACEHOLDER = lazy(r"<[A-Za-z][\w -]*>|\byour[_-]\w+|\bYOUR_\w+|(?<!/)\.\.\.")
_HANDED_KINDS = frozenset({"test", "build", "typecheck", "lint"})
_CHECK_KINDS = _HANDED_KINDS | {"run"}
_HANDED_LINES = 200  # code lines read from the end of the message


def handed_check(text: str) -> str | None:
    """The check the message hands over to run, as written: the last line of a fenced
    block or inline span that is a test, build, typecheck or lint command with nothing
    left to fill in. A push for a hand-over can then name it."""
    from reflection_core.session.commands import classify_command

    lines = [ln for block in _FENCED.findall(text or "") for ln in block.splitlines()]
    lines += _INLINE.findall(_FENCED.sub(" ", text or ""))
    for line in reversed(lines[-_HANDED_LINES:]):  # the last one; a pasted log costs no more
        command = _PROMPT_SIGN.sub("", line).strip()
        if not command or command.startswith("#") or _PLACEHOLDER.search(command):
            continue
        if classify_command(command).kinds & _HANDED_KINDS:
            return command[:120]
    return None


def _remaining(text: str) -> list[Fact]:
    facts = []
    announced = announced_next_action(text)
    if announced:
        facts.append(Fact("remaining_work", 0.9, announced))
    match = _first(_REMAINING, text)
    if match:
        facts.append(Fact("remaining_work", 0.75, _line_of(text, match)))
    for line in drift_markers(text)[:3]:
        strong = _first(_STRONG_DRIFT, line) and not _first(_USER_STEP, line)
        facts.append(Fact("remaining_work", 0.8 if strong else 0.6, line))
    return facts


def _background(digest: dict[str, Any], text: str) -> list[Fact]:
    pending = digest.get("background_pending") or []
    said = _first(_BACKGROUND, text)
    facts = []
    # Anything but a shell (a dev server, a watcher) is work the session waits on.
    waiting_on_agent = [p for p in pending if p.get("kind") != "background_shell"]
    if said:
        facts.append(Fact("background_pending", 0.85 if pending else 0.8, _line_of(text, said)))
    elif waiting_on_agent:
        facts.append(Fact("background_pending", 0.85, str(waiting_on_agent[-1].get("what", ""))))
    elif pending:
        # A dev server left running is not a wait; only the agent's words make it one.
        facts.append(Fact("background_pending", 0.4, str(pending[-1].get("what", ""))))
    return facts


def _requests(digest: dict[str, Any], text: str, requests: HumanActionAssessment) -> list[Fact]:
    facts = []
    for _kind, sentence in requests.human_only[:1]:
        confidence = 0.9 if requests.blocking else 0.7
        facts.append(Fact("human_only", confidence, sentence[:200]))
    questions = list(requests.questions) + [
        p for p in requests.agent_actionable if p.rstrip().endswith(_QUESTION_MARKS)
    ]
    for sentence in questions:
        if _first(_IRREVERSIBLE, sentence):
            facts.append(Fact("confirm_irreversible", 0.9, sentence[:200]))
            break
    requested = asks_for_requested_work(requests.agent_actionable, digest.get("task_prompt", ""))
    offer = _first(_CONTINUE, text)
    if offer and not requested:
        requested = [_line_of(text, offer)]
    if requested:
        facts.append(Fact("permission_for_requested", 0.85, requested[0][:200]))
    elif requests.questions:
        ends_on_question = ends_as_question(last_line(prose_of(text)))
        facts.append(
            Fact("question_for_user", 0.85 if ends_on_question else 0.6, requests.questions[-1])
        )
    return facts


def _handed_to_user(text: str, requests: HumanActionAssessment) -> list[Fact]:
    """A check handed to the user: told to try or rerun it, or offered it as a question."""
    match = _first(_HANDED, text)
    if match:
        return [Fact("punt_to_user", 0.8, _line_of(text, match))]
    offer = next((s for s in requests.agent_actionable if offers_a_check(s)), None)
    return [Fact("punt_to_user", 0.8, offer[:200])] if offer else []


def _claims(digest: dict[str, Any], text: str) -> list[Fact]:
    """The message claims success that a failed write, or the failure with the last word
    on the work (`failure_with_the_last_word`), contradicts."""
    failed_write = digest.get("failed_changes") or []
    text = _EMPHASIS.sub("", text)  # "hat aber **nicht** geklappt" reads as written
    done = success_claim(text, of_checks=False)
    if failed_write and done and not _first(_ADMITS, text):
        return [Fact("claim_contradicted", 0.85, done)]
    last = failure_with_the_last_word(digest)
    if last is None:
        return []
    # Only a failed check contradicts a claim that the work works or passes its checks
    # (a failed `npm publish` says nothing of "tests pass"); any failure contradicts "done".
    command = str(last.get("command") or "")
    found = _success(text, _is_check_command(command))
    if not found or _first(_ADMITS, text) or _about_other_checks(found[1], command):
        return []
    if _quotes_the_failure(text, command, last.get("quoted_in_message") or []):
        return []
    claim = found[0]
    # An exit status alone is weak (a status command exits 1 on "nothing to do", a
    # timeout kills a command that already did its work); error text in the output is
    # not, nor a check's own failure summary (`--- FAIL:`, `1 failing`, `# fail 1`).
    errored = last.get("failure_shown") or _first(_ERROR_OUTPUT, str(last.get("output_tail") or ""))
    sure = errored and last.get("exit_code") not in _KILLED
    return [Fact("claim_contradicted", 0.85 if sure else 0.6, claim)]


# Markdown emphasis around words: `**nicht**`, `__not__`, `*all*`.
_EMPHASIS = lazy(r"\*\*|__|(?<!\w)\*(?=\w)|(?<=\w)\*(?!\w)")


def failure_with_the_last_word(digest: dict[str, Any]) -> dict[str, Any] | None:
    """The failed command that is the latest word on the work: the last command, when
    nothing but looks ran after it (a file read, `fly status`), or the last check after the
    latest change (a commit or a push after a failed test run changes nothing it showed),
    or else a look after the last act that shows a failed state (`CrashLoopBackOff`). A
    failure a baseline showed without the change is not the work's."""
    last = digest.get("last_command") or {}
    last_act = last.get("at") == digest.get("last_act_at")
    if last_act and _failed(last) and not _never_started(last, digest.get("changed_files") or []):
        return last
    check = digest.get("last_check_after_change") or {}
    if _failed(check):
        return check
    return digest.get("failed_state")  # a look after the last act shows a failed state


def _failed(outcome: dict[str, Any]) -> bool:
    """A command that failed: its exit status, or, when the status does not tell (a pipe
    such as `| tail`, curl without `--fail`), a check's output ending on its own failure."""
    hidden_failure = outcome.get("status_hidden") and outcome.get("failure_shown")
    # A filter's non-zero exit (`| grep -c x` found none) is no failure of what it read.
    exited = outcome.get("ok") is False and not outcome.get("filtered")
    failed = exited or bool(hidden_failure)
    return failed and not outcome.get("preexisting")


def _never_started(outcome: dict[str, Any], changed: list[str]) -> bool:
    """The shell found no such program (exit 127 naming the command's own program): an
    optional tool that never touched the work. It stays a failure when it is a check
    (nothing was checked), a script that started and then missed a program of its own, or
    the task's own program (`flow status` after writing `flow.sh`: the work is not found)."""
    command = str(outcome.get("command") or "")
    if outcome.get("exit_code") != 127 or _is_check_command(command):
        return False
    from reflection_core.session.commands import classify_command
    from reflection_core.session.evidence import file_stem

    programs = classify_command(command).programs
    if not programs or any(file_stem(path) == programs[0].lower() for path in changed):
        return False
    tail = str(outcome.get("output_tail") or "")
    return any(programs[0] in line for line in tail.splitlines() if "not found" in line)


def _is_check_command(command: str) -> bool:
    from reflection_core.session.commands import classify_command

    return bool(classify_command(command).kinds & _CHECK_KINDS)


def read_builtin(digest: dict[str, Any]) -> Reading:
    """What the words of this stop show, from the digest alone."""
    text = str(digest.get("final_message") or "")
    facts: list[Fact] = []
    host = digest.get("host_failure")
    if host:
        facts.append(Fact("host_failure", 0.95, str(host.get("marker", ""))))
    facts += _background(digest, text)
    requests = assess_requests(text)
    facts += _requests(digest, text, requests)
    facts += _remaining(text)
    facts += _claims(digest, text)
    facts += _handed_to_user(text, requests)
    stuck = stuck_reason(text)
    if stuck:
        facts.append(Fact("stuck", 0.7, stuck))
    if (
        digest.get("task_kind") in _REPORT_KINDS
        and len(text.strip()) >= 40
        and not any(f.kind == "remaining_work" and f.confidence >= SURE for f in facts)
    ):
        facts.append(Fact("report_delivered", 0.85, text.strip()[:120]))
    sure = any(f.confidence >= SURE for f in facts)
    unsure = any(0.5 <= f.confidence < SURE for f in facts)
    # Read in the prompt, not the final message: it does not settle how sure the reading is.
    prompt = str(digest.get("task_prompt") or "")
    reported = _first(_REPORTED_FAILURE, prompt)
    if reported:
        facts.append(Fact("reported_failure", 0.85, _line_of(prompt, reported)))
    return Reading(reader="builtin", facts=tuple(facts), uncertain=unsure and not sure)
