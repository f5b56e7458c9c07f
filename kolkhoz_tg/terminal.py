"""``kolkhoz play``: a whole game in the terminal, one human against bots, on the service.

It uses exactly what the Telegram bot will use — the service (lobby, ``act()``, the outbox)
on a local SQLite file and the localized texts of :mod:`kolkhoz_tg.present` — so it doubles as
proof that the core needs no Telegram. Quitting keeps the game; running again resumes it.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import sys
import textwrap
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from engine import Action, ActionKind, InvalidAction, Suit
from engine.ai import LEVELS
from kolkhoz_tg.aiplay import AIPolicy
from kolkhoz_tg.config import LOCALES, Settings
from kolkhoz_tg.i18n import Translator, translator
from kolkhoz_tg.moves import TypedError, latin_layout, parse_typed, russian_layout
from kolkhoz_tg.rules_doc import plain_rules

# The service (and the texts, which read its records) bring in SQLAlchemy: they are imported
# where a game runs, so that ``kolkhoz`` builds its parser and prints help without them.
if TYPE_CHECKING:
    from kolkhoz_tg.service import GameService, Notification, SeatView

LOCAL_CHAT = 0  # the terminal's own table
LOCAL_USER = 1  # the human at the keyboard
HOST_USER = 0  # creates bots-only games without taking a seat
DEFAULT_DB = "kolkhoz-play.sqlite3"
DEFAULT_LEVEL = "strong"
#: The exit code after Ctrl-C, as a shell gives a program stopped by SIGINT (128 + 2).
INTERRUPTED = 130

def _words(latin: Iterable[str], other: Iterable[str] = ()) -> frozenset[str]:
    """The (lower-case) words that answer one way: the Latin ones as typed in either layout
    (a Russian keyboard types «й» for the ``q`` offered), and ``other`` as they are."""
    return frozenset((*latin, *(russian_layout(w) for w in latin), *other))


QUIT_WORDS = _words(("q", "quit", "exit"), ("в", "выход"))
HELP_WORDS = _words(("?", "h", "help"), ("помощь",))
RULES_WORDS = _words(("rules",), ("правила",))
YES_WORDS = _words(("y", "yes"), ("", "д", "да"))
NO_WORDS = _words(("n", "no"), ("н", "нет"))

InputFn = Callable[[str], str]
OutputFn = Callable[[str], None]


def add_arguments(parser: argparse.ArgumentParser, tr: Translator | None = None) -> None:
    """The ``play`` options; help in ``tr``'s language (default: ``KOLKHOZ_LOCALE``)."""
    if tr is None:
        try:
            tr = translator(Settings().locale)
        except ValueError:
            tr = translator(LOCALES[0])
    _ = tr.gettext
    # argparse's own words (the usage line, the section title, -h) in the same language.
    parser.formatter_class = _formatter(_("usage: "))
    options = parser.add_argument_group(_("options"))
    if not parser.add_help:
        options.add_argument("-h", "--help", action="help", help=_("show this help and exit"))
    options.add_argument("--humans", type=int, choices=(0, 1), default=1,
                         help=_("1: you against bots (default); 0: bots only, print the result"))
    options.add_argument("--preset", default="classic",
                         help=_("classic, original, kolkhoz, kolkhoznik or zone"))
    options.add_argument("--players", type=int, default=4, choices=(3, 4, 5),
                         help=_("players at the table, you included (default: 4)"))
    options.add_argument("--seed", default=None, help=_("deal seed (default: random)"))
    options.add_argument("--level", choices=LEVELS, default=DEFAULT_LEVEL,
                         help=_("how the bots play: {levels} (default: {default})",
                                levels=", ".join(LEVELS), default=DEFAULT_LEVEL))
    options.add_argument("--lang", choices=LOCALES, default=None,
                         help=_("language (asked the first time, then kept)"))
    options.add_argument("--name", default=None, help=_("your name at the table"))
    options.add_argument("--db", default=None,
                         help=_("SQLite file for saved games (default: ./{path})", path=DEFAULT_DB))
    options.add_argument("--new", action="store_true", help=_("start a new game, do not resume"))


def _formatter(usage_prefix: str) -> type[argparse.HelpFormatter]:
    """A help formatter whose usage line starts with ``usage_prefix`` (argparse's own
    "usage: " is English whatever the language)."""

    class Formatter(argparse.HelpFormatter):
        def add_usage(self, usage: str | None, actions: Iterable[argparse.Action],
                      groups: Iterable[argparse._MutuallyExclusiveGroup],
                      prefix: str | None = None) -> None:
            super().add_usage(usage, actions, groups, usage_prefix if prefix is None else prefix)

    return Formatter


def again_command(args: argparse.Namespace | None = None) -> str:
    """The command that resumes this game, as the player typed it: ``bash scripts/start``
    sets ``KOLKHOZ_COMMAND``; otherwise the program's own name. The options that find the
    game again (``--db``) or spare a question (``--lang``) are kept; the others do not apply
    to a game that goes on."""
    command = os.environ.get("KOLKHOZ_COMMAND") or f"{Path(sys.argv[0]).name or 'kolkhoz'} play"
    if args is not None:
        if getattr(args, "db", None):
            command += f" --db {shlex.quote(str(args.db))}"
        if getattr(args, "lang", None):
            command += f" --lang {args.lang}"
    return command


def run(
    args: argparse.Namespace,
    input_fn: InputFn = input,
    output: OutputFn = print,
) -> int:
    """Play (or watch) a game; returns the process exit code: 130 after Ctrl-C, which
    stops it with a line that says what was kept (no traceback)."""
    try:
        return _run(args, input_fn, output)
    except KeyboardInterrupt:
        output("")  # before a language was chosen: nothing to keep, nothing to say
        return INTERRUPTED


def _run(args: argparse.Namespace, input_fn: InputFn, output: OutputFn) -> int:
    from kolkhoz_tg import present
    from kolkhoz_tg.service import ServiceError, open_service

    db_path = Path(args.db or DEFAULT_DB)
    lang = args.lang or _saved_language(db_path) or _ask_language(input_fn, output)
    tr = translator(lang)
    if os.environ.get("KOLKHOZ_NO_TOKEN"):  # set by scripts/start
        output(tr.gettext("No Telegram bot token (KOLKHOZ_BOT_TOKEN) is set: playing here, "
                          "in the terminal."))
    settings = Settings(database_url=f"sqlite:///{db_path}", locale=lang)
    service = open_service(settings.database_url, settings=settings)
    # The bots of this table (and stand-ins) play at the level asked for; search levels
    # think inside the move's transaction here, where one person plays.
    service.ai_policy = AIPolicy(default_level=getattr(args, "level", DEFAULT_LEVEL))
    try:
        if args.humans == 0:
            return _bots_only(service, tr, args, output)
        return _play(service, tr, args, input_fn, output)
    except ServiceError as e:
        output(present.error_text(tr, e.code))
        return 2
    except KeyboardInterrupt:
        # At a prompt or while the bots think: a move's transaction is undone whole, so the
        # game stays as it was before it. "^C" is on the line: the news goes under it.
        output("")
        output(_stopped_text(service, tr, args))
        return INTERRUPTED
    finally:
        service.db.dispose()


def _stopped_text(service: GameService, tr: Translator, args: argparse.Namespace) -> str:
    """What is kept after Ctrl-C: the running game, or (bots only, or before the first deal
    was done) nothing."""
    from kolkhoz_tg.storage.models import GameStatus  # lazily: the health check's import
    running = args.humans != 0 and any(
        g.status == GameStatus.ACTIVE for g in service.games_of_user(LOCAL_USER))
    if running:
        return tr.gettext("Game saved. Run {command} again to continue.",
                          command=again_command(args))
    return tr.gettext("Stopped: nothing was saved.")


def _clear_lobby(service: GameService, by_user: int) -> None:
    """Abort the terminal's game that was created but never dealt (its start was stopped
    by Ctrl-C or a kill): one open game at a time fits at the table, so it would keep a new
    one out. The terminal leaves no game in the lobby on purpose."""
    from kolkhoz_tg.storage.models import GameStatus  # lazily: the health check's import
    for game in service.games_in_chat(LOCAL_CHAT):
        if game.status == GameStatus.LOBBY:
            result = service.abort(game.id, by_user, force=True)
            service.mark_delivered(n.id for n in result.notifications)


def _saved_language(db_path: Path) -> str | None:
    """The language the player chose last time with this file, if any."""
    if not db_path.exists():
        return None
    from kolkhoz_tg.service import open_service

    url = f"sqlite:///{db_path}"
    service = open_service(url, settings=Settings(database_url=url, locale=LOCALES[0]))
    try:
        user = service.user(LOCAL_USER)
    finally:
        service.db.dispose()
    return user.locale if user is not None and user.locale in LOCALES else None


def _ask_language(input_fn: InputFn, output: OutputFn) -> str:
    # Before a language is chosen, ask in both.
    prompt = " / ".join(translator(loc).gettext("Language") for loc in LOCALES)
    while True:
        try:
            answer = input_fn(f"{prompt} [{'/'.join(LOCALES)}]: ").strip().lower()
        except EOFError:
            return LOCALES[0]
        if not answer:
            return LOCALES[0]
        if answer[:2] in LOCALES:
            return answer[:2]
        output("ru / en")


def _bots_only(
    service: GameService, tr: Translator, args: argparse.Namespace, output: OutputFn
) -> int:
    from kolkhoz_tg import present
    from kolkhoz_tg.service.payloads import GameOver

    service.ensure_user(HOST_USER, tr.gettext("Host"))
    _clear_lobby(service, HOST_USER)
    game = service.create_game(LOCAL_CHAT, HOST_USER, preset=args.preset,
                               players=args.players, seed=args.seed, join=False)
    result = service.start(game.id, HOST_USER, fill_with_ai=True)
    over = [n.payload for n in result.notifications if isinstance(n.payload, GameOver)]
    service.mark_delivered(n.id for n in result.notifications)
    rules = present.rules_title(tr, game.preset, game.rules)
    output(tr.gettext("{rules} · seed {seed}", rules=rules, seed=game.seed))
    if not over:
        output(tr.gettext("The game did not finish."))
        return 1
    output(present.final_table(tr, over[0]))
    return 0


def _play(
    service: GameService,
    tr: Translator,
    args: argparse.Namespace,
    input_fn: InputFn,
    output: OutputFn,
) -> int:
    # A name, not a pronoun: it goes into third-person sentences ("Player takes the trick").
    name = args.name or tr.gettext("Player")
    service.ensure_user(LOCAL_USER, name, tr.locale)
    service.set_user_locale(LOCAL_USER, tr.locale)
    game_id = None
    if not args.new:
        stopped, game_id = _resume(service, tr, args, input_fn, output)
        if stopped:
            return 0
    # Whatever happened while away (or in an earlier session) is not news any more.
    service.mark_delivered(n.id for n in service.pending_notifications(10_000))
    if game_id is None:
        game_id = _new_game(service, tr, args, name, output)
    while True:
        mine = _show_turn(service, tr, game_id, output)
        if mine is None or not _take_turn(service, tr, args, game_id, mine, input_fn, output):
            return 0


def _resume(
    service: GameService, tr: Translator, args: argparse.Namespace, input_fn: InputFn,
    output: OutputFn,
) -> tuple[bool, int | None]:
    """Ask whether to go on with the running game, if there is one: (stopped at the
    question, the game to go on with or None for a new one; a declined game is aborted)."""
    from kolkhoz_tg.storage.models import GameStatus  # lazily: the health check's import
    _ = tr.gettext
    running = [g for g in service.games_of_user(LOCAL_USER) if g.status == GameStatus.ACTIVE]
    if not running:
        return False, None
    # «н» is the Russian prompt's "no" ([Д/н]) but the key of the English one's "y"
    # ([Y/n]) in the Russian layout: the prompt's own letters win.
    yes, no = ((YES_WORDS - NO_WORDS, NO_WORDS) if tr.locale == "ru"
               else (YES_WORDS, NO_WORDS - YES_WORDS))
    while True:
        answer = _read(input_fn, _("Continue your unfinished game? [Y/n]: "))
        if answer is None:
            output("")  # Ctrl-D leaves the cursor on the prompt's line
            output(_("Game saved. Run {command} again to continue.",
                     command=again_command(args)))
            return True, None
        word = answer.strip().lower()
        if word in yes:
            return False, running[0].id
        if word in no:
            service.abort(running[0].id, LOCAL_USER, force=True)
            return False, None


def _new_game(
    service: GameService, tr: Translator, args: argparse.Namespace, name: str, output: OutputFn,
) -> int:
    """Deal a new game against bots and show its first moves; its id."""
    from kolkhoz_tg import present

    _clear_lobby(service, LOCAL_USER)
    # A local game has no clock running (nobody sweeps it): the longest time limit, and
    # the deadline is not shown.
    game = service.create_game(LOCAL_CHAT, LOCAL_USER, creator_name=name,
                               preset=args.preset, players=args.players, seed=args.seed,
                               turn_timeout="14d")
    output(tr.gettext("New game: {rules} · seed {seed}",
                      rules=present.rules_title(tr, game.preset, game.rules), seed=game.seed))
    result = service.start(game.id, LOCAL_USER, fill_with_ai=True)
    _show(service, tr, result.notifications, output,
          service.seat_view(game.id, LOCAL_USER).seat)
    return game.id


def _show_turn(
    service: GameService, tr: Translator, game_id: int, output: OutputFn,
) -> SeatView | None:
    """Show the board and the hand, and the numbered choices when it is the player's
    turn: their view then, else None (the game is over, or waits for the others)."""
    from kolkhoz_tg import present
    from kolkhoz_tg.storage.models import GameStatus  # lazily: the health check's import

    board = service.board(game_id)
    if board.game.status != GameStatus.ACTIVE or board.view is None:
        return None
    mine = service.seat_view(game_id, LOCAL_USER)
    output("")
    output(present.board_text(tr, board.game, board.view, service.clock.now(), None, mine.seat))
    output(present.hand_text(tr, mine.view))
    if not mine.to_act:
        output(tr.gettext("Waiting for the others…"))
        return None
    names = [present.seat_name(tr, board.game, s) for s in range(board.game.players)]
    output(present.phase_prompt(tr, mine.view, names))
    for i, action in enumerate(mine.view.legal, 1):
        output(f"  {i:>2}. {present.action_label(tr, mine.view, action)}")
    return mine


def _take_turn(
    service: GameService, tr: Translator, args: argparse.Namespace, game_id: int,
    mine: SeatView, input_fn: InputFn, output: OutputFn,
) -> bool:
    """Ask until a move is made (a wrong answer is told in one line, under the same board)
    or the board is to be shown again; False when the player stops."""
    from kolkhoz_tg import present

    _ = tr.gettext
    while True:
        answer = _read(input_fn, _("Your choice (number or card; help, rules; q to stop, "
                                   "resume later): "))
        word = "" if answer is None else answer.strip()
        if answer is None or word.lower() in QUIT_WORDS:
            if answer is None:
                output("")  # Ctrl-D leaves the cursor on the prompt's line
            output(_("Game saved. Run {command} again to continue.",
                     command=again_command(args)))
            return False
        if not word:
            continue
        if word.lower() in RULES_WORDS:
            show_long(rules_text(tr), output)
            return True  # the board again: the rules have scrolled it away
        if word.lower() in HELP_WORDS:
            output(_("Type the number of a choice, or a card like 10H, QS, 10ч or Вп; "
                     "for the Brigadier a card and a suit, like 10H S. Cards in brackets "
                     "cannot be played now. rules shows the rules of the game; q stops "
                     "(the game is saved)."))
            continue
        choice = parse_action(word, mine.legal)
        if choice is None:
            output(_("Not a choice: {text}. Type a number from the list, or help.", text=word))
            continue
        # A move the rules forbid is still sent: the service says why, and nothing changes.
        result = service.act(game_id, LOCAL_USER, choice, mine.game.version)
        if not result.ok:
            output(present.reason_text(tr, result.reason or result.status.value, mine.view))
            if result.status.value in ("illegal", "invalid"):
                continue  # the same board: try again
            return True  # the game moved on or stopped: show it again
        _show(service, tr, result.notifications, output, mine.seat)
        return True


def show_long(text: str, output: OutputFn) -> None:
    """Show a long text (the rules): page by page through the standard pager (``$PAGER``,
    else ``less`` or ``more``) when a person reads the terminal, else as it is."""
    if output is print and sys.stdin.isatty() and sys.stdout.isatty():
        import pydoc

        pydoc.pager(text)
    else:
        output(text)


def rules_text(tr: Translator, width: int | None = None) -> str:
    """The players' rules (docs/RULES.md, docs/RULES.ru.md) in ``tr``'s language as plain
    text wrapped to ``width`` columns (default: the terminal's, at most 100); a pointer to the
    docs where they are not installed."""
    text = plain_rules(tr.locale)
    if text is None:
        return tr.gettext("The rules for players are not installed here: see docs/RULES.md "
                          "in the project.")
    width = width or min(shutil.get_terminal_size().columns, 100)
    lines: list[str] = []
    for line in text.splitlines():
        item = re.match(r"\s*(?:[-•]|\d+\.)\s+", line)
        indent = " " * (item.end() if item else 0)
        lines.extend(textwrap.wrap(line, width, subsequent_indent=indent,
                                   break_long_words=False, break_on_hyphens=False) or [""])
    return "\n".join(lines)


def _read(input_fn: InputFn, prompt: str) -> str | None:
    """The answer; None at the end of the input (Ctrl-D). Ctrl-C goes up to :func:`run`."""
    try:
        return input_fn(prompt)
    except EOFError:
        return None


def _show(
    service: GameService, tr: Translator, notes: list[Notification], output: OutputFn,
    seat: int | None = None,
) -> None:
    from kolkhoz_tg import present
    from kolkhoz_tg.service import Kind
    from kolkhoz_tg.service.payloads import BoardChanged

    now = service.clock.now()
    # The moves first (with the year's requisition where it happened), then the final table.
    for note in sorted(notes, key=lambda n: n.kind is not Kind.BOARD):
        if note.kind in (Kind.YOUR_TURN, Kind.NEW_HAND, Kind.GAME_STARTED, Kind.YEAR_SUMMARY):
            continue
        if note.user_id not in (None, LOCAL_USER):
            continue
        board = note.payload
        if isinstance(board, BoardChanged):
            text = "\n".join(present.event_lines(tr, board.game, board.moves,
                                                 board.view.rules.theme.value, year_end=True,
                                                 viewer=seat))
        else:
            text = present.notification_text(tr, note, now)
        if text:
            output(text)
    service.mark_delivered(n.id for n in notes)


def parse_choice(answer: str, legal: list[str]) -> str | None:
    """A legal action from what was typed (see :func:`parse_action`); None if nothing legal
    matches."""
    action = parse_action(answer, legal)
    return action if action in legal else None


def parse_action(answer: str, legal: list[str]) -> str | None:
    """The action meant by what was typed, legal or not (an illegal one is refused with its
    reason by the service): a number from the list of ``legal`` actions, an action text
    (``play:10H``), a card (``10H``, ``10ч``, ``Вп``), a card and a suit for the brigadier
    (``10H S``), a suit for trump, a card to pass (house rule), ``pass`` or two cards for
    the swap; Latin letters typed
    in the Russian layout too (``10Р`` for ``10H``, ``ЙЫ`` for ``QS``: no card written with
    Russian letters reads both ways). The kind of action is the one ``legal`` asks for. None
    if the text means no action of that kind."""
    action = _parse_action(answer, legal)
    if action is None and (latin := latin_layout(answer)) != answer:
        action = _parse_action(latin, legal)
    return action


def _parse_action(answer: str, legal: list[str]) -> str | None:
    text = answer.strip()
    if not text:
        return None
    if text.isdecimal():
        index = int(text) - 1
        return legal[index] if 0 <= index < len(legal) else None
    try:
        return Action.parse(text).text
    except InvalidAction:
        pass
    actions = [Action.parse(a) for a in legal]
    command = _command_for({a.kind for a in actions})
    try:
        return parse_typed(command, text, strict=False,
                           job_of=lambda card: _job_of(card, actions))
    except TypedError:
        return None


def _command_for(kinds: set[ActionKind]) -> str:
    """The typed command an answer stands for, from the kinds of action asked for."""
    if kinds == {ActionKind.TRUMP}:
        return "trump"
    for kind, command in ((ActionKind.SWAP, "swap"), (ActionKind.PASS, "pass"),
                          (ActionKind.PLAY, "play")):
        if kind in kinds:
            return command
    return "assign"


def _job_of(card: int, actions: list[Action]) -> Suit | None:
    """The job of ``card`` named without it: a card of the trick with several jobs open needs
    its job (None); one not in the trick is sent as it is, to be refused with the reason."""
    options = [a.suit for a in actions if a.kind is ActionKind.ASSIGN and a.card_id == card]
    if len(options) == 1:
        return options[0]
    if not options:
        return next(a.suit for a in actions if a.suit is not None)
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kolkhoz play", add_help=False)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
