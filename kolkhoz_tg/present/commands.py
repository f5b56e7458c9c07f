"""The replies of the commands (:mod:`kolkhoz_tg.bot.commands`): the welcome, /help, the rules
in brief, the answers of /newgame, /hand, /back, /pause and /resume, and of typed moves.

Links that Telegram builds (a deep link into a group or the private chat) come in as
``url`` arguments: nothing here knows Telegram."""

from __future__ import annotations

from kolkhoz_tg.i18n import Translator
from kolkhoz_tg.present.keyboard import Button, Message
from kolkhoz_tg.present.rules import levels_help
from kolkhoz_tg.service.records import GameInfo


def welcome(tr: Translator, group_url: str, practice_data: str) -> Message:
    """``/start`` in private for someone with no game: what the bot does, with the two ways
    to begin as buttons (a group, picked in Telegram's own list: ``group_url``; a practice
    game here: the callback ``practice_data``)."""
    _ = tr.gettext
    text = _("Hello! I run slow games of Kolkhoz in group chats: add me to a group (the "
             "button below) and send /newgame there. Or play a practice game here, with "
             "bots and hints. /help lists the commands, /rules explains the game.")
    return Message(text, [
        [Button("👥 " + _("Add me to a group"), url=group_url)],
        [Button("🎓 " + _("Play a practice game"), practice_data)],
    ])


def lobby_not_started(tr: Translator) -> str:
    """``/start`` in private for a player whose game is still a lobby."""
    return tr.gettext(
        "You are in a game that has not started yet. I will send your cards here "
        "when it starts.")


def help_text(tr: Translator, in_group: bool) -> str:
    """/help: the commands, in a group with the group's first, in private with the private
    ones first (some, like /settings and /stats, mean one thing here and another there)."""
    group, private = help_lines(tr)
    _ = tr.gettext
    if in_group:
        parts = [_("In the group:"), *group, _("In our private chat:"), *private]
    else:
        parts = [_("Here, in private:"), *private, _("In a group:"), *group]
    lines = [
        "🌾 " + _("Kolkhoz: a slow trick-taking game for 3 to 5 players."),
        *parts,
        _("Anywhere:"),
        # The reader's own card letters first: in Russian, /play 10ч before /play 10H.
        _("/play 10H, /play JS, /assign 10H S, /trump ♠, /swap 9H KC, /pass 9H (Russian "
          "letters too: /play 10ч, /play Вп)") + " — " + _("typed moves"),
        "/away, /away 3d — " + _("a bot plays for you (in a group, in its game; in private, "
                                 "in all your games) until /back or your next move (with "
                                 "3d, three days at most)"),
        "/back — " + _("take your seat back from the bot"),
        "/lang ru|en — " + _("language"),
        "/rules — " + _("the rules"),
        "",
        levels_help(tr),
    ]
    return "\n".join(lines)


def help_lines(tr: Translator) -> tuple[list[str], list[str]]:
    """/help's lines of the commands for a group, and of those for the private chat."""
    _ = tr.gettext
    group = [
        "/newgame — " + _("open a new game (optionally: /newgame zone 3)"),
        "/join, /leave, /addbot, /go — " + _("take a seat, leave, add a bot, start"),
        "/board — " + _("show the board again"),
        "/last — " + _("the last trick"),
        "/score — " + _("points in sight"),
        "/settings — " + _("rules, players, time limit"),
        "/stats — " + _("ratings here; /stats me: yours"),
        "/log — " + _("the last game, move by move"),
        "/pause, /resume, /abort, /kick — " + _("for the creator and admins"),
        "↩ " + _("Take back: undo the card you just played while nobody has played since "
                 "and the trick is open"),
        "/settings takeback on|off — " + _("allow take-backs in this chat (on by default)"),
        "/settings board text|picture|rich — " + _(
            "how the boards look here: text, a picture, or a rich message with tables"),
        "/notify on|off — " + _("a private message when a new game opens here (🔔 on the "
                                "lobby; not in your quiet hours)"),
        "🔁 " + _("Play again (on the final board) — the same table once more: each player "
                 "taps Join, then the creator starts"),
    ]
    private = [
        "/hand — " + _("your cards"),
        "/mygames — " + _("every game you play in, those where it is your move first "
                          "(the longest wait first)"),
        "/mygames — " + _("its buttons open each game's board and send your hand anew; "
                          "typed in a group, the list comes here"),
        "/practice — " + _("a practice game with bots and hints"),
        "/settings — " + _("your time zone and quiet hours (reminders wait for the morning)"),
        "/stats — " + _("your ratings"),
        "/log — " + _("your last finished game, move by move"),
        _("/premove 9H, /premove off") + " — " + _(
            "queue the card to play when your turn comes (or tap ⏭ on a card in your game "
            "message; again: cancel); nobody else sees it"),
        "⚡ — " + _("as Brigadier, let the bot place your tricks for the rest of the game "
                   "(tap again to stop)"),
    ]
    return group, private


def practice_button(tr: Translator, *, url: str | None = None, data: str | None = None) -> Button:
    """The 🎓 button to a practice game: a deep link from a group, a callback in private."""
    return Button("🎓 " + tr.gettext("Play a practice game"), data, url=url)


def full_rules_button(tr: Translator, url: str) -> Button:
    """The 📜 button under the rules in brief in a group: the full rules in private."""
    return Button("📜 " + tr.gettext("The full rules"), url=url)


def rules_text(tr: Translator) -> list[str]:
    """The rules in brief, true for every preset (the full rules are docs/RULES*.md)."""
    _ = tr.gettext
    return [
        "📜 " + _("Kolkhoz in brief") + "\n\n" + _(
            "Five years of the plan. Every year each player gets 5 cards (fewer when the "
            "deck runs low, or in a famine or a short last year: a lean year, without trump). "
            "The Planner names the trump. Follow suit if you can. Who takes the trick depends "
            "on the rules: usually the highest trump, or else the highest card of the led "
            "suit; in the Original rules trump never wins, the highest card of the led suit "
            "always does."
        ) + "\n\n" + _(
            "The trick's winner is the Brigadier: they put each card of the trick on a job "
            "(♥ ♦ ♣ ♠). Workers 6-10 give their value in hours, J 11, Q 12, K 13. A job that "
            "reaches the threshold (40 hours, 36 in the Original rules) is done, and the "
            "Brigadier gets its reward: the reward cards, in some rules the workers "
            "themselves, or nothing at all."
        ) + "\n\n" + _(
            "Your last card of the year goes face-down into your plot. For every job that "
            "failed, the Brigadiers (in some rules everyone) are searched: depending on the "
            "rules they show all their cards of that suit, only the highest one, or their "
            "whole plot. Then each of them loses their highest card of that suit to the "
            "North, or in some rules only the single highest card of all goes. Shown cards "
            "stay face-up to the end. The trump Jack, Queen and King change that: the Jack "
            "is sent north instead, the Queen exposes everyone, the King doubles the loss."
        ) + "\n\n" + _(
            "At the end, the cards in your plot are your points. The full rules for players "
            "are in the project's docs/RULES.md."
        )
    ]


def practice_in_private(tr: Translator, url: str) -> Message:
    """/practice in a group: a polite pointer to the private chat."""
    return Message(
        tr.gettext("Practice games are played in our private chat, where nobody "
                   "waits for you and a 💡 hint is at hand."),
        [[Button("🎓 " + tr.gettext("Practice in private"), url=url)]])


def newgame_in_private(tr: Translator) -> str:
    """/newgame outside a group."""
    return tr.gettext("Start a game in a group chat: add me there.")


def no_topic_for_newgame(tr: Translator) -> str:
    """/newgame in a forum's "General" that has a game, when no topic could be opened."""
    return tr.gettext(
        "«General» already has a game, and I could not open a topic for a new "
        "one. Send /newgame in a topic, or finish the game here first.")


def game_in_own_topic(tr: Translator, game_id: int, link: str | None) -> Message:
    """/newgame's game opened in a topic of its own: join it there (with a button when the
    topic has a link)."""
    return Message(
        tr.gettext("Game #{id} has a topic of its own: join it there.", id=game_id),
        [[Button("🧵 " + tr.gettext("Open the topic"), url=link)]] if link else [])


def topics_tip(tr: Translator) -> str:
    """/newgame in a forum's "General" where the bot may not open topics."""
    return tr.gettext(
        "Tip: give me the right to manage topics, and each game gets a topic of its "
        "own.")


def has_a_game(tr: Translator, game: GameInfo) -> str:
    """/newgame where a game is open: there is one (its board follows)."""
    return (tr.gettext("This topic already has a game: see the board below.")
            if game.topic_id is not None else
            tr.gettext("This chat already has a game: see the board below."))


def seats_in_the_way_text(tr: Translator, game: GameInfo) -> str:
    """Why the number of players cannot change: the seats that would go are taken."""
    if len(game.seats) >= game.players:
        return tr.ngettext(
            "All {n} seats are taken: to play with fewer players, free a seat first (/kick).",
            "All {n} seats are taken: to play with fewer players, free a seat first (/kick).",
            game.players)
    last = max(s.seat for s in game.seats) + 1
    return tr.gettext("Seat {n} is taken: to play with fewer players, free it first "
                      "(/kick {n}).", n=last)


def joined_open_private(tr: Translator, url: str) -> Message:
    """/join by someone the bot cannot write to yet: the way to their cards."""
    return Message(
        tr.gettext("You are in. Open a private chat with me, or your cards cannot reach you:"),
        [[Button("✉️ " + tr.gettext("Private chat"), url=url)]])


def hand_sent(tr: Translator) -> str:
    return tr.gettext("I have sent your cards to our private chat.")


def open_private_first(tr: Translator, url: str) -> Message:
    """/hand in a group by someone the bot cannot write to yet."""
    return Message(tr.gettext("Open a private chat with me first:"),
                   [[Button("✉️ " + tr.gettext("Open my cards"), url=url)]])


def lobby_moved(tr: Translator, game_id: int) -> str:
    """/resume of a lobby whose topic is gone: it is here now."""
    return tr.gettext("The lobby of game #{id} has moved here.", id=game_id)


def paused_or_resumed(tr: Translator, what: str) -> str:
    """/pause or /resume done (``what``: ``pause`` or ``resume``)."""
    done = {
        "pause": tr.gettext("The game is paused; the clock has stopped."),
        "resume": tr.gettext("The game goes on; the clock runs again."),
    }
    return done[what]


def move_in_several_games(tr: Translator) -> str:
    """A move typed in private that is legal in more than one of the sender's games."""
    return tr.gettext(
        "That move is open to you in more than one game: use the buttons in the "
        "message of the game you mean.")


def secret_in_group(tr: Translator, name: str) -> str | None:
    """A typed move that must not be sent in a group (``swap``, ``pass``), or None."""
    _ = tr.gettext
    if name == "swap":
        # A swap names a face-down plot card: never in the group.
        return _("Swaps are secret: send /swap to me in private.")
    if name == "pass":
        # The card passed is the sender's and the receiver's secret.
        return _("The card you pass is secret: send /pass to me in private.")
    return None


def typed_error(tr: Translator, name: str, code: str, text: str) -> str:
    """A typed move that could not be read: what was wrong, and the command's usage."""
    _ = tr.gettext
    usage = {
        "play": _("Usage: /play 10H (suits: H D C S, ♥ ♦ ♣ ♠ or ч б т п; ranks J Q K A "
                  "or В Д К Т)"),
        "assign": _("Usage: /assign 10H S (card, then the job's suit)"),
        "trump": _("Usage: /trump ♠ (or S, п, пики)"),
        "swap": _("Usage: /swap 9H KC (hand card, then plot card) or /swap pass"),
        "pass": _("Usage: /pass 9H (the card you pass to your neighbour)"),
    }[name]
    if code == "bad_card":
        return _("I do not know the card «{text}».", text=text) + "\n" + usage
    if code == "bad_suit":
        return _("I do not know the suit «{text}».", text=text) + "\n" + usage
    return usage


def refused_in_group(tr: Translator, told: bool) -> str:
    """A typed move refused in a group for a reason that would tell about the hand: the
    reason went to the player privately (``told``) or could not."""
    _ = tr.gettext
    return (_("That move is not allowed now: see why in our private chat.")
            if told else _("That move is not allowed now."))


def menu_descriptions(tr: Translator) -> dict[str, str]:
    """The commands' one-line descriptions in Telegram's command menus."""
    _ = tr.gettext
    return {
        "newgame": _("open a new game"), "board": _("show the board again"),
        "last": _("the last trick"), "score": _("points in sight"),
        "hand": _("your cards"), "back": _("take your seat back from the bot"),
        "away": _("a bot plays for you: /away 3d"),
        "settings": _("rules, players, time limit"), "rules": _("the rules"),
        "help": _("all commands"), "stats": _("ratings here; /stats me: yours"),
        "log": _("the last game, move by move"), "play": _("play a card: /play 10H"),
        "assign": _("assign a card: /assign 10H S"), "trump": _("declare trump: /trump ♠"),
        "swap": _("swap with your plot: /swap 9H KC"), "lang": _("language: /lang ru|en"),
        "pass": _("pass a card to your neighbour (house rule): /pass 9H"),
        "practice": _("practice against bots, with hints"),
        "mygames": _("your games, where it is your move first"),
        "notify": _("a private message when a new game opens here: /notify on|off"),
    }
