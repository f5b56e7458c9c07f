"""The path of a move, measured end to end: the real PTB application on the in-process fake
Telegram (tests/faketg) over a SQLite file with many live games of four human players.

One run prints, each next to its baseline and the ratio where there is one:

1. tap -> answer latency of card taps (from pushing the callback update until the fake gets
   the ``answerCallbackQuery`` for it), p50 and p99, next to a bare PTB bot that only answers
   the query (no database) on the same fake, polled the same way, with as many taps on a
   copy of a player's private game message (the same update for PTB to parse);
2. Bot API calls per card played in a normal turn (the trick goes on), by method, and the new
   group messages per card;
3. database transactions and statements per card tap (SQLAlchemy events on the service's
   engine), reads against writes;
4. start-up: the time until a restarted bot answers a tap that waited for it, with no backlog
   and with every game owing undelivered notifications (moves made through the service alone),
   and the time until that backlog is delivered;
5. moves queued ahead: the next player queues their card (⏭) before the tap that brings
   their turn; the Bot API calls and transactions of that tap, next to a card tap of a trick
   that goes on without a queue (section 2), and of the queueing tap itself.

Every application is started as ``run_polling`` starts it: ``initialize``, ``post_init`` (the
bot's ``startup``), the updater, ``start``. PTB's rate limiter is off: it would measure
Telegram's pace (20 messages a minute per group), not this code. Nothing here asserts a time.

Run: ``python benchmarks/path_bench.py [--games 200] [--taps 300] [--queued 60] [--seed 1]
[--http]``
(``--http``: the fake on a socket on 127.0.0.1, PTB talking HTTP to it as to a Bot API server).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import random
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy import event

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import kolkhoz_tg
from kolkhoz_tg.bot.app import DEPS_KEY, build_application
from kolkhoz_tg.config import Settings
from kolkhoz_tg.service import GameService
from kolkhoz_tg.storage.database import Database
from kolkhoz_tg.storage.models import NotificationRow
from tests.faketg import FakeTelegram, FakeUser, Params, StoredMessage, inprocess_builder
from tests.faketg.transport import FakeBotApiServer

if TYPE_CHECKING:
    from telegram.ext import ApplicationBuilder

App = Any  # telegram.ext.Application[...]
WRITES = ("INSERT", "UPDATE", "DELETE")
#: How long a start-up phase may take before the figure is given as "more than".
START_CAP = 60.0


# ---------------------------------------------------------------------- small helpers


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def ratio(a: float, b: float) -> str:
    return f"x{a / b:.1f}" if b > 0 else "-"


class TimedFake(FakeTelegram):
    """The fake, noting when each callback query's first ``answerCallbackQuery`` arrives."""

    def __init__(self) -> None:
        super().__init__()
        self.answered_at: dict[str, float] = {}
        self.answer_ok: dict[str, bool] = {}
        self._answer_waiters: dict[str, asyncio.Event] = {}

    def api_answerCallbackQuery(self, p: Params) -> bool:
        query_id = str(p.data.get("callback_query_id"))
        if query_id not in self.answered_at:
            self.answered_at[query_id] = time.perf_counter()
            waiter = self._answer_waiters.pop(query_id, None)
            if waiter is not None:
                waiter.set()
        return bool(super().api_answerCallbackQuery(p))

    async def tap_and_time(
        self, user: FakeUser, message: StoredMessage, data: str, timeout: float = 60.0
    ) -> tuple[str, float]:
        """Push a tap (without waiting) and return (query id, seconds until answered)."""
        t0 = time.perf_counter()
        await user.tap(message, data, wait=False)
        query_id = list(self.callback_queries)[-1]
        await self.wait_answer(query_id, timeout)
        return query_id, self.answered_at.get(query_id, float("inf")) - t0

    async def wait_answer(self, query_id: str, timeout: float) -> bool:
        if query_id in self.answered_at:
            return True
        waiter = self._answer_waiters.setdefault(query_id, asyncio.Event())
        try:
            await asyncio.wait_for(waiter.wait(), timeout)
        except TimeoutError:
            return False
        return True


@contextlib.asynccontextmanager
async def serving(fake: FakeTelegram, app: App) -> AsyncIterator[App]:
    """Run ``app`` as ``Application.run_polling`` does (post_init before polling starts)."""
    fake.attach(app)
    try:
        await app.initialize()
        if app.post_init is not None:
            await app.post_init(app)
        await app.updater.start_polling(poll_interval=0, timeout=10)
        await app.start()
        try:
            yield app
        finally:
            if app.updater.running:
                await app.updater.stop()
            if app.running:
                await app.stop()
            if app.post_stop is not None:
                await app.post_stop(app)
            await app.shutdown()
            if app.post_shutdown is not None:
                await app.post_shutdown(app)
    finally:
        fake.detach(app)


class SqlCounter:
    """Transactions and statements on one engine (and the engines derived from it)."""

    def __init__(self, engine: sa.engine.Engine) -> None:
        self.lock = threading.Lock()
        self.counts: collections.Counter[str] = collections.Counter()
        event.listen(engine, "begin", self._begin)
        event.listen(engine, "commit", self._end)
        event.listen(engine, "rollback", self._end)
        event.listen(engine, "before_cursor_execute", self._statement)

    def _begin(self, conn: Any) -> None:
        conn.info["bench_wrote"] = False
        with self.lock:
            self.counts["transactions"] += 1

    def _end(self, conn: Any) -> None:
        wrote = conn.info.pop("bench_wrote", None)
        if wrote is None:
            return
        with self.lock:
            self.counts["write transactions" if wrote else "read-only transactions"] += 1

    def _statement(self, conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        word = statement.lstrip().split(None, 1)[0].upper() if statement.strip() else "?"
        if word in WRITES:
            conn.info["bench_wrote"] = True
        if word in ("BEGIN", "COMMIT", "ROLLBACK", "PRAGMA", "SAVEPOINT", "RELEASE"):
            return
        with self.lock:
            self.counts["statements"] += 1
            self.counts["writes" if word in WRITES else "reads"] += 1
            self.counts[word] += 1

    def snapshot(self) -> collections.Counter[str]:
        with self.lock:
            return collections.Counter(self.counts)


def open_service(url: str) -> GameService:
    settings = Settings(_env_file=None, database_url=url, locale="en")  # type: ignore[call-arg]
    return GameService(Database(url, run_migrations=False), settings=settings)


#: Set by ``--http``: the fake served on 127.0.0.1, the bots talking HTTP to it.
SERVER: FakeBotApiServer | None = None


def builder(fake: FakeTelegram) -> ApplicationBuilder[Any, Any, Any, Any, Any, Any]:
    """How every bot of the run reaches the fake: in-process, or over HTTP (``--http``)."""
    return SERVER.builder() if SERVER is not None else inprocess_builder(fake)


def make_app(fake: FakeTelegram, service: GameService) -> App:
    try:  # the newer bot retries 5xx and timeouts; no pauses between retries here
        return build_application(builder(fake), service, schedule=False,
                                 rate_limiter=False, retry_delays=(0.0, 0.0, 0.0))
    except TypeError:
        return build_application(builder(fake), service, schedule=False,
                                 rate_limiter=False)


def pending_counter(url: str) -> Callable[[], int]:
    """Counts undelivered notifications on a connection of its own (not counted above)."""
    engine = sa.create_engine(url)
    table = NotificationRow.__table__  # type: ignore[attr-defined]
    query = sa.select(sa.func.count()).select_from(table).where(table.c.delivered_at.is_(None))

    def count() -> int:
        with engine.connect() as conn:
            return int(conn.execute(query).scalar_one())

    return count


async def deliver_everything(fake: FakeTelegram, app: App, pending: Callable[[], int]) -> int:
    """Let the application deliver what the outbox owes, whichever way it does it: an outbox
    relay (``relay.drain``) or the older ``Deliverer.flush``. Returns what is left."""
    d = app.bot_data[DEPS_KEY]
    left = pending()
    for _ in range(200):
        if left == 0:
            break
        relay = getattr(d, "relay", None)
        if relay is not None and hasattr(relay, "drain"):
            await relay.drain()
        else:
            await d.deliverer.flush()
        await fake.wait_idle(timeout=60)
        now = pending()
        if now == left and relay is None:
            break  # nothing moves any more
        left = now
    return left


# ---------------------------------------------------------------------- the games


def create_games(service: GameService, fake: FakeTelegram, games: int) -> dict[int, list[FakeUser]]:
    """``games`` started games of four humans, through the service only (nothing delivered).
    Every player has opened the private chat with the bot."""
    players: dict[int, list[FakeUser]] = {}
    for g in range(games):
        users = [fake.user(10_000 + g * 4 + i, f"P{g}-{i}", language_code="en") for i in range(4)]
        for u in users:
            u.started = True
        group = fake.create_group(f"Group {g}", users)
        info = service.create_game(group.id, users[0].id, creator_name=users[0].first_name)
        for u in users[1:]:
            service.join(info.id, u.id, u.first_name)
        service.start(info.id, users[0].id)
        players[info.id] = users
    return players


def game_state(service: GameService, game_id: int) -> tuple[str | None, int | None]:
    """(phase, cards in the current trick) of a game, or (None, None) if unknown."""
    try:
        view = service.board(game_id).view
    except Exception:
        return None, None
    if view is None:
        return None, None
    return view.phase.value, len(view.trick)


def next_tap(service: GameService, game_id: int, users: list[FakeUser],
             rng: random.Random) -> tuple[FakeUser, StoredMessage, str] | None:
    """The player to act, their private message and one of its move buttons (a card to
    play when there is one)."""
    for user in users:
        try:
            if not service.seat_view(game_id, user.id).to_act:
                continue
        except Exception:
            continue
        msg = user.last_message()
        if msg is None:
            continue
        buttons = [b.data for row in msg.buttons for b in row
                   if b.data and b.data.startswith("a:")]
        if not buttons:
            continue
        cards = [b for b in buttons if b.split(":")[3] == "play"]
        return user, msg, rng.choice(cards or buttons)
    return None


def service_move(service: GameService, game_id: int, users: list[FakeUser]) -> bool:
    """One move through the service alone (nothing delivered); False if none was made."""
    for user in users:
        view = service.seat_view(game_id, user.id)
        if view.to_act and view.legal:
            result = service.act(game_id, user.id, view.legal[0], view.game.version)
            return bool(getattr(result, "ok", True))
    return False


# ---------------------------------------------------------------------- the measurements


async def kolkhoz_taps(fake: TimedFake, app: App, service: GameService, counter: SqlCounter,
                       players: dict[int, list[FakeUser]], taps: int, rng: random.Random,
                       skip: int) -> dict[str, Any]:
    latencies: dict[str, list[float]] = collections.defaultdict(list)
    calls: dict[str, list[collections.Counter[str]]] = collections.defaultdict(list)
    group_posts: dict[str, list[int]] = collections.defaultdict(list)
    sql: dict[str, list[collections.Counter[str]]] = collections.defaultdict(list)
    game_ids = [g for g in players if g != skip]
    groups = {str(c.id) for c in fake.chats.values() if c.is_group}
    cards = 0
    attempts = 0
    while cards < taps and attempts < taps * 20:
        attempts += 1
        game_id = rng.choice(game_ids)
        phase, trick = game_state(service, game_id)
        if phase == "over":
            continue
        found = next_tap(service, game_id, players[game_id], rng)
        if found is None:
            continue
        user, msg, data = found
        kind = data.split(":")[3]
        if kind == "play":
            normal = phase == "play" and trick is not None and trick < 3
            label = "card, trick goes on" if normal else "card, trick or year ends"
        else:
            label = kind
        before_log = len(fake.sent_log)
        before_sql = counter.snapshot()
        _, latency = await fake.tap_and_time(user, msg, data)
        await fake.wait_idle(timeout=60)
        made = [c for c in fake.sent_log[before_log:] if c.method != "getUpdates"]
        latencies[label].append(latency)
        calls[label].append(collections.Counter(c.method for c in made))
        group_posts[label].append(sum(1 for c in made if c.method == "sendMessage" and c.ok
                                      and str(c.params.get("chat_id")) in groups))
        sql[label].append(counter.snapshot() - before_sql)
        if kind == "play":
            cards += 1
    return {"latencies": latencies, "calls": calls, "group_posts": group_posts, "sql": sql}


def queue_data(msg: StoredMessage | None, action: str) -> str | None:
    """The callback data of the ⏭ button queueing ``action`` on a message, if it has one."""
    if msg is None:
        return None
    return next((b.data for row in msg.buttons for b in row
                 if b.data and b.data.startswith("q:") and b.data.endswith(":" + action)), None)


def queue_setup(service: GameService, game_id: int, users: list[FakeUser],
                rng: random.Random) -> tuple[tuple[FakeUser, StoredMessage, str],
                                             tuple[FakeUser, StoredMessage, str]] | None:
    """In a trick that goes on after the next player's card too: the card tap of the player
    to act, and the ⏭ tap of the next player queueing a card that will be legal after it (of
    the led suit when they hold one)."""
    phase, trick = game_state(service, game_id)
    if phase != "play" or trick is None or trick >= 2:
        return None
    tap = next_tap(service, game_id, users, rng)
    if tap is None or tap[2].split(":")[3] != "play":
        return None
    user, _, data = tap
    seat = service.seat_view(game_id, user.id).seat
    view = service.board(game_id).view
    assert view is not None
    led = str(view.trick[0][1])[-1] if view.trick else data[-1]
    nxt = next(u for u in users if service.seat_view(game_id, u.id).seat == (seat + 1) % 4)
    sv = service.seat_view(game_id, nxt.id)
    hand = [str(c) for c in sv.view.players[sv.seat].hand or ()]
    card = next((c for c in hand if c[-1] == led), hand[0] if hand else None)
    msg = nxt.last_message()
    queue = queue_data(msg, f"play:{card}")
    if queue is None or msg is None:
        return None
    return tap, (nxt, msg, queue)


async def queued_taps(fake: TimedFake, service: GameService, counter: SqlCounter,
                      players: dict[int, list[FakeUser]], taps: int, rng: random.Random,
                      skip: int) -> dict[str, Any]:
    """Section 5: ``taps`` card taps each followed, in its transaction, by the next player's
    queued card; the queueing taps measured apart."""
    calls: dict[str, list[collections.Counter[str]]] = collections.defaultdict(list)
    sql: dict[str, list[collections.Counter[str]]] = collections.defaultdict(list)
    plays: list[int] = []
    game_ids = [g for g in players if g != skip]
    attempts = 0
    while len(calls["card, a queued card follows"]) < taps and attempts < taps * 40:
        attempts += 1
        game_id = rng.choice(game_ids)
        found = queue_setup(service, game_id, players[game_id], rng)
        if found is None:
            # Not a trick that goes on: play on (not measured) until it is one.
            tap = next_tap(service, game_id, players[game_id], rng)
            if tap is not None:
                await fake.tap_and_time(*tap)
                await fake.wait_idle(timeout=60)
            continue
        (user, msg, data), queue = found
        for label, (who, where, what) in (("queue a card (⏭)", queue),
                                          ("card, a queued card follows", (user, msg, data))):
            moves = len(service.action_log(game_id))
            before_log, before_sql = len(fake.sent_log), counter.snapshot()
            await fake.tap_and_time(who, where, what)
            await fake.wait_idle(timeout=60)
            after_sql = counter.snapshot() - before_sql
            made = [c for c in fake.sent_log[before_log:] if c.method != "getUpdates"]
            calls[label].append(collections.Counter(c.method for c in made))
            sql[label].append(after_sql)
            if label.startswith("card"):
                plays.append(len(service.action_log(game_id)) - moves)
    return {"calls": calls, "sql": sql, "plays": plays}


async def bare_taps(fake: TimedFake, taps: int, like: StoredMessage) -> list[float]:
    """A minimal PTB bot that only answers the query, on the same fake, same polling; the
    message it taps is a copy of ``like`` (a player's private game message, with its text
    and keyboard), so that PTB parses the same update as for a move."""
    from telegram import InlineKeyboardMarkup, Update
    from telegram.ext import CallbackQueryHandler, ContextTypes

    async def answer(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.callback_query is not None
        await update.callback_query.answer()

    app = builder(fake).build()
    app.add_handler(CallbackQueryHandler(answer))
    user = fake.user(9, "Bare", language_code="en")
    user.started = True
    latencies = []
    data = next(b.data for row in like.buttons for b in row if b.data)
    async with serving(fake, app):
        keyboard = InlineKeyboardMarkup.de_json(like.reply_markup, app.bot)
        await app.bot.send_message(user.id, like.text or "bare", reply_markup=keyboard)
        msg = fake.last_message(user)
        assert msg is not None
        for _ in range(taps):
            _, latency = await fake.tap_and_time(user, msg, data)
            await fake.wait_idle(timeout=60)
            latencies.append(latency)
    return latencies


async def start_up(fake: TimedFake, url: str, tapper: tuple[FakeUser, StoredMessage, str],
                   pending: Callable[[], int]) -> dict[str, Any]:
    """A restarted bot: a tap waits for it at "Telegram"; time until it is answered, and
    until the outbox owes nothing (or stalls: nothing delivered for 5 s)."""
    service = open_service(url)
    app = make_app(fake, service)
    user, msg, data = tapper
    owed = pending()
    await user.tap(msg, data, wait=False)
    query_id = list(fake.callback_queries)[-1]
    t0 = time.perf_counter()
    out: dict[str, Any] = {"owed": owed}
    await _serve_until_done(fake, app, query_id, pending, t0, out)
    service.db.dispose()
    return out


async def _serve_until_done(fake: TimedFake, app: App, query_id: str,
                            pending: Callable[[], int], t0: float, out: dict[str, Any]) -> None:
    async def watch_backlog() -> None:
        last, since = pending(), time.perf_counter()
        while True:
            left = await asyncio.to_thread(pending)
            now = time.perf_counter()
            if left == 0:
                out["drained"] = now - t0
                return
            if left != last:
                last, since = left, now
            elif now - since > 5.0 or now - t0 > START_CAP:
                out["stalled"] = (since - t0, left)
                return
            await asyncio.sleep(0.05)

    # the start itself (PTB's post_init runs before polling, as under run_polling) runs
    # concurrently with the watcher so a start that delivers first is seen doing so
    watcher = asyncio.ensure_future(watch_backlog())
    async with serving(fake, app):
        out["started"] = time.perf_counter() - t0
        answered = await fake.wait_answer(query_id, START_CAP)
        out["answer"] = (fake.answered_at[query_id] - t0) if answered else None
        out["answer_ok"] = bool(fake.callback_queries[query_id].answered)
        await watcher
        await fake.wait_idle(timeout=60)


# ---------------------------------------------------------------------- the report


def table(rows: list[tuple[str, str, str, str]]) -> None:
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for r in rows:
        print("  " + "  ".join(cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i])
                               for i, cell in enumerate(r)))


def mean_counter(counters: list[collections.Counter[str]]) -> dict[str, float]:
    total: collections.Counter[str] = collections.Counter()
    for c in counters:
        total.update(c)
    return {k: v / len(counters) for k, v in sorted(total.items())} if counters else {}


async def main(games: int, taps: int, seed: int, http: bool = False, queued: int = 60) -> None:
    global SERVER
    fake = TimedFake()
    if http:
        SERVER = await FakeBotApiServer(fake).start()
    try:
        await run(fake, games, taps, seed, queued)
    finally:
        if SERVER is not None:
            await SERVER.stop()


async def run(fake: TimedFake, games: int, taps: int, seed: int, queued: int = 60) -> None:
    rng = random.Random(seed)
    tmp = Path(tempfile.mkdtemp())
    url = f"sqlite:///{tmp / 'bench.sqlite3'}"
    Database(url).dispose()  # migrate once
    print(f"code under test: {Path(kolkhoz_tg.__file__).resolve().parent.parent}")
    print(f"setting up {games} games of 4 players on SQLite ...", flush=True)
    t = time.perf_counter()
    service = open_service(url)
    players = create_games(service, fake, games)
    pending = pending_counter(url)
    counter = SqlCounter(service.db.engine)
    app = make_app(fake, service)
    async with serving(fake, app):
        left = await deliver_everything(fake, app, pending)
        print(f"  ready in {time.perf_counter() - t:.1f} s ({left} notifications undelivered)",
              flush=True)
        keep = next(iter(players))  # kept still for the start-up taps
        print(f"tapping {taps} cards ...", flush=True)
        t = time.perf_counter()
        res = await kolkhoz_taps(fake, app, service, counter, players, taps, rng, keep)
        print(f"  done in {time.perf_counter() - t:.1f} s", flush=True)
        print(f"tapping {queued} cards after which a queued card is played ...", flush=True)
        queue_res = await queued_taps(fake, service, counter, players, queued, rng, keep)
    service.db.dispose()
    errors = len(fake.app_errors)
    card_labels = [k for k in res["latencies"] if k.startswith("card")]
    card_lat = [x for k in card_labels for x in res["latencies"][k]]
    like = next_tap(open_service(url), keep, players[keep], rng)
    assert like is not None, "the kept game has no move to tap"
    print(f"bare PTB bot: {len(card_lat)} taps ...", flush=True)
    bare = await bare_taps(fake, len(card_lat), like[1])

    # start-up: no backlog, then a backlog in every other game
    tap_for_start = next_tap(open_service(url), keep, players[keep], rng)
    assert tap_for_start is not None, "the kept game has no move to tap"
    print("start-up with no backlog ...", flush=True)
    quiet = await start_up(fake, url, tap_for_start, pending)
    tap_for_start = next_tap(open_service(url), keep, players[keep], rng)
    assert tap_for_start is not None
    mover = open_service(url)
    moves = 0
    for game_id, users in players.items():
        if game_id != keep:
            for _ in range(2):
                moves += service_move(mover, game_id, users)
    mover.db.dispose()
    print(f"start-up with a backlog ({moves} moves in {games - 1} games, not delivered) ...",
          flush=True)
    busy = await start_up(fake, url, tap_for_start, pending)
    await fake.close()

    # ------------------------------------------------------------------ print
    bare_p50, bare_p99 = statistics.median(bare), pct(bare, 0.99)
    k_p50, k_p99 = statistics.median(card_lat), pct(card_lat, 0.99)
    where = "fake Telegram over HTTP on 127.0.0.1" if SERVER else "in-process fake Telegram"
    print(f"\n== 1. tap -> answer, {len(card_lat)} card taps among {games} live games "
          f"(SQLite file, {where}, long polling)")
    table([("", "kolkhoz", "bare PTB", "ratio"),
           ("p50", ms(k_p50), ms(bare_p50), ratio(k_p50, bare_p50)),
           ("p99", ms(k_p99), ms(bare_p99), ratio(k_p99, bare_p99)),
           ("max", ms(max(card_lat)), ms(max(bare)), ratio(max(card_lat), max(bare)))])
    for label, values in sorted(res["latencies"].items()):
        print(f"  {label:<26} {len(values):>4} taps: p50 {ms(statistics.median(values))}, "
              f"p99 {ms(pct(values, 0.99))}")

    normal = "card, trick goes on"
    print(f"\n== 2. Bot API calls per card played in a normal turn ({normal}), mean")
    for label in sorted(res["calls"]):
        counters = res["calls"][label]
        means = mean_counter(counters)
        total = sum(means.values())
        posts = statistics.mean(res["group_posts"][label])
        print(f"  {label:<26} ({len(counters):>4} taps): {total:.2f} calls, "
              f"{posts:.2f} new group messages")
        for method, n in means.items():
            print(f"      {method:<24} {n:.2f}")

    print("\n== 3. database work per tap, mean (statements without BEGIN/COMMIT/PRAGMA)")
    for label in sorted(res["sql"]):
        m = mean_counter(res["sql"][label])
        print(f"  {label:<26}: {m.get('transactions', 0):.2f} transactions "
              f"({m.get('write transactions', 0):.2f} writing, "
              f"{m.get('read-only transactions', 0):.2f} read-only); "
              f"{m.get('statements', 0):.1f} statements ({m.get('reads', 0):.1f} reads, "
              f"{m.get('writes', 0):.1f} writes: "
              + ", ".join(f"{w} {m.get(w, 0):.1f}" for w in WRITES) + ")")

    def start_cell(out: dict[str, Any], key: str) -> str:
        value = out.get(key)
        return f"{value:.2f} s" if value is not None else f"> {START_CAP:.0f} s"

    def drained_cell(out: dict[str, Any]) -> str:
        if "drained" in out:
            return f"{out['drained']:.2f} s"
        since, left = out.get("stalled", (0.0, out["owed"]))
        return f"never ({left} left; stalled from {since:.1f} s)"

    print(f"\n== 4. start-up ({games} games in the database)")
    table([("", "no backlog", f"backlog ({busy['owed']} notes)", "ratio"),
           ("start() returned", start_cell(quiet, "started"), start_cell(busy, "started"),
            ratio(busy.get("started") or START_CAP, quiet.get("started") or START_CAP)),
           ("first tap answered", start_cell(quiet, "answer"), start_cell(busy, "answer"),
            ratio(busy.get("answer") or START_CAP, quiet.get("answer") or START_CAP)),
           ("backlog delivered", drained_cell(quiet), drained_cell(busy), "")])
    if busy.get("answer") is not None and busy["answer"] > 15:
        print("  (Telegram drops a callback answer after about 15 s: that tap would spin)")
    print_queued(queue_res, res)
    if errors or fake.internal_errors:
        print(f"\nnote: the application raised {errors} errors, "
              f"the fake {len(fake.internal_errors)}")


def print_queued(queue_res: dict[str, Any], res: dict[str, Any]) -> None:
    """Section 5: what a tap that brings a queued card costs, next to a card tap of a trick
    that goes on without one."""
    plays = queue_res["plays"]
    print("\n== 5. moves queued ahead: the tap whose transaction also plays the next player's "
          f"queued card ({statistics.mean(plays) if plays else 0:.2f} moves per tap)")
    normal = "card, trick goes on"
    rows = [(normal, res["calls"].get(normal, []), res["sql"].get(normal, [])),
            *((label, queue_res["calls"][label], queue_res["sql"][label])
              for label in ("card, a queued card follows", "queue a card (⏭)"))]
    figures: dict[str, tuple[float, float]] = {}
    for label, counters, sqls in rows:
        if not counters:
            continue
        means = mean_counter(counters)
        total = sum(means.values())
        m = mean_counter(sqls)
        figures[label] = (total, m.get("write transactions", 0))
        print(f"  {label:<28} ({len(counters):>4} taps): {total:.2f} calls "
              + ", ".join(f"{k} {v:.2f}" for k, v in means.items())
              + f"; {m.get('transactions', 0):.2f} transactions "
              f"({m.get('write transactions', 0):.2f} writing), "
              f"{m.get('statements', 0):.1f} statements")
    if normal in figures and "card, a queued card follows" in figures:
        calls, writes = (b - a for a, b in zip(figures[normal],
                                               figures["card, a queued card follows"],
                                               strict=True))
        print(f"  the queued move on the tap that triggers it: {writes:+.2f} write transactions, "
              f"{calls:+.2f} Bot API calls (the edit of its player's own message, in place of "
              f"the {figures[normal][0]:.2f} calls and {figures[normal][1]:.2f} write "
              "transactions of tapping it)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200, help="live games (default 200)")
    parser.add_argument("--taps", type=int, default=300, help="card taps (default 300)")
    parser.add_argument("--queued", type=int, default=60,
                        help="card taps followed by a queued card (default 60)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--http", action="store_true",
                        help="serve the fake on 127.0.0.1 and talk HTTP to it, as to a real "
                             "Bot API server (default: in-process, no sockets)")
    args = parser.parse_args()
    asyncio.run(main(args.games, args.taps, args.seed, args.http, args.queued))
