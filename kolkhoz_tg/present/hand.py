"""A seat's private message: the cards in hand, the prompt of the phase, the labels and rows
of the move buttons, the last trick and the score the reader may see.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from engine import Action, ActionKind
from engine.cards import SUITS
from engine.phase import Phase
from engine.views import View
from kolkhoz_tg.bot.callbacks import Callback, action_button, explain_button, view_button
from kolkhoz_tg.i18n import Translator
from kolkhoz_tg.present.board import winners_line
from kolkhoz_tg.present.errors import reason_text
from kolkhoz_tg.present.keyboard import Button, Keyboard, Message
from kolkhoz_tg.present.premoves import auto_assign_rows, premove_lines, premove_rows
from kolkhoz_tg.present.words import SUIT_SYMBOLS, card, cards, job_name, seat_name
from kolkhoz_tg.service.ratings import places
from kolkhoz_tg.service.records import GameInfo, SeatView
from kolkhoz_tg.service.takeback import TAKEBACK
from kolkhoz_tg.storage.models import GameStatus


def hand_text(tr: Translator, view: View) -> str:
    """The reader's hand (cards that may not be played now in brackets) and plot."""
    _ = tr.gettext
    me = view.me
    assert me is not None
    playable = view.playable
    shown = []
    for c in me.hand or ():
        shown.append(card(tr, c) if not playable or c in playable else f"({card(tr, c)})")
    lines = [_("Your cards: {cards}", cards=" ".join(shown) or "—")]
    lines.append(_("Your plot: hidden {hidden} · face up {shown}",
                   hidden=cards(tr, me.plot_hidden or ()), shown=cards(tr, me.plot_revealed)))
    return "\n".join(lines)


def action_label(tr: Translator, view: View, action: Action | str) -> str:
    """A button-sized description of one action, with what it does to a job (the engine's
    typed view answers how many hours a card gives and whether it completes the job)."""
    _ = tr.gettext
    a = Action.parse(action)
    typed = view
    theme = typed.rules.theme.value
    if a.kind is ActionKind.TRUMP:
        assert a.suit is not None
        return _("Trump {suit}", suit=SUIT_SYMBOLS[a.suit.letter])
    if a.kind is ActionKind.PLAY:
        return _("Play {card}", card=card(tr, str(a.card)))
    if a.kind is ActionKind.PASS:
        return _("Pass {card}", card=card(tr, str(a.card)))
    if a.kind is ActionKind.SWAP:
        if a.card is None or a.target is None:
            return _("Keep my cards (no swap)")
        return _("Swap {card} from hand for {plot} from plot", card=card(tr, str(a.card)),
                 plot=card(tr, str(a.target)))
    assert a.card is not None and a.suit is not None
    job = typed.job(a.suit)
    name = job_name(tr, theme, a.suit.letter)
    if job.complete:
        effect = _("already done")
    else:
        effect = f"{job.hours}→{job.hours_after(a.card)}"
        if job.hours >= job.threshold:
            # An earlier card of this trick reached the threshold: it completes either way.
            effect += ", " + _("reached already")
        elif job.completes(a.card):
            effect += ", " + _("done ✅")
    return _("{card} to {job} ({effect})", card=card(tr, str(a.card)), job=name, effect=effect)


#: The widest an assignment button may be (characters): two fit a row on a phone.
BUTTON_WIDTH = 20


def assign_button(tr: Translator, view: View, action: Action | str) -> str:
    """An assignment as a phone-sized button (at most :data:`BUTTON_WIDTH` characters; the
    card is named above the buttons): the job, its hours before and after, ✅ when the card
    completes it and the rewards the Brigadier takes then; the job's name goes first when it
    fits, e.g. ``♦ Harvest 39→51 ✅+3♦``."""
    a = Action.parse(action)
    assert a.card is not None and a.suit is not None
    job = view.job(a.suit)
    symbol = SUIT_SYMBOLS[a.suit.letter]
    if job.complete:
        effect = "✅"
    else:
        effect = f"{job.hours}→{job.hours_after(a.card)}"
        if job.completes(a.card):
            won = job.rewards_won(a.card)
            effect += " ✅" + ("+" + "".join(card(tr, str(c)) for c in won) if won else "")
    named = f"{symbol} {job_name(tr, view.rules.theme.value, a.suit.letter)} {effect}"
    return named if len(named) <= BUTTON_WIDTH else f"{symbol} {effect}"


def assign_style(view: View, action: Action) -> str | None:
    """An assignment that completes its job is green (its label says ✅ as well)."""
    assert action.card is not None and action.suit is not None
    job = view.job(action.suit)
    return "success" if not job.complete and job.completes(action.card) else None


def jobs_line(tr: Translator, view: View) -> str:
    """The jobs in one short line for the private message: hours of the threshold (✅ when
    done) and the rewards in sight, e.g. ``♥ 27/40 3♥ · ♦ ✅ · ♣ 8/40 A♣4♣``."""
    parts = []
    for suit in SUITS:
        job = view.job(suit)
        text = f"{suit.symbol} " + ("✅" if job.complete else f"{job.hours}/{job.threshold}")
        if job.rewards and not job.complete:
            text += " " + "".join(card(tr, str(c)) for c in job.rewards)
        parts.append(text)
    return " · ".join(parts)


#: The marks of the trump Jack, Queen and King on card buttons (``nomenklatura``).
TRUMP_MARKS = {"J": "🍺", "Q": "👂", "K": "💼"}


def trump_mark(view: View, text: str) -> str:
    """The mark of a trump Jack, Queen or King (``nomenklatura``) for its button, else ""."""
    if view.trump is None or not view.rules.nomenklatura or text[-1] != view.trump.letter:
        return ""
    return TRUMP_MARKS.get(text[:-1], "")


def trump_hints(tr: Translator, view: View, shown: Sequence[str]) -> list[str]:
    """One line for each trump Jack, Queen or King among ``shown`` (the reader's hand, or
    the card they are placing), saying what it does on a job (``nomenklatura``)."""
    _ = tr.gettext
    trump = view.trump
    if trump is None or not view.rules.nomenklatura:
        return []
    lines = []
    for rank in ("J", "Q", "K"):
        text = f"{rank}{trump.letter}"
        if text not in shown:
            continue
        name = card(tr, text)
        if rank == "J":
            hint = _("{card} is the Drunkard: it adds no hours; on a failed job it goes "
                     "north alone and nobody loses a card for that job.", card=name)
        elif rank == "Q":
            hint = _("{card} is the Informer: on a failed job everyone is searched.",
                     card=name)
        else:
            hint = _("{card} is the Party official: on a failed job twice as many cards "
                     "go north.", card=name)
        lines.append(TRUMP_MARKS[rank] + " " + hint)
    return lines


def phase_prompt(tr: Translator, view: View, names: Sequence[str]) -> str:
    """What the reader is asked to do now (``names``: the seats' names, for the pass)."""
    _ = tr.gettext
    phase = view.phase
    if phase is Phase.TRUMP:
        return _("You are the Planner: choose the trump suit.")
    if phase is Phase.PASS:
        typed = view
        assert typed.pass_to is not None
        name = names[typed.pass_to]
        if typed.pass_left:
            return _("Choose a card to pass to your left neighbour, {name} (face-down; "
                     "everyone passes one at the same time).", name=name)
        return _("Choose a card to pass to your right neighbour, {name} (face-down; "
                 "everyone passes one at the same time).", name=name)
    if phase is Phase.SWAP:
        return _("You may swap one hand card with a face-down plot card, or keep them.")
    if phase is Phase.ASSIGN:
        return _("You are the Brigadier: put the trick's cards on the jobs, one by one.")
    return _("Your turn: play a card.")


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
            _("year {year} of {years}", year=view.year, years=view.years)]
    if view.trump is not None:
        head.append(_("trump {suit}", suit=SUIT_SYMBOLS[view.trump.letter]))
    lines = ["🌾 " + " · ".join(head)]
    for c in forced:
        lines.append("🤖 " + _("{card} was your only possible card: I played it for you.",
                              card=card(tr, c)))
    names = [seat_name(tr, game, s) for s in range(view.players_count)]
    if sv.to_act and view.phase in (Phase.PLAY, Phase.ASSIGN) and view.trick:
        played = " · ".join(f"{names[s]} {card(tr, c)}" for s, c in view.trick)
        lines.append(_("Trick: {cards}", cards=played))
    ended = game.status in (GameStatus.FINISHED, GameStatus.ABORTED) or view.over
    if not ended:
        lines += pass_lines(tr, view, sv.seat, names)
    if stood_in(sv) and not ended:
        lines.append("🤖 " + _("A bot is playing for you. Tap any button here or send /back "
                              "to take your seat back."))
    if view.over:
        lines.append("🏁 " + _("The five-year plan is over."))
        winners = winners_line(tr, game.result, names)
        if winners:
            lines.append(winners)
        lines += own_result(tr, game, sv.seat, rating)
    elif game.status == GameStatus.ABORTED:
        lines.append(_("The game was called off."))
    elif game.status == GameStatus.PAUSED:
        lines.append("⏸ " + _("The game is paused; the clock has stopped."))
    elif sv.to_act:
        lines.append(jobs_line(tr, view))
        lines.append("👉 " + phase_prompt(tr, view, names))
        led = view.led_suit
        if view.phase is Phase.PLAY and led is not None:
            lines.append(_("Led suit: {suit}", suit=led.symbol))
        if view.phase is Phase.ASSIGN and view.pending:
            lines.append(_("Where does {card} go?", card=card(tr, view.pending[0])))
        # What the trump Jack, Queen and King do: for the card being placed, and for the
        # hand when it is new (before the year's first trick is over).
        shown = [str(c) for c in view.pending[:1]] if view.phase is Phase.ASSIGN else []
        if not view.tricks:
            shown += [str(c) for c in view.players[sv.seat].hand or ()]
        lines += trump_hints(tr, view, shown)
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
        lines += premove_lines(tr, sv)
    keyboard = [] if ended else private_keyboard(tr, sv)
    if not ended:
        lines.append(hand_text(tr, view))
        why = unplayable_line(tr, sv, keyboard)
        if why is not None:
            lines.append(why)
    return Message("\n".join(lines), keyboard)


def unplayable_line(tr: Translator, sv: SeatView, keyboard: Keyboard) -> str | None:
    """The line right above the keyboard saying why its disabled cards may not be played
    now: the engine's reasons (:attr:`SeatView.unplayable`), each once; None when no card
    button is disabled."""
    gid, ver = sv.game.id, sv.game.version
    disabled = {b.data for row in keyboard for b in row if b.disabled}
    reasons: list[str] = []
    for text, reason in sv.unplayable.items():
        if explain_button(gid, ver, text) in disabled and reason not in reasons:
            reasons.append(reason)
    if not reasons:
        return None
    return "🚫 " + " ".join(reason_text(tr, r, sv.view) for r in reasons)


def pass_lines(tr: Translator, view: View, seat: int, names: list[str]) -> list[str]:
    """What the reader passed and received this year (``pass_cards``): theirs alone to
    know, so only in their private message."""
    me = view.players[seat]
    sent, received = me.pass_sent, me.pass_received
    if sent is None:
        return []
    typed = view
    assert typed.pass_to is not None and typed.pass_from is not None
    to = names[typed.pass_to]
    if received is None:
        return ["🔁 " + tr.gettext("You pass {card} to {name}; the cards move when everyone "
                                  "has chosen.", card=card(tr, sent), name=to)]
    return ["🔁 " + tr.gettext("You passed {card} to {name} and received {got} from {sender}.",
                              card=card(tr, sent), name=to,
                              got=card(tr, received),
                              sender=names[typed.pass_from])]


def own_result(
    tr: Translator, game: GameInfo, seat: int, rating: tuple[int, int] | None
) -> list[str]:
    """The reader's own end of a finished game: their place and points, and what it did to
    their rating in the chat (``rating``: before, after)."""
    result = game.result
    if result is None or not result.scores:
        return []
    scores = result.scores
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
    """Buttons for the player's decision. Cards that may not be played now are disabled
    buttons (the reason is the message's last line: :func:`unplayable_line`)."""
    _ = tr.gettext
    view, gid, ver = sv.view, sv.game.id, sv.game.version
    typed = view
    legal = set(typed.legal)
    phase = view.phase
    rows: Keyboard = []
    if stood_in(sv):
        rows.append([Button("▶ " + _("I am back"), view_button(gid, ver, "back"),
                            style="primary")])
    hand = view.players[sv.seat].hand or ()
    if phase is Phase.TRUMP and sv.to_act:
        rows.append([Button(s.symbol, action_button(gid, ver, Action.trump(s).text))
                     for s in SUITS])
    elif phase is Phase.PASS and sv.to_act:
        # The card to pass: any of the hand, face-down to the neighbour.
        passes = [
            Button("↪ " + card(tr, str(a.card)) + trump_mark(typed, str(a.card)),
                   action_button(gid, ver, a.text))
            for a in typed.legal if a.kind is ActionKind.PASS and a.card is not None]
        rows.extend(passes[i : i + 4] for i in range(0, len(passes), 4))
    elif phase is Phase.SWAP and sv.to_act:
        pairs = []
        for text in sv.legal:
            a = Action.parse(text)
            if a.card is not None and a.target is not None:
                label = f"{card(tr, str(a.card))} ⇄ {card(tr, str(a.target))}"
                pairs.append(Button(label, action_button(gid, ver, text)))
        rows.extend(pairs[i : i + 3] for i in range(0, len(pairs), 3))
        rows.append([Button(_("Keep my cards"),
                            action_button(gid, ver, Action.swap_pass().text))])
    elif phase is Phase.ASSIGN and sv.to_act and typed.pending:
        options = [
            Button(assign_button(tr, typed, a), action_button(gid, ver, a.text),
                   style=assign_style(typed, a))
            for a in typed.assignments(typed.pending[0])
        ]
        rows.extend(options[i : i + 2] for i in range(0, len(options), 2))
    elif queue := premove_rows(tr, sv):
        rows.extend(queue)
    elif hand:
        buttons = []
        for c in hand:
            action = Action.play(c)
            text = action.text
            label = card(tr, c) + trump_mark(typed, str(c))
            if phase is Phase.PLAY and sv.to_act and action in legal:
                buttons.append(Button(label, action_button(gid, ver, text)))
            else:
                # Greyed, with the reason above the keyboard (Bot API 10.3); shown as
                # ·label· and explaining itself when tapped on an older server.
                buttons.append(Button(label, explain_button(gid, ver, text), disabled=True))
        rows.append(buttons)
    if sv.can_take_back:
        rows.append([Button("↩ " + _("Take back"), view_button(gid, ver, TAKEBACK))])
    if sv.game.practice and sv.to_act and not stood_in(sv):
        # Practice only: in a group game a hint would be playing with help.
        rows.append([Button("💡 " + _("Hint: what would a bot play?"),
                            view_button(gid, ver, "hint"))])
    rows.extend(auto_assign_rows(tr, sv))
    rows.append([
        Button("📋 " + _("Board"), view_button(gid, ver, "board")),
        Button("🕘 " + _("Last trick"), view_button(gid, ver, "last")),
        Button("🖼 " + _("Picture"), view_button(gid, ver, "hand")),
    ])
    return rows


def last_trick(tr: Translator, game: GameInfo, view: View) -> str:
    _ = tr.gettext
    if not view.last_trick:
        return _("No trick has been completed this year yet.")
    assert view.last_trick_winner is not None
    names = [seat_name(tr, game, s) for s in range(view.players_count)]
    played = " · ".join(f"{names[s]} {card(tr, c)}" for s, c in view.last_trick)
    return _("Last trick: {cards}", cards=played) + " — " + _(
        "won by {name}", name=names[view.last_trick_winner]
    )


def visible_score(tr: Translator, game: GameInfo, view: View) -> str:
    """Scores from public information only: face-up plot cards (and medals when they
    count); face-down cards stay secret until the end. A finished game: its final score."""
    _ = tr.gettext
    if game.result is not None:
        names = [seat_name(tr, game, s) for s in range(game.players)]
        scores = game.result.scores
        order = sorted(range(len(scores)), key=lambda s: (-scores[s], s))
        lines = ["🏁 " + _("Final score:")]
        lines += [  # tied players share a place
            f"{1 + sum(x > scores[s] for x in scores)}. {names[s]} — "
            + tr.ngettext("{n} point", "{n} points", scores[s])
            for s in order
        ]
        winners = winners_line(tr, game.result, names)
        return "\n".join([*lines, winners] if winners else lines)
    lines = [_("Points in sight (face-down cards are counted at the end):")]
    for p in view.players:
        hidden = p.hidden_count
        lines.append(
            _("{name}: {points} + {hidden}", name=seat_name(tr, game, p.seat),
              points=p.points_in_sight,
              hidden=tr.ngettext("{n} face-down card", "{n} face-down cards", hidden))
        )
    return "\n".join(lines)


#: Buttons of the private game message that do not belong in the hand shown in the group:
#: queueing (⏭, ⚡: ``q``), the board in private and the hand as a picture (sent to the
#: private chat, which the players who play from the group may not have).
NOT_IN_GROUP = frozenset({"board", "hand"})


def group_keyboard(keyboard: Keyboard) -> Keyboard:
    """The private game message's keyboard as the hand shown in the group offers it: the
    moves, the reasons behind disabled cards, take-back, the last trick and hints."""
    def kept(b: Button) -> bool:
        try:
            cb = Callback.decode(b.data) if b.data else None
        except ValueError:
            return True
        return cb is None or not (cb.kind == "q" or (cb.kind == "v"
                                                     and cb.payload in NOT_IN_GROUP))
    rows = [[b for b in row if kept(b)] for row in keyboard]
    return [row for row in rows if row]

