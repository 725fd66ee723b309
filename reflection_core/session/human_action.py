"""Which requests in the agent's last message only a human can fulfil.

An agent that stops to ask for a 2FA code is right to stop; one that stops to ask
"Should I run the tests?" is punting on something its own tools can do. The
difference decides whether the stop hook pushes it on.
"""

from __future__ import annotations

import re

from reflection_core.lazyre import lazy
from reflection_core.records import field, record

HUMAN_ONLY: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, lazy(pattern, re.I))
    for kind, pattern in (
        ("oauth", r"\boauth\b|authori[sz]e (the |this )?(app|application|access)|consent screen"),
        (
            "2fa",
            r"\b2fa\b|\bmfa\b|two[- ]factor|\botp\b|one[- ]time (code|password)|"
            r"verification code|authenticator app",
        ),
        ("captcha", r"\b(re)?captcha\b"),
        (
            "credentials",
            r"\bapi[ _-]?keys?\b|\bcredentials?\b|\baccess tokens?\b|\bsecret keys?\b|"
            r"\bpassword\b|\b(webhook|signing|client|app) secrets?\b|"
            r"from (the|your) ([\w'-]+ ){0,2}(dashboard|console|portal|account settings)|"
            # A secret named as its environment variable: STRIPE_SECRET_KEY, STAGING_API_KEY.
            r"(?-i:\b[A-Z][A-Z0-9]*_(?:[A-Z0-9]+_)*(?:API_KEY|SECRET(?:_KEY)?|TOKEN|PASSWORD"
            r"|ACCESS_KEY(?:_ID)?)\b)",
        ),
        (
            "approval",
            r"\b(approve[ds]?|approval|sign[- ]off)\b.{0,40}\b(pr|pull request|merge|deploy\w*|"
            r"release|request|change|budget|access|ticket)\b|\bneeds? (your|an?) (approval|"
            r"sign[- ]off)\b|\breview and merge\b|\b(get|have) (it|this|that|them) approved\b|"
            r"\bchange[- ](ticket|request|management)\b",
        ),
        ("upload", r"\bupload\b"),
        (
            "login",
            r"\b(log|sign)[- ]?in\b.{0,30}\b(browser|account|portal|dashboard|console)\b|\bsso\b|"
            r"\b(log|sign)[- ]?in (manually|yourself|by hand)\b|"
            r"\bdevice[- ](code|login)\b|\binteractive (log|sign)[- ]?in\b|"
            # What waits on the user's login: "Ping me once you're logged in".
            r"\b(once|after|when) you('re| are|'ve| have)? (logged|signed) ?in\b|"
            r"\b(once|after|when) you (log|sign) ?in\b",
        ),
        (
            # The user must pay, enter card details, or approve a charge: not a question
            # about billing logic ("Which rule does billing use?").
            "payment",
            r"\b(credit|debit) card\b|\bcard (details|number)\b|"
            r"\bpayment (method|details|info\w*)\b|"
            r"\b(add|update|enter|set up|confirm|approve|authori[sz]e|complete|make)\b.{0,30}"
            r"\b(payment|charge|purchase|billing (details|info\w*|account|method))\b|"
            r"\b(upgrade|pay for|subscribe to|purchase|buy)\b.{0,30}\b(plan|subscription|"
            r"licen[cs]e|seat|credits?|tier|quota)\b|\bbilling (is )?(not )?(enabled|disabled|"
            r"required|account)\b|\b(enable|set up|activate) billing\b",
        ),
        ("physical", r"\b(hardware key|yubikey|security key|plug in|physical device)\b"),
        (
            # Only the owner of an account can act in it: "Only someone with access to your
            # Stripe account can create it", "I don't have access to your AWS console".
            "account_access",
            r"\bonly (you|someone|somebody|a (human|person)|the (account )?owner)\b[^.?!]{0,80}"
            r"\b(access|account|permissions?)\b|\b(i|we) (don't|do not|can't|cannot) (have )?"
            r"access (to )?(your|the) [\w -]{0,30}(account|dashboard|console|portal)\b",
        ),
    )
)
# The same kinds in Korean, Chinese, Japanese, German, French, Spanish, Portuguese and
# Russian: one entry per kind, the languages in that order.
HUMAN_ONLY_OTHER_LANGUAGES: tuple[tuple[str, str], ...] = (
    (
        "2fa",
        r"인증 ?코드|验证码|認証コード|\bbestätigungscode\b|\bcode de vérification\b|"
        r"\bcódigo de verificaci[oó]n\b|\bcódigo de verificação\b|код подтверждения",
    ),
    (
        "credentials",
        r"API ?키|비밀번호|API ?密钥|密码|APIキー|パスワード|\bpasswort\b|\bzugangsdaten\b|"
        r"\bmot de passe\b|\bidentifiants\b|\bcontraseña\b|\bcredenciales\b|\bsenha\b|"
        r"\bcredenciais\b|парол[ья]|ключ API",
    ),
    (
        "login",
        r"로그인(해|하여|한 ?후|하신 ?후)|(请|需要)(您)?登录|ログインして|"
        r"\bmelden sie sich\b.{0,30}\ban\b|"
        r"\bconnectez-vous\b|\binicie sesi[oó]n\b|\bfaça (o )?login\b|\bвойдите\b|"
        r"\bmelde dich\b.{0,60}\ban\b",
    ),
    (
        "payment",
        r"결제 (수단|정보)|付款方式|支付方式|支払い(方法|情報)|\bzahlungs(methode|daten)\b|"
        r"\b(moyen|informations) de paiement\b|\bm[eé]todo de pago\b|"
        r"\bm[eé]todo de pagamento\b|способ оплаты",
    ),
    (
        "approval",
        r"승인(해|이 필요|을 받)|(需要|请)(您)?(批准|审批)|等待.{0,12}(批准|审批)|"
        r"承認(して|が必要)|\bgenehmigung\b|\bvotre approbation\b|\bsu aprobaci[oó]n\b|"
        r"\bsua aprovação\b|"
        r"ваше одобрение|(ждёт|ждет|ожидает) одобрения",
    ),
)
HUMAN_ONLY += tuple((kind, lazy(pattern, re.I)) for kind, pattern in HUMAN_ONLY_OTHER_LANGUAGES)

_REQUEST = lazy(
    r"\?|\b(you('ll| will)? need to|you must|you should|please|could you|can you|would you|"
    r"let me know|once you|after you|when you|you can (now )?run|you may want to|"
    r"do you want|shall i|should i|tell me|i('ll| will)? need you to)\b"
    # Polite requests and "you need to" in other languages (the order of the tables).
    r"|주세요|주십시오|하셔야|请(?!求)|您需要|你需要|ください|必要があります|\bbitte\b|"
    r"\bsie müssen\b|\bveuillez\b|\bvous devez\b|\bpor favor\b|\bnecesitas\b|\busted necesita\b|"
    r"\bvocê precisa\b|пожалуйста|вам нужно",
    re.I,
)
# A sentence opening with a bare imperative addresses the user ("Enter the code ...");
# list items do not (a "Next steps" list names the agent's own remaining work).
_IMPERATIVE = lazy(
    r"^(complete|enter|go to|visit|log ?in|sign ?in|click|approve|upload|provide|paste|set|"
    r"create|grant|authori[sz]e|open|run|install|add|check|verify|solve|confirm|copy|fetch|"
    r"generate|grab|obtain|get|put)\b",
    re.I,
)
# "The integration needs a key: copy it from the dashboard" asks in its second clause.
_CLAUSE = lazy(r"[:;]\s+|\s[\u2014\u2013-]\s")
_BULLET = lazy(r"^\s*([-*\u2022]|\d+[.)])\s")
_AGENT_VERBS = lazy(
    r"\b(run|execute|test|install|commit|push|create|open|fix|implement|edit|update|add|write|"
    r"build|continue|proceed|apply|make|change|refactor|delete|remove|check|verify|try|start|"
    r"go ahead|finish|complete|investigate|look into|rerun|re-run)\b",
    re.I,
)
_CHOICE = lazy(
    r"\bwhich\b.*\?|\bprefer\b|\b(\w+) or (?!not\b|anything\b|something\b|so\b)(\w+)\b.*\?",
    re.I,
)
# The same two shapes in other languages, one entry per language: a choice between
# options ("A 还是 B？") stays a question; an offer to do a step the agent's tools can do
# ("테스트를 실행할까요?") is a punt, as "Should I run the tests?" is.
CHOICE_OTHER_LANGUAGES: tuple[str, ...] = (
    r"아니면|어느 (쪽|것|방법)",  # ko
    r"还是|哪(个|种|一个)",  # zh
    r"それとも|どちら|どれ",  # ja
    r"\boder\b.*\?|\bwelche[nrs]?\b.*\?",  # de
    r"\bou\b.*\?|\bquel(le)?s?\b.*\?",  # fr
    r"¿[^?]*\bo\b[^?]*\?|\bcu[aá]l(es)?\b.*\?",  # es
    r"\bou\b.*\?|\bqua(l|is)\b.*\?",  # pt
    r"\bили\b.*\?|\bкакой\b.*\?",  # ru
)
OFFER_TO_ACT: tuple[str, ...] = (
    r"(실행|테스트|커밋|푸시|설치|수정|빌드|배포|적용)(을|를)?\s?"
    r"(할까요|해 ?드릴까요|하시겠습니까)",  # ko
    r"(要|需要|要不要)我(来|帮你|帮您)?(运行|执行|测试|提交|推送|安装|修复|构建|部署|应用)",  # zh
    r"(実行|テスト|コミット|プッシュ|インストール|修正|ビルド|デプロイ)"
    r"(しましょうか|いたしましょうか)",  # ja
    r"\bsoll ich\b.{0,60}\b(ausführen|testen|committen|pushen|installieren|beheben|bauen|"
    r"starten|laufen lassen|durchlaufen lassen)\b",  # de
    r"\b(voulez-vous|souhaitez-vous) que je (lance|exécute|teste|commite|pousse|installe|"
    r"corrige)\b",  # fr
    r"\b(quieres|quiere|desea|deseas) que (ejecute|pruebe|haga commit|instale|corrija|"
    r"despliegue)\b",  # es
    r"\b(quer|deseja|gostaria) que eu (rode|execute|teste|instale|corrija|"
    r"fa[cç]a o commit)\b",  # pt
    r"\b(хотите|нужно),? (чтобы я )?(запустил|протестировал|закоммитил|установил|исправил)\b",  # ru
)
_CHOICE_OTHER = tuple(lazy(p, re.I) for p in CHOICE_OTHER_LANGUAGES)
_OFFER = tuple(lazy(p, re.I) for p in OFFER_TO_ACT)
# Offers to run the check of the agent's own change, as leave it asks or to the user ("Do you
# want to run the tests now?", "Shall I run the tests?"): a hand-over of the check, never a
# real question. One offer a line; a bare "want" is the offer's own ("Want to ...?"), not
# what someone wants ("I want to verify it, can you share the log?").
_WANT_ME_TO = r"\b(would you like|do you want|(?<!\bi )(?<!\bwe )(?<!\byou )want) (me )?to"
_RUNNABLE = r"(it|them|this|that|these|the (tests?|test suite|suite|build|app|program|script))\b"
CHECK_OFFER: tuple[str, ...] = (
    rf"{_WANT_ME_TO} (test|verify)\b",
    rf"{_WANT_ME_TO} (run|build|compile) {_RUNNABLE}",
    r"\b(shall|should) i (test|verify) (it|them|this|that|these|the (change|fix|code))\b",
    rf"\b(shall|should) i (run|build|compile) {_RUNNABLE}",
    # The same check asked of the user: "Could you run `./gradlew test` and tell me?"
    r"\b(could|can|would) you (please )?(re-?run|run|execute) `[^`\n]{2,80}`",
    # The same offer in the other languages of the tables, one entry per language.
    r"(테스트|빌드)(를|을)?\s?(실행|돌려|진행)\s?(할까요|해 ?드릴까요|볼까요|하시겠습니까)",  # ko
    r"(要|需要|要不要)我(来|帮你|帮您)?(运行|执行|跑)(一下)?(测试|构建|编译)",  # zh
    r"(テスト|ビルド)を?(実行|走らせ)(しましょうか|ましょうか|いたしましょうか|しますか)",  # ja
    r"\bsoll ich (die |den )?(tests?|build|testsuite)\b.{0,30}\b(laufen lassen|ausführen|"
    r"starten)\b",  # de
    r"\b(voulez-vous|souhaitez-vous|veux-tu) que je (lance|exécute) (les tests|le build)\b",  # fr
    r"\b(quieres|quiere|desea|deseas) que (ejecute|corra|lance) (las pruebas|los tests|"
    r"la compilaci[oó]n)\b",  # es
    r"\b(quer|deseja|gostaria) que eu (rode|execute) (os testes|o build)\b",  # pt
    r"\b(хотите|нужно),? (чтобы я )?(запустил|прогнал) (тесты|сборку)|запустить тесты\?",  # ru
    # The check asked of the user ("Could you run `x`") in the other languages, one a line.
    r"\b(peux|pourrais|pouvez|pourriez)[- ](tu|vous) (re)?(lancer|exécuter|tester|essayer) "
    r"`[^`\n]{2,80}`",  # fr
    r"\b(puedes|podrías|puede|podría) (ejecutar|correr|probar|lanzar) `[^`\n]{2,80}`",  # es
    r"\b(pode|poderia|podes|consegue)( você)? (rodar|executar|testar|correr) `[^`\n]{2,80}`",  # pt
    r"\b(kannst|könntest|können|könnten) (du|sie)( bitte)? `[^`\n]{2,80}`[^.\n]{0,30}"
    r"\b(ausführen|laufen lassen|testen|starten)\b",  # de
    r"(можешь|можете|могли бы вы)( ли)?( пожалуйста)? (запустить|прогнать|выполнить) "
    r"`[^`\n]{2,80}`",  # ru
    r"(你|您)(能|可以)(帮忙|帮我)?(运行|执行|跑)(一下)?\s*`[^`\n]{2,80}`",  # zh
    r"`[^`\n]{2,80}`\s*を(実行|テスト)して(いただけますか|もらえますか|みてもらえますか)",  # ja
    r"`[^`\n]{2,80}`\s*(을|를)?\s*(실행|돌려)(해|봐)?\s*"
    r"(주실 수 있나요|줄 수 있어|주시겠어요)",  # ko
)
_CHECK_OFFER = tuple(lazy(p, re.I) for p in CHECK_OFFER)
# A punt asks permission for, or hands over, work the agent's own tools can do.
_PUNT = lazy(
    r"\b(should|shall|can|may) i\b|\b(want|like) me to\b|\bme to\b.*\?|"
    r"\byou (can|could|may want to|might want to|should|need to|'ll need to|will need to|"
    r"must) (now |then |also )?(run|execute|test|install|commit|push|create|open|fix|"
    r"implement|edit|update|add|write|build|apply|make|change|refactor|delete|remove|check|"
    r"verify|try|start|rerun|re-run|use)\b|^please (run|execute|test|install|commit|push|"
    r"create|open|fix|implement|edit|update|add|write|build|apply|check|verify|try)\b|"
    r"^(run|execute|install|commit|push|rerun|re-run|check|verify|add|create|open)\b",
    re.I,
)
# A sentence saying a human-only item stands in the way: "the index asks for a 2FA code".
_NEEDS = lazy(
    r"\b(asks? for|asking for|requires?|required|needs?|needed|wants|prompts? for|prompted for|"
    r"expects?|waiting (for|on)|before (it|they|i|we)\b|until|blocked (by|on))\b",
    re.I,
)
_BLOCKING = lazy(
    _NEEDS.pattern + r"|\bonly (you|someone|somebody|a (human|person)|the (account )?owner)\b"
    r"|\b(so (that )?i can|before i can|to (continue|proceed|finish|go on)|"
    r"(can(no|')t|could(n't| not)) (continue|proceed|go on|finish) without)\b",
    re.I,
)
# A request that the user hand something over or do something for the agent:
# "Please send me the current code", "Can you give me the key?", "I need you to approve it".
_HANDOVER = lazy(
    r"\b(?:please|(?:can|could|would|will) you(?: please)?|i(?:'ll| will)? need you to|"
    r"once you(?:'ve| have)?|when you(?:'ve| have)?)\s+"
    r"(?P<verb>send|give|share|paste|provide|enter|type|forward|tell|post|text|email|read out|"
    r"approve|complete|confirm|authori[sz]e|accept|solve|click|tap|do|handle|sent|given|"
    r"shared|pasted|provided|entered|approved|completed|confirmed|done)\b(?P<object>[^.?!]*)",
    re.I,
)
# The same hand-over, and the same statement of a need, in the other languages of the
# tables (ko, zh, ja, de, fr, es, pt, ru): "Por favor, envíame el código actual." after
# "npm pide un código 2FA ...". Without English's object check: the need stated right
# before and a hand-over verb are the shape.
HANDOVER_OTHER_LANGUAGES: tuple[str, ...] = (
    r"알려 ?주세요|보내 ?주세요|입력해 ?주세요|승인해 ?주세요",  # ko
    r"发给我|发送给我|提供给我|告诉我|请.{0,20}(批准|审批|输入)",  # zh
    r"送って|教えて|入力して|承認して",  # ja
    r"\b(schick|sende|gib) (mir|uns)\b|\b(bestätige|genehmige)\b|\bmelde dich\b",  # de
    r"\b(envoie|envoyez|donne|donnez)-moi\b|\bm'envoyer\b|\bme (donner|transmettre)\b|"
    r"\b(approuve|approuvez|saisis|saisissez)\b",  # fr
    r"\benv[ií]ame\b|\bdame\b|\bcomp[aá]rteme\b|\b(aprueba|apruebe|introduce)\b",  # es
    r"\bme (envie|mande|passe|dê)\b|\benvie-me\b|\b(aprove|digite|informe)\b",  # pt
    r"пришлите|пришли|отправьте|сообщите|одобрите|введите",  # ru
)
_HANDOVER_OTHER = tuple(lazy(p, re.I) for p in HANDOVER_OTHER_LANGUAGES)
_NEEDS_OTHER = lazy(
    r"요구|필요|需要|要求|等待|必要|求め|\b(verlangt|benötigt|erfordert|braucht|wartet)\b|"
    r"\b(demande|exige|nécessite|requiert|attend)\b|\b(pide|requiere|necesita|exige|espera)\b|"
    r"\b(pede|requer|precisa|exige|aguarda)\b|требует|ждёт|ждет|ожидает|нужен|нужна",
    re.I,
)
_PRONOUN = lazy(r"\b(it|that|this|them|those|these|one)\b", re.I)
_WORD = lazy(r"[a-z0-9]+")
# Words that say nothing about which item a request refers to.
_FILLER = frozenset(
    "me us the a an to so i we can now here over please current new latest for with".split()  # noqa: SIM905
)
# Kinds that a list item also names when it is the agent's own step ("Add the API key
# handling"): in a list they count only when the item says it is the user's part.
_WEAK_IN_LISTS = frozenset({"credentials", "upload"})
_USERS_OWN = lazy(r"\b(your|yourself|manually|by hand|you)\b", re.I)
_INLINE_NUMBER = lazy(r"(?<=[\s:;])(\d+)\.\s")
_SENTENCE = lazy(r"(?<=[.?!])\s+|\n+")
# Chinese and Japanese end sentences and questions with full-width marks and no space.
_FULLWIDTH_PUNCTUATION = str.maketrans({"\uff1f": "? ", "\uff01": "! ", "\u3002": ". "})
# A sentence may ask without a mark when a particle ends it: Chinese 吗/呢, Korean -까(요),
# Japanese -か. It is a question all the same.
_QUESTION_PARTICLE = lazy(r"(吗|呢|까요?|ですか|ますか|でしょうか)\s*$")


@record
class HumanActionAssessment:
    """The requests the agent makes of the user, sorted by who can act on them."""

    human_only: list[tuple[str, str]] = field(default_factory=list)  # (kind, sentence)
    agent_actionable: list[str] = field(default_factory=list)  # tool-doable asks (punts)
    questions: list[str] = field(default_factory=list)  # choices/information only the user has
    # A human-only item is stated as what stands in the way ("... asks for a 2FA code",
    # "so I can finish"): the agent cannot go on, so unfinished checks wait for it too.
    blocking: bool = False


# Text that is not the agent's own prose: fenced code blocks and quoted lines.
_CODE_OR_QUOTE = lazy(r"```.*?(```|\Z)|^\s*>.*$", re.S | re.M)
_INLINE_CODE = lazy(r"`[^`\n]*`")


def prose_of(text: str) -> str:
    """`text` with code blocks and quoted lines blanked out, and inline code kept without
    its punctuation: a `?` in `path?.replace(` or in a quoted error is not a question to
    the user, while "run `npm publish --otp=<code>`" still names what it asks for."""
    return _without_inline_punctuation(_CODE_OR_QUOTE.sub(" ", text or ""))


def _without_inline_punctuation(text: str) -> str:
    """Inline code kept without `?`, `!` and `.`: they end no sentence and ask nothing."""
    return _INLINE_CODE.sub(lambda m: re.sub(r"[?!.]", "", m.group(0)), text)


def prose_lines(text: str) -> list[tuple[str, str]]:
    """Each line of `text` as `prose_of` reads it, beside the line as written (code blocks
    and quoted lines blank in both): read the first, quote the second, so a quote keeps
    the dots of `config.toml` and `2.5`."""
    kept = _CODE_OR_QUOTE.sub(lambda m: "\n" * m.group(0).count("\n"), text or "")
    read = _without_inline_punctuation(kept)
    return list(zip(read.splitlines(), kept.splitlines(), strict=True))


def sentences_in(text: str) -> list[tuple[str, bool]]:
    """Every sentence (and bullet line) of `text`, each with whether it asks something
    of the user. List items under a lead-in that names a human-only need ("Only someone
    with access to your account can do it:") are requests of that kind."""
    out = []
    # "Plan: 1. add x; 2. run y." is one enumeration, not sentences addressed to the user.
    text = _INLINE_NUMBER.sub(r"\1) ", prose_of(text).translate(_FULLWIDTH_PUNCTUATION))
    lead = ""
    for piece in _SENTENCE.split(text):
        sentence = piece.strip(" -*\t")
        if not sentence:
            continue
        if _QUESTION_PARTICLE.search(sentence):
            sentence += "?"
        item = _BULLET.sub("", piece, count=1).strip(" -*\t")
        imperative = any(_IMPERATIVE.match(clause.strip()) for clause in _CLAUSE.split(item))
        if _BULLET.match(piece) and lead and imperative:
            out.append((f"{lead} {item}"[:300], True))
            continue
        if _BULLET.match(piece):
            imperative = _list_item_asks(item, imperative)
        else:
            lead = sentence if sentence.endswith(":") and human_only_kind(sentence) else ""
        asks = bool(_REQUEST.search(sentence) or imperative)
        out.append((sentence[:300], asks))
    return out


def _list_item_asks(item: str, imperative: bool) -> bool:
    """A list item is the agent's own step unless it names what only a human can do
    ("1. Log in to the dashboard in your browser and copy the token")."""
    kind = human_only_kind(item)
    return (
        imperative
        and kind is not None
        and (kind not in _WEAK_IN_LISTS or bool(_USERS_OWN.search(item)))
    )


def ends_as_question(line: str) -> bool:
    """Whether `line` ends on a question, by its mark or its closing particle."""
    line = line.rstrip("*_ ")
    return line.endswith(("?", "\uff1f")) or bool(_QUESTION_PARTICLE.search(line))


def requests_in(text: str) -> list[str]:
    """Sentences (and bullet lines) of `text` that ask something of the user."""
    return [sentence for sentence, asks in sentences_in(text) if asks]


def human_only_kind(sentence: str) -> str | None:
    for kind, pattern in HUMAN_ONLY:
        if pattern.search(sentence):
            return kind
    return None


def refers_back(request: str, previous: str) -> bool:
    """Whether `request` hands over or acts on a human-only item that `previous` says
    is needed ("... asks for a two-factor code." + "Please send me the current code.")."""
    if human_only_kind(previous) is None:
        return False
    match = _HANDOVER.search(request)
    if match is None:
        return bool(_NEEDS_OTHER.search(previous)) and any(
            p.search(request) for p in _HANDOVER_OTHER
        )
    if not _NEEDS.search(previous):
        return False
    obj = match.group("object")
    if _PRONOUN.search(obj):
        return True
    named = set(_WORD.findall(previous.lower())) - _FILLER
    return any(word in named for word in _WORD.findall(obj.lower()) if word not in _FILLER)


def offers_a_check(sentence: str) -> bool:
    """The sentence offers the check of the change, to run or to hand over (CHECK_OFFER)."""
    return any(p.search(sentence) for p in _CHECK_OFFER)


def is_choice(sentence: str) -> bool:
    """The sentence offers a choice between options, in any language of the tables."""
    return bool(_CHOICE.search(sentence)) or any(p.search(sentence) for p in _CHOICE_OTHER)


def asks_leave_to_act(sentence: str) -> bool:
    """The sentence asks leave for, or hands over, a step the agent's own tools can do
    ("Should I run the tests?", "Soll ich die Tests laufen lassen?"), in any language of
    the tables."""
    return (
        bool(_PUNT.search(sentence) and _AGENT_VERBS.search(sentence))
        or any(p.search(sentence) for p in _OFFER)
        or offers_a_check(sentence)
    )


def assess_requests(text: str) -> HumanActionAssessment:
    """Sort every request in the agent's message into human-only, punt, or real question.

    A request with no human-only words of its own is human-only when it asks for the
    item the sentence before names as needed.
    """
    result = HumanActionAssessment()
    previous = ""
    for sentence, asks in sentences_in(text):
        before, previous = previous, sentence
        if not asks:
            continue
        kind = human_only_kind(sentence)
        if kind is None and refers_back(sentence, before):
            kind = human_only_kind(before)
            sentence = f"{before} {sentence}"[:300]
        if kind is not None:
            result.human_only.append((kind, sentence))
            needs = _NEEDS.search(before) or _NEEDS_OTHER.search(before)
            stated_before = needs and human_only_kind(before)
            result.blocking |= bool(_BLOCKING.search(sentence) or stated_before)
        elif is_choice(sentence):
            result.questions.append(sentence)
        elif asks_leave_to_act(sentence):
            result.agent_actionable.append(sentence)
        elif "?" in sentence:
            result.questions.append(sentence)
    return result
