"""Refusals in words: why a move is not allowed now (the engine's reason codes) and what
a service error means to the reader.
"""

from __future__ import annotations

from typing import Final

from engine.views import View
from kolkhoz_tg.i18n import Translator
from kolkhoz_tg.service import ActResult, ActStatus

REASONS = (
    "follow_suit", "trump_lead", "not_your_turn", "not_in_hand", "not_in_trick", "wrong_job",
    "already_chosen",
    "wrong_phase", "game_over", "invalid", "not_seated", "not_active", "stale", "no_seat",
)


#: Reasons for refusing a move that tell something about the player's hand or plot (that
#: they hold the led suit, a card other than trump, or not the card they named): for the
#: player alone, never for a group.
HAND_REASONS: Final = frozenset({"follow_suit", "trump_lead", "not_in_hand", "not_in_plot"})


def reason_text(tr: Translator, reason: str | None, view: View | None = None) -> str:
    """Why an action was refused, in words (engine and service reason codes)."""
    _ = tr.gettext
    if reason == "follow_suit" and view is not None and (led := view.led_suit) is not None:
        return _("You must follow the led suit {suit}.", suit=led.symbol)
    texts = {
        "follow_suit": _("You must follow the led suit."),
        "trump_lead": _("Trump may not be led until a trump has been played this year."),
        "not_your_turn": _("It is not your turn."),
        "not_in_hand": _("That card is not in your hand."),
        "not_in_plot": _("That card is not face down in your plot."),
        "already_chosen": _("You have already chosen the card you pass this year."),
        "not_in_trick": _("That card is not in the trick."),
        "wrong_job": _("That card may not go to that job."),
        "wrong_phase": _("That is not possible in this phase."),
        "game_over": _("The game is over."),
        "invalid": _("That is not a move."),
        "not_seated": _("You are not playing in this game."),
        "not_active": _("The game is not running."),
        "stale": _("The game has moved on; look again."),
        "takeback_off": _("Taking back a card is switched off in this chat."),
        "takeback_nothing": _("You have no card to take back now."),
        "takeback_late": _("Too late to take your card back: someone has played since."),
        "takeback_trick": _("Your card completed the trick: it cannot be taken back."),
        "takeback_once": _("You have taken back a card this turn already: this one stays."),
        "takeback_undone": _("A card played before it was taken back."),
    }
    return texts.get(reason or "", _("That move is not allowed now."))


def error_text(tr: Translator, code: str) -> str:
    """A :class:`~kolkhoz_tg.service.ServiceError` code in words."""
    _ = tr.gettext
    texts = {
        "game_not_found": _("There is no such game."),
        "user_not_found": _("You are not known here yet."),
        "not_lobby": _("The game has already started."),
        "already_seated": _("You already have a seat in this game."),
        "seat_taken": _("That seat is taken."),
        "game_full": _("All seats are taken."),
        "not_creator": _("Only the game's creator may do that."),
        "not_full": _("Some seats are still empty."),
        "not_seated": _("You are not playing in this game."),
        "not_active": _("The game is not running."),
        "not_paused": _("The game is not paused."),
        "not_started": _("The game has not started yet."),
        "not_over": _("The full log is shown once the game is over."),
        "log_unreadable": _("This game was played under an older reading of the rules, so "
                            "its log cannot be told move by move."),
        "game_over": _("The game is over."),
        "conflict": _("Someone was quicker; please try again."),
        "lobby_changed": _("The game's setup changed meanwhile: look again and tap once "
                           "more."),
        "busy": _("The game's records are busy for a moment; please try again."),
        "bad_preset": _("There is no such set of rules."),
        "bad_option": _("That rule option is not valid."),
        "bad_players": _("A game is for 3 to 5 players."),
        "bad_duration": _("The time per turn must be from 1 minute to 14 days, like 90m, 24h "
                          "or 2d."),
        "bad_reminders": _("Reminders are given like 50% (half the time) or 1h (an hour "
                           "before)."),
        "bad_standin": _("A stand-in may take over after 1 to 100 missed turns."),
        "bad_seat": _("There is no such seat."),
        "bad_level": _("There is no such bot level."),
        "place_taken": _("There is an open game here already: one game at a time in a "
                         "chat or a forum topic."),
        "not_finished": _("A rematch is offered once the game is over."),
        "rematch_done": _("A rematch of this game was opened already."),
        "rematch_waiting": _("Players of the last game have not answered yet: start once "
                             "they have, or when the time per move has run out."),
        "practice_open": _("You have a practice game going: send /practice to go on with it."),
        "not_practice": _("Hints are for practice games only: /practice in our private chat."),
        "bad_locale": _("Only Russian (ru) and English (en) are available."),
        "bad_quiet_hours": _("Quiet hours are given as a time zone and two times, like "
                             "Europe/Moscow 23:00 08:00."),
    }
    return texts.get(code, _("That is not possible now."))


def only_creator_or_admin(tr: Translator) -> str:
    """A game's management (/abort, /kick, a chat setting) tried by someone else."""
    return tr.gettext("Only the game's creator and the chat's admins may do that.")


def result_text(tr: Translator, result: ActResult) -> str:
    """A move's outcome in words: done, already done, or why it was not made."""
    _ = tr.gettext
    if result.status is ActStatus.APPLIED:
        return _("Done.")
    if result.status is ActStatus.DUPLICATE:
        return _("Already done.")
    if result.status is ActStatus.STALE:
        return _("The game has moved on; look again.")
    if result.status is ActStatus.NOT_SEATED:
        return _("You are not playing in this game.")
    if result.status is ActStatus.NOT_ACTIVE:
        return _("The game is not running.")
    return reason_text(tr, result.reason)


def no_open_game(tr: Translator) -> str:
    """A game's command where no game is open."""
    return tr.gettext("There is no open game here. Start one with /newgame.")


def no_game_in_play(tr: Translator) -> str:
    """A command that needs the sender's game in play, where they have none."""
    return tr.gettext("You have no game in play here.")
