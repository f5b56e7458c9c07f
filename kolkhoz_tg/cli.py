"""The ``kolkhoz`` command: ``kolkhoz play`` (terminal game) and ``kolkhoz bot`` (Telegram)."""

from __future__ import annotations

import argparse
import importlib
import sys

from kolkhoz_tg import admin, terminal
from kolkhoz_tg.config import Settings
from kolkhoz_tg.i18n import translator


def _bot(settings: Settings) -> int:
    tr = translator(settings.locale)
    if settings.bot_token is None or not settings.bot_token.get_secret_value().strip():
        print(tr.gettext("KOLKHOZ_BOT_TOKEN is not set: put the bot's token from @BotFather "
                         "in the environment or in .env (or play in the terminal: kolkhoz "
                         "play)."), file=sys.stderr)
        return 2
    try:
        app = importlib.import_module("kolkhoz_tg.bot.app")
    except ModuleNotFoundError as e:
        if e.name not in ("kolkhoz_tg.bot.app", "kolkhoz_tg.bot"):
            raise
        print(tr.gettext("The Telegram bot is not part of this version yet; play in the "
                         "terminal with: kolkhoz play"), file=sys.stderr)
        return 2
    result = app.run(settings)
    return int(result or 0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kolkhoz", description="Kolkhoz play-by-post")
    commands = parser.add_subparsers(dest="command")
    play = commands.add_parser("play", help="play in the terminal against bots")
    terminal.add_arguments(play)
    commands.add_parser("bot", help="run the Telegram bot (needs KOLKHOZ_BOT_TOKEN)")
    admin.add_commands(commands)
    args = parser.parse_args(argv)
    if args.command == "bot":
        return _bot(Settings())
    if args.command in admin.COMMANDS:
        return admin.run(args)
    if args.command is None:
        args = parser.parse_args(["play", *(argv or sys.argv[1:])])
    return terminal.run(args)


if __name__ == "__main__":
    sys.exit(main())
