"""The answers to taps and inline choices (:mod:`kolkhoz_tg.bot.buttons`,
:mod:`kolkhoz_tg.bot.inline`) and what the bot says when it leaves or rejoins a group."""

from __future__ import annotations

from kolkhoz_tg.i18n import Translator


def not_my_button(tr: Translator) -> str:
    """A tap (or a lobby operation) this bot cannot read."""
    return tr.gettext("That button is not mine.")


def no_such_game(tr: Translator) -> str:
    return tr.gettext("There is no such game.")


def not_playing(tr: Translator) -> str:
    """A tap on a move, an explanation or a view of a game the tapper has no seat in."""
    return tr.gettext("You are not playing in this game.")


def elsewhere(tr: Translator, same_chat: bool) -> str:
    """A tap on a game's button away from where the game lives."""
    if same_chat:
        return tr.gettext("That button belongs to another topic.")
    return tr.gettext("That button belongs to another chat.")


def back_text(tr: Translator, back: bool) -> str:
    """/back or the ``back`` button: the seat is the player's again, or nobody was playing
    for them."""
    return (tr.gettext("Welcome back: your seat is yours again.") if back
            else tr.gettext("Nobody was playing for you; carry on."))


def move_not_made(tr: Translator, reason: str) -> str:
    """A move answered before it was stored, then refused: said in private."""
    return tr.gettext("Your last move was not made. {reason}", reason=reason)


def saving_slow(tr: Translator) -> str:
    """A move while the database is busy: it is made in the background."""
    return tr.gettext("Saving is slow right now: your move will be made in a moment.")


def may_play_now(tr: Translator) -> str:
    """The explanation of a card that has become playable since."""
    return tr.gettext("You may play it now.")


def cards_only_in_private(tr: Translator) -> str:
    return tr.gettext("Your cards are shown only in private.")


def cards_not_drawn(tr: Translator) -> str:
    return tr.gettext("Your cards could not be drawn just now; please try again.")


def my_cards_in_private(tr: Translator) -> str:
    """The button over the inline results."""
    return tr.gettext("My cards in private")


def chosen_not_saved(tr: Translator) -> str:
    """A move chosen inline that the busy database never took."""
    return tr.gettext("This move was not played: it could not be saved. Choose it again.")


def chosen_moved_on(tr: Translator) -> str:
    """A move chosen inline that the game no longer takes (no reason that tells the hand)."""
    return tr.gettext("This move was not played: the game had moved on.")


def removed_from_group(tr: Translator, title: str) -> str:
    """To each player of a game paused because the bot was removed from its group."""
    return tr.gettext(
        "I was removed from «{chat}», so our game there is paused and nobody's time "
        "runs. It goes on when someone adds me back to the group.", chat=title)


def back_in_group(tr: Translator) -> str:
    """In the group that added the bot back: its paused game goes on."""
    return tr.gettext("I am back, and so is our game: the clock runs again.")
