"""What a player finds without reading the docs, through the real application: /help and the
command menus name every command (/away, /stats, /log, the private /settings); /start in
private offers a group and a practice game; /rules in private is one message with a table of
contents; a wrong number of players is told as such; the lobby's players button and its time
per move menu; /kick never offers the sender's own seat; /log in a forum topic, /board after
the game and /stats in private speak of the right game and to the right person."""

from __future__ import annotations

import re

import pytest

from kolkhoz_tg.bot.app import startup
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.present import PRESET_ORDER, full_rules
from kolkhoz_tg.service import GameService
from tests.bot.conftest import make_app
from tests.bot.driver import data_of, move_without_the_bot, open_game, open_lobby, players
from tests.faketg import FakeTelegram, FakeUser, StoredMessage

LANGS = ("en", "ru")


def text_of(msg: StoredMessage | None) -> str:
    assert msg is not None
    return msg.text or ""


def label_of(msg: StoredMessage, suffix: str) -> str:
    return next(b.text for row in msg.buttons for b in row if b.data and b.data.endswith(suffix))


def finish(service: GameService, game_id: int, users: list[FakeUser]) -> None:
    """Play the game to its end through the service alone (quick; nothing needs sending)."""
    for _ in range(2000):
        if service.game_info(game_id).status == "finished":
            return
        move_without_the_bot(service, game_id, users)
    raise AssertionError("the game did not end")


# ---------------------------------------------------------------------- /help and menus


HELP = {
    "en": {
        "away": "/away, /away 3d — a bot plays for you",
        "stats": "/stats — ratings here; /stats me: yours",
        "log": "/log — the last game, move by move",
        "settings": "/settings — your time zone and quiet hours",
        "my stats": "/stats — your ratings",
        "group": "In the group:",
        "private": "Here, in private:",
    },
    "ru": {
        "away": "/away, /away 3d — за вас играет бот",
        "stats": "/stats — рейтинг здесь; /stats me — ваш",
        "log": "/log — последняя партия ход за ходом",
        "settings": "/settings — ваш часовой пояс и тихие часы",
        "my stats": "/stats — ваш рейтинг",
        "group": "В группе:",
        "private": "Здесь, в личном чате:",
    },
}


@pytest.mark.parametrize("lang", LANGS)
async def test_help_and_the_menus_name_every_command(
    fake: FakeTelegram, service: GameService, lang: str
) -> None:
    anna = fake.user(8000, "Anna", language_code=lang)
    group = fake.create_group("Help", [anna])
    app = make_app(fake, service)
    async with fake.running(app):
        await startup(app)
        for scope in ("all_group_chats", "all_private_chats"):
            menu = [c["command"] for c in fake.my_commands({"type": scope}, lang)]
            assert "away" in menu, scope
        assert "away" in [c["command"] for c in fake.visible_commands(anna, group)]
        assert "away" in [c["command"] for c in fake.visible_commands(anna)]
        want = HELP[lang]
        await anna.send(group, "/help")
        in_group = text_of(fake.last_message(group))
        await anna.send(None, "/help")
        in_private = text_of(anna.last_message())
        for text in (in_group, in_private):
            for key in ("away", "stats", "log", "settings", "my stats"):
                assert want[key] in text, (key, text)
        # Each chat its own commands first.
        assert in_group.index(want["group"]) < in_group.index(want["settings"])
        assert in_private.index(want["private"]) < in_private.index(want["settings"]) < (
            in_private.index(want["stats"]))


# ---------------------------------------------------------------------- /start in private


@pytest.mark.parametrize("lang", LANGS)
async def test_start_offers_a_group_and_a_practice_game(
    fake: FakeTelegram, service: GameService, lang: str
) -> None:
    vera = fake.user(8100, "Vera", language_code=lang)
    async with fake.running(make_app(fake, service)):
        await vera.start_bot()
        hello = vera.last_message()
        assert hello is not None
        urls = [b.url for row in hello.buttons for b in row if b.url]
        assert f"https://t.me/{fake.bot_username}?startgroup=newgame" in urls
        label = {"en": "Add me to a group", "ru": "Добавить меня в группу"}[lang]
        assert any(label in t for t in hello.button_texts)
        practice = next(t for t in hello.button_texts if t.startswith("🎓"))
        await vera.tap(hello, practice)
        menu = text_of(vera.last_message())
        assert {"en": "How strong should the bots be?", "ru": "🎓"}[lang] in menu
        assert service.practice_game(vera.id) is None  # only offered


# ---------------------------------------------------------------------- /rules in private


async def test_rules_in_private_are_one_message_with_contents(
    fake: FakeTelegram, service: GameService
) -> None:
    ben = fake.user(8200, "Ben", language_code="en")
    ru = fake.user(8201, "Глеб", language_code="ru")
    async with fake.running(make_app(fake, service)):
        await ben.start_bot()
        before = len(fake.messages(ben))
        await ben.send(None, "/rules")
        sent = fake.messages(ben)[before + 1:]
        assert len(sent) == 1
        contents = sent[0]
        assert len(text_of(contents)) < 300
        labels = contents.button_texts
        for chapter in ("About the game", "The cards", "Requisition in detail", "Glossary"):
            assert chapter in labels
        assert "🎓 Play a practice game" in labels
        # A chapter opens in the same message; › reads on, 📜 Contents goes back.
        await ben.tap(contents, "Requisition in detail")
        page = fake.message(ben, contents.message_id)
        assert text_of(page).startswith("▪️ Requisition in detail") and len(text_of(page)) <= 4096
        assert len(fake.messages(ben)) == before + 2
        # (A long chapter reads on over a page or two, then comes the next chapter.)
        for _ in range(3):
            await ben.tap(fake.message(ben, contents.message_id), "›")
            page = fake.message(ben, contents.message_id)
            assert len(text_of(page)) <= 4096
            if text_of(page).startswith("▪️ Scoring"):
                break
        assert text_of(page).startswith("▪️ Scoring")
        await ben.tap(fake.message(ben, contents.message_id), "📜 Contents")
        assert fake.message(ben, contents.message_id).button_texts == labels
        # A chapter longer than a message reads on over two pages.
        await ben.tap(fake.message(ben, contents.message_id), "Rule setups")
        first = text_of(fake.message(ben, contents.message_id))
        await ben.tap(fake.message(ben, contents.message_id), "›")
        second = text_of(fake.message(ben, contents.message_id))
        assert first.startswith("▪️ Rule setups") and "Zone" in second and second != first
        assert len(fake.messages(ben)) == before + 2
        # In Russian, and by the group's link to the full rules.
        await ru.start_bot("rules")
        contents = ru.last_message()
        assert contents is not None and "Реквизиция подробно" in contents.button_texts
        await ru.tap(contents, "Реквизиция подробно")
        assert text_of(fake.message(ru, contents.message_id)).startswith(
            "▪️ Реквизиция подробно")
        assert "📜 Оглавление" in fake.message(ru, contents.message_id).button_texts


# ---------------------------------------------------------------------- player counts


@pytest.mark.parametrize(("lang", "said", "unknown"), [
    ("en", "A game is for 3 to 5 players, not 6.", "I do not know the rules"),
    ("ru", "В игре может быть от 3 до 5 игроков, а не 6.", "Не знаю правил"),
], ids=LANGS)
async def test_a_wrong_number_of_players_is_told_as_such(
    fake: FakeTelegram, service: GameService, lang: str, said: str, unknown: str
) -> None:
    anna = fake.user(8300, "Anna", language_code=lang)
    group = fake.create_group("Counts", [anna])
    async with fake.running(make_app(fake, service)):
        await anna.send(None, "/practice kolkhoz 6")
        answer = text_of(anna.last_message())
        assert said in answer and unknown not in answer
        assert "/practice kolkhoz 3" in answer
        await anna.send(group, "/newgame kolkhoz 6")
        answer = text_of(fake.last_message(group))
        assert said in answer and unknown not in answer
        assert "/newgame kolkhoz 3" in answer
        assert service.games_in_chat(group.id) == []


@pytest.mark.parametrize(("lang", "full"), [
    ("en", "All 5 seats are taken: to play with fewer players, free a seat first (/kick)."),
    ("ru", "Все 5 мест заняты: чтобы играть меньшим составом, сначала освободите место "
           "(/kick)."),
], ids=LANGS)
async def test_the_players_button_skips_counts_that_would_drop_a_player(
    fake: FakeTelegram, service: GameService, lang: str, full: str
) -> None:
    users = players(fake, lang=lang, base=8400)
    group = fake.create_group("Seats", users)
    async with fake.running(make_app(fake, service)):
        for u in users:
            await u.start_bot()
        lobby, game_id = await open_lobby(fake, service, users[0], group)
        for u in users[1:]:
            await u.tap(fake.message(group, lobby.message_id), data_of(lobby, ":join"))
        msg = fake.message(group, lobby.message_id)
        await users[0].tap(msg, data_of(msg, ":players"))
        assert service.game_info(game_id).players == 5
        # Four seated: three would drop one, so 5 steps back to 4 (it used to say "That
        # seat is taken").
        msg = fake.message(group, lobby.message_id)
        assert label_of(msg, ":players").endswith("5")
        answer = await users[0].tap(msg, data_of(msg, ":players"))
        assert answer is not None and not answer.show_alert, answer
        assert service.game_info(game_id).players == 4
        # Five seated: no other count keeps everyone, and the answer says what to do.
        msg = fake.message(group, lobby.message_id)
        await users[0].tap(msg, data_of(msg, ":players"))
        service.add_ai_player(game_id, users[0].id)
        await fake.wait_idle()
        msg = fake.message(group, lobby.message_id)
        answer = await users[0].tap(msg, data_of(msg, ":players"))
        assert answer is not None and answer.show_alert and answer.text == full
        assert service.game_info(game_id).players == 5


# ---------------------------------------------------------------------- preset names


@pytest.mark.parametrize("lang", LANGS)
async def test_a_preset_has_one_name_on_buttons_titles_and_in_the_rules(
    fake: FakeTelegram, service: GameService, lang: str
) -> None:
    """Each preset is called the same on the lobby's buttons, in the lobby's rules line, in
    the list of presets /practice offers and in the players' rules (once «Колхоз+»,
    «Колхоз (расширенный)» and «Колхоз» for one preset)."""
    anna = fake.user(8350 if lang == "en" else 8360, "Anna", language_code=lang)
    group = fake.create_group("Names", [anna])
    rules = "\n".join(full_rules(lang) or [])
    in_rules = {m[2]: m[1].strip("«»")
                for m in re.finditer(r"^▪️ (.+) — (\w+)$", rules, re.MULTILINE)}
    async with fake.running(make_app(fake, service)):
        await anna.start_bot()
        await anna.send(None, "/practice nonsense")
        listed = dict(line.removeprefix("• ").split(" — ", 1)
                      for line in text_of(anna.last_message()).splitlines()
                      if line.startswith("• "))
        lobby, _game_id = await open_lobby(fake, service, anna, group)
        for preset in PRESET_ORDER:
            await anna.tap(fake.message(group, lobby.message_id),
                           data_of(fake.message(group, lobby.message_id), ":rules"))
            menu = fake.message(group, lobby.message_id)
            button = label_of(menu, f":set.{preset}").removeprefix("✅ ").split(" · ")[0]
            await anna.tap(menu, data_of(menu, f":set.{preset}"))
            rules_line = text_of(fake.message(group, lobby.message_id)).splitlines()[1]
            found = re.search(r'["«]([^"»]+)["»]', rules_line)
            assert found is not None, rules_line
            title = found[1]
            names = {button, title.split(" (")[0], listed[preset].split(" (")[0],
                     in_rules[preset]}
            assert len(names) == 1, (preset, names)


# ---------------------------------------------------------------------- the time per move


@pytest.mark.parametrize(("lang", "now", "later", "back", "refusal"), [
    ("en", "24 hours", "2 days", "« Back",
     "Only the game's creator may change the time per move."),
    ("ru", "24 часа", "3 дня", "« Назад", "Менять время на ход может только создатель игры."),
], ids=LANGS)
async def test_the_time_per_move_is_a_menu(
    fake: FakeTelegram, service: GameService, lang: str, now: str, later: str, back: str,
    refusal: str,
) -> None:
    users = players(fake, lang=lang, base=8500)
    group = fake.create_group("Clock", users)
    async with fake.running(make_app(fake, service)):
        lobby, game_id = await open_lobby(fake, service, users[0], group)
        service.configure(game_id, users[0].id, turn_timeout=24 * 3600)
        await users[1].send(group, "/join")
        msg = fake.message(group, lobby.message_id)
        turn = data_of(msg, ":timeout")
        answer = await users[1].tap(msg, turn)
        assert answer is not None and answer.show_alert and answer.text == refusal
        await users[0].tap(msg, turn)
        menu = fake.message(group, lobby.message_id)
        texts = menu.button_texts
        assert len(texts) == 7 and f"✅ {now}" in texts and later in texts and back in texts
        assert service.game_info(game_id).turn_timeout == 24 * 3600  # opening changes nothing
        await users[0].tap(menu, back)
        assert label_of(fake.message(group, lobby.message_id), ":timeout").endswith(now)
        await users[0].tap(fake.message(group, lobby.message_id), turn)
        await users[0].tap(fake.message(group, lobby.message_id), later)
        seconds = {"2 days": 2 * 86400, "3 дня": 3 * 86400}[later]
        assert service.game_info(game_id).turn_timeout == seconds
        msg = fake.message(group, lobby.message_id)
        assert label_of(msg, ":timeout").endswith(later)  # the full lobby keyboard again
        assert any(d.endswith(":join") for d in msg.callback_data)


# ---------------------------------------------------------------------- /kick


@pytest.mark.parametrize("lang", LANGS)
async def test_kick_never_offers_the_senders_own_seat(
    fake: FakeTelegram, service: GameService, lang: str
) -> None:
    users = players(fake, lang=lang, base=8600 if lang == "en" else 8650)
    group = fake.create_group("Kick", users, admins=[users[3]])
    whose = translator(lang).gettext("Whose seat? Tap a name:")
    async with fake.running(make_app(fake, service)):
        await open_game(fake, users, group)
        await users[0].send(group, "/kick")  # the creator
        names = fake.last_message(group)
        assert text_of(names).startswith(whose), names
        assert names is not None and names.button_texts == ["2. Boris", "3. Vera", "4. Gleb"]
        await users[3].send(group, "/kick")  # an admin who plays
        names = fake.last_message(group)
        assert text_of(names).startswith(whose), names
        assert names is not None and names.button_texts == ["1. Anna", "2. Boris", "3. Vera"]


# ---------------------------------------------------------------------- after the game


@pytest.mark.parametrize(("lang", "over"), [
    ("en", "the five-year plan is over"),
    ("ru", "пятилетка завершена"),
], ids=LANGS)
async def test_board_after_the_game_replies_with_the_final_board(
    fake: FakeTelegram, service: GameService, lang: str, over: str
) -> None:
    users = players(fake, lang=lang, base=8700)
    group = fake.create_group("After", users)
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        finish(service, game_id, users)
        board_id = service.game_info(game_id).meta["board"]
        pins = len(fake.calls("pinChatMessage"))
        sent = len(fake.calls("sendMessage"))
        asked = await users[1].send(group, "/board")
        reply = fake.last_message(group)
        assert reply is not None and reply.reply_to_message_id == asked.message_id
        assert over in text_of(reply).lower() and "🏆" in text_of(reply)
        # A reply only: the board stays, nothing is pinned or sent but the reply.
        assert service.game_info(game_id).meta["board"] == board_id
        assert not fake.message(group, board_id).deleted
        assert len(fake.calls("pinChatMessage")) == pins
        assert len(fake.calls("sendMessage")) == sent + 1


@pytest.mark.parametrize(("lang", "nobody", "yours"), [
    ("en", "You have no rated games yet", "📊 Your ratings"),
    ("ru", "У вас пока нет рейтинговых партий", "📊 Ваш рейтинг"),
], ids=LANGS)
async def test_stats_in_private_speak_to_the_reader(
    fake: FakeTelegram, service: GameService, lang: str, nobody: str, yours: str
) -> None:
    users = players(fake, lang=lang, base=8750)
    group = fake.create_group("Stats", users)
    async with fake.running(make_app(fake, service)):
        await users[1].start_bot()
        await users[1].send(None, "/stats")
        assert nobody in text_of(users[1].last_message())
        game_id = await open_game(fake, users, group)
        finish(service, game_id, users)
        await users[1].send(None, "/stats")
        mine = text_of(users[1].last_message())
        assert mine.startswith(yours) and "Boris" not in mine
        # In the group, /stats me still names whose lines they are.
        await users[1].send(group, "/stats me")
        assert "Boris" in text_of(fake.last_message(group))


@pytest.mark.parametrize("lang", LANGS)
async def test_log_in_a_topic_tells_that_topics_game(
    fake: FakeTelegram, service: GameService, lang: str
) -> None:
    users = players(fake, lang=lang, base=8800)
    group = fake.create_group("Forum", users, forum=True)
    async with fake.running(make_app(fake, service)):
        topic_a = fake.create_topic(group, "A", by=users[0])
        topic_b = fake.create_topic(group, "B", by=users[0])
        for u in users:
            await u.start_bot()
        await users[0].send(group, "/newgame", topic=topic_a)
        [game] = service.games_in_chat(group.id, topic_a)
        service.abort(game.id, users[0].id)
        # Topic B has had no game: its /log must not tell topic A's.
        await users[1].send(group, "/log", topic=topic_b)
        said = [m for m in fake.topic_messages(group, topic_b) if m.from_id == fake.bot_id]
        assert text_of(said[-1]) == translator(lang).gettext("No finished game here yet.")
        await users[1].send(group, "/log", topic=topic_a)
        said = [m for m in fake.topic_messages(group, topic_a) if m.from_id == fake.bot_id]
        assert f" {game.id}" in text_of(said[-1]).splitlines()[0]
