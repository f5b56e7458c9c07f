"""A game's own forum topic in words (:mod:`kolkhoz_tg.bot.topics`): its name, and what the
group is told when the topic is closed and reopened."""

from __future__ import annotations

from kolkhoz_tg.i18n import Translator
from kolkhoz_tg.present.rules import rules_title
from kolkhoz_tg.service.records import GameInfo

#: Telegram's longest topic name.
MAX_TOPIC_NAME = 128


def topic_name(tr: Translator, game: GameInfo) -> str:
    """The name of a game's own topic: "Kolkhoz #12 — Classic" (in the chat's language)."""
    name = tr.gettext("Kolkhoz #{id} — {rules}", id=game.id,
                      rules=rules_title(tr, game.preset, game.rules))
    return name[:MAX_TOPIC_NAME]


def private_topic_name(tr: Translator, game: GameInfo, chat_title: str | None) -> str:
    """The name of a game's topic in a player's private chat: "Kolkhoz #12 · Friday cards"
    (the game and its group, in the player's language); the group's name unknown, as its
    topic in a forum is named."""
    if not chat_title:
        return topic_name(tr, game)
    name = tr.gettext("Kolkhoz #{id} · {group}", id=game.id, group=chat_title)
    return name[:MAX_TOPIC_NAME]


def new_topic_name(tr: Translator) -> str:
    """A topic's name before its game exists (the number is not known yet)."""
    return tr.gettext("Kolkhoz — a new five-year plan")[:MAX_TOPIC_NAME]


def topic_closed(tr: Translator) -> str:
    return tr.gettext(
        "This topic was closed, so the game is paused and nobody's time runs. It goes "
        "on when the topic is reopened.")


def topic_reopened(tr: Translator) -> str:
    return tr.gettext("The topic is open again, and so is the game: the clock runs again.")
