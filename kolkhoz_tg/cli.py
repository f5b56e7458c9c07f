"""The ``kolkhoz`` command: ``kolkhoz play`` (terminal game), ``kolkhoz bot`` (Telegram),
``kolkhoz health`` (is the running bot well?) and the operator commands ``kolkhoz db …`` /
``kolkhoz games …``.

Each command imports what it uses and nothing more: the Telegram libraries only for ``bot``,
the database only for what opens one, so ``kolkhoz play --help`` or a terminal game does not
pay for python-telegram-bot, and importing this module loads neither.
"""

from __future__ import annotations

import argparse
import sys

from kolkhoz_tg import terminal
from kolkhoz_tg.config import Settings
from kolkhoz_tg.i18n import translator

#: ``kolkhoz_tg.admin.COMMANDS``, spelled out so that choosing another command does not import
#: the admin module (and SQLAlchemy with it); tests/test_cli_imports.py checks they agree.
ADMIN_COMMANDS = ("db", "games")
#: Commands whose parsers need nothing heavy; any other first word builds the whole parser.
LIGHT_COMMANDS = ("play", "bot", "health")


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
    database layer; without it only ``play`` and ``bot`` are known."""
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
    from kolkhoz_tg import health

    check = commands.add_parser(
        "health", help="exit 0 if the running bot is healthy (for Docker's HEALTHCHECK)",
        description="Read the heartbeat the running bot writes to KOLKHOZ_HEALTH_FILE: "
                    "healthy when it is fresh, the bot's last database check succeeded "
                    "and, polling, its last getUpdates did (webhook: /healthz answers).",
    )
    health.add_arguments(check)
    if with_admin:
        from kolkhoz_tg import admin

        admin.add_commands(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    args_in = sys.argv[1:] if argv is None else argv
    word = _first_word(args_in)
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
    if args.command in ADMIN_COMMANDS:
        from kolkhoz_tg import admin

        return admin.run(args)
    if args.command is None:
        args = parser.parse_args(["play", *args_in])
    return terminal.run(args)


if __name__ == "__main__":
    sys.exit(main())
