"""``simon`` in Polish, Russian and English: the language chosen at the start, its plural
forms, ``--help`` and argparse's errors, the screens, a game in tmux against a real server,
and tables whose names of any alphabet line up."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from babel.messages.pofile import read_po
from rich.cells import cell_len
from rich.console import Console
from textual.widgets import Button, Static
from websockets.asyncio.server import ServerConnection, serve
from websockets.sync.client import connect

from client_cli import words
from client_cli.boards import leaderboard_table
from client_cli.connection import Connection
from client_cli.main import main
from client_cli.ui.app import SimonApp
from client_cli.wording import plural, rule_sentence
from server.engine import Rule
from server.i18n import Language
from server.i18n.catalogs import LOCALES
from server.protocol import (
    Auth,
    Authenticated,
    Hello,
    LanguageSet,
    LeaderboardRow,
    PlayerInfo,
    ServerMessage,
    Welcome,
    encode,
    parse_client_message,
    parse_server_message,
)
from tests.client.screen import SIZE, opener
from tests.support.servers import server_process

ROOT = Path(__file__).resolve().parents[2]
#: No locale of the machine's: each test says which language it runs in.
NO_LOCALE = {"LC_ALL": "", "LC_MESSAGES": "", "LANG": "", "LANGUAGE": ""}
#: The counts of tests/i18n: every plural category of Polish and Russian among them.
COUNTS = (0, 1, 2, 5, 12, 21, 22, 25, 112)


@pytest.fixture
def speaking() -> Iterator[Any]:
    """``speaking("pl")``: the client speaks it until the test ends."""
    yield words.use
    words.use("en")


def run_simon(*argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, **NO_LOCALE, "PYTHONPATH": str(ROOT), **env}
    return subprocess.run(
        [sys.executable, "-m", "client_cli.main", *argv],
        capture_output=True,
        text=True,
        env=environ,
        cwd=ROOT,
        timeout=60,
    )


# -- the language chosen ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "environ", "chosen"),
    [
        ([], {}, "en"),
        ([], {"LANG": "pl_PL.UTF-8"}, "pl"),
        ([], {"LANG": "pl_PL.UTF-8", "LC_MESSAGES": "ru_RU.UTF-8"}, "ru"),
        ([], {"LANG": "ru_RU.UTF-8", "LC_ALL": "C"}, "en"),
        ([], {"LANG": "ru_RU.UTF-8", "LC_ALL": "POSIX"}, "en"),
        ([], {"LANG": "ru_RU.UTF-8", "LC_ALL": "de_DE.UTF-8"}, "ru"),  # one we have
        (["--lang", "en", "whoami"], {"LANG": "pl_PL.UTF-8"}, "en"),
        (["--lang=ru", "whoami"], {"LC_ALL": "pl_PL.UTF-8"}, "ru"),
        (["--lang", "xx"], {"LANG": "pl_PL"}, "pl"),  # argparse refuses xx, in Polish
    ],
)
def test_the_language_is_lang_then_lc_all_lc_messages_lang(
    argv: list[str], environ: dict[str, str], chosen: str
) -> None:
    assert words.choose(argv, environ) == chosen


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("pl", {1: "1 ruch", 2: "2 ruchy", 5: "5 ruchów", 12: "12 ruchów", 22: "22 ruchy"}),
        ("ru", {1: "1 ход", 2: "2 хода", 5: "5 ходов", 11: "11 ходов", 21: "21 ход"}),
        ("en", {1: "1 move", 2: "2 moves", 5: "5 moves", 21: "21 moves"}),
    ],
)
def test_plural_forms_are_cldr_s(language: str, expected: dict[int, str], speaking: Any) -> None:
    speaking(language)
    assert {count: plural(count, "move") for count in expected} == expected


def test_suits_and_results_are_counted_too(speaking: Any) -> None:
    speaking("pl")
    assert [plural(n, "suit") for n in (1, 2, 4)] == ["1 kolor", "2 kolory", "4 kolory"]
    speaking("ru")
    assert [plural(n, "suit") for n in (1, 2, 4)] == ["1 масть", "2 масти", "4 масти"]
    assert plural(5, "result") == "5 результатов"


@pytest.mark.parametrize(
    ("language", "games", "streaks"),
    [
        ("pl",
         ["0 partii", "1 partia", "2 partie", "5 partii", "12 partii", "21 partii", "22 partie",
          "25 partii", "112 partii"],
         ["0 dni", "1 dzień", "2 dni", "5 dni", "12 dni", "21 dni", "22 dni", "25 dni",
          "112 dni"]),
        ("ru",
         ["0 партий", "1 партия", "2 партии", "5 партий", "12 партий", "21 партия",
          "22 партии", "25 партий", "112 партий"],
         ["0 дней", "1 день", "2 дня", "5 дней", "12 дней", "21 день", "22 дня", "25 дней",
          "112 дней"]),
    ],
)  # fmt: skip
def test_the_cli_catalog_takes_the_plural_form_of_each_count(
    language: str, games: list[str], streaks: list[str], speaking: Any
) -> None:
    """The cli domain's plural rule is CLDR's at every count of tests/i18n, as the server
    domain's is: a history's games and the finished screen's streak."""
    speaking(language)
    assert [plural(n, "game") for n in COUNTS] == games
    said = [
        words.ngettext(
            "%(count)s day in a row (best %(best)s)", "%(count)s days in a row (best %(best)s)", n
        )
        % {"count": n, "best": 112}
        for n in COUNTS
    ]
    in_a_row = "z rzędu (najlepiej 112)" if language == "pl" else "подряд (лучший результат 112)"
    assert said == [f"{days} {in_a_row}" for days in streaks]


# -- --help and argparse's own words ---------------------------------------------------------


def test_help_in_polish_and_russian_and_lang_overrides_lang() -> None:
    polish = run_simon("--help", LANG="pl_PL.UTF-8")
    assert polish.returncode == 0
    assert polish.stdout.startswith("użycie: simon")
    assert "Simple Simon Online: klient terminalowy." in polish.stdout
    assert "argumenty pozycyjne" in polish.stdout and "pokaż tę pomoc i zakończ" in polish.stdout
    russian = run_simon("--help", LANG="ru_RU.UTF-8")
    assert russian.stdout.startswith("использование: simon")
    assert "терминальный клиент" in russian.stdout and "параметры" in russian.stdout
    english = run_simon("--lang", "en", "--help", LANG="pl_PL.UTF-8")
    assert english.stdout.startswith("usage: simon")
    assert "the terminal client" in english.stdout and "użycie" not in english.stdout
    assert run_simon("--help", LANG="pl_PL.UTF-8", LC_ALL="C").stdout.startswith("usage: ")


def test_a_command_s_help_in_polish_and_russian() -> None:
    polish = run_simon("play", "--help", LANG="pl_PL.UTF-8")
    assert polish.stdout.startswith("użycie: simon play")
    assert "dzisiejsze rankingowe rozdanie" in polish.stdout
    assert "1 Łatwy, 2 Średni, 4 Trudny" in polish.stdout
    russian = run_simon("--lang", "ru", "play", "--help", LANG="pl_PL.UTF-8")
    assert "1 Лёгкий, 2 Средний, 4 Сложный" in russian.stdout
    assert "тренировка без сервера" in russian.stdout


def test_argparse_s_errors_in_polish_and_russian() -> None:
    missing = run_simon(LANG="pl_PL.UTF-8")
    assert missing.returncode == 2
    assert missing.stderr.startswith("użycie: simon")
    assert "simon: wymagane są argumenty: POLECENIE" in missing.stderr
    choice = run_simon("play", "--suits", "3", LANG="pl_PL.UTF-8")
    assert "argument --suits: nieprawidłowy wybór: 3 (wybierz z 1, 2, 4)" in choice.stderr
    russian = run_simon("play", "--suits", "3", LANG="ru_RU.UTF-8")
    assert "аргумент --suits: неверный выбор: 3 (выберите из 1, 2, 4)" in russian.stderr
    ours = run_simon("leaderboard", "--top", "zero", LANG="pl_PL.UTF-8")
    assert "'zero' to nie liczba dodatnia" in ours.stderr
    language = run_simon("--lang", "de", "whoami", LANG="ru_RU.UTF-8")
    assert language.returncode == 2 and "'de' — не язык simon" in language.stderr


def test_an_offline_command_speaks_the_language(
    monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    for variable in NO_LOCALE:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("LANG", "ru_RU.UTF-8")
    try:
        assert main(["deal", "SS1-S4-AAAAABD"]) == 0
        assert capsys.readouterr().out.startswith("SS1-S4-AAAAABD  4 масти")
        assert main(["replay", "SS1-S4-AAAAABD", "--moves", "3-4 1-1"]) == 1
        out = capsys.readouterr().out
        assert "не выиграно: 1 ход, счёт 499" in out
        assert "ход 2 (1-1) отклонён: Карта должна перейти в другой столбец." in out
    finally:
        words.use("en")


# -- the screens ---------------------------------------------------------------------------


def _text(widget: Static | Button) -> str:
    return str(widget.render())


@pytest.mark.parametrize(
    ("language", "question", "names", "placeholder"),
    [
        ("pl", "Ile kolorów?", ["Łatwy", "Średni", "Trudny"], "u cofnij · r od nowa"),
        ("ru", "Сколько мастей?", ["Лёгкий", "Средний", "Сложный"], "u отменить · r заново"),
        ("en", "How many suits?", ["Easy", "Medium", "Hard"], "u undo · r restart"),
    ],
)
async def test_the_new_game_question_and_the_screen_speak_the_language(
    language: str, question: str, names: list[str], placeholder: str, speaking: Any
) -> None:
    speaking(language)
    app = SimonApp(opener(None), ask_suits=2)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert _text(screen.query_one("#suit-question", Static)) == question
        labels = [_text(screen.query_one(f"#suits-{n}", Button)) for n in (1, 2, 4)]
        assert labels == [f"{n}  {name}" for n, name in zip((1, 2, 4), names, strict=True)]
        descriptions = {b.description for b in screen._bindings.key_to_bindings["1"]}
        assert descriptions == {names[0]}
        await pilot.press("1")
        await pilot.pause()
        prompt = app.query_one("#prompt")
        assert placeholder in str(prompt.placeholder)  # type: ignore[attr-defined]
        await pilot.press("?")
        await pilot.pause()
        help_text = _text(app.screen.query_one("#help-text", Static))
        if language == "pl":
            assert "Na asa nic się nie kładzie" in help_text
        elif language == "ru":
            assert "На туза ничего не кладут" in help_text


async def test_the_hello_carries_the_language(speaking: Any) -> None:
    said: list[Any] = []

    async def handle(socket: ServerConnection) -> None:
        async for frame in socket:
            message = parse_client_message(frame)
            said.append(message)
            await socket.send(encode(Welcome(id=message.id, server_time="now")))

    speaking("ru")
    async with serve(handle, "127.0.0.1", 0) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        async with Connection(f"ws://127.0.0.1:{port}"):
            pass
    assert said[0].type == "hello" and said[0].lang == "ru"


async def signed_in(account: Language | None) -> tuple[list[Any], PlayerInfo | None]:
    """What the client says to a server whose account has the language ``account``, and
    the player it is signed in as."""
    said: list[Any] = []

    async def handle(socket: ServerConnection) -> None:
        async for frame in socket:
            message = parse_client_message(frame)
            said.append(message)
            reply: ServerMessage
            if isinstance(message, Hello):
                reply = Welcome(id=message.id, server_time="now")
            elif isinstance(message, Auth):
                player = PlayerInfo(name="ann", language=account)
                reply = Authenticated(id=message.id, player=player)
            else:
                reply = LanguageSet(id=message.id, lang=message.lang)  # type: ignore[union-attr]
            await socket.send(encode(reply))

    async with serve(handle, "127.0.0.1", 0) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        async with Connection(f"ws://127.0.0.1:{port}", token="secret") as connection:
            return said, connection.player


@pytest.mark.parametrize(
    ("argv", "account", "spoken", "auth_lang", "kept"),
    [
        ([], "ru", "ru", None, None),  # the locale's yields to the account's
        ([], None, "pl", None, None),  # an account without one: the locale's
        (["--lang", "pl"], "ru", "pl", "pl", "pl"),  # --lang is kept on the account
        (["--lang", "ru"], "ru", "ru", "ru", None),  # already its language: nothing to keep
    ],
)
async def test_the_account_s_language_and_the_run_s_agree_once_signed_in(
    argv: list[str],
    account: Language | None,
    spoken: str,
    auth_lang: str | None,
    kept: str | None,
    speaking: Any,
) -> None:
    words.start(argv, {"LANG": "pl_PL.UTF-8"})
    said, player = await signed_in(account)
    assert words.language() == spoken
    assert [message.type for message in said[:2]] == ["hello", "auth"]
    assert said[0].lang == (argv[1] if argv else "pl")
    assert said[1].lang == auth_lang  # none: the server speaks the account's language
    assert [message.lang for message in said[2:]] == ([kept] if kept else [])
    assert player is not None and player.language == (kept or account)


def test_a_refusal_is_the_server_s_sentence_or_the_client_s_own(speaking: Any) -> None:
    speaking("pl")
    english = Rule.ONTO_ACE.sentence
    assert rule_sentence(Rule.ONTO_ACE.value, english) == "Na asa nie można nic położyć."
    assert rule_sentence(Rule.ONTO_ACE.value, "Na asa — nic.") == "Na asa — nic."  # the server's
    assert rule_sentence("a-rule-of-tomorrow", "Not yet.") == "Not yet."


# -- tables --------------------------------------------------------------------------------


def _row(rank: int, player: str) -> LeaderboardRow:
    return LeaderboardRow(
        rank=rank, player=player, score=900 - rank, moves=80 + rank, elapsed=65.0 * rank,
        finished_at="2026-03-01T10:00:00Z", won=True, removed=4,
    )  # fmt: skip


@pytest.mark.parametrize("language", ["pl", "ru", "en"])
def test_a_table_lines_up_names_of_every_alphabet(language: str, speaking: Any) -> None:
    speaking(language)
    names = ["Łukasz", "Дмитрий", "李小龍", "ann"]
    table = leaderboard_table(
        "2026-03-01", [_row(n, name) for n, name in enumerate(names, 1)], None
    )
    console = Console(width=100, record=True, color_system=None)
    console.print(table)
    lines = [line for line in console.export_text().splitlines() if "│" in line]
    rows = [line for line in lines if any(name in line for name in names)]
    assert len(rows) == len(names)
    header = lines[0]
    columns = [cell_len(header[:i]) for i, char in enumerate(header) if char == "│"]
    for line in rows:
        assert [cell_len(line[:i]) for i, char in enumerate(line) if char == "│"] == columns
    assert words.pad("李小龍", 8) == "李小龍  " and words.pad("Łukasz", 8, ">") == "  Łukasz"


# -- a game in tmux, against a real server --------------------------------------------------


def english_phrases(language: str) -> list[tuple[str, str]]:
    """The pieces of the cli catalog's English sentences (two words or more, between their
    placeholders), each with its translation; a piece the translation keeps is left out."""
    with (LOCALES / language / "LC_MESSAGES" / "cli.po").open("rb") as po:
        catalog = read_po(po, locale=language)
    found = []
    for message in catalog:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        said = " ".join(str(s) for s in strings)
        for text in ids:
            for piece in re.split(r"%\(\w+\)[sdr]|%[sdr]|\[/?b\]|\n", str(text)):
                piece = piece.strip(" .,:;()·")
                if len(re.findall(r"[A-Za-z]{2,}", piece)) >= 2 and piece not in said:
                    found.append((piece, str(text)))
    return found


@pytest.fixture(scope="module")
def server_url(backend: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp(f"words-server-{backend.name}")
    with server_process(backend, data) as url:
        yield url


class Tmux:
    """A tmux server of the test's own (its own socket), one window."""

    def __init__(self, socket: str) -> None:
        self.socket = socket

    def __call__(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-u", "-L", self.socket, *args], capture_output=True, text=True, timeout=30
        )
        return done.stdout

    def screen(self) -> str:
        return self("capture-pane", "-p", "-J", "-t", "game")

    def wait_for(self, text: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        shown = ""
        while time.monotonic() < deadline:
            shown = self.screen()
            if text in shown:
                return shown
            time.sleep(0.2)
        raise AssertionError(f"{text!r} never showed; the screen:\n{shown}")


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.parametrize(
    ("locale", "language", "question", "same_column", "resign", "over"),
    [
        (
            "pl_PL.UTF-8",
            "pl",
            "Ile kolorów?",
            "Karta musi przejść do innej kolumny.",
            "Poddać się?",
            "Poddajesz się",
        ),
        (
            "ru_RU.UTF-8",
            "ru",
            "Сколько мастей?",
            "Карта должна перейти в другой столбец.",
            "Сдаться?",
            "Вы сдались",
        ),
    ],
)
def test_a_game_in_tmux_says_no_english_sentence(
    locale: str,
    language: str,
    question: str,
    same_column: str,
    resign: str,
    over: str,
    server_url: str,
    tmp_path: Path,
) -> None:
    config = tmp_path / "config"
    env = {"SIMON_CONFIG_DIR": str(config), "SIMON_SERVER": server_url, "LANG": locale}
    registered = run_simon("register", f"łk{uuid.uuid4().hex[:8]}", **env)
    assert registered.returncode == 0, registered.stderr
    assert ("Zarejestrowano" if language == "pl" else "Зарегистрирован") in registered.stdout
    tmux = Tmux(f"simon-words-{uuid.uuid4().hex[:8]}")
    command = " ".join(
        [
            "env",
            *(f"{key}={value}" for key, value in {**NO_LOCALE, **env}.items() if value),
            f"PYTHONPATH={ROOT}",
            "TERM=xterm-256color",
            sys.executable,
            "-m",
            "client_cli.main",
            "play",
        ]
    )
    tmux("new-session", "-d", "-s", "game", "-x", "110", "-y", "40", command)
    screens = []
    try:
        screens.append(tmux.wait_for(question))
        tmux("send-keys", "-t", "game", "Enter")  # the one lit
        screens.append(tmux.wait_for("SS1-"))
        tmux("send-keys", "-t", "game", "4", "2", "Enter")
        time.sleep(1.0)
        screens.append(tmux.screen())
        tmux("send-keys", "-t", "game", "1", "-", "1", "Enter")  # refused: the same column
        screens.append(tmux.wait_for(same_column))
        tmux("send-keys", "-t", "game", "?")
        screens.append(tmux.wait_for("Zasady" if language == "pl" else "Правила"))
        tmux("send-keys", "-t", "game", "Space")
        time.sleep(0.5)
        tmux("send-keys", "-t", "game", "x")
        screens.append(tmux.wait_for(resign))
        tmux("send-keys", "-t", "game", "x")
        screens.append(tmux.wait_for(over))
        tmux("send-keys", "-t", "game", "q")
        time.sleep(1.0)
    finally:
        tmux("kill-server")
    shown = "\n".join(screens)
    english = [(piece, whole) for piece, whole in english_phrases(language) if piece in shown]
    assert not english, f"English on the {language} screen: {english}\n{shown}"


# -- the account's language, against a real server ------------------------------------------


def kept_language(url: str, token: str) -> str | None:
    """The language the server keeps on the account of ``token``."""
    with connect(url) as socket:
        socket.send(encode(Hello(type="hello", id=1)))
        parse_server_message(socket.recv())
        socket.send(encode(Auth(type="auth", id=2, token=token)))
        reply = parse_server_message(socket.recv())
    assert isinstance(reply, Authenticated), reply
    return reply.player.language


def test_the_account_s_language_wins_over_the_locale_and_lang_is_kept_on_it(
    server_url: str, tmp_path: Path
) -> None:
    config = tmp_path / "config"
    kept = config / "config.json"
    env = {"SIMON_CONFIG_DIR": str(config), "SIMON_SERVER": server_url, "LANG": "pl_PL.UTF-8"}
    name = f"ru{uuid.uuid4().hex[:8]}"
    made = run_simon("--lang", "ru", "register", name, **env)
    assert made.returncode == 0, made.stderr
    assert made.stdout.startswith("Зарегистрирован")
    data = json.loads(kept.read_text(encoding="utf-8"))
    token = data["accounts"][server_url]["players"][name]["token"]
    assert kept_language(server_url, token) == "ru"  # the account starts with it

    del data["account_language"]  # what the server says, not what the folder remembers
    kept.write_text(json.dumps(data), encoding="utf-8")
    russian = run_simon("history", **env)  # LANG says Polish; the account, Russian
    assert russian.returncode == 0, russian.stderr
    assert russian.stdout.strip() == f"{name}: партий пока нет"
    offline = run_simon("deal", "SS1-S4-AAAAABD", **env)  # the account's, as last heard
    assert offline.stdout.startswith("SS1-S4-AAAAABD  4 масти"), offline.stdout

    polish = run_simon("--lang", "pl", "history", **env)
    assert polish.stdout.strip() == f"{name}: jeszcze bez partii", polish.stderr
    assert kept_language(server_url, token) == "pl"  # so the browser follows too
    later = run_simon("history", **{**env, "LANG": "ru_RU.UTF-8"})
    assert later.stdout.strip() == f"{name}: jeszcze bez partii"  # the account's, not LANG's
    assert run_simon("deal", "SS1-S4-AAAAABD", **env).stdout.startswith("SS1-S4-AAAAABD  4 kolory")
