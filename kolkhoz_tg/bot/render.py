"""Service records into Telegram messages: text plus keyboards.

Sentences come from :mod:`kolkhoz_tg.texts` (shared with the terminal front end); this module
adds what is Telegram's own: the private header naming the group, the buttons, the deep link.
Messages are sent as plain text (no parse mode), so a player's name can never break or inject
markup. A card can reach a message only through a view its reader may see: the group gets the
public view, a player their own.

Keyboards are plain rows of :class:`Button`, free of Telegram types and easy to test;
:mod:`kolkhoz_tg.bot.app` turns them into markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from babel.numbers import format_decimal

from engine import Action, ActionKind, Card
from engine.cards import SUITS
from engine.views import View
from kolkhoz_tg import house_rules, texts
from kolkhoz_tg.bot.callbacks import action_button, explain_button, lobby_button, view_button
from kolkhoz_tg.botplay import PLAYER_LEVELS
from kolkhoz_tg.i18n import Translator
from kolkhoz_tg.rules_doc import plain_rules
from kolkhoz_tg.service import BoardView, GameInfo, RatingLine, SeatView
from kolkhoz_tg.service.ratings import places

#: Telegram's limit on a photo's caption.
MAX_CAPTION = 1024
MAX_TEXT = 4096


@dataclass(frozen=True, slots=True)
class Button:
    """An inline button: callback data, or a URL, or an inline query in the current chat."""

    text: str
    data: str | None = None
    url: str | None = None
    inline_query: str | None = None


Keyboard = list[list[Button]]


@dataclass(frozen=True, slots=True)
class Message:
    text: str
    keyboard: Keyboard

    def __post_init__(self) -> None:
        if len(self.text) > MAX_TEXT:
            object.__setattr__(self, "text", self.text[: MAX_TEXT - 1] + "…")


def deep_link(bot_username: str, game_id: int) -> str:
    """``https://t.me/<bot>?start=g<id>``: opens the private chat on that game."""
    from telegram.helpers import create_deep_linked_url

    return create_deep_linked_url(bot_username, f"g{game_id}")


def rules_line(tr: Translator, game: GameInfo) -> str:
    _ = tr.gettext
    parts = [
        _('Rules: "{name}"', name=texts.rules_title(tr, game.preset, game.rules)),
        tr.ngettext("{n} player", "{n} players", game.players),
        _("turn: {time}", time=tr.duration(game.turn_timeout)),
    ]
    return " · ".join(parts)


# ---------------------------------------------------------------------- lobby


#: The presets in the order the lobby lists them.
PRESET_ORDER = ("classic", "original", "kolkhoz", "kolkhoznik", "zone")


def preset_description(tr: Translator, preset: str | None) -> str:
    """One line that tells a preset's rules apart from the others (empty for custom rules)."""
    _ = tr.gettext
    lines = {
        "classic": _("52 cards, jobs of 40 hours; the highest trump takes the trick; the "
                     "Brigadier wins the rewards."),
        "original": _("The original text: jobs of 36 hours, trump never takes a trick, a "
                      "short last year; a failed job exposes the whole plot."),
        "kolkhoz": _("52 cards, the Planner leads; swaps with your plot, rewards pile up, "
                     "famine years."),
        "kolkhoznik": _("36 cards, swaps with your plot; the Brigadier keeps the workers "
                        "as the reward."),
        "zone": _("36 cards, no rewards; everyone is searched for a failed job, and only "
                  "the single highest card goes north."),
    }
    return lines.get(preset or "", "")


def preset_button(tr: Translator, preset: str) -> str:
    """A preset's name short enough for a button (the message carries the full title)."""
    _ = tr.gettext
    labels = {
        "classic": _("Classic"),
        "original": _("Original"),
        "kolkhoz": _("Kolkhoz"),
        "kolkhoznik": _("Kolkhoznik · 36"),
        "zone": _("Zone · 36"),
    }
    return labels.get(preset, preset)


def level_name(tr: Translator, level: str | None) -> str:
    """A bot level's name for players (None: ``normal``, a bot seated before levels)."""
    _ = tr.gettext
    names = {
        "random": _("Random"),
        "normal": _("Normal"),
        "strong": _("Strong"),
        "hard": _("Hard"),
    }
    return names.get(level or "normal", level or "")


def levels_help(tr: Translator) -> str:
    """What the bot levels mean, in one line each (for /help and the level menus)."""
    _ = tr.gettext
    return "\n".join([
        "🤖 " + _("Bots:"),
        "• " + _("{level} — plays by rules of thumb, at once.", level=level_name(tr, "normal")),
        "• " + _("{level} — thinks each move over, trying many ways the unseen cards may "
                 "lie (a fraction of a second).", level=level_name(tr, "strong")),
        "• " + _("{level} — thinks longer and expects careful opponents, whose moves it "
                 "foresees more closely.",
                 level=level_name(tr, "hard")),
        _("Bots see only what their seat sees. Stand-ins for silent players play at the "
          "chat's level: /settings bots strong."),
    ])


def lobby_seat(tr: Translator, game: GameInfo, seat: int) -> str:
    """A seat in the lobby: the player, a bot with its level, or a dash."""
    if seat in game.free_seats:
        return "—"
    name = texts.seat_name(tr, game, seat)
    info = next((s for s in game.seats if s.seat == seat), None)
    if info is not None and info.is_bot:
        name += f" ({level_name(tr, info.level).lower()})"
    return name


def lobby(
    tr: Translator, game: GameInfo, unreachable: list[str] | None = None,
    bot_username: str | None = None, standin_level: str | None = None,
) -> Message:
    """The lobby message: rules (with a line on the chosen preset), seats (bots with their
    level), who the bot cannot write to yet (with the button that opens the private chat),
    and the buttons (``standin_level``: the chat's level for stand-ins, when known)."""
    _ = tr.gettext
    seats = "  ".join(f"{i + 1}. {lobby_seat(tr, game, i)}" for i in range(game.players))
    lines = [
        "🌾 " + _("Kolkhoz — a new five-year plan"),
        rules_line(tr, game),
    ]
    about = preset_description(tr, game.preset)
    if about:
        lines.append("📜 " + about)
    lines.append(_("Seats: {seats}", seats=seats))
    if game.status == "aborted":
        lines.append(_("The game was called off."))
        return Message("\n".join(lines), [])
    if unreachable:
        lines.append("✉️ " + _("I cannot write to {names} yet: open a private chat with me "
                              "(the button below), or your cards cannot reach you.",
                              names=", ".join(unreachable)))
    lines.append(_("Join, add bots, then start. Your cards come to you in a private chat."))
    gid, ver = game.id, game.version
    keyboard = [
        [
            Button(_("Join"), lobby_button(gid, ver, "join")),
            Button(_("Leave"), lobby_button(gid, ver, "leave")),
            Button(_("+ Bot"), lobby_button(gid, ver, "bot")),
        ],
        [
            Button(_("Rules ▾"), lobby_button(gid, ver, "rules")),
            Button("⚙ " + _("House rules"), lobby_button(gid, ver, "house")),
        ],
        [
            Button(_("Players: {n}", n=game.players), lobby_button(gid, ver, "players")),
            Button(_("Turn: {time}", time=tr.duration(game.turn_timeout)),
                   lobby_button(gid, ver, "timeout")),
        ],
        [
            Button(("✅ " if game.rules.get("medals_score") else "▫️ ") + _("Medals score"),
                   lobby_button(gid, ver, "medals")),
        ],
    ]
    start = Button(_("Start ▶"), lobby_button(gid, ver, "start"))
    if standin_level is not None:
        keyboard[3].append(Button(
            "🤖 " + _("Stand-in: {level}", level=level_name(tr, standin_level).lower()),
            lobby_button(gid, ver, "standin")))
    if unreachable and bot_username:
        keyboard.append([Button("✉️ " + _("Private chat"),
                                url=deep_link(bot_username, gid))])
    # Start last, on a row of its own when the row above is full (two wide buttons are
    # what a phone's row holds).
    if standin_level is not None or unreachable:
        keyboard.append([start])
    else:
        keyboard[3].append(start)
    return Message("\n".join(lines), keyboard)


def lobby_rules_menu(tr: Translator, game: GameInfo) -> Keyboard:
    """The lobby's keyboard while "Rules ▾" is open: the five presets (the chosen one
    ticked), two a row, and the way back."""
    gid, ver = game.id, game.version
    buttons = [
        Button(("✅ " if name == game.preset else "") + preset_button(tr, name),
               lobby_button(gid, ver, f"set.{name}"))
        for name in PRESET_ORDER
    ]
    buttons.append(Button("« " + tr.gettext("Back"), lobby_button(gid, ver, "menu")))
    return [buttons[i:i + 2] for i in range(0, len(buttons), 2)]


def lobby_level_menu(
    tr: Translator, game: GameInfo, op: str, chosen: str | None = None
) -> Keyboard:
    """The levels to pick after "+ Bot" (``op`` ``bot``) or "Stand-in" (``standin``, the
    chat's level ticked), and the way back."""
    gid, ver = game.id, game.version
    return [
        [Button(("✅ " if level == chosen else "") + level_name(tr, level),
                lobby_button(gid, ver, f"{op}.{level}")) for level in PLAYER_LEVELS],
        [Button("« " + tr.gettext("Back"), lobby_button(gid, ver, "menu"))],
    ]


# ---------------------------------------------------------------------- board


def board_caption(
    tr: Translator, bv: BoardView, now: datetime, bot_username: str,
    recent: list[str] | None = None, *, zone: str | None = None,
) -> Message:
    """The caption and buttons of the board as a picture (``/settings board picture``):
    what :func:`board` says, in short; the picture shows the rest."""
    game, view = bv.game, bv.view
    full = board(tr, bv, now, bot_username, recent, zone=zone)
    if view is None:
        return full
    deadline = bv.deadline if game.status == "active" else None
    lines = ["🌾 " + texts.board_caption(tr, game, view, now, deadline, zone)]
    if recent:
        lines.append("🕘 " + " ".join(recent))
    if game.status == "paused":
        lines.append("⏸ " + tr.gettext("The game is paused; the clock has stopped."))
    elif game.status == "aborted":
        lines.append(tr.gettext("The game was called off."))
    return Message("\n".join(lines)[:MAX_CAPTION], full.keyboard)


def board(
    tr: Translator, bv: BoardView, now: datetime, bot_username: str,
    recent: list[str] | None = None, *, zone: str | None = None,
) -> Message:
    """The group's living board (edited in place); ``recent`` lines tell the last moves;
    with the group's time ``zone`` (:meth:`Scene.group_zone`) the deadline is on its clock
    too."""
    _ = tr.gettext
    game, view = bv.game, bv.view
    if view is None:
        return lobby(tr, game)
    deadline = bv.deadline if game.status == "active" else None
    lines = ["🌾 " + texts.board_text(tr, game, view, now, deadline, zone=zone)]
    if recent:
        lines.append("🕘 " + " ".join(recent))
    standins = [texts.seat_name(tr, game, s.seat) for s in game.seats if s.standin]
    if standins:
        lines.append("🤖 " + tr.ngettext("A bot stands in for {names} until they are back.",
                                        "Bots stand in for {names} until they are back.",
                                        len(standins), names=", ".join(standins)))
    if view["north"]:
        lines.append("❄️ " + _("Sent north: {cards}", cards=texts.cards(tr, view["north"])))
    if game.status == "paused":
        lines.append("⏸ " + _("The game is paused; the clock has stopped."))
    elif game.status == "aborted":
        lines.append(_("The game was called off."))
    keyboard: Keyboard = []
    if game.status == "active" and view["phase"] != "over" and not game.practice:
        # (A practice board is in the private chat already, next to the player's cards.)
        keyboard = [[
            Button("🃏 " + _("My cards"), inline_query=f"g{game.id} "),
            Button("✉️ " + _("Private chat"), url=deep_link(bot_username, game.id)),
        ]]
    return Message("\n".join(lines), keyboard)


# ---------------------------------------------------------------------- private


def where(tr: Translator, game: GameInfo, chat_title: str | None) -> str:
    """Which game a private message is about: its group, and in a forum (where one group
    may hold several games, one a topic) its number too."""
    if game.practice:
        return tr.gettext("Practice game")
    chat = chat_title or str(game.chat_id)
    if game.topic_id is None:
        return tr.gettext('Kolkhoz in "{chat}"', chat=chat)
    return tr.gettext('Kolkhoz #{id} in "{chat}"', id=game.id, chat=chat)


def private(
    tr: Translator, sv: SeatView, chat_title: str | None, now: datetime,
    zone: str | None = None, forced: Sequence[str] = (),
    rating: tuple[int, int] | None = None,
) -> Message:
    """The player's own message for one game: where, what is going on, what they may do
    (the deadline also on their clock when their time ``zone`` is known); ``forced``: the
    cards just played for them as their only possible ones."""
    _ = tr.gettext
    view, game = sv.view, sv.game
    head = [where(tr, game, chat_title),
            _("year {year} of {years}", year=view["year"], years=view["years"])]
    if view["trump"]:
        head.append(_("trump {suit}", suit=texts.SUIT_SYMBOLS[view["trump"]]))
    lines = ["🌾 " + " · ".join(head)]
    for c in forced:
        lines.append("🤖 " + _("{card} was your only possible card: I played it for you.",
                              card=texts.card(tr, c)))
    names = [texts.seat_name(tr, game, s) for s in range(view["players_count"])]
    if sv.to_act and view["phase"] in ("play", "assign") and view["trick"]:
        played = " · ".join(f"{names[s]} {texts.card(tr, c)}" for s, c in view["trick"])
        lines.append(_("Trick: {cards}", cards=played))
    ended = game.status in ("finished", "aborted") or view["phase"] == "over"
    if not ended:
        lines += pass_lines(tr, view, sv.seat, names)
    if stood_in(sv) and not ended:
        lines.append("🤖 " + _("A bot is playing for you. Tap any button here or send /back "
                              "to take your seat back."))
    if view["phase"] == "over":
        lines.append("🏁 " + _("The five-year plan is over."))
        winners = texts.winners_line(tr, game, names)
        if winners:
            lines.append(winners)
        lines += own_result(tr, game, sv.seat, rating)
    elif game.status == "aborted":
        lines.append(_("The game was called off."))
    elif game.status == "paused":
        lines.append("⏸ " + _("The game is paused; the clock has stopped."))
    elif sv.to_act:
        typed = View.from_dict(view, sv.legal)
        lines.append(texts.jobs_line(tr, typed))
        lines.append("👉 " + texts.phase_prompt(tr, view, names))
        led = Card.parse(view["trick"][0][1]).suit if view["trick"] else None
        if view["phase"] == "play" and led is not None:
            lines.append(_("Led suit: {suit}", suit=led.symbol))
        if view["phase"] == "assign" and view["pending"]:
            lines.append(_("Where does {card} go?", card=texts.card(tr, view["pending"][0])))
        # What the trump Jack, Queen and King do: for the card being placed, and for the
        # hand when it is new (before the year's first trick is over).
        shown = view["pending"][:1] if view["phase"] == "assign" else []
        if not view.get("tricks"):
            shown += view["players"][sv.seat]["hand"] or []
        lines += texts.trump_hints(tr, typed, shown)
        if sv.deadline is not None and zone is not None:
            lines.append("⏰ " + _("Time runs out {time} ({when}).",
                                  time=tr.clock(sv.deadline, now, zone),
                                  when=tr.relative(sv.deadline, now)))
        elif sv.deadline is not None:
            lines.append("⏰ " + _("Time runs out {when}.", when=tr.relative(sv.deadline, now)))
    elif game.practice:
        lines.append("⏳ " + _("Not your move now: the bots are playing. The board above "
                              "shows whose move it is."))
    else:
        # Not this player's move: this message is not edited as the others play, so it says
        # nothing that would go stale; the board in the group is live.
        lines.append("⏳ " + _("Not your move now: the board in the group shows whose it is. "
                              "I will write when it is yours."))
    if not ended:
        lines.append(texts.hand_text(tr, view, sv.legal))
    return Message("\n".join(lines), [] if ended else private_keyboard(tr, sv))


def pass_lines(tr: Translator, view: dict[str, Any], seat: int, names: list[str]) -> list[str]:
    """What the reader passed and received this year (``pass_cards``): theirs alone to
    know, so only in their private message."""
    me = view["players"][seat]
    sent, received = me.get("pass_sent"), me.get("pass_received")
    if sent is None:
        return []
    typed = View.from_dict(view)
    assert typed.pass_to is not None and typed.pass_from is not None
    to = names[typed.pass_to]
    if received is None:
        return ["🔁 " + tr.gettext("You pass {card} to {name}; the cards move when everyone "
                                  "has chosen.", card=texts.card(tr, sent), name=to)]
    return ["🔁 " + tr.gettext("You passed {card} to {name} and received {got} from {sender}.",
                              card=texts.card(tr, sent), name=to,
                              got=texts.card(tr, received),
                              sender=names[typed.pass_from])]


def own_result(
    tr: Translator, game: GameInfo, seat: int, rating: tuple[int, int] | None
) -> list[str]:
    """The reader's own end of a finished game: their place and points, and what it did to
    their rating in the chat (``rating``: before, after)."""
    result = game.result
    if not result or not result.get("scores"):
        return []
    scores = result["scores"]
    place = places(scores)[seat]
    lines = ["📋 " + tr.ngettext("Your place: {place} of {players}, {n} point.",
                                 "Your place: {place} of {players}, {n} points.",
                                 scores[seat], place=place, players=len(scores))]
    if rating is not None:
        before, after = rating
        lines.append("📈 " + tr.gettext("Your rating here: {before} → {after} ({change}).",
                                        before=before, after=after,
                                        change=f"{after - before:+d}"))
    return lines


def stood_in(sv: SeatView) -> bool:
    """Whether a bot is playing this player's seat for them now."""
    return any(s.seat == sv.seat and s.standin for s in sv.game.seats)


def private_keyboard(tr: Translator, sv: SeatView) -> Keyboard:
    """Buttons for the player's decision. Cards that may not be played now are shown marked
    and explain themselves when tapped."""
    _ = tr.gettext
    view, gid, ver = sv.view, sv.game.id, sv.game.version
    typed = View.from_dict(view, sv.legal)
    legal = set(typed.legal)
    phase = view["phase"]
    rows: Keyboard = []
    if stood_in(sv):
        rows.append([Button("▶ " + _("I am back"), view_button(gid, ver, "back"))])
    hand = view["players"][sv.seat]["hand"] or []
    if phase == "trump" and sv.to_act:
        rows.append([Button(s.symbol, action_button(gid, ver, Action.trump(s).text))
                     for s in SUITS])
    elif phase == "pass" and sv.to_act:
        # The card to pass: any of the hand, face-down to the neighbour.
        passes = [
            Button("↪ " + texts.card(tr, str(a.card)) + texts.trump_mark(typed, str(a.card)),
                   action_button(gid, ver, a.text))
            for a in typed.legal if a.kind is ActionKind.PASS and a.card is not None]
        rows.extend(passes[i : i + 4] for i in range(0, len(passes), 4))
    elif phase == "swap" and sv.to_act:
        pairs = []
        for text in sv.legal:
            a = Action.parse(text)
            if a.card is not None and a.target is not None:
                label = f"{texts.card(tr, str(a.card))} ⇄ {texts.card(tr, str(a.target))}"
                pairs.append(Button(label, action_button(gid, ver, text)))
        rows.extend(pairs[i : i + 3] for i in range(0, len(pairs), 3))
        rows.append([Button(_("Keep my cards"),
                            action_button(gid, ver, Action.swap_pass().text))])
    elif phase == "assign" and sv.to_act and typed.pending:
        options = [
            Button(texts.assign_button(tr, typed, a), action_button(gid, ver, a.text))
            for a in typed.assignments(typed.pending[0])
        ]
        rows.extend(options[i : i + 2] for i in range(0, len(options), 2))
    elif hand:
        buttons = []
        for c in hand:
            action = Action.play(Card.parse(c))
            text = action.text
            label = texts.card(tr, c) + texts.trump_mark(typed, c)
            if phase == "play" and sv.to_act and action in legal:
                buttons.append(Button(label, action_button(gid, ver, text)))
            else:
                buttons.append(Button(f"·{label}·", explain_button(gid, ver, text)))
        rows.append(buttons)
    if sv.game.practice and sv.to_act and not stood_in(sv):
        # Practice only: in a group game a hint would be playing with help.
        rows.append([Button("💡 " + _("Hint: what would a bot play?"),
                            view_button(gid, ver, "hint"))])
    rows.append([
        Button("📋 " + _("Board"), view_button(gid, ver, "board")),
        Button("🕘 " + _("Last trick"), view_button(gid, ver, "last")),
        Button("🖼 " + _("Picture"), view_button(gid, ver, "hand")),
    ])
    return rows


def last_trick(tr: Translator, game: GameInfo, view: dict[str, Any]) -> str:
    _ = tr.gettext
    if not view["last_trick"]:
        return _("No trick has been completed this year yet.")
    names = [texts.seat_name(tr, game, s) for s in range(view["players_count"])]
    played = " · ".join(f"{names[s]} {texts.card(tr, c)}" for s, c in view["last_trick"])
    return _("Last trick: {cards}", cards=played) + " — " + _(
        "won by {name}", name=names[view["last_trick_winner"]]
    )


def visible_score(tr: Translator, game: GameInfo, view: dict[str, Any]) -> str:
    """Scores from public information only: face-up plot cards (and medals when they
    count); face-down cards stay secret until the end. A finished game: its final score."""
    _ = tr.gettext
    if game.result is not None:
        names = [texts.seat_name(tr, game, s) for s in range(game.players)]
        scores = game.result["scores"]
        order = sorted(range(len(scores)), key=lambda s: (-scores[s], s))
        lines = ["🏁 " + _("Final score:")]
        lines += [  # tied players share a place
            f"{1 + sum(x > scores[s] for x in scores)}. {names[s]} — "
            + tr.ngettext("{n} point", "{n} points", scores[s])
            for s in order
        ]
        winners = texts.winners_line(tr, game, names)
        return "\n".join([*lines, winners] if winners else lines)
    lines = [_("Points in sight (face-down cards are counted at the end):")]
    for p in View.from_dict(view).players:
        hidden = p.hidden_count
        lines.append(
            _("{name}: {points} + {hidden}", name=texts.seat_name(tr, game, p.seat),
              points=p.points_in_sight,
              hidden=tr.ngettext("{n} face-down card", "{n} face-down cards", hidden))
        )
    return "\n".join(lines)


def _rating_parts(tr: Translator, line: RatingLine) -> str:
    """Rating, games, wins and average place of one line, in one row (no padded columns:
    they do not line up on phones)."""
    _ = tr.gettext
    # 2.3 in English, 2,3 in Russian.
    place = format_decimal(line.average_place, format="0.0", locale=tr.locale)
    return " · ".join([
        _("rating {rating}", rating=line.rating),
        tr.ngettext("{n} game", "{n} games", line.games),
        tr.ngettext("{n} win", "{n} wins", line.wins),
        _("average place {place}", place=place),
    ])


def rating_name(tr: Translator, line: RatingLine) -> str:
    """A player's name, or a bot level's pseudo-player."""
    if line.level is not None:
        return tr.gettext("🤖 Bot · {level}", level=level_name(tr, line.level))
    return line.name


def chat_ratings(tr: Translator, lines: list[RatingLine]) -> str:
    """``/stats`` in a group: the chat's rating table, best first, bots per level included."""
    _ = tr.gettext
    if not lines:
        return _("No rated games here yet: ratings count finished games.")
    out = ["📊 " + _("Kolkhoz in this chat")]
    for rank, line in enumerate(lines, start=1):
        out.append(f"{rank}. {rating_name(tr, line)}: {_rating_parts(tr, line)}")
    out.append(_("The rating starts at 1000 and grows with sure results; "
                 "players a stand-in mostly played for are not rated for that game."))
    return "\n".join(out)


def player_ratings(
    tr: Translator, lines: list[RatingLine], name: str | None = None
) -> str:
    """``/stats me`` in a group: a player's rating over all chats, then their line in each
    chat; ``name`` None: the same for the reader, in the second person (``/stats`` in
    private)."""
    _ = tr.gettext
    if not lines:
        if name is None:
            return _("You have no rated games yet: ratings count the games finished in "
                     "groups.")
        return _("{name} has no rated games yet.", name=name)
    head = _("Your ratings") if name is None else _("{name}'s ratings", name=name)
    out = ["📊 " + head]
    for line in lines:
        if line.chat_id is None:
            where = _("All chats")
        else:
            where = line.chat_title or _("Chat {id}", id=line.chat_id)
        out.append(f"{where}: {_rating_parts(tr, line)}")
    return "\n".join(out)


#: How many of a player's house-rule games ``/stats me`` lists.
HOUSE_GAMES_LISTED = 5


def house_rule_games(tr: Translator, games: list[GameInfo], user_id: int) -> str | None:
    """``/stats me``: the player's finished games played under house rules (not rated:
    RULES.md revision 4), newest first, with their place and points; None without any."""
    _ = tr.gettext
    played = [g for g in games if g.status == "finished" and not g.practice
              and not house_rules.rated_rules(g.rules)]
    if not played:
        return None
    out = ["⚙ " + tr.ngettext(
        "{n} game under house rules (not rated):",
        "{n} games under house rules (not rated):", len(played))]
    for game in played[:HOUSE_GAMES_LISTED]:
        seat = next((s.seat for s in game.seats if s.user_id == user_id), None)
        scores = (game.result or {}).get("scores") or []
        line = _('#{id} "{rules}"', id=game.id,
                 rules=texts.rules_title(tr, game.preset, game.rules))
        if seat is not None and seat < len(scores):
            place = places(scores)[seat]
            line += " — " + _("place {place} of {n}, {points}", place=place,
                              n=len(scores), points=tr.ngettext(
                                  "{n} point", "{n} points", scores[seat]))
        out.append(line)
    return "\n".join(out)


def game_log(tr: Translator, game: GameInfo, moves: list[dict[str, Any]]) -> list[str]:
    """``/log``: a finished game told move by move, in messages of at most 4096 characters."""
    _ = tr.gettext
    theme = game.rules.get("theme", "jobs")
    head = "📜 " + _('The log of game {id} ("{rules}")', id=game.id,
                    rules=texts.rules_title(tr, game.preset, game.rules))
    lines = [head, _("Year {year} begins.", year=1)]
    lines += texts.event_lines(tr, game.to_dict(), moves, theme, year_end=True)
    parts: list[str] = []
    current = ""
    for line in lines:
        if len(current) + len(line) + 1 > MAX_TEXT:
            parts.append(current)
            current = ""
        current = f"{current}\n{line}" if current else line
    if current:
        parts.append(current)
    return parts


def log_payload(game_id: int) -> str:
    """The ``/start`` payload that opens a game's full log in private."""
    return f"log{game_id}"


def log_summary(
    tr: Translator, game: GameInfo, view: dict[str, Any] | None, bot_username: str
) -> Message:
    """``/log`` in a group: a finished (or called-off) game in a few lines (rules, years,
    winner, final score) with a button that opens its full log in private, never the
    hundreds of lines of the log itself."""
    from telegram.helpers import create_deep_linked_url

    _ = tr.gettext
    names = [texts.seat_name(tr, game, s) for s in range(game.players)]
    head = _('Game {id}: "{rules}"', id=game.id,
             rules=texts.rules_title(tr, game.preset, game.rules))
    years = view["year"] if view is not None else 0
    if game.status != "aborted" and years:
        head += ", " + tr.ngettext("{n} year played", "{n} years played", years)
    lines = ["📜 " + head]
    if game.status == "aborted":
        lines.append(_("Called off in year {year}.", year=years) if years
                     else _("The game was called off."))
    if game.result is not None:
        scores = game.result["scores"]
        order = sorted(range(len(scores)), key=lambda s: (-scores[s], s))
        lines.append(_("Score: {scores}", scores=" · ".join(
            f"{names[s]} {scores[s]}" for s in order)))
        winners = texts.winners_line(tr, game, names)
        if winners:
            lines.append(winners)
    url = create_deep_linked_url(bot_username, log_payload(game.id))
    keyboard = [[Button("📜 " + _("The full log"), url=url)]]
    lines.append(_("The full log, move by move, opens in our private chat."))
    return Message("\n".join(lines), keyboard)


def full_rules(locale: str) -> list[str] | None:
    """The players' rules (docs/RULES.md, docs/RULES.ru.md) as plain-text messages of at most
    4096 characters; None where the docs are not installed."""
    text = plain_rules(locale)
    if text is None:
        return None
    parts: list[str] = []
    current = ""
    for paragraph in text.split("\n\n"):
        if current and len(current) + len(paragraph) + 2 > MAX_TEXT:
            parts.append(current)
            current = ""
        current = f"{current}\n\n{paragraph}" if current else paragraph[:MAX_TEXT]
    if current:
        parts.append(current)
    return parts
