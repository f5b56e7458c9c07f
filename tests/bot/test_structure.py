"""The shape of the handlers: a tap goes to a small handler of its kind, and the commands
share one preamble instead of copying it."""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from typing import Any

from kolkhoz_tg.bot import buttons, chat_settings, commands, context, history
from kolkhoz_tg.bot.callbacks import KINDS
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.present import errors
from kolkhoz_tg.service import GameService
from tests.bot.conftest import make_app
from tests.bot.driver import players
from tests.faketg import FakeTelegram

#: About a screenful: a handler longer than this is doing more than one thing.
SMALL = 30


def lines_of(fn: Callable[..., Any]) -> int:
    return len(inspect.getsourcelines(fn)[0])


def test_every_kind_of_button_has_a_small_handler() -> None:
    # a move ("a") skips the table's checks: its one service call makes them
    assert set(buttons.TAP_HANDLERS) | {"a"} == KINDS
    for kind, handler in {**buttons.TAP_HANDLERS, "a": buttons._action_tap}.items():
        assert lines_of(handler) <= SMALL, kind
    assert lines_of(buttons.on_callback) <= 2 * SMALL


# ---------------------------------------------------------------------- commands

#: The modules of command handlers.
COMMAND_MODULES = (commands, chat_settings, history)
#: The context helpers behind the preamble: only :func:`context.command` (and the lobby
#: operation a button shares with the commands) may call them, and ``reply`` is ``Cmd.reply``.
PREAMBLE = {"deps", "remember_user", "reader_tr", "group_tr", "reply"}
#: Which may call one of them anyway, and why.
EXCEPTIONS = {
    "command": PREAMBLE,
    "lobby_op": PREAMBLE,  # a lobby button's tap too, which is no command
    "cmd_newgame": {"group_tr"},  # the chat's language, once /newgame has settled it
}
NO_GAME = ("There is no open game here. Start one with /newgame.",
           "You have no game in play here.")


def _calls(fn: ast.AST) -> set[str]:
    return {node.func.id for node in ast.walk(fn)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}


def test_the_commands_share_one_preamble() -> None:
    for module in COMMAND_MODULES:
        tree = ast.parse(inspect.getsource(module))
        functions = {node.name: node for node in tree.body
                     if isinstance(node, ast.AsyncFunctionDef)}
        for name, fn in functions.items():
            assert not _calls(fn) & PREAMBLE - EXCEPTIONS.get(name, set()), name
            if name.startswith("cmd_") or name.endswith("_command"):
                assert _calls(fn) & {"command", "_public_reply", "cmd_help"}, name
    sources = [inspect.getsource(m) for m in (*COMMAND_MODULES, context, errors)]
    for text in NO_GAME:  # said in one place each (present.errors), for the preamble's Cmd
        assert sum(source.count(f'"{text}"') for source in sources) == 1, text


async def test_a_command_without_its_game_says_so_in_the_right_language(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, base=3100)
    anna, boris = users[0], users[1]
    group = fake.create_group("Preamble", users[:2])
    async with fake.running(make_app(fake, service)):
        await anna.start_bot()
        for text in ("/kick 1", "/pause", "/join"):  # the group's game only
            await anna.send(None, text)
            assert anna.last_message().text == NO_GAME[0], text  # type: ignore[union-attr]
        await anna.send(None, "/board")  # in private: the game waiting for her
        assert anna.last_message().text == NO_GAME[0]  # type: ignore[union-attr]
        for text in ("/hand", "/last", "/score", "/play 10H"):
            await anna.send(None, text)
            assert anna.last_message().text == NO_GAME[1], text  # type: ignore[union-attr]
        await anna.send(group, "/kick 1")
        assert fake.last_message(group).text == NO_GAME[0]  # type: ignore[union-attr]
        await anna.send(group, "/newgame")
        await anna.send(group, "/lang ru")  # the creator may
        await boris.send(group, "/last")  # a lobby has no trick yet: in the chat's language
        said = fake.last_message(group).text  # type: ignore[union-attr]
        assert said == translator("ru").gettext(NO_GAME[1])
        await anna.send(group, "/hand")  # seated, but nothing dealt yet
        assert fake.last_message(group).text == translator("en").gettext(  # type: ignore[union-attr]
            NO_GAME[1])
        # A typed move in the lobby reaches the service, which says the game is not running.
        await anna.send(group, "/play 10H")
        assert fake.last_message(group).text == "The game is not running."  # type: ignore[union-attr]
        await boris.send(group, "/play 10H")  # no seat
        assert fake.last_message(group).text == NO_GAME[1]  # type: ignore[union-attr]
