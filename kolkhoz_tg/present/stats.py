"""Numbers about players and games: ratings of a chat and of a player, the games played
with house rules and a game's log.
"""

from __future__ import annotations

from collections.abc import Sequence

from babel.numbers import format_decimal

from engine.views import View
from kolkhoz_tg import house_rules
from kolkhoz_tg.i18n import Translator
from kolkhoz_tg.present.board import winners_line
from kolkhoz_tg.present.events import event_lines
from kolkhoz_tg.present.keyboard import MAX_TEXT, Button, Message
from kolkhoz_tg.present.rules import rules_title
from kolkhoz_tg.present.words import level_name, seat_name, start_link
from kolkhoz_tg.service.payloads import LoggedMove
from kolkhoz_tg.service.ratings import places
from kolkhoz_tg.service.records import GameInfo, RatingLine
from kolkhoz_tg.storage.models import GameStatus


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
    played = [g for g in games if g.status == GameStatus.FINISHED and not g.practice
              and not house_rules.rated_rules(g.rules)]
    if not played:
        return None
    out = ["⚙ " + tr.ngettext(
        "{n} game under house rules (not rated):",
        "{n} games under house rules (not rated):", len(played))]
    for game in played[:HOUSE_GAMES_LISTED]:
        seat = next((s.seat for s in game.seats if s.user_id == user_id), None)
        scores = game.result.scores if game.result is not None else []
        line = _('#{id} "{rules}"', id=game.id,
                 rules=rules_title(tr, game.preset, game.rules))
        if seat is not None and seat < len(scores):
            place = places(scores)[seat]
            line += " — " + _("place {place} of {n}, {points}", place=place,
                              n=len(scores), points=tr.ngettext(
                                  "{n} point", "{n} points", scores[seat]))
        out.append(line)
    return "\n".join(out)


def game_log(tr: Translator, game: GameInfo, moves: Sequence[LoggedMove]) -> list[str]:
    """``/log``: a finished game told move by move, in messages of at most 4096 characters."""
    _ = tr.gettext
    theme = game.rules.theme.value
    head = "📜 " + _('The log of game {id} ("{rules}")', id=game.id,
                    rules=rules_title(tr, game.preset, game.rules))
    lines = [head, _("Year {year} begins.", year=1)]
    lines += event_lines(tr, game, list(moves), theme, year_end=True)
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
    tr: Translator, game: GameInfo, view: View | None, bot_username: str
) -> Message:
    """``/log`` in a group: a finished (or called-off) game in a few lines (rules, years,
    winner, final score) with a button that opens its full log in private, never the
    hundreds of lines of the log itself."""
    _ = tr.gettext
    names = [seat_name(tr, game, s) for s in range(game.players)]
    head = _('Game {id}: "{rules}"', id=game.id,
             rules=rules_title(tr, game.preset, game.rules))
    years = view.year if view is not None else 0
    if game.status != GameStatus.ABORTED and years:
        head += ", " + tr.ngettext("{n} year played", "{n} years played", years)
    lines = ["📜 " + head]
    if game.status == GameStatus.ABORTED:
        lines.append(_("Called off in year {year}.", year=years) if years
                     else _("The game was called off."))
    if game.result is not None:
        scores = game.result.scores
        order = sorted(range(len(scores)), key=lambda s: (-scores[s], s))
        lines.append(_("Score: {scores}", scores=" · ".join(
            f"{names[s]} {scores[s]}" for s in order)))
        winners = winners_line(tr, game.result, names)
        if winners:
            lines.append(winners)
    url = start_link(bot_username, log_payload(game.id))
    keyboard = [[Button("📜 " + _("The full log"), url=url)]]
    lines.append(_("The full log, move by move, opens in our private chat."))
    return Message("\n".join(lines), keyboard)


def no_finished_game(tr: Translator) -> str:
    """/log (or a log link) with no finished game to show."""
    return tr.gettext("No finished game here yet.")


def log_not_yours(tr: Translator) -> str:
    """A game's full log asked for by someone neither in the game nor in its group."""
    return tr.gettext("That log belongs to a group you are not in.")
