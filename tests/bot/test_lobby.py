"""The lobby as a group meets it: the chosen rules explained, presets chosen from a list,
/abort confirmed, /kick by tapping a name, and players the bot cannot write to yet sent
to the private chat at once."""

from __future__ import annotations

from kolkhoz_tg.service import GameService
from tests.bot.conftest import make_app
from tests.bot.driver import open_game, open_lobby, players
from tests.faketg import FakeTelegram


async def test_rules_menu_lists_the_presets_and_the_lobby_explains_the_chosen_one(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, base=3000)
    group = fake.create_group("Presets", users)
    async with fake.running(make_app(fake, service)):
        lobby, game_id = await open_lobby(fake, service, users[0], group)
        # One line says what the chosen preset is about.
        assert "the highest trump takes the trick" in (lobby.text or "")
        # A player who did not open the lobby may not open the rules menu.
        answer = await users[1].tap(lobby, "Rules ▾")
        assert answer is not None and answer.show_alert
        await users[0].tap(lobby, "Rules ▾")
        menu = fake.message(group, lobby.message_id)
        assert menu.button_texts[:5] == ["✅ Classic", "Original", "Kolkhoz", "Kolkhoznik · 36",
                                         "Zone · 36"]
        assert all(len(t) <= 20 for t in menu.button_texts)
        assert service.game_info(game_id).preset == "classic"  # opening changed nothing
        await users[0].tap(menu, "Zone · 36")
        assert service.game_info(game_id).preset == "zone"
        lobby = fake.message(group, lobby.message_id)
        assert "only the single highest card goes north" in (lobby.text or "")
        assert "Join" in lobby.button_texts  # the full lobby keyboard is back
        # The menu's way back changes nothing.
        await users[0].tap(lobby, "Rules ▾")
        await users[0].tap(fake.message(group, lobby.message_id), "« Back")
        assert service.game_info(game_id).preset == "zone"
        assert "Join" in fake.message(group, lobby.message_id).button_texts
    # In Russian too.
    ru = fake.user(3010, "Анна", language_code="ru")
    group_ru = fake.create_group("Пресеты", [ru])
    async with fake.running(make_app(fake, service)):
        await ru.send(group_ru, "/newgame")
        lobby = fake.last_message(group_ru)
        assert lobby is not None and "берёт старший козырь" in (lobby.text or "")
        await ru.tap(lobby, "Правила ▾")
        assert "Зонский режим · 36" in fake.message(group_ru, lobby.message_id).button_texts


async def test_abort_asks_first_and_only_the_creator_or_an_admin_confirms(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, base=3100)
    group = fake.create_group("Abort", users, admins=[users[3]])
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        await users[0].send(group, "/abort")
        assert service.game_info(game_id).status == "active"  # only asked
        confirm = fake.last_message(group)
        assert confirm is not None and confirm.button_texts == ["Yes, call it off", "No, play on"]
        # A player who is neither the creator nor an admin cannot confirm it.
        answer = await users[1].tap(confirm, "Yes, call it off")
        assert answer is not None and answer.show_alert
        assert service.game_info(game_id).status == "active"
        # "No" leaves the game running and the question answered.
        await users[0].tap(confirm, "No, play on")
        assert service.game_info(game_id).status == "active"
        assert not fake.message(group, confirm.message_id).buttons
        # An admin confirms.
        await users[3].send(group, "/abort")
        confirm = fake.last_message(group)
        assert confirm is not None
        await users[3].tap(confirm, "Yes, call it off")
        assert service.game_info(game_id).status == "aborted"
        assert "called off" in (fake.message(group, confirm.message_id).text or "")


async def test_a_stale_abort_confirmation_changes_nothing(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, base=3200)
    group = fake.create_group("Stale abort", users)
    async with fake.running(make_app(fake, service)):
        for u in users:
            await u.start_bot()
        await users[0].send(group, "/newgame")
        game_id = service.games_in_chat(group.id)[0].id
        await users[0].send(group, "/abort")
        old = fake.last_message(group)
        assert old is not None
        # The lobby changes (someone joins) before the creator confirms: the question was
        # about another lobby.
        lobby = fake.message(group, service.game_info(game_id).meta["board"])
        await users[1].tap(lobby, "Join")
        answer = await users[0].tap(old, "Yes, call it off")
        assert answer is not None and answer.show_alert
        assert service.game_info(game_id).status == "lobby"
        # A confirmation for a lobby that has started since is stale too.
        await users[0].send(group, "/abort")
        asked = fake.last_message(group)
        assert asked is not None
        lobby = fake.message(group, service.game_info(game_id).meta["board"])
        await users[0].tap(lobby, "Start ▶")
        assert service.game_info(game_id).status == "active"
        await users[0].tap(asked, "Yes, call it off")
        assert service.game_info(game_id).status == "active"
        # And one for a game that is over by now.
        await users[0].send(group, "/abort")
        first = fake.last_message(group)
        await users[0].send(group, "/abort")
        second = fake.last_message(group)
        assert first is not None and second is not None
        await users[0].tap(second, "Yes, call it off")
        assert service.game_info(game_id).status == "aborted"
        version = service.game_info(game_id).version
        answer = await users[0].tap(first, "Yes, call it off")
        assert answer is not None and answer.show_alert
        assert service.game_info(game_id).version == version


async def test_kick_by_tapping_a_name(fake: FakeTelegram, service: GameService) -> None:
    users = players(fake, base=3300)
    group = fake.create_group("Kick", users)
    async with fake.running(make_app(fake, service)):
        # In the lobby: the creator frees a seat by its name.
        for u in users:
            await u.start_bot()
        await users[0].send(group, "/newgame")
        game_id = service.games_in_chat(group.id)[0].id
        lobby = fake.message(group, service.game_info(game_id).meta["board"])
        for u in users[1:]:
            await u.tap(fake.message(group, lobby.message_id), "Join")
        await users[1].send(group, "/kick")
        assert "creator" in (fake.last_message(group).text or "")  # type: ignore[union-attr]
        await users[0].send(group, "/kick")
        names = fake.last_message(group)
        assert names is not None
        assert names.button_texts == ["2. Boris", "3. Vera", "4. Gleb"]
        answer = await users[1].tap(names, "3. Vera", force=True)  # not theirs to tap
        assert answer is not None and answer.show_alert
        assert service.game_info(game_id).seat_of(users[2].id) == 2
        await users[0].tap(names, "3. Vera")
        assert service.game_info(game_id).seat_of(users[2].id) is None
        assert "Seat 3 is free" in (fake.message(group, names.message_id).text or "")
        # In a running game: a bot stands in for the player tapped.
        await users[2].tap(fake.message(group, lobby.message_id), "Join")
        await users[0].tap(fake.message(group, lobby.message_id), "Start ▶")
        assert service.game_info(game_id).status == "active"
        await users[0].send(group, "/kick")
        names = fake.last_message(group)
        assert names is not None and "4. Gleb" in names.button_texts
        await users[0].tap(names, "4. Gleb")
        seat = service.game_info(game_id).seat_of(users[3].id)
        assert seat is not None and service.game_info(game_id).seats[seat].standin
        assert "A bot now plays for Gleb" in (fake.message(group, names.message_id).text or "")


async def test_joining_without_a_private_chat_opens_it_at_once(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, base=3400)
    group = fake.create_group("Onboarding", users)
    async with fake.running(make_app(fake, service)):
        await users[0].start_bot()
        await users[0].send(group, "/newgame")
        lobby = fake.last_message(group)
        assert lobby is not None and "cannot write" not in (lobby.text or "")
        # Boris never opened the bot: the tap's answer opens the private chat with it.
        answer = await users[1].tap(lobby, "Join")
        assert answer is not None and answer.url is not None
        game_id = service.games_in_chat(group.id)[0].id
        assert answer.url.endswith(f"start=g{game_id}")
        # Meanwhile the lobby says whom the bot cannot reach, with the same deep link.
        lobby = fake.message(group, lobby.message_id)
        assert "I cannot write to Boris yet" in (lobby.text or "")
        assert any(b.url == answer.url for row in lobby.buttons for b in row)
        # Anna, who has a private chat, joins quietly... (she created it; Vera joins)
        await users[2].start_bot()
        answer = await users[2].tap(lobby, "Join")
        assert answer is not None and answer.url is None
        # Boris follows the link: the lobby no longer names him.
        await users[1].open_link(f"https://t.me/{fake.bot_username}?start=g{game_id}")
        lobby = fake.message(group, lobby.message_id)
        assert "cannot write" not in (lobby.text or "")
        assert not any(b.url for row in lobby.buttons for b in row)
        assert "not started yet" in (users[1].last_message().text or "")  # type: ignore[union-attr]
        # Typed, /join says the same with the button.
        await users[3].send(group, "/join")
        reply = fake.last_message(group)
        assert reply is not None and "Open a private chat" in (reply.text or "")
        assert any(b.url == answer_url(game_id, fake) for row in reply.buttons for b in row)


def answer_url(game_id: int, fake: FakeTelegram) -> str:
    return f"https://t.me/{fake.bot_username}?start=g{game_id}"
