"""Telegram's pace: a busy group game with Telegram's per-group limit in force.

Runs the real PTB application, with its rate limiting on, on the in-process fake Telegram
that refuses a 21st message or edit to one group within 60 s (429, as Telegram does). Games
of two humans and two *Normal* bots (they answer at once, so the moves come in bursts) are
played by taps only, each human taking ``--think`` seconds on average before a tap (a
busy table; 0 plays as fast as the bot answers), with a ``/score`` in the group now and
then and a few seconds of quiet after some moves. It prints, next to the
goals of the issue "Telegram's pace":

- tap → the tapper's own private message edited (goal p50 ≤ 0.5 s, p99 ≤ 2 s);
- ``/score`` in the group → its reply (goal ≤ 1 s);
- edits Telegram refused as "message is not modified" (goal 0) and 429s met;
- after a pause, how many board states the group is behind after 3 s of quiet (goal: at
  most one: edits that waited are drawn as one), and how long until the board shows the
  game as it is (the next board slot: about 3.6 s in a busy group);
- after the last move, how long until the final board, the year's summary and the final
  table are all in the group (goal ≤ 5 s).

The baseline, measured in the same run on the same fake and limit: a bare PTB bot whose
button edits the tapped message and whose command replies (PTB's own AIORateLimiter), the
floor this machine allows. Run: ``python benchmarks/pace_bench.py [--games 2] [--seed 1]``
(about a minute a game).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import (
    AIORateLimiter,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
)

from kolkhoz_tg.bot.app import DEPS_KEY, Deps, build_application
from kolkhoz_tg.config import Settings
from kolkhoz_tg.service import GameService
from kolkhoz_tg.storage.database import Database
from tests.bot.driver import start_with_bots
from tests.faketg import FakeTelegram, FakeUser, inprocess_builder

GROUP_LIMIT = 20


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def action_message(fake: FakeTelegram, user: FakeUser, game_id: int) -> tuple[Any, str] | None:
    for msg in reversed(fake.messages(user.id)):
        for row in msg.buttons:
            for b in row:
                if b.data and b.data.startswith("a:") and int(b.data.split(":")[1], 36) == game_id:
                    return msg, b.data
    return None


async def wait_for(check: Any, limit: float = 60.0) -> float:
    started = time.perf_counter()
    while not check():
        if time.perf_counter() - started > limit:
            raise TimeoutError("the bot did not answer in time")
        await asyncio.sleep(0.002)
    return time.perf_counter() - started


async def product(games: int, seed: int, think: float) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp())
    db = Database(f"sqlite:///{tmp / 'pace.sqlite3'}")
    settings = Settings(_env_file=None, database_url=str(db.url), locale="en")  # type: ignore[call-arg]
    service = GameService(db, settings=settings)
    fake = FakeTelegram()
    fake.limit_group_messages(GROUP_LIMIT)
    app = build_application(inprocess_builder(fake), service, schedule=False,
                            rate_limiter=True, bot_workers=0)
    rng = random.Random(seed)
    taps: list[float] = []
    replies: list[float] = []
    catch_up: list[float] = []
    behind: list[int] = []
    endings: list[float] = []
    async with fake.running(app, check=False):
        d: Deps = app.bot_data[DEPS_KEY]
        for g in range(games):
            humans = [fake.user(20_000 + g * 2 + i, n, language_code="en")
                      for i, n in enumerate(("Anna", "Boris"))]
            group = fake.create_group(f"Pace {g}", humans)
            game_id = await start_with_bots(app, service, humans, group, seed=seed * 100 + g)
            moves = stuck = 0
            while service.game_info(game_id).status == "active":
                actor = next((u for u in humans if service.seat_view(game_id, u.id).to_act),
                             None)
                if actor is None:
                    await asyncio.sleep(0.01)  # bots, or a forced move, in flight
                    continue
                found = action_message(fake, actor, game_id)
                if found is None:
                    stuck += 1
                    if stuck == 500:
                        raise RuntimeError(
                            f"{actor.first_name} must move but has no buttons: "
                            f"{[m.text for m in fake.messages(actor.id)][-2:]}")
                    await asyncio.sleep(0.01)
                    continue
                stuck = 0
                msg, data = found
                if think:
                    await asyncio.sleep(rng.uniform(0.3 * think, 1.7 * think))
                msg = fake.message(actor.id, msg.message_id)
                edits = msg.edits
                await actor.tap(msg, data, wait=False)
                taps.append(await wait_for(
                    lambda m=msg, e=edits, a=actor: fake.message(a.id, m.message_id).edits > e))
                moves += 1
                if moves % 10 == 0:
                    count = len(fake.messages(group))
                    asker = rng.choice(humans)
                    await asker.send(group, "/score", wait=False)
                    replies.append(await wait_for(
                        lambda c=count, chat=group: any(
                            "Points in sight" in (m.text or "") or "Final score" in (m.text or "")
                            for m in fake.messages(chat)[c:])))
                if moves % 15 == 0:
                    # A pause: how long until the board shows the game as it is.
                    started = time.perf_counter()
                    await asyncio.sleep(3.0)
                    # After 3 s of quiet: boards still waiting for the group (queued edits
                    # are drawn as one, so at most one state behind).
                    waiting = d.deliverer.group.waiting.get(game_id)
                    behind.append(0 if waiting is None else 1)
                    await wait_for(lambda: not d.deliverer.group.waiting
                                   and not d.deliverer.group.painters, 120)
                    catch_up.append(time.perf_counter() - started)
            last_move = time.perf_counter()

            def done(gid: int = game_id, chat: Any = group) -> bool:
                texts = [m.text or "" for m in fake.messages(chat)]
                board = fake.message(chat, service.game_info(gid).meta["board"])
                return ("the five-year plan is over" in (board.text or "")
                        and any("Final score" in t or "🏆" in t for t in texts[:-1] + texts[-1:])
                        and not d.deliverer.group.waiting)
            await wait_for(done)
            endings.append(time.perf_counter() - last_move)
            print(f"  game {g + 1}: {moves} taps", flush=True)
        await fake.wait_idle(timeout=120)
    refused = [c for c in fake.sent_log if not c.ok and "not modified" in (c.description or "")]
    floods = [c for c in fake.sent_log if c.error_code == 429]
    group_calls = [c for c in fake.sent_log
                   if c.ok and str(c.params.get("chat_id", "")).startswith("-")
                   and c.method in ("sendMessage", "editMessageText", "editMessageMedia")]
    await fake.close()
    db.dispose()
    return {"taps": taps, "replies": replies, "catch_up": catch_up, "behind": behind,
            "endings": endings,
            "not_modified": len(refused), "floods": len(floods), "group_calls": len(group_calls)}


async def baseline(taps: int) -> dict[str, list[float]]:
    """A bare PTB bot with PTB's own rate limiter: a button that edits its message, and a
    command that replies in the group."""
    fake = FakeTelegram()
    fake.limit_group_messages(GROUP_LIMIT)
    app = inprocess_builder(fake).rate_limiter(AIORateLimiter()).build()

    async def on_tap(update: Update, _context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        assert query is not None
        await query.answer()
        await query.edit_message_text(f"tapped {query.data}", reply_markup=keyboard(
            str(int(query.data or "0") + 1)))

    async def on_score(update: Update, _context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_message is not None
        await update.effective_message.reply_text("Points in sight: 0")

    def keyboard(data: str) -> InlineKeyboardMarkup:
        return InlineKeyboardMarkup([[InlineKeyboardButton("tap", callback_data=data)]])

    app.add_handler(CallbackQueryHandler(on_tap))
    app.add_handler(CommandHandler("score", on_score))
    out: dict[str, list[float]] = {"taps": [], "replies": []}
    async with fake.running(app, check=False):
        user = fake.user(30_000, "Anna", language_code="en")
        group = fake.create_group("Bare", [user])
        await user.start_bot()
        msg = await app.bot.send_message(user.id, "tap", reply_markup=keyboard("0"))
        for i in range(taps):
            stored = fake.message(user.id, msg.message_id)
            edits = stored.edits
            await user.tap(stored, str(i), wait=False)
            out["taps"].append(await wait_for(
                lambda e=edits: fake.message(user.id, msg.message_id).edits > e))
            if i % 10 == 9:
                count = len(fake.messages(group))
                await user.send(group, "/score", wait=False)
                out["replies"].append(await wait_for(
                    lambda c=count: len(fake.messages(group)) > c + 1))
        await fake.wait_idle()
    await fake.close()
    return out


def line(label: str, values: list[float], base: list[float] | None, goal: str) -> str:
    text = (f"  {label:<34} p50 {statistics.median(values):6.3f} s  p99 {pct(values, 0.99):6.3f} s"
            f"  max {max(values):6.3f} s")
    if base:
        ratio = statistics.median(values) / max(statistics.median(base), 1e-6)
        text += f"  (bare PTB p50 {statistics.median(base):.3f} s, ×{ratio:.1f})"
    return text + f"   goal: {goal}"


async def main(games: int, seed: int, think: float) -> None:
    print(f"Playing {games} game(s): 2 humans ({think:.1f} s a move) and 2 Normal bots, "
          f"Telegram's limit of {GROUP_LIMIT} a minute per group in force ...", flush=True)
    ours = await product(games, seed, think)
    print("Baseline: a bare PTB bot on the same fake ...", flush=True)
    bare = await baseline(max(30, len(ours["taps"]) // 2))
    print(f"\n{len(ours['taps'])} taps, {len(ours['replies'])} /score, "
          f"{ours['group_calls']} messages and edits in the groups:")
    print(line("tap -> own message", ours["taps"], bare["taps"], "p50 <= 0.5 s, p99 <= 2 s"))
    print(line("/score -> reply", ours["replies"], bare["replies"], "<= 1 s"))
    print(line("pause -> board up to date", ours["catch_up"], None,
               "one slot (a gap, ~3.6 s)"))
    print(f"  boards behind after 3 s of quiet     max {max(ours['behind'], default=0)}"
          f" ({sum(ours['behind'])} of {len(ours['behind'])} pauses had one edit to come)"
          "   goal: <= 1")
    print(line("last move -> final board, table", ours["endings"], None, "<= 5 s"))
    print(f"  'message is not modified' edits     {ours['not_modified']}   goal: 0")
    print(f"  flood control (429) met              {ours['floods']}   goal: 0")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--think", type=float, default=2.0,
                        help="seconds a human takes for a move, on average")
    args = parser.parse_args()
    asyncio.run(main(args.games, args.seed, args.think))
