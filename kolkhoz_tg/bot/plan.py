"""What to send for a game's notifications: a pure function from the notifications and the
:class:`~kolkhoz_tg.service.Scene` they belong to, to a list of steps (edit the board, send
or edit a private message, post in the group). No Telegram types and no I/O here: the
:class:`~kolkhoz_tg.bot.delivery.Deliverer` carries the steps out and settles the outbox.

What goes where (UX.md): the board is one group message edited in place; a player's private
message for a game is edited while they keep deciding and sent anew when a new turn comes
(so Telegram notifies them); new group messages only for the year's summary, the final
table, and a "your turn" mention for a player the bot cannot reach. A private message that
still carries move buttons is deleted when a newer one replaces it; one without them (the
player's own last move, shown after they made it) stays as a record but loses its buttons
(its cards are no longer theirs), so each private chat has one message per game with
buttons.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime

from engine import events as ev
from kolkhoz_tg import present
from kolkhoz_tg.bot.callbacks import view_button
from kolkhoz_tg.bot.steps import (
    BOARD_KEY,
    BOARD_STYLE_KEY,
    TOPIC_LOST_KEY,
    TOPIC_OWN_KEY,
    Acting,
    Board,
    CloseTopic,
    GroupHand,
    GroupPost,
    Plan,
    Private,
    PrivateNote,
    Step,
    eph_key,
    live_key,
    mention_key,
    pm_key,
)
from kolkhoz_tg.i18n import Translator, translator
from kolkhoz_tg.present.notices import lobby_notice
from kolkhoz_tg.service import GameInfo, Kind, Notification, Scene
from kolkhoz_tg.service.payloads import (
    BoardChanged,
    GameOver,
    LoggedMove,
    NewHand,
    Reminder,
    TimedOut,
    TimeExtended,
    TookBack,
    YearSummary,
)
from kolkhoz_tg.storage.models import Actor, GameStatus
from kolkhoz_tg.timeutil import utc

RECENT_LINES = 3
#: Group notifications after which every private message is out of date (it would look
#: playable, or still say "paused").
STATUS_KINDS = frozenset({Kind.PAUSED, Kind.RESUMED, Kind.ABORTED, Kind.GAME_OVER})
#: Events the board shows as tricks rather than as lines of the latest moves.
TRICK_EVENTS = (ev.CardPlayed, ev.TrickWon, ev.CardAssigned)
GROUP_KINDS = frozenset({
    Kind.LOBBY, Kind.GAME_STARTED, Kind.BOARD, Kind.PLAYER_BACK, Kind.STAND_IN, Kind.PAUSED,
    Kind.RESUMED, Kind.ABORTED, Kind.GAME_OVER, Kind.YEAR_SUMMARY,
    Kind.TIME_EXTENDED,  # (the board and the players' messages show the new deadline)
    Kind.TOOK_BACK,
})


# ---------------------------------------------------------------------- planning


def plan(
    notes: list[Notification], scene: Scene, now: datetime, bot_username: str,
    acting: Acting | None = None, ratings: dict[int, tuple[int, int]] | None = None,
) -> Plan:
    """The steps that show ``notes`` (all of one game) to their readers, given the game as
    they see it now (``scene``); ``acting``: the message the player who caused them tapped;
    ``ratings``: at the end, what the game did to each player's rating (before, after).

    In this order: the group's steps (:func:`_plan_group`), the personal notes
    (:func:`_plan_personal`), a new game message for whoever must now decide
    (:func:`_plan_turns`), then the game messages to bring up to date (:func:`_to_refresh`).
    """
    group = [n for n in notes if n.user_id is None]
    board_notes = tuple(n.id for n in group if n.kind in GROUP_KINDS)
    # A reminder also brings the deadline on the board and in the reminded player's game
    # message up to date ("in 3 hours" was right when they were written).
    reminded = [n.user_id for n in notes if n.kind is Kind.REMINDER and n.user_id is not None]
    out = Plan(scene.game.id)
    _plan_group(out, group, board_notes, scene, now, bot_username, reminded=bool(reminded))
    turns = _plan_personal(out, notes, scene, now, bot_username)
    # A card played for someone as their only possible one: their message says so (it is
    # edited even when it carries no move buttons).
    forced = forced_cards(group, scene.game)
    _plan_turns(out, turns, scene, now, bot_username, acting, forced)
    refresh = _to_refresh(notes, group, scene, acting, list(turns), reminded, forced,
                          board_changed=bool(board_notes))
    # A move made from a player's queue: their message shows it made (and their hand).
    refresh += [u for u, sv in scene.seats.items()
                if (sv.premove.played or sv.premove.dropped) and u not in refresh
                and u not in turns and scene.game.meta.get(pm_key(u))]
    for user_id in refresh:
        step = private_step(scene, user_id, now, bot_username, acting, new=False,
                            forced=forced.get(user_id, ()),
                            rating=(ratings or {}).get(user_id))
        if step is not None:
            out.steps.append(step)
    _plan_group_hands(out, scene, now, bot_username, board_changed=bool(board_notes))
    return out


def _plan_group_hands(
    out: Plan, scene: Scene, now: datetime, bot_username: str, *, board_changed: bool
) -> None:
    """A hand shown in the group to its player alone reads as their game message: it is
    edited with it, and whenever the game changes (so it never offers a stale move)."""
    planned = {s.user_id: s for s in out.steps if isinstance(s, Private)}
    for user_id in scene.seats:
        shown = scene.game.meta.get(eph_key(user_id))
        if not shown or (user_id not in planned and not board_changed):
            continue
        step = planned.get(user_id) or private_step(scene, user_id, now, bot_username,
                                                    new=False)
        if step is not None:
            out.steps.append(GroupHand(scene.game.chat_id, user_id, int(shown), step.text,
                                       present.group_keyboard(step.keyboard)))


def _plan_group(
    out: Plan, group: list[Notification], board_notes: tuple[int, ...], scene: Scene,
    now: datetime, bot_username: str, *, reminded: bool,
) -> None:
    """The group's steps: the board (edited for ``board_notes``, or for a reminder's
    deadline), the year's summary and the final table as posts of their own, the closing
    of the topic the bot opened for the game once it is over. The other group notes show
    nothing more."""
    game = scene.game
    chat_tr = translator(scene.chat_locale)
    if board_notes or (reminded and game.meta.get(BOARD_KEY)):
        out.steps.append(board_step(
            scene, now, bot_username, recent_lines(chat_tr, group),
            pin=not game.practice and any(n.kind is Kind.GAME_STARTED for n in group),
            notes=board_notes))
    for note in group:
        if note.kind is Kind.YEAR_SUMMARY:
            assert isinstance(note.payload, YearSummary)
            out.steps.append(GroupPost(game.chat_id, present.year_summary(chat_tr, note.payload),
                                       notes=(note.id,), topic_id=game.topic_id,
                                       record=True))
        elif note.kind is Kind.GAME_OVER:
            assert isinstance(note.payload, GameOver)
            out.steps.append(GroupPost(game.chat_id, present.final_table(chat_tr, note.payload),
                                       notes=(note.id,), topic_id=game.topic_id,
                                       record=True))
        elif isinstance(note.payload, TimeExtended):
            # The bot could not reach these players: the group is told their time was
            # extended (docs/bot.md, *No penalty for our own faults*).
            out.steps.append(GroupPost(game.chat_id, present.time_extended(
                chat_tr, note.payload), notes=(note.id,), topic_id=game.topic_id))
        elif note.kind not in GROUP_KINDS:
            out.free.append(note.id)
    over = [n.id for n in group if n.kind in (Kind.GAME_OVER, Kind.ABORTED)]
    if over and game.topic_id is not None and game.meta.get(TOPIC_OWN_KEY):
        # The topic the bot opened for the game is closed once its last word is in; it
        # stays readable (the final table, the board).
        out.steps.append(CloseTopic(game.chat_id, game.topic_id))


def _plan_personal(
    out: Plan, notes: list[Notification], scene: Scene, now: datetime, bot_username: str
) -> dict[int, list[int]]:
    """The personal notes: a reminder that still holds as a note of its own, missed turns
    (with the stand-in they brought) as one note per player; the rest shows nothing more.
    Returns the turn notes (YOUR_TURN, NEW_HAND that still holds) per player, in order:
    each brings that player a new game message (:func:`_plan_turns`)."""
    turn_notes: dict[int, list[int]] = {}
    missed: dict[int, list[Notification]] = {}
    for note in notes:
        if note.user_id is None:
            continue
        if note.kind is Kind.NEW_HAND and not hand_holds(note, scene):
            out.free.append(note.id)
        elif note.kind in (Kind.YOUR_TURN, Kind.NEW_HAND):
            turn_notes.setdefault(note.user_id, []).append(note.id)
        elif note.kind is Kind.REMINDER and not reminder_holds(note, scene):
            out.free.append(note.id)
        elif note.kind in (Kind.TIMED_OUT, Kind.STAND_IN):
            # A missed turn and the stand-in it brings are told in one message.
            missed.setdefault(note.user_id, []).append(note)
        elif note.kind is Kind.REMINDER:
            out.steps.append(_private_note(note, scene, now, bot_username))
        elif note.kind is Kind.NEW_LOBBY and (msg := lobby_notice(note, scene)) is not None:
            out.steps.append(PrivateNote(note.user_id, msg.text, None, (note.id,), msg.keyboard))
        else:
            out.free.append(note.id)
    for told in missed.values():
        out.steps.append(_missed_note(told, scene, now))
    return turn_notes


def _plan_turns(
    out: Plan, turns: dict[int, list[int]], scene: Scene, now: datetime, bot_username: str,
    acting: Acting | None, forced: dict[int, list[str]],
) -> None:
    """A new message for whoever must now decide, and at a deal (the start, a new year) for
    everyone else too, with their fresh hand (NEW_HAND): each has its note, so one that
    fails is sent again by the relay, and one that went out is not sent twice. (The player
    who tapped gets it in the message they tapped.)"""
    for user_id, ids in turns.items():
        step = private_step(scene, user_id, now, bot_username, acting,
                            new=acting is None or acting.user_id != user_id,
                            notes=tuple(ids), forced=forced.get(user_id, ()))
        if step is not None:
            out.steps.append(step)
        else:
            out.free.extend(ids)


def _to_refresh(
    notes: list[Notification], group: list[Notification], scene: Scene,
    acting: Acting | None, turn_users: list[int], reminded: list[int],
    forced: dict[int, list[str]], *, board_changed: bool,
) -> list[int]:
    """The players whose game message is edited to show the game as it is now (besides
    ``turn_users``, who get a new one), in order."""
    game = scene.game
    humans = [s.user_id for s in game.seats if s.user_id is not None and not s.is_ai]
    # Whoever just tapped sees the result in the same message even when their turn is over
    # (their hand changed); once trump is declared, everyone's message shows it.
    edit_users = [u for u in humans if u not in turn_users] if (
        ev.TrumpDeclared in board_events(notes)) else []
    if acting is not None and acting.user_id not in turn_users + edit_users:
        edit_users.append(acting.user_id)
    # A seat taken over by a bot or given back: its message says so and offers (or stops
    # offering) the button that takes the seat back.
    for user_id in _seats_changed(group, scene):
        if user_id not in turn_users + edit_users:
            edit_users.append(user_id)
    for user_id in [*reminded, *forced]:
        if user_id not in turn_users + edit_users and game.meta.get(pm_key(user_id)):
            edit_users.append(user_id)
    if board_changed:
        # No private message may keep buttons the game has moved past (a move made for
        # them, from the group or inline) or say nothing of a pause or an end: those that
        # carry move buttons are brought up to date whenever the game changes, all of them
        # when it stops or goes on again.
        stopped = any(n.kind in STATUS_KINDS for n in group)
        for user_id in humans:
            if user_id in turn_users or user_id in edit_users or not scene.can_pm.get(
                    user_id, True):
                continue
            if game.meta.get(pm_key(user_id)) and (
                    stopped or game.meta.get(live_key(user_id), True)):
                edit_users.append(user_id)
    return edit_users


def _seats_changed(group: list[Notification], scene: Scene) -> list[int]:
    """The reachable players whose seat a bot took over or gave back (STAND_IN,
    PLAYER_BACK), in order."""
    users = []
    for note in group:
        if note.kind in (Kind.STAND_IN, Kind.PLAYER_BACK) and note.seat is not None:
            seat_user = next((s.user_id for s in scene.game.seats if s.seat == note.seat),
                             None)
            if seat_user is not None and scene.can_pm.get(seat_user, True):
                users.append(seat_user)
    return users


def board_step(
    scene: Scene, now: datetime, bot_username: str, recent: list[str] | None = None, *,
    pin: bool = False, resend: bool = False, notes: tuple[int, ...] = (),
) -> Board:
    """The board as its group should see it now, in the chat's style: text, or a picture
    with a short caption, or a rich message, once the game has begun (a lobby is always
    text). A board of another style is sent anew: Telegram does not turn a text message
    into a photo."""
    game = scene.game
    tr = translator(scene.chat_locale)
    photo = scene.board_style == "picture" and scene.board.view is not None
    draw = present.board_caption if photo else present.board_message
    msg = draw(tr, scene.board, now, bot_username, recent, zone=scene.group_zone())
    shown_as = game.meta.get(BOARD_STYLE_KEY, "text")
    # A rich board carries the text board too: what an older server shows instead.
    rich = None
    if scene.board_style == "rich" and scene.board.view is not None:
        rich = present.board_rich(tr, scene.board, now, recent, zone=scene.group_zone())
    style = "picture" if photo else "rich" if rich is not None else "text"
    return Board(game.chat_id, game.meta.get(BOARD_KEY), msg.text, msg.keyboard, pin=pin,
                 resend=resend or shown_as != style, notes=notes,
                 photo=photo, topic_id=game.topic_id, rich=rich,
                 text_resend=resend or shown_as != "text")


def private_step(
    scene: Scene, user_id: int, now: datetime, bot_username: str,
    acting: Acting | None = None, *, new: bool, notes: tuple[int, ...] = (),
    forced: Sequence[str] = (), rating: tuple[int, int] | None = None,
) -> Private | None:
    """The player's game message as it should read now: a new one (``new``) or an edit of
    the one they tapped (``acting``) or last got (``forced``: the cards just played for
    them as their only possible ones). None if they hold no seat."""
    sv = scene.seats.get(user_id)
    if sv is None:
        return None
    tr = translator(scene.locales.get(user_id, scene.chat_locale))
    msg = present.private(tr, sv, scene.chat_title, now, scene.zones.get(user_id), forced,
                         rating)
    old = scene.game.meta.get(pm_key(user_id))
    target = acting.message_id if acting is not None and acting.user_id == user_id else old
    mention = group_mention(scene, user_id, bot_username) if sv.to_act else None
    # In a practice game the chat holds one game message, the newest: the older one goes
    # even without move buttons (it would only repeat the hand below the board).
    goes = scene.game.practice or scene.game.meta.get(live_key(user_id), True)
    edit = None if new or not target else int(target)
    return Private(
        user_id, msg.text, msg.keyboard, edit=edit,
        replaces=int(old) if old and goes else None,
        live=has_moves(msg.keyboard), mention=mention, notes=notes,
        strips=int(old) if old and not goes and edit is None else None,
    )


def _private_note(
    note: Notification, scene: Scene, now: datetime, bot_username: str
) -> PrivateNote:
    assert note.user_id is not None
    tr = translator(scene.locales.get(note.user_id, scene.chat_locale))
    text = present.notification_text(tr, note, now, scene.zones.get(note.user_id))
    text = "🌾 " + present.where(tr, scene.game, scene.chat_title) + "\n" + text
    mention = None
    if isinstance(note.payload, Reminder) and note.payload.last:
        mention = reminder_mention(scene, note, now, bot_username)
    return PrivateNote(note.user_id, text, mention, (note.id,))


def _missed_note(notes: list[Notification], scene: Scene, now: datetime) -> PrivateNote:
    """One message for a player's missed turns and the stand-in they brought: what was
    played for them, and either how many more misses bring a bot or that one plays for them
    now and how to take the seat back (said once: their game message says it too)."""
    user_id = notes[0].user_id
    assert user_id is not None
    tr = translator(scene.locales.get(user_id, scene.chat_locale))
    lines = ["🌾 " + present.where(tr, scene.game, scene.chat_title)]
    standin = any(n.kind is Kind.STAND_IN for n in notes)
    for note in notes:
        if isinstance(note.payload, TimedOut):
            lines.append(present.timed_out_text(tr, note.payload, warn=not standin))
    if standin:
        lines.append(present.notification_text(
            tr, next(n for n in notes if n.kind is Kind.STAND_IN), now))
    return PrivateNote(user_id, "\n".join(lines), None, tuple(n.id for n in notes))


def reminder_holds(note: Notification, scene: Scene) -> bool:
    """Whether a reminder still says the truth when it is delivered: the game runs, the
    player is still to move, against the same deadline. One delivered late (flood control,
    the network, a restart) after they moved, or after a pause or the timeout, is dropped
    instead of telling them, or the group, to hurry."""
    game = scene.game
    seat = scene.seats.get(note.user_id) if note.user_id is not None else None
    if game.status != "active" or seat is None or not seat.to_act:
        return False
    assert isinstance(note.payload, Reminder)
    written = note.payload.deadline
    if written is None or game.deadline is None:
        return written is None and game.deadline is None
    return utc(written) == utc(game.deadline)


def hand_holds(note: Notification, scene: Scene) -> bool:
    """Whether a fresh hand's message is still worth a new message when it is delivered:
    the game is not over and is still in the year that dealt it (a later deal brings its
    own; a turn's message, which shows the hand too, replaces it in the outbox). Paused
    meanwhile, it goes out all the same: the message says the game is paused, and the
    player has their hand to look at."""
    seat = scene.seats.get(note.user_id) if note.user_id is not None else None
    return (scene.game.status in (GameStatus.ACTIVE, GameStatus.PAUSED) and seat is not None
            and isinstance(note.payload, NewHand) and seat.view.year == note.payload.year)


def reminder_key(user_id: int) -> str:
    return f"reminded:{user_id}"


def reminder_mention(
    scene: Scene, note: Notification, now: datetime, bot_username: str
) -> GroupPost | None:
    """The last reminder, for a player the bot cannot write to: a mention in the group with
    the time left and the button that opens the private chat on the game. Once per reminder
    (its notification id is kept in the game's meta), apart from the "your move" mention
    their turn began with; None if it went out already or they no longer hold a seat."""
    game = scene.game
    assert note.user_id is not None
    key = reminder_key(note.user_id)
    if game.meta.get(key) == note.id:
        return None
    seat = game.seat_of(note.user_id)
    if seat is None:
        return None
    tr = translator(scene.chat_locale)
    name = html.escape(present.seat_name(tr, game, seat), quote=False)
    link = f'<a href="tg://user?id={note.user_id}">{name}</a>'
    assert isinstance(note.payload, Reminder)
    deadline = note.payload.deadline
    if deadline is not None:
        when = tr.relative(deadline, now)
        text = tr.gettext("{name}, it is your move and time runs out {when}. Open a private "
                          "chat with me to see your cards.", name=link, when=html.escape(when))
    else:
        text = tr.gettext("{name}, it is your move. Open a private chat with me to see your "
                          "cards.", name=link)
    keyboard = [[present.Button("✉️ " + tr.gettext("Open my cards"),
                               url=present.deep_link(bot_username, game.id)),
                 present.Button("🃏 " + tr.gettext("My cards"),
                                view_button(game.id, game.version, "cards"))]]
    return GroupPost(game.chat_id, text, keyboard, html=True, once=(key, note.id),
                     topic_id=game.topic_id)


def group_mention(scene: Scene, user_id: int, bot_username: str) -> GroupPost | None:
    """"Your move" in the group for a player the bot cannot write to, once per version of
    the game (None if it already went out for this version)."""
    game = scene.game
    key = mention_key(user_id)
    if game.meta.get(key) == game.version:
        return None
    seat = game.seat_of(user_id)
    if seat is None:
        return None
    tr = translator(scene.chat_locale)
    name = html.escape(present.seat_name(tr, game, seat), quote=False)
    link = f'<a href="tg://user?id={user_id}">{name}</a>'
    text = tr.gettext(
        "{name}, it is your move. Open a private chat with me to see your cards.", name=link
    )
    keyboard = [[present.Button("✉️ " + tr.gettext("Open my cards"),
                               url=present.deep_link(bot_username, game.id))]]
    return GroupPost(game.chat_id, text, keyboard, html=True, once=(key, game.version),
                     topic_id=game.topic_id)


def forced_cards(group: list[Notification], game: GameInfo) -> dict[int, list[str]]:
    """The cards the board notifications ``group`` show played for a player as their only
    possible ones, by user."""
    users = {s.seat: s.user_id for s in game.seats if s.user_id is not None and not s.is_ai}
    out: dict[int, list[str]] = {}
    for note in group:
        if not isinstance(note.payload, BoardChanged):
            continue
        for move in note.payload.moves:
            user = users.get(move.seat)
            if move.actor is not Actor.FORCED or user is None:
                continue
            out.setdefault(user, []).extend(
                str(e.card) for e in move.events if isinstance(e, ev.CardPlayed))
    return {u: cards for u, cards in out.items() if cards}


def has_moves(keyboard: present.Keyboard) -> bool:
    """Whether a keyboard carries a move button (one that goes stale when the game moves
    on; the explain and view buttons always answer from the current state)."""
    for row in keyboard:
        for button in row:
            if button.data is not None and button.data.startswith("a:"):
                return True
    return False


def board_events(notes: Iterable[Notification]) -> set[type[ev.Event]]:
    """The kinds of event the group notifications report (fresh hands at a deal have
    notes of their own: NEW_HAND)."""
    kinds: set[type[ev.Event]] = set()
    for note in notes:
        if note.user_id is not None:
            continue
        if isinstance(note.payload, BoardChanged):
            kinds.update(type(e) for e in note.payload.events)
    return kinds


def recent_lines(tr: Translator, notes: list[Notification]) -> list[str]:
    """The last few moves of these notifications, in words, for the board (moves a bot made
    for a silent player are marked as such)."""
    boards = [n.payload for n in notes
              if isinstance(n.payload, BoardChanged) and n.user_id is None]
    # A card taken back: said after the moves (which card is not: it is back in a hand).
    took = [present.took_back_text(tr, n.payload) for n in notes
            if isinstance(n.payload, TookBack) and n.user_id is None]
    if not boards:
        return took
    board = boards[-1]
    # Only this year's moves: a card played last year may since have been dealt again, and a
    # group message must not name a card that now sits in someone's hand.
    moves: list[LoggedMove] = []
    for move in board.moves:
        events = move.events
        starts = [i for i, e in enumerate(events) if isinstance(e, ev.YearStarted)]
        if starts:
            moves = []
            events = events[starts[-1]:]
        # The board lists the tricks themselves (every one, with where its cards went); a
        # move made for a silent player, or as its only possible one, is still told, to say
        # it was not chosen.
        if move.actor is Actor.FORCED:
            events = tuple(e for e in events
                           if not isinstance(e, TRICK_EVENTS) or isinstance(e, ev.CardPlayed))
        elif move.actor not in (Actor.TIMEOUT, Actor.STANDIN):
            events = tuple(e for e in events if not isinstance(e, TRICK_EVENTS))
        moves.append(replace(move, events=events))
    lines = present.event_lines(tr, board.game, moves, board.view.rules.theme.value)
    return (lines + took)[-RECENT_LINES:]


__all__ = [
    "BOARD_KEY", "TOPIC_LOST_KEY", "TOPIC_OWN_KEY", "Acting", "Board", "CloseTopic",
    "GroupPost", "Plan", "Private", "PrivateNote",
    "Step", "board_events", "group_mention", "has_moves", "live_key", "mention_key", "plan",
    "pm_key", "private_step", "recent_lines", "reminder_key", "reminder_mention",
]
