"""Practice games and the rules in private in words (:mod:`kolkhoz_tg.bot.practice`): the
level buttons, the choice for an open practice game, the rules' contents and pages, and the
answers of the 💡 hint."""

from __future__ import annotations

from kolkhoz_tg.bot.callbacks import practice_button
from kolkhoz_tg.i18n import Translator
from kolkhoz_tg.present.keyboard import MAX_TEXT, Button, Message
from kolkhoz_tg.present.rules import PRESET_ORDER, preset_description, preset_title, rules_title
from kolkhoz_tg.present.words import level_name
from kolkhoz_tg.rules_doc import Chapter, pages, rules_chapters
from kolkhoz_tg.service import PRACTICE_LEVELS
from kolkhoz_tg.service.records import GameInfo

#: The level ticked on a new practice game's buttons.
DEFAULT_LEVEL = "strong"
#: The ``p`` payload of the rules' contents (``rules.<chapter>.<page>``: a page of a chapter).
RULES_OP = "rules"


def bad_args_text(tr: Translator, word: str, command: str = "practice") -> str:
    """What ``/practice`` (or ``/newgame``) says to a word it does not know: to a number, the
    players a game may have; to anything else, the rules it offers."""
    _ = tr.gettext
    if word.isdecimal():
        lines = [_("A game is for 3 to 5 players, not {n}.", n=word)]
    else:
        lines = [_("I do not know the rules «{name}». Choose one of these:", name=word)]
        lines += [f"• {name} — {preset_title(tr, name)}" for name in PRESET_ORDER]
    if command == "newgame":
        lines.append(_("For example: /newgame zone, or /newgame kolkhoz 3 (3 to 5 players)."))
    else:
        lines.append(_("For example: /practice zone, or /practice kolkhoz 3 (3 to 5 "
                       "players)."))
    return "\n".join(lines)


def level_message(tr: Translator, preset: str, players: int) -> Message:
    """A new practice game's message: the rules, what practice is, and the level buttons
    (the default one ticked)."""
    _ = tr.gettext
    lines = [
        "🎓 " + _("Practice game: «{rules}» · {players}",
                  rules=preset_title(tr, preset),
                  players=tr.ngettext("{n} player", "{n} players", players)),
        preset_description(tr, preset),
        _("You play against bots right here, with no time limit: the same board and buttons "
          "as in a group. The 💡 button on your move shows what a bot would play and why. "
          "Practice games are not rated."),
        _("How strong should the bots be?"),
    ]
    keyboard = [[
        Button(("✅ " if level == DEFAULT_LEVEL else "") + level_name(tr, level),
                      practice_button(0, 0, f"lvl.{preset}.{players}.{level}"))
        for level in PRACTICE_LEVELS
    ]]
    return Message("\n".join(line for line in lines if line), keyboard)


def open_game_message(
    tr: Translator, game: GameInfo, preset: str, players: int
) -> Message:
    """The choice when a practice game is open: go on with it, or abandon it and start a new
    one (of ``preset`` and ``players``)."""
    _ = tr.gettext
    text = "🎓 " + _("You have a practice game going: «{rules}». Go on with it, or abandon it "
                    "and start a new one?", rules=rules_title(tr, game.preset, game.rules))
    keyboard = [[
        Button("▶ " + _("Go on"), practice_button(game.id, game.version, "go")),
        Button("🆕 " + _("Start anew"),
                      practice_button(game.id, game.version, f"new.{preset}.{players}")),
    ]]
    return Message(text, keyboard)


def rules_contents(tr: Translator) -> Message | None:
    """``/rules`` in private: one short message, the players' rules' chapters as buttons (two
    a row) and the way to a practice game; None where the docs are not installed."""
    chapters = rules_chapters(tr.locale)
    return contents(tr, chapters) if chapters else None


def contents(tr: Translator, chapters: list[Chapter]) -> Message:
    """The rules' contents: their chapters as buttons, two a row, and a practice game."""
    _ = tr.gettext
    text = "📜 " + chapters[0].title + "\n" + _(
        "Choose a chapter: it opens here, in this message.")
    buttons = [Button(_("About the game") if i == 0 else chapter.title,
                             practice_button(0, 0, page_op(i, 0)))
               for i, chapter in enumerate(chapters)]
    keyboard = [buttons[i:i + 2] for i in range(0, len(buttons), 2)]
    keyboard.append([Button("🎓 " + _("Play a practice game"),
                                   practice_button(0, 0, "menu"))])
    return Message(text, keyboard)


def rules_page(
    tr: Translator, chapters: list[Chapter], chapter: int, page: int
) -> Message:
    """A page of a chapter of the rules (most chapters are one page), with the way back to
    the contents and to the page before and after (into the next chapter at its end).
    Raises ValueError for a page the rules do not have."""
    texts_of = [pages(c.text, MAX_TEXT) for c in chapters]
    order = [(i, p) for i, parts in enumerate(texts_of) for p in range(len(parts))]
    at = order.index((chapter, page))
    row = []
    if at > 0:
        row.append(Button("‹", practice_button(0, 0, page_op(*order[at - 1]))))
    row.append(Button("📜 " + tr.gettext("Contents"), practice_button(0, 0, RULES_OP)))
    if at + 1 < len(order):
        row.append(Button("›", practice_button(0, 0, page_op(*order[at + 1]))))
    return Message(texts_of[chapter][page], [row])


def page_op(chapter: int, page: int) -> str:
    return f"{RULES_OP}.{chapter}.{page}"


def started(tr: Translator, preset: str, players: int, level: str) -> str:
    """The level message once a practice game has started from it."""
    return "🎓 " + tr.gettext("Practice game: «{rules}» · {players} · bots: {level}",
                              rules=preset_title(tr, preset),
                              players=tr.ngettext("{n} player", "{n} players", players),
                              level=level_name(tr, level).lower())


def only_in_private(tr: Translator) -> str:
    return tr.gettext("Practice games are played in our private chat.")


def not_possible(tr: Translator) -> str:
    return tr.gettext("That is not possible now.")


def hint_busy(tr: Translator) -> str:
    """💡 tapped while the workers are too busy to work the hint out in time."""
    return tr.gettext("The bots are busy thinking right now: ask for the hint again in a moment.")


def hint_refusal(tr: Translator, code: str) -> str | None:
    """Why 💡 gives no hint, for the codes it words its own way (else None)."""
    if code == "not_your_turn":
        return tr.gettext("It is not your move now.")
    return None
