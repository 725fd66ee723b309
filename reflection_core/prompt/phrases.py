"""Phrase tables of the turn reader, in many languages: one lower-case phrase per line.

Rules as data: each table is read once into a tuple and every entry has a test
(tests/unit/test_prompt_turn.py). Latin-script phrases match whole words at the
start of a prompt; phrases in scripts written without spaces (Chinese, Japanese)
match as a prefix.
"""

from __future__ import annotations


def _table(block: str) -> tuple[str, ...]:
    return tuple(
        line.strip() for line in block.strip().splitlines() if line.strip() and line[0] != "#"
    )


# A reply that opens with one of these answers the agent: agreement, refusal, go-ahead.
ANSWER_OPENERS = _table(
    """
    yes
    y
    yeah
    yep
    yup
    ya
    sure
    ok
    okay
    k
    kk
    agree
    agreed
    alright
    right
    correct
    exactly
    perfect
    great
    cool
    nice
    good
    fine
    sounds good
    looks good
    lgtm
    go
    go ahead
    proceed
    continue
    carry on
    keep going
    resume
    do it
    please do
    that works
    that would be perfect
    no
    nope
    not now
    oui
    ouais
    d'accord
    parfait
    vas-y
    allez
    continuez
    fais-le
    fais les
    fais le
    fais la
    non
    sí
    si
    vale
    dale
    claro
    adelante
    hazlo
    perfecto
    de acuerdo
    sigue
    continúa
    continua
    sim
    pode
    beleza
    certo
    não
    va bene
    procedi
    ja
    jawohl
    genau
    passt
    mach weiter
    mach das
    mach es
    weiter
    los
    nein
    stimmt
    prima
    doe maar
    да
    давай
    хорошо
    продолжай
    нет
    evet
    tamam
    devam
    hayır
    tak
    dobrze
    kontynuuj
    nie
    có
    ừ
    được
    vâng
    tiếp tục
    tiep tuc
    ok luôn
    oke
    lanjut
    好
    好的
    可以
    行
    是
    是的
    对
    嗯
    继续
    繼續
    没问题
    沒問題
    确认
    同意
    不要
    不用
    不是
    开始
    执行
    你来
    はい
    うん
    ええ
    お願い
    続けて
    いいえ
    了解
    네
    예
    응
    좋아
    좋아요
    계속
    진행
    아니
    그래
    ㅇㅇ
    """
)

# "Continue" and friends resume what the agent was doing: never ambiguous.
RESUME = _table(
    """
    continue
    carry on
    keep going
    go on
    resume
    proceed
    sorry to interrupt, continue
    continue please
    please continue
    continuez
    sigue
    continúa
    continua
    weiter
    mach weiter
    продолжай
    tiếp tục
    tiep tuc
    tiep tuc di
    devam
    kontynuuj
    lanjut
    继续
    繼續
    続けて
    계속
    """
)

# Words that open a question in languages written with spaces.
QUESTION_OPENERS = _table(
    """
    what
    what's
    whats
    why
    how
    where
    when
    which
    who
    whose
    quel
    quelle
    quels
    quelles
    quoi
    pourquoi
    comment
    où
    est-ce
    c'est quoi
    qu'est-ce
    combien
    qué
    cómo
    por qué
    dónde
    cuál
    cuáles
    cuándo
    cuánto
    o que
    qual
    quais
    onde
    cosa
    perché
    quale
    dove
    wie
    warum
    wieso
    weshalb
    welche
    welcher
    welches
    wann
    gibt es
    что
    как
    почему
    где
    какой
    какая
    зачем
    sao
    tại sao
    tai sao
    thế nào
    the nao
    là gì
    bao nhiêu
    neden
    nasıl
    jak
    dlaczego
    apa
    bagaimana
    kenapa
    """
)

# Question words inside sentences of scripts written without spaces.
QUESTION_MARKERS = _table(
    """
    什么
    什麼
    怎么
    怎麼
    为什么
    為什麼
    哪
    多少
    几个
    如何
    是否
    有没有
    有沒有
    能不能
    可不可以
    吗
    嗎
    呢
    何
    なぜ
    どう
    どこ
    いつ
    ですか
    ますか
    뭐
    무엇
    어떻게
    왜
    어디
    언제
    몇
    나요
    까요
    습니까
    """
)

# Requests for information: the answer is text, so nothing is changed and nothing is lost.
INFORMATION_REQUESTS = _table(
    """
    explain
    tell me
    show me
    describe
    summarize
    summarise
    compare
    what do you think
    thoughts on
    help me understand
    help me translate
    translate
    just tell
    don't change anything
    explique
    dis-moi
    explica
    dime
    erkläre
    erklär
    sag mir
    解释
    解釋
    说明
    說明
    介绍
    介紹
    告诉我
    告訴我
    説明して
    教えて
    설명
    알려
    """
)

# Greetings and sign-offs: chat, not work.
CHAT = _table(
    """
    hi
    hello
    hey
    good morning
    good night
    bye
    thanks
    thank you
    thx
    ty
    cheers
    here
    salut
    bonjour
    merci
    hola
    gracias
    hallo
    danke
    ciao
    grazie
    привет
    спасибо
    xin chào
    xin chao
    chao
    cảm ơn
    cam on
    你好
    谢谢
    謝謝
    こんにちは
    ありがとう
    안녕
    감사
    고마워
    """
)

# A thing the user points at but did not give: "this file" with no file named or attached.
MISSING_REFERENT = _table(
    """
    this file
    that file
    these files
    this document
    this doc
    this pdf
    this screenshot
    this image
    the attached
    see attached
    the file i sent
    the file i shared
    the file i uploaded
    the file i attached
    the file above
    the link above
    this code
    this snippet
    this function
    this func
    this script
    this error
    that error
    these errors
    this text
    this paragraph
    this log
    this output
    this email
    this query
    this bug
    this line
    this test
    these tests
    the error above
    the code above
    the output above
    the log above
    the error below
    the code below
    the output below
    the log below
    this regex
    this component
    this endpoint
    this command
    this cell
    this stack trace
    this traceback
    this warning
    this exception
    this diff
    my screenshot
    ce fichier
    ce document
    cette image
    cette capture
    le document joint
    la pièce jointe
    cette fonction
    cette erreur
    ce code
    ce texte
    que j'ai jointe
    que j'ai joint
    den ich angehängt habe
    die ich angehängt habe
    das ich angehängt habe
    que je t'ai envoyé
    este archivo
    este fichero
    ese archivo
    este documento
    esta función
    esta funcion
    este error
    este código
    este codigo
    este texto
    que te adjunté
    que te mandé
    que te envié
    esta captura
    esta imagen
    el documento adjunto
    este arquivo
    esse arquivo
    nesse arquivo
    neste arquivo
    esta função
    essa função
    este erro
    esse erro
    esse código
    que eu mandei
    que te mandei
    diese datei
    dieser datei
    dieses dokument
    dieses bild
    die angehängte datei
    diese funktion
    dieser fehler
    diesen fehler
    diesen code
    diesen text
    diesen screenshot
    questo file
    questo documento
    questa funzione
    questo errore
    questo codice
    questo testo
    этот файл
    этом файле
    этого файла
    этот документ
    этот скриншот
    эту функцию
    эта функция
    эту ошибку
    эта ошибка
    этот код
    этот текст
    который я прикрепил
    которую я прикрепил
    цю функцію
    ця функція
    цю помилку
    цей код
    цей файл
    цього файлу
    αυτό το αρχείο
    αυτή η συνάρτηση
    αυτή τη συνάρτηση
    αυτόν τον κώδικα
    acest fișier
    fișierul ăsta
    această funcție
    funcția asta
    tämä tiedosto
    tämä funktio
    denne filen
    denne funksjonen
    এই ফাইল
    এই ফাংশন
    file này
    hàm này
    lỗi này
    bu dosya
    bu fonksiyon
    bu hata
    bu hatayı
    bu dosyayı
    şu hatayı
    ten plik
    tego pliku
    ta funkcja
    tę funkcję
    ten błąd
    ten kod
    dit bestand
    deze file
    deze functie
    deze fout
    tento soubor
    tenhle soubor
    tato funkce
    tahle funkce
    tuto funkci
    den här filen
    denna fil
    den här funktionen
    denna funktion
    这个文件
    這個文件
    这份文件
    這份文件
    该文件
    該文件
    这个文档
    這個文檔
    这张图
    這張圖
    见附件
    这个截图
    這個截圖
    这张截图
    这个函数
    這個函數
    这个错误
    這個錯誤
    这个报错
    这段代码
    這段代碼
    这段文字
    這段程式碼
    這個檔案
    這個函式
    这个 error
    这个 function
    我发的截图
    我发的文件
    このファイル
    この資料
    この画像
    このスクリーンショット
    このスクショ
    この関数
    このエラー
    このコード
    この文章
    添付ファイル
    이 파일
    이 문서
    이 이미지
    이 스크린샷
    이 함수
    이 에러
    이 오류
    이 코드
    이 function
    첨부한 파일
    첨부 파일
    هذا الملف
    هذا الكود
    هذه الدالة
    هذا الخطأ
    הקובץ הזה
    הפונקציה הזאת
    הקוד הזה
    השגיאה הזאת
    צילום המסך ששלחתי
    इस फ़ाइल
    इस फाइल
    यह फ़ाइल
    इस कोड
    इस फंक्शन
    यह एरर
    इस एरर
    ye error
    यह function
    ye function
    yeh error
    ye file
    yeh file
    ไฟล์นี้
    ฟังก์ชันนี้
    โค้ดนี้
    สกรีนช็อตที่แนบมา
    این فایل
    این تابع
    این کد
    این خطا
    file ini
    fungsi ini
    kode ini
    error ini
    """
)

# Words that make a pointer phrase part of a longer noun ("this file system", "the attached
# event listeners"): a kind of thing, not a file the user forgot to give.
REFERENT_RUN_ON_WORDS = frozenset(
    _table(
        """
        system
        systems
        format
        formats
        type
        types
        size
        sizes
        name
        names
        path
        paths
        picker
        upload
        uploads
        uploader
        extension
        extensions
        watcher
        handle
        handler
        descriptor
        manager
        browser
        input
        dialog
        tree
        structure
        model
        models
        listener
        listeners
        event
        events
        permission
        permissions
        mode
        header
        headers
        storage
        field
        button
        viewer
        editor
        icon
        preview
        pipeline
        pipelines
        tag
        tags
        strategy
        volume
        volumes
        badge
        flag
        flags
        placeholder
        text
        line
        suite
        suites
        runner
        framework
        coverage
        environment
        chart
        tracker
        number
        numbers
        ending
        endings
        height
        break
        breaks
        label
        entry
        object
        objects
        record
        records
        row
        rows
        column
        url
        urls
        generator
        generators
        feature
        features
        component
        components
        site
        sites
        registry
        registries
        store
        stores
        server
        servers
        service
        services
        library
        parser
        loader
        builder
        converter
        processor
        renderer
        exporter
        importer
        diffing
        tool
        tools
        cache
        bucket
        형식
        유형
        크기
        이름
        경로
        시스템
        """
    )
)
# Words that make a pointer generic: "quarantine this file" in "for each attachment ...",
# "if this file exceeds 5 MB", "a button so the user can download this file": the
# feature's file, not one the user forgot to give.
GENERIC_FILE_CONTEXT = _table(
    """
    each
    every
    any
    whenever
    if a
    if an
    when a
    when an
    upload
    download
    the user can
    users can
    user can
    lets the user
    let the user
    lets users
    let users
    allow the user
    allow users
    allows the user
    allows users
    so the user
    so users
    l'utilisateur
    les utilisateurs
    der nutzer
    die nutzer
    el usuario
    los usuarios
    o usuário
    os usuários
    l'utente
    gli utenti
    пользователь
    пользователи
    让用户
    用户可以
    cuando
    wenn
    quand
    lorsque
    quando
    если
    когда
    каждый
    如果
    每个
    任何
    上传
    下载
    アップロード
    ダウンロード
    ユーザーが
    場合
    업로드
    다운로드
    사용자가
    경우
    """
)


# Characters that run a pointer of a script written without spaces on into another word:
# 这个文件夹 is "this folder", 这个文件格式 "this file format", 这个文件名 "this file name".
REFERENT_RUN_ON_CHARS = frozenset("夹夾格类類名形室")
# Words that give "image" its container sense: "push this image to ECR" in a prompt about
# Docker means the image being built, not a picture the user forgot to attach.
CONTAINER_WORDS = _table(
    """
    docker
    container
    podman
    registry
    ecr
    ghcr
    kubernetes
    k8s
    helm
    dockerfile
    compose
    """
)

# Words right before a pointer that make it text being quoted without quote marks: "a
# comment saying this file is generated", "the tooltip says Drop this file here", "the
# entry Open this document", "when the user clicks Crop this image" (a button's label).
# Verbs a user applies to a file ("comment this file", "the script reads this file") are
# not here.
MENTION_WORDS = _table(
    """
    saying
    says
    say
    titled
    labelled
    labeled
    tooltip
    entry
    banner
    caption
    message
    placeholder
    click
    clicks
    clicking
    press
    presses
    tap
    taps
    注释
    注释为
    提示
    提示语
    文案
    消息
    コメント
    メッセージ
    주석
    문구
    메시지
    """
)
# Words right after a pointer that close a quotation: このファイルは自動生成です という
# コメント ("a comment that says this file is generated"), 이 파일은 … 라는 문구.
QUOTATIVE_WORDS = _table(
    """
    という
    と書
    って書
    라는
    이라는
    라고
    """
)
# Words after "the file above" that make "above" a preposition with its own object
# ("the link above the footer", "the file above 2 GB"), not "the file shown above".
POSITION_OBJECTS = frozenset(
    _table(
        """
        the
        a
        an
        this
        that
        my
        our
        your
        each
        every
        all
        """
    )
)
# Endings of a PascalCase name that make it code ("UserCard", "OrderService", "TypeError"):
# a search of the repository finds it. Product names (PowerPoint, GitHub) end otherwise.
CODE_SUFFIXES = _table(
    """
    Error
    Exception
    Service
    Form
    Card
    Component
    Provider
    Context
    Repository
    Controller
    Handler
    Manager
    Store
    Table
    Model
    View
    Page
    Button
    Modal
    Client
    Factory
    Config
    Helper
    Router
    Schema
    Test
    Spec
    Hook
    List
    Item
    Panel
    Dialog
    Screen
    Layout
    Widget
    Module
    Util
    Utils
    """
)
# Kinds of code after a capitalised name ("the Orders table", "the Settings page").
CODE_KINDS = _table(
    """
    table
    component
    class
    page
    model
    field
    column
    view
    screen
    module
    hook
    function
    method
    endpoint
    route
    enum
    struct
    interface
    schema
    migration
    """
)
# Words after "the attached" that make it something the user meant to send: a document-like
# noun ("the attached file", "the attached screenshot") or a word that ends the noun
# phrase ("use the attached as the template"). After any other noun it is attached to
# something in the system ("the attached device", "the attached IAM policy").
DOCUMENT_NOUNS = frozenset(
    _table(
        """
        file
        files
        document
        documents
        doc
        docs
        pdf
        screenshot
        screenshots
        image
        images
        picture
        photo
        video
        log
        logs
        spec
        csv
        sheet
        spreadsheet
        report
        diagram
        mockup
        design
        zip
        archive
        list
        code
        script
        as
        and
        or
        to
        in
        into
        for
        with
        is
        are
        was
        please
        then
        from
        on
        of
        """
    )
)
# Words right before a pointer that make it a condition a feature tests ("if this file
# exceeds 10 MB"), and markers soon after it that do so in languages that close a
# condition there (このファイルが10MBを超えたら, 이 파일이 10MB를 넘으면).
CONDITION_OPENERS = _table(
    """
    if
    when
    whenever
    unless
    once
    si
    se
    falls
    wenn
    cuando
    quand
    если
    когда
    如果
    若
    当
    """
)
CONDITION_CLOSERS = _table(
    """
    たら
    なら
    場合
    넘으면
    으면
    없으면
    있으면
    """
)
# Verbs that make a thing the rest of the prompt can point back at ("generate the report
# and email this file"), and the links that end the clause that made it.
MAKING_VERBS = _table(
    """
    generate
    create
    export
    build
    rebuild
    render
    write
    download
    take
    produce
    dump
    record
    compile
    package
    zip
    生成
    创建
    导出
    下载
    作成
    生成し
    出力し
    만들
    생성
    génère
    crée
    exporte
    télécharge
    erstell
    generier
    exportier
    сгенерируй
    создай
    экспортируй
    скачай
    genera
    crea
    exporta
    descarga
    gera
    cria
    """
)
CLAUSE_LINKS = _table(
    """
    and
    then
    ,
    ;
    后
    然后
    并
    、
    して
    고
    puis
    et
    und
    dann
    y
    luego
    и
    затем
    e
    poi
    """
)
# Words before a dropped-screenshot path that make it an example the task is about
# ("fails on paths like /var/folders/…/Screenshot.png"), not the picture the user means.
EXAMPLE_MARKERS = _table(
    """
    paths like
    path like
    files like
    names like
    such as
    e.g.
    for example
    contains
    containing
    matching
    pattern
    """
)


# Words that are a whole command on their own: "push it", "flow status", "init".
COMMAND_WORDS = _table(
    """
    push
    pull
    commit
    merge
    rebase
    init
    status
    run
    start
    stop
    restart
    build
    test
    tests
    deploy
    install
    lint
    format
    check
    diff
    log
    undo
    redo
    retry
    resume
    help
    wait
    hold
    pause
    cancel
    abort
    halt
    revert
    """
)

# Programs whose command line a user types into the prompt: "git status", "claude doctor".
SHELL_PROGRAMS = _table(
    """
    git
    gh
    claude
    codex
    npm
    npx
    yarn
    pnpm
    bun
    node
    deno
    pip
    pip3
    uv
    poetry
    python
    python3
    pytest
    cargo
    docker
    kubectl
    helm
    terraform
    brew
    apt
    apt-get
    sudo
    ls
    cd
    cat
    rm
    mv
    cp
    mkdir
    curl
    ssh
    """
)

# A request to look, read or explain: the repository fills what it names.
ANALYSIS_OPENERS = _table(
    """
    scan
    analyze
    analyse
    understand
    review
    explore
    investigate
    inspect
    audit
    study
    read
    look at
    go through
    familiarize
    show
    list
    """
)

# Folders the OS empties moments after a screenshot thumbnail is dropped into a terminal
# (macOS screenshot and Simulator thumbnails): a path there is gone before the agent reads it.
VANISHING_FILE_PLACES = _table(
    """
    /temporaryitems/nsird_screencaptureui_
    /t/simulator_screenshot_
    """
)

# The user asks to be asked: "ask clarifying questions if needed", "有什么不懂的可以询问我".
INVITED_QUESTIONS = _table(
    """
    ask clarifying questions
    ask me clarifying questions
    ask any clarifying questions
    ask me any questions
    ask me questions
    ask questions if
    ask me if anything
    ask me if something
    ask me if you have questions
    any clarifying questions
    ask questions before
    ask me before you start
    ask before you start
    ask if anything is unclear
    ask if something is unclear
    ask if unclear
    ask if you are unsure
    ask if you're unsure
    ask rather than assume
    ask instead of assuming
    ask instead of guessing
    interview me
    pose-moi des questions
    posez-moi des questions
    me poser des questions
    hazme preguntas
    hazme las preguntas
    si tienes alguna duda
    si tienes dudas
    me faça perguntas
    faça-me perguntas
    se tiver alguma dúvida
    se tiver dúvidas
    stell mir fragen
    stelle mir fragen
    falls etwas unklar ist
    wenn etwas unklar ist
    fammi domande
    se hai dubbi
    задавай вопросы
    задай вопросы
    задай мне вопросы
    задавай мне вопросы
    уточняющие вопросы
    если что-то непонятно
    hãy hỏi tôi
    nếu có gì chưa rõ
    zadawaj pytania
    zadaj pytania
    有什么不懂的可以
    有不懂的可以
    不清楚的可以问
    有问题可以问我
    有疑问可以问
    有疑问请问
    可以问我
    随时问我
    隨時問我
    可以询问我
    可以詢問我
    質問してください
    質問があれば
    不明点があれば
    不明な点があれば
    わからないことがあれば
    질문해 주세요
    질문해줘
    궁금한 점이 있으면
    모르는 게 있으면
    질문이 있으면
    """
)

# Words that, right before an invitation to ask, turn it down: "don't ask me questions".
INVITATION_NEGATIONS = _table(
    """
    don't
    dont
    do not
    never
    no need to
    not
    without
    stop
    ne pas
    nicht
    не
    """
)
