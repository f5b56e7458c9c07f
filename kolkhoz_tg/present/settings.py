"""The replies of the chat's settings (:mod:`kolkhoz_tg.bot.chat_settings`): /lang,
/settings in a group (the game's rules and time, the bots' level, the board's style)."""

from __future__ import annotations

from kolkhoz_tg.i18n import Translator
from kolkhoz_tg.present.rules import levels_help, rules_line
from kolkhoz_tg.present.words import level_name
from kolkhoz_tg.service.records import GameInfo


def lang_usage(tr: Translator) -> str:
    return tr.gettext("Usage: /lang ru or /lang en")


def only_admins_language(tr: Translator) -> str:
    return tr.gettext("Only the chat's admins may change its language.")


def language_set(tr: Translator) -> str:
    """/lang done, said in the new language (``tr``)."""
    return tr.gettext("Language: English")


def settings_usage(tr: Translator) -> str:
    """How /settings changes a game's settings."""
    return tr.gettext(
        "Change with: /settings preset NAME · players 3-5 · timeout 12h · "
        "medals on|off · reminders 50%,1h · bots normal|strong|hard · "
        "board text|picture|rich"
    )


def bots_level(tr: Translator, level: str | None) -> str:
    """The chat's level for stand-ins and for the bots that fill empty seats."""
    return tr.gettext(
        "Stand-ins and the bots that fill empty seats play at the level: {level}.",
        level=level_name(tr, level))


def settings_text(tr: Translator, game: GameInfo, level: str | None) -> str:
    """``/settings`` alone: the game's rules line, the bots' level, how to change them."""
    return rules_line(tr, game) + "\n" + bots_level(tr, level) + "\n" + settings_usage(tr)


def bots_usage(tr: Translator) -> str:
    return tr.gettext("Usage: /settings bots normal|strong|hard") + "\n" + levels_help(tr)


def board_usage(tr: Translator) -> str:
    return tr.gettext("Usage: /settings board text|picture|rich")


def board_style_set(tr: Translator, style: str) -> str:
    """``/settings board picture`` (or ``text``, or ``rich``) done."""
    if style == "picture":
        return tr.gettext("The board is shown as a picture from now on.")
    if style == "rich":
        return tr.gettext("The board is shown as a rich message from now on: tables, and the "
                          "year's tricks one tap away. Where Telegram cannot show rich "
                          "messages yet, it stays text.")
    return tr.gettext("The board is shown as text from now on.")


def whole_chat_setting(tr: Translator) -> str:
    """A setting of the whole chat tried by a game's creator while other games are open."""
    return tr.gettext(
        "This setting is the whole chat's, and other games are open here: only the "
        "chat's admins may change it.")


def takeback_usage(tr: Translator) -> str:
    return tr.gettext("Usage: /settings takeback on|off")


def takeback_set(tr: Translator, on: bool) -> str:
    """``/settings takeback on`` (or ``off``) done."""
    if on:
        return tr.gettext("Players may take back the card they have just played, while "
                          "nobody has played since.")
    return tr.gettext("Cards played here can no longer be taken back (practice games "
                      "still allow it).")
