"""The ``kolkhoz`` command: ``kolkhoz play`` (terminal game) and ``kolkhoz bot`` (Telegram)."""

from __future__ import annotations

import argparse
import sys

from kolkhoz_tg import admin, terminal
from kolkhoz_tg.config import Settings
from kolkhoz_tg.i18n import translator


def _bot(settings: Settings, webhook: str | None = None) -> int:
    tr = translator(settings.locale)
    if settings.bot_token is None or not settings.bot_token.get_secret_value().strip():
        print(tr.gettext("KOLKHOZ_BOT_TOKEN is not set: put the bot's token from @BotFather "
                         "in the environment or in .env (or play in the terminal: kolkhoz "
                         "play)."), file=sys.stderr)
        return 2
    from kolkhoz_tg.bot.app import run

    return run(settings, webhook_url=webhook)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kolkhoz", description="Kolkhoz play-by-post")
    commands = parser.add_subparsers(dest="command")
    play = commands.add_parser("play", help="play in the terminal against bots")
    terminal.add_arguments(play)
    bot = commands.add_parser("bot", help="run the Telegram bot (needs KOLKHOZ_BOT_TOKEN)")
    bot.add_argument(
        "--webhook", metavar="URL",
        help="webhook mode: Telegram posts updates to URL (e.g. https://bot.example.org); "
             "listens on KOLKHOZ_WEBHOOK_LISTEN:KOLKHOZ_WEBHOOK_PORT, health at /healthz",
    )
    admin.add_commands(commands)
    args = parser.parse_args(argv)
    if args.command == "bot":
        return _bot(Settings(), args.webhook)
    if args.command in admin.COMMANDS:
        return admin.run(args)
    if args.command is None:
        args = parser.parse_args(["play", *(argv or sys.argv[1:])])
    return terminal.run(args)


if __name__ == "__main__":
    sys.exit(main())
