"""Phrase tables the built-in next-turn reader matches, one phrase family per line.

Each table is a rule: its name is the rule id recorded with the outcome. Entries are
regular expressions matched case-insensitively, line by line (`^`, `$` anchor lines;
no class crosses a newline, so matching stays linear), against the user's next prompt (the
first `HEAD_CHARS` characters: a complaint comes first, a long new task mentions
failures in passing). Each entry has its own test in tests/unit/test_outcome_phrases.py.
"""

from __future__ import annotations

HEAD_CHARS = 400

# The user says the work is broken, unchanged or not done: the stop was premature.
REPORTS_BROKEN: tuple[str, ...] = (
    r"\bstill (broken|failing|fails|crash\w*|erroring|not (working|loading|showing|fixed)|"
    r"does ?n[o']t work|the same)\b",
    r"\b(does ?n[o']t|did ?n[o']t|is ?n[o']t|are ?n[o']t|wo ?n[o']t|ca ?n[o']t) (seem to )?"
    r"(work|load|render|start|compil|build|run)\w*",
    r"\bnot (working|loading|rendering|starting|compiling|showing( up)?|displaying|saving|"
    r"fixed|prefilled|updated|applied)\b",
    r"\b(did ?n[o']t|does ?n[o']t|did not|does not) (fix|change|correct|solve|help|do) "
    r"(it|that|this|anything|the \w+)\b",
    r"\b(you|it|this|that) broke\b|\bbroke (it|the|my|everything)\b",
    r"\bsame (error|issue|problem|exception|result|bug)\b",
    r"\b(is|are|keeps?|still) (broken|crashing|failing|erroring)\b",
    r"\b(nothing|it has?n[o']t) changed\b",
    r"\b(i )?(get|getting|got|see|seeing) (this|an|the following|the same|that|a new) error\b",
    r"\b(still|again) (get|getting|see|seeing|have|having)\b[^.?!\n]{0,30}\b(errors?|"
    r"exceptions?|crash\w*|failures?)\b",
    # ko
    r"(아직|여전히|또)\s?(에러|오류)|(?<!면 )(?<!면)안\s?(돼|되|됨)|작동(하지 않|을 안|이 안)",
    # zh
    r"(还是|仍然|依然|又)(不行|报错|失败|有问题|出错)|不(起作用|能用)|用不了|"
    r"没(有)?(效果|反应|变化)",
    r"動か(ない|なかった|なくなった)|直って(い)?ない|(まだ|また)エラー|変わって(い)?ない",  # ja
    r"\bfunktioniert (immer noch |noch |weiterhin |jetzt )?nicht\b|\b(geht|läuft) (immer noch |"
    r"noch )?nicht\b|\bimmer noch (kaputt|fehlerhaft|der gleiche fehler)\b",  # de
    r"\bne (marche|fonctionne) (toujours |plus |pas )?pas\b|\btoujours (la même erreur|cassé|"
    r"pas)\b",  # fr
    # es
    r"\bno funciona\b|\bsigue (fallando|sin funcionar|dando error|igual)\b|\bel mismo error\b",
    r"\bnão funciona\b|\bcontinua (falhando|dando erro|igual)\b|\bo mesmo erro\b",  # pt
    # ru
    r"не работает|вс[её] ещ[её] (ошибка|падает|не работает)|та же ошибка|ничего не изменилось",
)

# The user pastes an error: a traceback, a compiler or runtime error line, a shell failure.
PASTES_ERROR: tuple[str, ...] = (
    r"^\s*traceback \(most recent call last\)",
    r"^\s*([\w.]+\.)?\w*(error|exception)\b\s*[:(]",
    r"\b\w+(error|exception): \S",
    r"^\s*(error|fatal|panic|uncaught)(\[\w+\])?\s*:",
    r"\bno such file or directory\b",
    r"\bcommand not found\b",
    r"\bcannot find module\b|\bmodule not found\b",
    r"\b(exit(ed)?|exit code|status) [1-9]\d*\b.{0,20}\b(error|fail\w*)\b",
    r"\b(500 internal server error|segmentation fault|unhandled (promise )?rejection)\b",
)

# The user asks for the check the agent skipped: it stopped with the work unchecked.
ASKS_FOR_CHECK: tuple[str, ...] = (
    r"\bdid you (actually |even )?(test|run|check|verify|try|build|compile)\b",
    r"\byou (did ?n[o']t|did not|never|have ?n[o']t|have not) (test|run|check|verif|tr(y|ied)|"
    r"buil[dt])\w*",
    r"^\s*(please )?(now )?(test|verify|check) (it|that|this|your (fix|change|work))\b",
    r"\b(run|rerun|re-run) the (tests?|test suite|build|app|script)( first| again| yourself)?\s*"
    r"[.!]?\s*$",
    r"\bmake sure (it|that|this|the (tests?|build|app)) (works|passes|compiles|builds|runs)\b",
    r"(테스트|확인)\s?(안\s?했|해\s?봤|해\s?보셨)|직접 (테스트|실행)해",  # ko
    r"你(测试|验证|运行)(了|过)(吗|没有)|(先|自己)(测试|验证|跑)一下",  # zh
    r"(テスト|確認|実行)し(ました|た)か|(テスト|確認)してください",  # ja
    r"\bhast du (es |das )?(getestet|ausgeführt|geprüft)\b",  # de
    r"\bas-tu (testé|vérifié|lancé)\b|\btu (l'?)?as testé\b",  # fr
    r"\b(lo )?(probaste|has probado|ejecutaste)\b",  # es
    r"\bvocê (testou|rodou|executou|verificou)\b",  # pt
    r"\bты (проверил|запустил|протестировал)\b|\bпроверь(те)?,? (что|работает)\b",  # ru
)

# The user pushes the agent on: the stop came before the work was done.
PUSHES_ON: tuple[str, ...] = (
    r"^[^\w\n]*(please )?(continue|keep going|go on|carry on|proceed|finish( it| the rest)?|"
    r"go ahead)[^\w\n]*$",
    r"^[^\w\n]*(you('re| are) not|you were not|you're not) (done|finished)\b",
    r"\b(you )?(forgot|missed|skipped) (to|the|a)\b",
    r"\bwhy did you stop\b|\bdon'?t stop\b",
    r"^[^\w\n]*(계속|진행)\s?(해|하세요|해줘|해 주세요)?[^\w\n]*$",  # ko
    r"^[^\w\n]*(继续|接着做|接着来)[^\w\n]*$",  # zh
    r"^[^\w\n]*(続けて|続行)(ください)?[^\w\n]*$",  # ja
    r"^[^\w\n]*(mach weiter|weiter( machen)?|fahre fort)[^\w\n]*$",  # de
    r"^[^\w\n]*(continue[sz]?|vas-y)[^\w\n]*$",  # fr
    r"^[^\w\n]*(contin[uú]a|sigue|adelante)[^\w\n]*$",  # es
    r"^[^\w\n]*(continua|continue|pode continuar)[^\w\n]*$",  # pt
    r"^[^\w\n]*(продолжай(те)?|дальше)[^\w\n]*$",  # ru
)

# The user thanks the agent or approves what it did: the stop was fine.
THANKS: tuple[str, ...] = (
    r"\b(thanks|thank you|thx|ty)\b",
    r"^[^\w\n]*(great|perfect|awesome|excellent|nice|good job|well done|looks good|lgtm|works)\b",
    r"\b(it )?works (now|great|perfectly|fine)\b",
    r"(감사|고마워|고맙습니다|좋아요|완벽)",  # ko
    r"(谢谢|多谢|感谢|完美|很好|可以了)",  # zh
    r"(ありがとう|完璧|いいですね|動きました)",  # ja
    r"\b(danke|perfekt|super|klappt)\b",  # de
    r"\b(merci|parfait|génial|ça marche)\b",  # fr
    r"\b(gracias|perfecto|genial|funciona bien)\b",  # es
    r"\b(obrigad[oa]|perfeito|ótimo|funcionou)\b",  # pt
    r"(спасибо|отлично|идеально|работает!)",  # ru
)

# Not a prompt the user typed: host markup (slash commands, IDE notices), interruptions.
NOT_TYPED: tuple[str, ...] = (
    r"^\s*<(command-name|command-message|local-command-stdout|ide_\w+|system-reminder)>",
    r"^\s*\[request interrupted",
    r"^\s*/\w[\w:-]*(?:\s|$)",  # a slash command, with or without arguments (not /usr/bin)
)
