"""The ``kolkhoz`` command: ``kolkhoz play`` (terminal game), ``kolkhoz bot`` (Telegram),
``kolkhoz health`` (is the running bot well?), ``kolkhoz engine`` (the compiled engine) and
the operator commands ``kolkhoz db …`` / ``kolkhoz games …``.

Each command imports what it uses and nothing more: the Telegram libraries only for ``bot``,
the database only for what opens one, so ``kolkhoz play --help`` or a terminal game does not
pay for python-telegram-bot, and importing this module loads neither, nor the engine: a
command that plays (``play``, ``bot``) first puts the compiled engine in its place when it
is built (:mod:`kolkhoz_tg.compiled_engine`).
"""

from __future__ import annotations

import argparse
import sys

from kolkhoz_tg import compiled_engine
from kolkhoz_tg.config import Settings
from kolkhoz_tg.i18n import translator

#: ``kolkhoz_tg.admin.COMMANDS``, spelled out so that choosing another command does not import
#: the admin module (and SQLAlchemy with it); tests/test_cli_imports.py checks they agree.
ADMIN_COMMANDS = ("db", "games")
#: Commands whose parsers need nothing heavy; any other first word builds the whole parser.
LIGHT_COMMANDS = ("play", "bot", "health", "engine")
#: Commands that play, and so think with the compiled engine when there is one.
PLAYING_COMMANDS = (None, "play", "bot")


def _bot(settings: Settings, webhook: str | None = None) -> int:
    """``webhook``: None for polling, the URL for webhook mode, "" for the URL in
    ``KOLKHOZ_WEBHOOK_URL`` (``kolkhoz bot --webhook`` alone)."""
    tr = translator(settings.locale)
    if settings.bot_token is None or not settings.bot_token.get_secret_value().strip():
        print(tr.gettext("KOLKHOZ_BOT_TOKEN is not set: put the bot's token from @BotFather "
                         "in the environment or in .env (or play in the terminal: kolkhoz "
                         "play)."), file=sys.stderr)
        return 2
    if webhook == "":
        webhook = (settings.webhook_url or "").strip()
        if not webhook:
            print("kolkhoz bot: --webhook without a URL needs KOLKHOZ_WEBHOOK_URL "
                  "(e.g. https://bot.example.org)", file=sys.stderr)
            return 2
    from kolkhoz_tg.bot.main import run

    return run(settings, webhook_url=webhook)


def _first_word(argv: list[str]) -> str | None:
    """The command named in ``argv``: its first word that is not an option."""
    return next((arg for arg in argv if not arg.startswith("-")), None)


def build_parser(with_admin: bool = True) -> argparse.ArgumentParser:
    """The ``kolkhoz`` parser. ``with_admin`` adds ``db`` and ``games``, which import the
    database layer; without it only :data:`LIGHT_COMMANDS` are known."""
    from kolkhoz_tg import health, terminal

    parser = argparse.ArgumentParser(prog="kolkhoz", description="Kolkhoz play-by-post")
    commands = parser.add_subparsers(dest="command")
    # Its help is the player's: in their language, -h included (terminal.add_arguments).
    play = commands.add_parser("play", help="play in the terminal against bots", add_help=False)
    terminal.add_arguments(play)
    bot = commands.add_parser("bot", help="run the Telegram bot (needs KOLKHOZ_BOT_TOKEN)")
    bot.add_argument(
        "--webhook", metavar="URL", nargs="?", const="",
        help="webhook mode: Telegram posts updates to URL (e.g. https://bot.example.org; "
             "default: KOLKHOZ_WEBHOOK_URL); listens on "
             "KOLKHOZ_WEBHOOK_LISTEN:KOLKHOZ_WEBHOOK_PORT, health at /healthz",
    )
    check = commands.add_parser(
        "health", help="exit 0 if the running bot is healthy (for Docker's HEALTHCHECK)",
        description="Read the heartbeat the running bot writes to KOLKHOZ_HEALTH_FILE: "
                    "healthy when it is fresh, the bot's last database check succeeded "
                    "and, polling, its last getUpdates did (webhook: /healthz answers).",
    )
    health.add_arguments(check)
    engine = commands.add_parser(
        "engine", help="build the compiled engine (faster bots, the same moves)",
        description="The rules engine compiled with mypyc: bots make the same moves about "
                    "2.5 times as fast. `kolkhoz play` and `kolkhoz bot` use it when it is built "
                    "for these sources (KOLKHOZ_ENGINE=auto|compiled|plain).")
    engine.add_argument("action", choices=("build", "status"),
                        help="build: compile it (a C compiler, Python's headers and mypy; "
                             "about a minute), unless built already; status: say whether it "
                             "is built for these sources")
    engine.add_argument("--if-possible", action="store_true",
                        help="build: where it cannot be built, say why and exit 0")
    if with_admin:
        from kolkhoz_tg import admin

        admin.add_commands(commands)
    return parser


def _engine(args: argparse.Namespace) -> int:
    """``kolkhoz engine build|status``."""
    settings = Settings()
    if args.action == "status":
        found = compiled_engine.built(settings.engine_cache)
        if found is not None:
            print(f"compiled for these sources: {found}")
            return 0
        why = compiled_engine.missing_tools()
        print("not compiled for these sources"
              + (f"; it cannot be built here: {why}" if why else ": kolkhoz engine build"))
        return 1
    try:
        print(f"the compiled engine: {compiled_engine.build(settings.engine_cache)}")
    except compiled_engine.Unavailable as e:
        print(f"kolkhoz engine build: {e}", file=sys.stderr)
        if args.if_possible and compiled_engine.missing_tools() is not None:
            print("the bots think with the plain engine (the same moves, slower)",
                  file=sys.stderr)
            return 0
        return 1
    return 0


def _activate_engine() -> int:
    """Put the compiled engine in place as ``KOLKHOZ_ENGINE`` says, before the engine is
    imported; 0, or 2 with the reason printed where it is required and missing."""
    from pydantic import ValidationError

    try:
        settings = Settings()
    except ValidationError:  # the command itself reports the bad setting
        return 0
    try:
        compiled_engine.activate(settings.engine, settings.engine_cache)
    except compiled_engine.Unavailable as e:
        print(f"kolkhoz: {e}", file=sys.stderr)
        return 2
    return 0


def main(argv: list[str] | None = None) -> int:
    args_in = sys.argv[1:] if argv is None else argv
    word = _first_word(args_in)
    if word in PLAYING_COMMANDS and "engine" not in sys.modules:
        failed = _activate_engine()
        if failed:
            return failed
    # Top-level help, an unknown word and the operator commands need the whole parser;
    # ``play`` and ``bot`` (and no word at all: a terminal game) do not.
    light = word in LIGHT_COMMANDS or not args_in
    parser = build_parser(with_admin=not light)
    args = parser.parse_args(args_in)
    if args.command == "bot":
        return _bot(Settings(), args.webhook)
    if args.command == "health":
        from kolkhoz_tg import health

        return health.run(args)
    if args.command == "engine":
        return _engine(args)
    if args.command in ADMIN_COMMANDS:
        from kolkhoz_tg import admin

        return admin.run(args)
    if args.command is None:
        args = parser.parse_args(["play", *args_in])
    from kolkhoz_tg import terminal

    return terminal.run(args)


if __name__ == "__main__":
    sys.exit(main())
