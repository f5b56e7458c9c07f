"""A player's own settings in private (time zone, quiet hours) and /away through the real
application on the fake Telegram."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from kolkhoz_tg.bot.app import shutdown, startup
from kolkhoz_tg.bot.context import DEPS_KEY
from kolkhoz_tg.bot.personal import away_job, away_key, restore_away_ends
from kolkhoz_tg.service import GameService, Kind
from kolkhoz_tg.timeutil import FakeClock
from tests.bot.conftest import make_app
from tests.bot.driver import NAMES, open_game, players, said
from tests.faketg import FakeTelegram, FakeUser


def stored(service: GameService, user: FakeUser) -> tuple[str | None, int | None, int | None]:
    info = service.user(user.id)
    assert info is not None
    return info.timezone, info.quiet_start, info.quiet_end


async def test_private_settings_set_the_time_zone_and_quiet_hours(
    fake: FakeTelegram, service: GameService
) -> None:
    anna = fake.user(4000, "Anna", language_code="en")
    async with fake.running(make_app(fake, service)):
        await anna.start_bot()
        await anna.send(None, "/settings")
        assert "time zone is not set" in said(anna) and "/settings tz" in said(anna)
        # A city: the clock says 09:00 UTC, which is 12:00 in Moscow.
        await anna.send(None, "/settings tz Moscow")
        assert "Your time zone: Europe/Moscow (now 12:00)." in said(anna)
        assert stored(service, anna) == ("Europe/Moscow", None, None)
        await anna.send(None, "/settings tz New York")
        assert "America/New_York (now 04:00)" in said(anna)
        # An offset from UTC.
        await anna.send(None, "/settings tz +3")
        assert "Your time zone: UTC+3 (now 12:00)." in said(anna)
        assert stored(service, anna) == ("Etc/GMT-3", None, None)
        await anna.send(None, "/settings tz UTC-05:00")
        assert stored(service, anna)[0] == "Etc/GMT+5"
        # A quiet window, then off again.
        await anna.send(None, "/settings quiet 23:00-08:00")
        assert "Quiet hours: 23:00–08:00" in said(anna)
        assert stored(service, anna) == ("Etc/GMT+5", 23 * 60, 8 * 60)
        await anna.send(None, "/settings quiet off")
        assert "Quiet hours: off." in said(anna)
        assert stored(service, anna) == ("Etc/GMT+5", None, None)


async def test_bad_input_changes_nothing(fake: FakeTelegram, service: GameService) -> None:
    anna = fake.user(4100, "Anna", language_code="en")
    async with fake.running(make_app(fake, service)):
        await anna.start_bot()
        await anna.send(None, "/settings quiet 23:00-08:00")  # no zone to read it in yet
        assert "Set your time zone first" in said(anna)
        assert stored(service, anna) == (None, None, None)
        await anna.send(None, "/settings tz Europe/Moscow")
        await anna.send(None, "/settings quiet 23:00-08:00")
        before = stored(service, anna)
        await anna.send(None, "/settings tz Atlantis")
        assert 'I do not know the time zone "Atlantis"' in said(anna)
        await anna.send(None, "/settings tz +15")
        assert '"+15"' in said(anna)
        await anna.send(None, "/settings quiet later")
        assert '"later" is not a quiet window' in said(anna)
        await anna.send(None, "/settings volume 11")
        assert said(anna).startswith("Change with: /settings tz")
        assert stored(service, anna) == before == ("Europe/Moscow", 23 * 60, 8 * 60)


async def test_russian_city_and_russian_answers(fake: FakeTelegram, service: GameService) -> None:
    vera = fake.user(4200, "Вера", language_code="ru")
    async with fake.running(make_app(fake, service)):
        await vera.start_bot()
        await vera.send(None, "/settings tz Новосибирск")
        assert stored(service, vera)[0] == "Asia/Novosibirsk"
        assert "Asia/Novosibirsk" in said(vera) and "16:00" in said(vera)
        await vera.send(None, "/settings tz Санкт-Петербург")
        assert stored(service, vera)[0] == "Europe/Moscow"


async def test_group_settings_stay_the_games(fake: FakeTelegram, service: GameService) -> None:
    users = players(fake, base=4300)
    group = fake.create_group("Settings", users)
    async with fake.running(make_app(fake, service)):
        await users[0].start_bot()
        await users[0].send(group, "/newgame")
        await users[0].send(group, "/settings")
        text = fake.last_message(group).text or ""  # type: ignore[union-attr]
        assert "timeout 12h" in text and "/settings tz" not in text


async def test_away_lets_a_bot_play_without_missed_turns_until_back(
    fake: FakeTelegram, service: GameService, clock: FakeClock
) -> None:
    users = players(fake, base=4400)
    group = fake.create_group("Away", users)
    app = make_app(fake, service)
    async with fake.running(app):
        game_id = await open_game(fake, users, group)
        info = service.game_info(game_id)
        board = service.board(game_id)
        assert board.view is not None
        seat = board.view.to_act[0]
        away = next(u for u in users if info.seat_of(u.id) == seat)
        log = len(service.action_log(game_id))
        await away.send(group, "/away")
        assert "A bot plays for you in 1 game now" in (
            fake.last_message(group).text or "")  # type: ignore[union-attr]
        info = service.game_info(game_id)
        assert info.seats[seat].standin and info.seats[seat].timeouts == 0
        # It was their turn: the bot made their move at once, as a stand-in.
        made = service.action_log(game_id)[log:]
        assert made and made[0]["seat"] == seat and made[0]["actor"] == "standin"
        assert any("A bot stands in for" in (m.text or "") for m in fake.messages(group))
        await away.send(group, "/away")
        assert "already plays for you" in (
            fake.last_message(group).text or "")  # type: ignore[union-attr]
        # A day passes: the others miss their turn, the bot keeps playing for them.
        clock.advance(timedelta(days=1, seconds=1))
        swept = await asyncio.to_thread(service.sweep)
        await app.bot_data[DEPS_KEY].deliverer.deliver(swept.notifications)
        missed = [n.user_id for n in swept.notifications if n.kind is Kind.TIMED_OUT]
        assert missed and away.id not in missed
        info = service.game_info(game_id)
        assert info.status == "active" and info.seats[seat].timeouts == 0
        assert info.seats[seat].auto_moves >= 1
        await away.send(None, "/back")
        assert "Welcome back" in said(away)
        info = service.game_info(game_id)
        assert not info.seats[seat].standin and info.seats[seat].timeouts == 0


async def test_away_for_a_while_ends_by_itself(fake: FakeTelegram, service: GameService) -> None:
    users = [fake.user(4500 + i, n, language_code="ru") for i, n in enumerate(NAMES)]
    group = fake.create_group("Отпуск", users)
    app = make_app(fake, service)
    async with fake.running(app):
        game_id = await open_game(fake, users, group)
        gleb = users[3]
        seat = service.game_info(game_id).seat_of(gleb.id)
        assert seat is not None
        await gleb.send(None, "/away 3d")
        assert "через 3 дня" in said(gleb)
        info = service.game_info(game_id)
        assert info.seats[seat].standin and away_key(gleb.id) in info.meta
        assert app.job_queue is not None
        job = away_job(app.job_queue, game_id, gleb.id)
        assert job is not None
        # A restart forgets the job; the game's meta brings it back.
        job.schedule_removal()
        assert away_job(app.job_queue, game_id, gleb.id) is None
        assert await restore_away_ends(app) == 1
        job = away_job(app.job_queue, game_id, gleb.id)
        assert job is not None
        jobs = [job]
        await jobs[0].run(app)  # the three days are over
        assert not service.game_info(game_id).seats[seat].standin
        board = fake.message(group, service.game_info(game_id).meta["board"])
        assert "🤖" not in (board.text or "")
        # An old end no longer applies to a new absence without one.
        await gleb.send(None, "/away")
        await jobs[0].run(app)
        assert service.game_info(game_id).seats[seat].standin


async def test_a_timed_absence_survives_restarts_with_the_deadline_jobs(
    fake: FakeTelegram, service: GameService, clock: FakeClock
) -> None:
    """The real start-up, deadline scheduler included (its plain APScheduler jobs share PTB's
    job queue): ``/away 3d`` is answered and its end scheduled, and every later start comes
    back with the end scheduled again, once, instead of failing."""
    users = [fake.user(4600 + i, n, language_code="en") for i, n in enumerate(NAMES)]
    group = fake.create_group("Holidays", users)
    # The service's clock ahead of the real one: no deadline job fires by itself meanwhile.
    clock.set(datetime.now(UTC) + timedelta(days=365))
    app = make_app(fake, service, schedule=True)
    async with fake.running(app):
        await startup(app)
        app.bot_data[DEPS_KEY].scheduler.ahead = timedelta(days=2)  # the game's jobs at once
        game_id = await open_game(fake, users, group)
        assert app.job_queue is not None
        assert any(j.id == f"game:{game_id}:timeout" for j in app.job_queue.scheduler.get_jobs())
        gleb = users[3]
        await gleb.send(None, "/away 3d")
        assert "It gives your seat back by itself in 3 days" in said(gleb)
        first = away_job(app.job_queue, game_id, gleb.id)
        assert first is not None
        # A second /away 3d an hour later replaces the end, it does not add another.
        clock.advance(timedelta(hours=1))
        await gleb.send(None, "/back")
        await gleb.send(None, "/away 3d")
        ends = [j for j in app.job_queue.scheduler.get_jobs() if j.id.startswith(
            f"game:{game_id}:away:")]
        assert len(ends) == 1 and ends[0].args[1].data != first.data
        await shutdown(app)
    seat = service.game_info(game_id).seat_of(gleb.id)
    assert seat is not None
    for _restart in range(2):
        again = make_app(fake, service, schedule=True)
        async with fake.running(again):
            await startup(again)
            assert again.job_queue is not None
            job = away_job(again.job_queue, game_id, gleb.id)
            assert job is not None and job.data[0] == game_id  # type: ignore[index]
            assert service.game_info(game_id).seats[seat].standin
            if _restart == 1:
                await job.run(again)  # the three days are over
                assert not service.game_info(game_id).seats[seat].standin
            await shutdown(again)


async def test_away_without_a_game_or_with_nonsense(
    fake: FakeTelegram, service: GameService
) -> None:
    anna = fake.user(4600, "Anna", language_code="en")
    async with fake.running(make_app(fake, service)):
        await anna.start_bot()
        await anna.send(None, "/away")
        assert said(anna) == "You have no game in play here."
        await anna.send(None, "/away forever")
        assert said(anna).startswith("Usage: /away")
        await anna.send(None, "/away 1000d")
        assert said(anna).startswith("Usage: /away")
