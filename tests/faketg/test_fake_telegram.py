"""The fake Telegram against a real PTB Application, over both transports, and its strictness."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dtm
import json
from typing import Any

import httpx
import pytest
from telegram import (
    Bot,
    BotCommand,
    BotCommandScopeAllGroupChats,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InputTextMessageContent,
    Message,
    Update,
)
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Conflict,
    Forbidden,
    InvalidToken,
    NetworkError,
    RetryAfter,
    TimedOut,
)
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    ChosenInlineResultHandler,
    CommandHandler,
    ContextTypes,
    InlineQueryHandler,
    MessageHandler,
    filters,
)

from tests.faketg import (
    FakeBotApiServer,
    FakeRequest,
    FakeTelegram,
    StoredMessage,
    inprocess_builder,
    parse_html,
    parse_markdown_v2,
)

from .conftest import AppFactory

App = Application[Any, Any, Any, Any, Any, Any]


# --------------------------------------------------------------------------- the tiny bot
def menu_markup() -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton("Red", callback_data="color:red"),
                InlineKeyboardButton("Blue", callback_data="color:blue"),
            ],
            [InlineKeyboardButton("Rules", url="https://example.org/rules")],
        ]
    )


def add_tiny_bot(app: App, seen: dict[str, list[Any]]) -> App:
    """A /start handler, a keyboard command, a button handler, inline mode, an echo."""

    async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_message and update.effective_user
        payload = " ".join(context.args or [])
        await update.effective_message.reply_text(
            f"Hello, <b>{update.effective_user.first_name}</b>! payload={payload or '-'}",
            parse_mode="HTML",
        )

    async def menu(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_message
        await update.effective_message.reply_text("Pick a colour", reply_markup=menu_markup())

    async def button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        assert query and query.data
        await query.answer(f"You picked {query.data.split(':')[1]}")
        await query.edit_message_text(
            f"Picked: {query.data.split(':')[1]}", reply_markup=menu_markup()
        )

    async def inline(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.inline_query
        assert query
        results = [
            InlineQueryResultArticle(
                id=f"r{i}",
                title=f"{query.query} #{i}",
                input_message_content=InputTextMessageContent(
                    f"<i>{query.query}</i> #{i}", parse_mode="HTML"
                ),
                reply_markup=InlineKeyboardMarkup(
                    [[InlineKeyboardButton("Vote", callback_data=f"vote:{i}")]]
                ),
            )
            for i in range(3)
        ]
        await query.answer(results, cache_time=0)

    async def chosen(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.chosen_inline_result
        seen["chosen"].append(update.chosen_inline_result)

    async def vote(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        assert query and query.inline_message_id
        await query.answer("Voted")
        await query.edit_message_text("Voted!")

    async def echo(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_message and update.effective_message.text
        seen["echo"].append(update.effective_message.text)
        await update.effective_message.reply_text(update.effective_message.text)

    async def status(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        seen["status"].append(update)

    app.add_handler(CommandHandler("start", start))
    app.add_handler(CommandHandler("menu", menu))
    app.add_handler(CallbackQueryHandler(vote, pattern=r"^vote:"))
    app.add_handler(CallbackQueryHandler(button, pattern=r"^color:"))
    app.add_handler(InlineQueryHandler(inline))
    app.add_handler(ChosenInlineResultHandler(chosen))
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, status))
    app.add_handler(MessageHandler(filters.TEXT & ~filters.COMMAND, echo))
    return app


def seen_dict() -> dict[str, list[Any]]:
    return {"chosen": [], "echo": [], "status": []}


# --------------------------------------------------------------------------- end to end
async def test_start_and_deep_link(fake: FakeTelegram, app_factory: AppFactory) -> None:
    app = add_tiny_bot(app_factory(), seen_dict())
    alice = fake.user(101, "Alice")
    async with fake.running(app):
        await alice.start_bot("game-42")
        reply = fake.last_message(alice)
        assert reply is not None
        assert reply.text == "Hello, Alice! payload=game-42"
        assert reply.entities == [{"type": "bold", "offset": 7, "length": 5}]
    methods = [c.method for c in fake.sent_log]
    assert methods[:3] == ["getMe", "deleteWebhook", "getUpdates"]
    # a long poll cancelled at shutdown is not a failed call, over HTTP too
    assert all(c.ok for c in fake.sent_log), [c for c in fake.sent_log if not c.ok]
    assert len(fake.calls("sendMessage")) == 1
    assert alice.started


async def test_keyboard_tap_answers_and_edits_in_place(
    fake: FakeTelegram, app_factory: AppFactory
) -> None:
    app = add_tiny_bot(app_factory(), seen_dict())
    alice, bob = fake.user(101, "Alice"), fake.user(102, "Bob", language_code="en")
    group = fake.create_group("Kolkhoz", [alice, bob])
    async with fake.running(app):
        await bob.send(group, "/menu@kolkhoz_test_bot")
        board = fake.last_message(group)
        assert board is not None
        assert board.button_texts == ["Red", "Blue", "Rules"]
        assert board.callback_data == ["color:red", "color:blue"]

        answer = await alice.tap(board, "Blue")
        assert answer is not None and answer.text == "You picked blue"
        answer = await bob.tap(board, "color:red")
        assert answer is not None and answer.text == "You picked red"

        current = fake.message(group, board.message_id)
        assert current.text == "Picked: red"
        assert current.edits == 2
        assert [h[0] for h in current.history] == ["Pick a colour", "Picked: blue"]
        assert len(fake.bot_messages(group)) == 1  # edited in place, not a new message
        with pytest.raises(LookupError):
            await alice.tap(board, "Green")
    fake.assert_all_callbacks_answered()
    assert len(fake.calls("answerCallbackQuery")) == 2


async def test_inline_query_and_chosen_result(fake: FakeTelegram, app_factory: AppFactory) -> None:
    seen = seen_dict()
    app = add_tiny_bot(app_factory(), seen)
    alice = fake.user(101, "Alice")
    group = fake.create_group("Kolkhoz", [alice])
    async with fake.running(app):
        answer = await alice.inline_query("hand")
        assert answer is not None
        assert [r["title"] for r in answer.results] == ["hand #0", "hand #1", "hand #2"]
        sent = await alice.choose_inline_result(answer, "r1", group)
        assert sent.text == "hand #1"
        assert sent.entities == [{"type": "italic", "offset": 0, "length": 4}]
        assert sent.inline_message_id is not None
        assert len(seen["chosen"]) == 1
        assert seen["chosen"][0].result_id == "r1"
        assert seen["chosen"][0].inline_message_id == sent.inline_message_id

        vote = await alice.tap(sent, "Vote")
        assert vote is not None and vote.text == "Voted"
        assert fake.inline_messages[sent.inline_message_id].text == "Voted!"


async def test_privacy_mode_and_echo(fake: FakeTelegram, app_factory: AppFactory) -> None:
    seen = seen_dict()
    app = add_tiny_bot(app_factory(), seen)
    alice = fake.user(101, "Alice")
    group = fake.create_group("Kolkhoz", [alice])
    async with fake.running(app):
        await alice.send(group, "just chatting")  # privacy mode: the bot never sees it
        await alice.send(group, "/menu@some_other_bot")  # not for us
        assert fake.bot_messages(group) == []
        await alice.send(None, "hi in private")
        assert seen["echo"] == ["hi in private"]
        assert fake.last_message(alice).text == "hi in private"  # type: ignore[union-attr]
        await alice.send(group, "/menu")
        board = fake.last_message(group)
        assert board is not None
        await alice.send(group, "a reply to the bot", reply_to=board)  # replies do reach it
        assert seen["echo"] == ["hi in private", "a reply to the bot"]


async def test_wait_idle_covers_slow_and_non_blocking_handlers(
    fake: FakeTelegram, app_factory: AppFactory
) -> None:
    app = app_factory()

    async def slow(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_chat
        for i in range(3):
            await asyncio.sleep(0.02)
            await context.bot.send_message(update.effective_chat.id, f"step {i}")

    async def background(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_chat
        await asyncio.sleep(0.03)
        await context.bot.send_message(update.effective_chat.id, "background done")

    app.add_handler(CommandHandler("slow", slow))
    app.add_handler(CommandHandler("bg", background, block=False))
    users = [fake.user(200 + i, f"U{i}") for i in range(5)]
    async with fake.running(app):
        for u in users:
            await u.send(None, "/slow", wait=False)
            await u.send(None, "/bg", wait=False)
        await fake.wait_idle()
        for u in users:
            texts = [m.text or "" for m in fake.bot_messages(u)]
            assert sorted(texts) == ["background done", "step 0", "step 1", "step 2"]
            assert [t for t in texts if t.startswith("step")] == ["step 0", "step 1", "step 2"]
        assert fake.pending_updates == []


async def test_handler_errors_fail_the_test(fake: FakeTelegram) -> None:
    app = inprocess_builder(fake).build()

    async def boom(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        raise RuntimeError("handler bug")

    app.add_handler(CommandHandler("boom", boom))
    alice = fake.user(101, "Alice")
    with pytest.raises(AssertionError, match="handler bug"):
        async with fake.running(app):
            await alice.send(None, "/boom")
    assert isinstance(fake.app_errors[0], RuntimeError)


async def test_unanswered_callback_fails_the_test(fake: FakeTelegram) -> None:
    app = inprocess_builder(fake).build()

    async def menu(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_message
        await update.effective_message.reply_text("Pick", reply_markup=menu_markup())

    async def silent(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        pass  # forgets query.answer()

    app.add_handler(CommandHandler("menu", menu))
    app.add_handler(CallbackQueryHandler(silent))
    alice = fake.user(101, "Alice")
    with pytest.raises(AssertionError, match="never answered"):
        async with fake.running(app):
            await alice.send(None, "/menu")
            board = fake.last_message(alice)
            assert board is not None
            assert await alice.tap(board, "Red") is None


async def test_direct_mode_without_updater(fake: FakeTelegram) -> None:
    app = add_tiny_bot(inprocess_builder(fake).build(), seen_dict())
    alice = fake.user(101, "Alice")
    async with fake.running(app, mode="direct"):
        await alice.start_bot()
        assert fake.last_message(alice).text == "Hello, Alice! payload=-"  # type: ignore[union-attr]
    assert fake.calls("getUpdates") == []


async def test_webhook_mode(fake: FakeTelegram, server: FakeBotApiServer) -> None:
    app = add_tiny_bot(server.builder().build(), seen_dict())
    alice = fake.user(101, "Alice")
    async with fake.running(app, mode="webhook"):
        assert fake.webhook is not None
        assert fake.webhook["secret_token"] == "fake-secret"
        await alice.start_bot("hook")
        assert fake.last_message(alice).text == "Hello, Alice! payload=hook"  # type: ignore[union-attr]
        assert fake.webhook_deliveries and all(s == 200 for _, s in fake.webhook_deliveries)
    assert fake.webhook_log[0]["action"] == "set"


async def test_migration_service_messages_and_chat_migrated(
    fake: FakeTelegram, app_factory: AppFactory
) -> None:
    seen = seen_dict()
    app = add_tiny_bot(app_factory(), seen)
    alice = fake.user(101, "Alice")
    group = fake.create_group("Kolkhoz", [alice])
    async with fake.running(app):
        await alice.send(group, "/menu")
        new = fake.migrate_to_supergroup(group)
        await fake.wait_idle()
        assert [u.effective_message.migrate_to_chat_id for u in seen["status"]] == [new.id, None]
        assert seen["status"][1].effective_message.migrate_from_chat_id == group.id
        with pytest.raises(ChatMigrated) as info:
            await app.bot.send_message(group.id, "still there?")
        assert info.value.new_chat_id == new.id
        await app.bot.send_message(new.id, "moved")
        assert fake.last_message(new).text == "moved"  # type: ignore[union-attr]
        assert new.type == "supergroup" and str(new.id).startswith("-100")


# --------------------------------------------------------------------------- strictness
async def test_text_length_is_checked_after_entity_parsing(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.user(101, "Alice")
    await alice.start_bot(wait=False)
    await bot.send_message(alice.id, "x" * 4096)
    await bot.send_message(alice.id, "<b>" + "x" * 4096 + "</b>", parse_mode="HTML")
    with pytest.raises(BadRequest, match="Message is too long"):
        await bot.send_message(alice.id, "x" * 4097)
    with pytest.raises(BadRequest, match="Message text is empty"):
        await bot.send_message(alice.id, "  \n ")
    error = fake.calls("sendMessage", ok=False)[0]
    assert error.error_code == 400
    assert error.description == "Bad Request: message is too long"


@pytest.mark.parametrize(
    ("html", "error"),
    [
        ("<b>bold", 'Can\'t find end tag corresponding to start tag "b"'),
        ("<b>x</i>", 'Unmatched end tag at byte offset 4, expected "</b>", found "</i>"'),
        ("line<br>break", 'Unsupported start tag "br" at byte offset 4'),
        ("1 < 2", 'Unsupported start tag "" at byte offset 2'),
        ("x</b>", "Unexpected end tag at byte offset 1"),
        ('<span class="x">s</span>', 'Tag "span" must have class "tg-spoiler"'),
        ("<b", "Unclosed start tag at byte offset 0"),
        ('<a href="x>y', "Unclosed end of attribute value at byte offset 0"),
    ],
)
async def test_html_must_be_well_formed(
    fake: FakeTelegram, bot: Bot, html: str, error: str
) -> None:
    alice = fake.user(101, "Alice")
    await alice.start_bot(wait=False)
    with pytest.raises(BadRequest, match="Can't parse entities") as info:
        await bot.send_message(alice.id, html, parse_mode="HTML")
    assert error in fake.calls("sendMessage")[-1].description  # type: ignore[operator]
    assert "can't parse entities" in str(info.value).lower()


def test_html_parsing_entities_and_escapes() -> None:
    text, entities = parse_html(
        '&lt;Ура&gt; <b>ж<i>ир</i></b> <a href="https://t.me">👍 link</a> &amp; &#33; &nbsp;'
    )
    assert text == "<Ура> жир 👍 link & ! &nbsp;"
    assert {e["type"] for e in entities} == {"bold", "italic", "text_link"}
    link = next(e for e in entities if e["type"] == "text_link")
    assert (link["offset"], link["length"], link["url"]) == (10, 7, "https://t.me")  # UTF-16


def test_markdown_v2_reserved_characters() -> None:
    assert parse_markdown_v2(r"*bold* and \. end\!") == (
        "bold and . end!",
        [{"type": "bold", "offset": 0, "length": 4}],
    )
    with pytest.raises(Exception, match=r"Character '\.' is reserved"):
        parse_markdown_v2("Hello.")


async def test_callback_data_and_keyboard_limits(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.user(101, "Alice")
    await alice.start_bot(wait=False)

    def kb(data: str) -> InlineKeyboardMarkup:
        return InlineKeyboardMarkup([[InlineKeyboardButton("b", callback_data=data)]])

    await bot.send_message(alice.id, "ok", reply_markup=kb("x" * 64))
    with pytest.raises(BadRequest, match="Button_data_invalid"):
        await bot.send_message(alice.id, "too long", reply_markup=kb("x" * 65))
    with pytest.raises(BadRequest, match="Button_data_invalid"):
        await bot.send_message(alice.id, "bytes, not chars", reply_markup=kb("ж" * 33))
    many = InlineKeyboardMarkup(
        [[InlineKeyboardButton(str(i), callback_data=str(i)) for i in range(8)]] * 13
    )
    with pytest.raises(BadRequest, match="Reply markup is too long"):
        await bot.send_message(alice.id, "104 buttons", reply_markup=many)
    with pytest.raises(BadRequest, match=r"(?i)wrong http url"):
        await bot.send_message(
            alice.id,
            "bad url",
            reply_markup=InlineKeyboardMarkup([[InlineKeyboardButton("u", url="example")]]),
        )
    assert len(fake.bot_messages(alice)) == 1


async def test_edit_rules(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.user(101, "Alice")
    await alice.start_bot(wait=False)
    msg = await bot.send_message(
        alice.id, "<b>board</b>", parse_mode="HTML", reply_markup=menu_markup()
    )
    with pytest.raises(BadRequest, match="Message is not modified") as info:
        await bot.edit_message_text(
            "<b>board</b>", alice.id, msg.message_id, parse_mode="HTML", reply_markup=menu_markup()
        )
    assert fake.calls("editMessageText")[-1].description == (
        "Bad Request: message is not modified: specified new message content and reply markup "
        "are exactly the same as a current content and reply markup of the message"
    )
    assert "not modified" in str(info.value)
    # same text, but dropping the markup (omitting reply_markup removes the keyboard) is a change
    await bot.edit_message_text("<b>board</b>", alice.id, msg.message_id, parse_mode="HTML")
    assert fake.message(alice, msg.message_id).reply_markup is None
    with pytest.raises(BadRequest, match="Message is not modified"):
        await bot.edit_message_reply_markup(alice.id, msg.message_id)
    with pytest.raises(BadRequest, match="Message to edit not found"):
        await bot.edit_message_text("x", alice.id, 9999)
    user_msg = await alice.send(None, "mine", wait=False)
    with pytest.raises(BadRequest, match="Message can't be edited"):
        await bot.edit_message_text("hijack", alice.id, user_msg.message_id)
    await bot.delete_message(alice.id, msg.message_id)
    with pytest.raises(BadRequest, match="Message to delete not found"):
        await bot.delete_message(alice.id, msg.message_id)
    with pytest.raises(BadRequest, match="Message to edit not found"):
        await bot.edit_message_text("gone", alice.id, msg.message_id)


async def test_callback_queries_answered_exactly_once(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.user(101, "Alice")
    await alice.start_bot(wait=False)
    await bot.send_message(alice.id, "Pick", reply_markup=menu_markup())
    board = fake.last_message(alice)
    assert board is not None
    await alice.tap(board, "Red", wait=False)
    await alice.tap(board, "Blue", wait=False)
    first, second = fake.callback_queries
    with pytest.raises(AssertionError, match="never answered"):
        fake.assert_all_callbacks_answered()
    with pytest.raises(BadRequest, match="Message_too_long"):
        await bot.answer_callback_query(first, "x" * 201)
    await bot.answer_callback_query(first, "x" * 200, show_alert=True)
    with pytest.raises(BadRequest, match="Query is too old"):
        await bot.answer_callback_query(first)
    with pytest.raises(BadRequest, match="Query is too old"):
        await bot.answer_callback_query("123")
    await bot.answer_callback_query(second)
    with pytest.raises(AssertionError, match="answered more than once"):
        fake.assert_all_callbacks_answered()
    assert fake.answers_per_callback() == {first: 2, second: 1}
    assert fake.callback_queries[first].answer_count == 2
    assert fake.callback_queries[first].answer == {
        "text": "x" * 200,
        "show_alert": True,
        "url": None,
        "cache_time": None,
    }


async def test_inline_answer_limits(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.user(101, "Alice")
    await alice.inline_query("q", wait=False)
    (query_id,) = fake.inline_queries

    def article(i: int, text: str = "t") -> InlineQueryResultArticle:
        return InlineQueryResultArticle(str(i), f"title {i}", InputTextMessageContent(text))

    with pytest.raises(BadRequest, match="Results_too_much"):
        await bot.answer_inline_query(query_id, [article(i) for i in range(51)])
    with pytest.raises(BadRequest, match="Result_id_duplicate"):
        await bot.answer_inline_query(query_id, [article(1), article(1)])
    with pytest.raises(BadRequest, match="Message_too_long"):
        await bot.answer_inline_query(query_id, [article(1, "x" * 4097)])
    await bot.answer_inline_query(query_id, [article(i) for i in range(50)])
    with pytest.raises(BadRequest, match="Query is too old"):
        await bot.answer_inline_query(query_id, [article(1)])
    assert len(fake.inline_queries[query_id].results or []) == 50


async def test_forbidden_until_started_and_after_block(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.user(101, "Alice")
    with pytest.raises(Forbidden, match="bot can't initiate conversation with a user"):
        await bot.send_message(alice.id, "hi")
    assert fake.calls("sendMessage")[-1].error_code == 403
    with pytest.raises(BadRequest, match="Chat not found"):
        await bot.send_message(999_999, "nobody")
    await alice.start_bot(wait=False)
    await bot.send_message(alice.id, "hi")
    await alice.block_bot(wait=False)
    with pytest.raises(Forbidden, match="bot was blocked by the user"):
        await bot.send_message(alice.id, "hi again")
    assert fake.pending_updates[-1]["my_chat_member"]["new_chat_member"]["status"] == "kicked"
    await alice.unblock_bot(wait=False)
    await bot.send_message(alice.id, "welcome back")


async def test_bot_not_in_group_or_kicked(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.user(101, "Alice")
    group = fake.create_group("G", [alice])
    await bot.send_message(group.id, "hello group")
    fake.set_bot_status(group, "kicked")
    with pytest.raises(Forbidden, match="bot was kicked from the group chat"):
        await bot.send_message(group.id, "still?")
    update = fake.pending_updates[-1]["my_chat_member"]
    assert update["new_chat_member"]["status"] == "kicked"
    await alice.send(group, "/menu", wait=False)  # the bot is gone: it receives nothing
    assert len(fake.pending_updates) == 1
    fake.set_bot_status(group, "left", announce=False)
    with pytest.raises(Forbidden, match="bot is not a member of the group chat"):
        await bot.send_message(group.id, "hello?")


async def test_bot_removed_and_added_back(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.user(101, "Alice")
    group = fake.create_group("G", [alice])
    sent = await bot.send_message(group.id, "board")
    await fake.remove_bot(group, by=alice, wait=False)
    removed = fake.pending_updates[-1]["my_chat_member"]
    assert removed["from"]["id"] == alice.id
    assert (removed["old_chat_member"]["status"], removed["new_chat_member"]["status"]) == (
        "member", "kicked")
    with pytest.raises(Forbidden, match="bot was kicked from the group chat"):
        await bot.edit_message_text("board, edited", chat_id=group.id,
                                    message_id=sent.message_id)
    await fake.add_ai_player(group, by=alice, wait=False)
    added, joined = fake.pending_updates[-2:]
    assert added["my_chat_member"]["new_chat_member"]["status"] == "member"
    assert joined["message"]["new_chat_members"][0]["id"] == fake.bot_id
    await bot.edit_message_text("board, edited", chat_id=group.id, message_id=sent.message_id)
    await fake.remove_bot(group, ban=False, wait=False)
    assert fake.pending_updates[-1]["my_chat_member"]["new_chat_member"]["status"] == "left"


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
async def test_flood_control_raises_retry_after(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.user(101, "Alice")
    await alice.start_bot(wait=False)
    fake.flood("sendMessage", times=2, retry_after=1)
    for _ in range(2):
        with pytest.raises(RetryAfter) as info:
            await bot.send_message(alice.id, "spam")
        assert info.value.retry_after in (1, dtm.timedelta(seconds=1))
    await bot.send_message(alice.id, "calm")
    last_error = fake.calls("sendMessage", ok=False)[-1]
    assert (last_error.error_code, last_error.description) == (
        429,
        "Too Many Requests: retry after 1",
    )


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBUserWarning")
async def test_unknown_method_and_wrong_token(fake: FakeTelegram, bot: Bot) -> None:
    with pytest.raises(BadRequest, match=r"(?i)not implemented by the fake telegram"):
        await bot.do_api_request("sendDice", api_kwargs={"chat_id": 1})
    assert fake.unknown_methods == ["sendDice"]
    wrong = Bot("42:WRONG", request=FakeRequest(fake), get_updates_request=FakeRequest(fake))
    with pytest.raises(InvalidToken, match="rejected by the server"):
        await wrong.initialize()  # calls getMe -> 401 Unauthorized
    assert fake.calls("getMe")[-1].error_code == 401


async def test_commands_per_scope_and_language(fake: FakeTelegram, bot: Bot) -> None:
    await bot.set_my_commands([BotCommand("newgame", "Новая игра")], language_code="ru")
    await bot.set_my_commands([BotCommand("newgame", "New game")])
    await bot.set_my_commands(
        [BotCommand("join", "Join")], scope=BotCommandScopeAllGroupChats(), language_code="en"
    )
    assert fake.my_commands(language_code="ru") == [
        {"command": "newgame", "description": "Новая игра"}
    ]
    assert fake.my_commands()[0]["description"] == "New game"
    assert fake.my_commands({"type": "all_group_chats"}, "en")[0]["command"] == "join"
    got = await bot.get_my_commands(language_code="ru")
    assert got[0].description == "Новая игра"
    with pytest.raises(BadRequest, match="Bot_command_invalid"):
        await bot.set_my_commands([BotCommand("NewGame", "bad")])
    await bot.delete_my_commands(language_code="ru")
    assert fake.my_commands(language_code="ru") == []


async def test_chat_info_members_and_pins(fake: FakeTelegram, bot: Bot) -> None:
    alice, bob = fake.user(101, "Alice"), fake.user(102, "Bob")
    group = fake.create_group("G", [alice, bob], admins=[bob], supergroup=True)
    chat = await bot.get_chat(group.id)
    assert (chat.type, chat.title) == ("supergroup", "G")
    admins = await bot.get_chat_administrators(group.id)
    assert {a.user.id: a.status for a in admins} == {101: "creator", 102: "administrator"}
    me = await bot.get_chat_member(group.id, fake.bot_id)
    assert me.status == "member"
    msg = await bot.send_message(group.id, "board")
    with pytest.raises(BadRequest, match="Not enough rights"):
        await bot.pin_chat_message(group.id, msg.message_id)
    fake.set_bot_status(group, "administrator", announce=False)
    await bot.pin_chat_message(group.id, msg.message_id)
    assert group.pinned == [msg.message_id]
    assert (await bot.get_chat(group.id)).pinned_message.message_id == msg.message_id  # type: ignore[union-attr]
    await bot.unpin_chat_message(group.id, msg.message_id)
    assert group.pinned == []
    await bot.send_chat_action(group.id, "typing")
    assert fake.chat_actions == [(group.id, "typing")]
    assert await bot.get_chat_member_count(group.id) == 3


async def test_get_updates_offsets_and_conflicts(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.user(101, "Alice")
    for text in ("a", "b", "c"):
        await alice.send(None, text, wait=False)
    updates = await bot.get_updates(timeout=0)
    assert [u.message.text for u in updates] == ["a", "b", "c"]  # type: ignore[union-attr]
    again = await bot.get_updates(offset=updates[1].update_id, timeout=0)
    assert [u.message.text for u in again] == ["b", "c"]  # type: ignore[union-attr]
    assert await bot.get_updates(offset=updates[2].update_id + 1, timeout=0) == ()
    # a long poll returns as soon as an update arrives
    poll = asyncio.create_task(bot.get_updates(timeout=5))
    await asyncio.sleep(0.01)
    await alice.send(None, "late", wait=False)
    assert [u.message.text for u in await poll] == ["late"]  # type: ignore[union-attr]
    await bot.set_webhook("https://example.org/hook")
    with pytest.raises(Exception, match="webhook is active"):
        await bot.get_updates(timeout=0)
    await bot.delete_webhook(drop_pending_updates=True)
    assert await bot.get_updates(timeout=0) == ()
    # two pollers (two bot instances): the newer request terminates the older one
    first = asyncio.create_task(bot.get_updates(timeout=5))
    await asyncio.sleep(0.01)
    second = asyncio.create_task(bot.get_updates(timeout=0))
    with pytest.raises(Conflict, match="terminated by other getUpdates request"):
        await first
    assert await second == ()


async def test_http_server_speaks_form_json_and_multipart(
    fake: FakeTelegram, server: FakeBotApiServer
) -> None:
    alice = fake.user(101, "Alice")
    await alice.start_bot(wait=False)
    base = f"{server.base_url}{fake.token}"
    markup = {"inline_keyboard": [[{"text": "A", "callback_data": "a"}]]}
    async with httpx.AsyncClient() as client:
        r = await client.post(
            f"{base}/sendMessage",
            data={"chat_id": "101", "text": "form", "reply_markup": json.dumps(markup)},
        )
        assert r.status_code == 200 and r.json()["result"]["reply_markup"] == markup
        r = await client.post(f"{base}/sendMessage", json={"chat_id": 101, "text": "json"})
        assert r.json()["result"]["text"] == "json"
        r = await client.post(
            f"{base}/sendMessage",
            data={"chat_id": "101", "text": "multi"},
            files={"doc": ("a.txt", b"hello", "text/plain")},
        )
        assert r.json()["result"]["text"] == "multi"
        r = await client.get(f"{base}/getMe")
        assert r.json()["result"]["username"] == "kolkhoz_test_bot"
        r = await client.post(f"{base}/sendMessage", data={"chat_id": "101", "text": "x" * 5000})
        assert r.status_code == 400
        assert r.json() == {
            "ok": False,
            "error_code": 400,
            "description": "Bad Request: message is too long",
        }
        r = await client.post(f"{server.base_url}WRONG/getMe")
        assert r.status_code == 401
    assert [m.text for m in fake.bot_messages(alice)] == ["form", "json", "multi"]
    assert all(c.transport == "http" for c in fake.sent_log)


async def test_stored_message_snapshot_is_independent(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.user(101, "Alice")
    await alice.start_bot(wait=False)
    sent = await bot.send_message(alice.id, "v1", reply_markup=menu_markup())
    before: StoredMessage = fake.message(alice, sent.message_id).snapshot()
    await bot.edit_message_text("v2", alice.id, sent.message_id, reply_markup=menu_markup())
    assert before.text == "v1" and fake.message(alice, sent.message_id).text == "v2"


async def test_manual_mode_feeds_process_update(fake: FakeTelegram) -> None:
    app = add_tiny_bot(inprocess_builder(fake).build(), seen_dict())
    alice = fake.user(101, "Alice")
    async with fake.running(app, mode="manual"):
        assert not app.running  # initialized only: no Updater, no update fetcher
        await alice.start_bot("m")
        assert fake.last_message(alice).text == "Hello, Alice! payload=m"  # type: ignore[union-attr]
        await alice.send(None, "/menu", wait=False)
        assert await fake.process_pending(app) == 1
        board = fake.last_message(alice)
        assert board is not None and board.button_texts[0] == "Red"
        answer = await alice.tap(board, "Red")
        assert answer is not None and answer.text == "You picked red"
    assert fake.calls("getUpdates") == []


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
async def test_rate_limiter_retries_after_flood(fake: FakeTelegram) -> None:
    from telegram.ext import AIORateLimiter

    app = add_tiny_bot(
        inprocess_builder(fake).rate_limiter(AIORateLimiter(max_retries=2)).build(), seen_dict()
    )
    alice = fake.user(101, "Alice")
    async with fake.running(app):
        fake.flood("sendMessage", times=1, retry_after=1)
        await alice.start_bot()
        assert fake.last_message(alice).text == "Hello, Alice! payload=-"  # type: ignore[union-attr]
    outcomes = [(c.ok, c.error_code) for c in fake.calls("sendMessage")]
    assert outcomes == [(False, 429), (True, None)]


async def test_blocked_user_cannot_be_edited_either(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.user(101, "Alice")
    await alice.start_bot(wait=False)
    sent = await bot.send_message(alice.id, "hand", reply_markup=menu_markup())
    await alice.block_bot(wait=False)
    with pytest.raises(Forbidden, match="bot was blocked by the user"):
        await bot.edit_message_text("new hand", alice.id, sent.message_id)
    await alice.start_bot(wait=False)  # pressing Start again unblocks
    assert not alice.blocked
    await bot.edit_message_text("new hand", alice.id, sent.message_id)


async def test_double_tap_creates_two_queries(fake: FakeTelegram, app_factory: AppFactory) -> None:
    app = add_tiny_bot(app_factory(), seen_dict())
    alice = fake.user(101, "Alice")
    async with fake.running(app, expected_errors=(BadRequest,)):
        await alice.send(None, "/menu")
        board = fake.last_message(alice)
        assert board is not None
        await alice.tap(board, "Red", wait=False)
        await alice.tap(board, "Red", wait=False)  # impatient user, same (stale) keyboard
        await fake.wait_idle()
        assert all(q.answered for q in fake.callback_queries.values())
        assert len(fake.callback_queries) == 2
        # the second identical edit is "not modified": the bot under test does not guard it
        assert isinstance(fake.app_errors[-1], BadRequest)
        assert "not modified" in str(fake.app_errors[-1])


async def test_deep_links_from_answers_and_buttons(
    fake: FakeTelegram, app_factory: AppFactory
) -> None:
    app = app_factory()

    async def menu(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_message
        link = f"https://t.me/{context.bot.username}?start=hand-7"
        await update.effective_message.reply_text(
            "Your hand is private",
            reply_markup=InlineKeyboardMarkup(
                [
                    [InlineKeyboardButton("Open", url=link)],
                    [InlineKeyboardButton("Show", callback_data="show")],
                ]
            ),
        )

    async def show(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.callback_query
        await update.callback_query.answer(url=f"t.me/{context.bot.username}?start=hand-8")

    async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_message
        await update.effective_message.reply_text(f"start {context.args}")

    app.add_handler(CommandHandler("menu", menu))
    app.add_handler(CommandHandler("start", start))
    app.add_handler(CallbackQueryHandler(show))
    alice = fake.user(101, "Alice")
    group = fake.create_group("G", [alice])
    async with fake.running(app):
        await alice.send(group, "/menu")
        board = fake.last_message(group)
        assert board is not None
        await alice.open_button(board, "Open")
        assert alice.last_message().text == "start ['hand-7']"  # type: ignore[union-attr]
        answer = await alice.tap(board, "Show")
        assert answer is not None and answer.url is not None
        await alice.open_link(answer.url)
        assert alice.last_message().text == "start ['hand-8']"  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="1-64 characters"):
        await alice.start_bot("bad payload!")


async def test_callback_answer_url_must_open_this_bot(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.user(101, "Alice")
    await alice.start_bot(wait=False)
    await bot.send_message(alice.id, "Pick", reply_markup=menu_markup())
    board = fake.last_message(alice)
    assert board is not None
    await alice.tap(board, "Red", wait=False)
    (query_id,) = fake.callback_queries
    with pytest.raises(BadRequest, match=r"(?i)url_invalid"):
        await bot.answer_callback_query(query_id, url="https://example.org")
    await bot.answer_callback_query(query_id, url="https://t.me/kolkhoz_test_bot?start=x")


async def test_mentions_commands_resolution_and_announced_group(fake: FakeTelegram) -> None:
    app = inprocess_builder(fake).build()
    greeted: list[int] = []

    async def added(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_chat and update.effective_message
        greeted.append(update.effective_chat.id)
        await update.effective_message.reply_html(
            '<a href="tg://user?id=101">Alice</a>, thanks for adding me'
        )

    app.add_handler(MessageHandler(filters.StatusUpdate.NEW_CHAT_MEMBERS, added))
    alice, bob = fake.user(101, "Alice"), fake.user(102, "Bob", language_code="en")
    async with fake.running(app):
        group = fake.create_group("G", [alice, bob], announce=True)
        await fake.wait_idle()
        assert greeted == [group.id]
        mention = fake.last_message(group).entities[0]  # type: ignore[union-attr]
        assert mention["type"] == "text_mention"
        assert mention["user"]["first_name"] == "Alice"
        await app.bot.set_my_commands([BotCommand("help", "Помощь")], language_code="ru")
        await app.bot.set_my_commands([BotCommand("help", "Help")])
        await app.bot.set_my_commands(
            [BotCommand("newgame", "Новая игра")],
            scope=BotCommandScopeAllGroupChats(),
            language_code="ru",
        )
    assert fake.visible_commands(alice)[0]["description"] == "Помощь"
    assert fake.visible_commands(bob)[0]["description"] == "Help"
    assert fake.visible_commands(alice, group)[0]["command"] == "newgame"
    assert fake.visible_commands(bob, group)[0]["description"] == "Help"


async def test_user_edits_and_switch_inline_buttons(fake: FakeTelegram) -> None:
    seen = seen_dict()
    app = add_tiny_bot(inprocess_builder(fake).build(), seen)
    edited: list[str] = []

    async def on_edit(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.edited_message and update.edited_message.text
        edited.append(update.edited_message.text)

    app.add_handler(MessageHandler(filters.UpdateType.EDITED_MESSAGE, on_edit), group=-1)

    async def hand(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_message
        await update.effective_message.reply_text(
            "Your hand",
            reply_markup=InlineKeyboardMarkup(
                [[InlineKeyboardButton("Show", switch_inline_query_current_chat="cards")]]
            ),
        )

    app.add_handler(CommandHandler("hand", hand))
    alice = fake.user(101, "Alice")
    group = fake.create_group("G", [alice])
    async with fake.running(app):
        said = await alice.send(None, "helo")
        await alice.edit(said, "hello")
        assert edited == ["hello"]
        await alice.send(group, "/hand")
        board = fake.last_message(group)
        assert board is not None
        answer = await alice.switch_inline(board, "Show")
        assert answer is not None and answer.query == "cards"
        assert fake.inline_queries[answer.query_id].query == "cards"


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
async def test_opt_in_group_flood_limit_and_rights() -> None:
    now = [1_000_000.0]
    fake = FakeTelegram(clock=lambda: now[0])
    async with Bot(
        fake.token, request=FakeRequest(fake), get_updates_request=FakeRequest(fake)
    ) as b:
        alice = fake.user(101, "Alice")
        group = fake.create_group("G", [alice])
        fake.limit_group_messages(per_minute=3)
        sent = [await b.send_message(group.id, f"m{i}") for i in range(3)]
        with pytest.raises(RetryAfter) as info:
            await b.edit_message_text("edited", group.id, sent[0].message_id)
        assert info.value.retry_after in (61, dtm.timedelta(seconds=61))
        now[0] += 30
        with pytest.raises(RetryAfter):
            await b.send_message(group.id, "still too soon")
        now[0] += 31
        await b.send_message(group.id, "fine again")
        fake.limit_group_messages(None)
        group.permissions["can_send_messages"] = False
        with pytest.raises(BadRequest, match=r"(?i)not enough rights to send text messages"):
            await b.send_message(group.id, "muted")
        fake.set_bot_status(group, "administrator", announce=False)
        await b.send_message(group.id, "admins may")


async def test_restart_keeps_queued_updates(fake: FakeTelegram, app_factory: AppFactory) -> None:
    alice = fake.user(101, "Alice")
    group = fake.create_group("G", [alice])
    async with fake.running(add_tiny_bot(app_factory(), seen_dict())):
        await alice.send(group, "/menu")
    board = fake.last_message(group)
    assert board is not None
    # the bot is down: the user keeps acting, updates queue up at "Telegram"
    assert await alice.tap(board, "Red") is None
    await alice.start_bot("while-down")
    assert len(fake.pending_updates) == 2
    async with fake.running(add_tiny_bot(app_factory(), seen_dict())):
        await fake.wait_idle()
        assert fake.message(group, board.message_id).text == "Picked: red"
        assert fake.last_message(alice).text == "Hello, Alice! payload=while-down"  # type: ignore[union-attr]
    assert fake.pending_updates == []


async def test_guard_against_the_real_telegram(no_real_telegram: list[str]) -> None:
    from tests.faketg import RealTelegramAccess

    half_wired = Bot(FakeTelegram().token)  # no fake request: would talk to api.telegram.org
    with pytest.raises(RealTelegramAccess):
        await half_wired.initialize()
    await half_wired.shutdown()
    assert no_real_telegram == ["https://api.telegram.org/bot<TOKEN>/getMe"]
    no_real_telegram.clear()  # expected here; any other test would fail at teardown


# --------------------------------------------------------------------------- fault injection
async def test_fail_gives_network_error_and_takes_no_effect(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.user(101, "Alice")
    await alice.start_bot(wait=False)
    fake.fail("sendMessage", times=2)
    for _ in range(2):
        with pytest.raises(NetworkError, match="Bad Gateway") as info:
            await bot.send_message(alice.id, "lost")
        assert not isinstance(info.value, TimedOut)
    await bot.send_message(alice.id, "through")
    assert [m.text for m in fake.bot_messages(alice)] == ["through"]
    assert [(c.ok, c.error_code, c.fault) for c in fake.calls("sendMessage")] == [
        (False, 502, "502"), (False, 502, "502"), (True, None, None)]
    fake.fail("sendMessage", 503, description="Service Unavailable: restarting")
    with pytest.raises(NetworkError, match="restarting"):
        await bot.send_message(alice.id, "lost")
    fake.fail("sendMessage", html=True)  # nginx's page when the Bot API behind it is down
    with pytest.raises(NetworkError, match=r"Bad Gateway \(502\)\. Parsing the server response"):
        await bot.send_message(alice.id, "lost")
    fake.fail("getMe", 500)
    with pytest.raises(NetworkError, match="Internal Server Error"):
        await bot.get_me()
    assert len(fake.faults()) == 5 and len(fake.faults("getMe")) == 1
    with pytest.raises(ValueError):
        fake.fail("sendMessage", 200)


async def test_fail_over_http_gives_the_same_errors(
    fake: FakeTelegram, server: FakeBotApiServer
) -> None:
    alice = fake.user(101, "Alice")
    await alice.start_bot(wait=False)
    async with Bot(fake.token, base_url=server.base_url) as b:
        fake.fail("sendMessage")
        with pytest.raises(NetworkError, match="Bad Gateway"):
            await b.send_message(alice.id, "lost")
        fake.fail("sendMessage", 504, html=True)
        with pytest.raises(NetworkError, match=r"Gateway Timeout \(504\)"):
            await b.send_message(alice.id, "lost")
        await b.send_message(alice.id, "through")
    assert [m.text for m in fake.bot_messages(alice)] == ["through"]


async def test_time_out_after_or_before_taking_effect(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.user(101, "Alice")
    await alice.start_bot(wait=False)
    fake.time_out("sendMessage")  # after=True: sent, only the reply was lost
    with pytest.raises(TimedOut) as info:
        await bot.send_message(alice.id, "sent, but the bot does not know")
    assert isinstance(info.value.__cause__, httpx.ReadTimeout)
    fake.time_out("sendMessage", after=False)  # never reached Telegram
    with pytest.raises(TimedOut) as info:
        await bot.send_message(alice.id, "never sent")
    assert isinstance(info.value.__cause__, httpx.ConnectTimeout)
    assert [m.text for m in fake.bot_messages(alice)] == ["sent, but the bot does not know"]
    assert [(c.ok, c.fault) for c in fake.faults("sendMessage")] == [
        (True, "timeout"), (False, "timeout")]
    await bot.send_message(alice.id, "fine")


async def test_a_broken_connection_after_or_before_taking_effect(
    fake: FakeTelegram, bot: Bot
) -> None:
    alice = fake.user(101, "Alice")
    await alice.start_bot(wait=False)
    fake.disconnect("sendMessage")  # after=True: sent, then the connection broke
    with pytest.raises(NetworkError) as info:
        await bot.send_message(alice.id, "sent, but the bot does not know")
    assert not isinstance(info.value, TimedOut)
    assert isinstance(info.value.__cause__, httpx.RemoteProtocolError)
    assert "httpx.RemoteProtocolError" in info.value.message
    fake.disconnect("sendMessage", after=False)  # no connection: never reached Telegram
    with pytest.raises(NetworkError) as info:
        await bot.send_message(alice.id, "never sent")
    assert isinstance(info.value.__cause__, httpx.ConnectError)
    assert [m.text for m in fake.bot_messages(alice)] == ["sent, but the bot does not know"]
    assert [(c.ok, c.fault) for c in fake.faults("sendMessage")] == [
        (True, "disconnect"), (False, "disconnect")]


async def test_a_broken_connection_over_http(
    fake: FakeTelegram, server: FakeBotApiServer
) -> None:
    from telegram.request import HTTPXRequest

    alice = fake.user(101, "Alice")
    await alice.start_bot(wait=False)
    async with Bot(fake.token, base_url=server.base_url, request=HTTPXRequest()) as b:
        fake.disconnect("sendMessage")
        with pytest.raises(NetworkError) as info:
            await b.send_message(alice.id, "sent, reply lost")
        assert isinstance(info.value.__cause__, httpx.RemoteProtocolError)
        await b.send_message(alice.id, "next one")
    assert [m.text for m in fake.bot_messages(alice)] == ["sent, reply lost", "next one"]


async def test_time_out_over_http_waits_for_the_client_read_timeout(
    fake: FakeTelegram, server: FakeBotApiServer
) -> None:
    from telegram.request import HTTPXRequest

    alice = fake.user(101, "Alice")
    await alice.start_bot(wait=False)
    request = HTTPXRequest(read_timeout=0.3)
    async with Bot(fake.token, base_url=server.base_url, request=request) as b:
        fake.time_out("sendMessage")
        with pytest.raises(TimedOut):
            await b.send_message(alice.id, "sent, reply lost")
        await b.send_message(alice.id, "next one")
    assert [m.text for m in fake.bot_messages(alice)] == ["sent, reply lost", "next one"]


async def test_timed_out_answer_still_counts_as_answered(fake: FakeTelegram) -> None:
    outcomes: list[str] = []

    async def button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.callback_query
        try:
            await update.callback_query.answer("ok")
            outcomes.append("answered")
        except TimedOut:
            outcomes.append("timed out")  # must not answer again: it did take effect

    app = inprocess_builder(fake).build()
    app.add_handler(CallbackQueryHandler(button))
    alice = fake.user(101, "Alice")
    await alice.start_bot(wait=False)
    async with fake.running(app):
        await app.bot.send_message(alice.id, "Pick", reply_markup=menu_markup())
        board = fake.last_message(alice)
        assert board is not None
        fake.time_out("answerCallbackQuery")
        answer = await alice.tap(board, "Red")
        assert answer is not None and answer.text == "ok"
    assert outcomes == ["timed out"]
    assert list(fake.answers_per_callback().values()) == [1]


async def test_a_tap_on_an_old_message_carries_it_as_inaccessible() -> None:
    """After about two days Telegram sends the tapped message as an InaccessibleMessage:
    its chat and id, date 0, no topic, no text."""
    now = [1_000_000.0]
    fake = FakeTelegram(clock=lambda: now[0])
    async with Bot(fake.token, request=FakeRequest(fake),
                   get_updates_request=FakeRequest(fake)) as b:
        alice = fake.user(101, "Alice")
        forum = fake.create_group("Forum", [alice], forum=True, bot_admin=True)
        topic = await b.create_forum_topic(forum.id, "Game")
        await b.send_message(forum.id, "Pick", reply_markup=menu_markup(),
                             message_thread_id=topic.message_thread_id)
        board = fake.last_message(forum)
        assert board is not None
        await alice.tap(board, "Red", wait=False)
        now[0] += 47 * 3600
        await alice.tap(board, "Red", wait=False)
        now[0] += 2 * 3600
        await alice.tap(board, "Blue", wait=False)
        fake.inaccessible_after = None
        await alice.tap(board, "Blue", wait=False)
        await alice.tap(board, "Blue", wait=False, inaccessible=True)
        updates = await b.get_updates(timeout=0)
        messages = [u.callback_query.message for u in updates if u.callback_query]
        assert [m.is_accessible for m in messages if m] == [True, True, False, True, False]
        old = messages[2]
        assert old is not None and old.chat.id == forum.id
        assert old.message_id == board.message_id
        assert old.api_kwargs == {}
        fresh = messages[0]
        assert isinstance(fresh, Message) and fresh.message_thread_id == topic.message_thread_id
        assert getattr(old, "message_thread_id", None) is None
        assert getattr(old, "text", None) is None


async def test_late_answer_is_refused() -> None:
    now = [1_000_000.0]
    fake = FakeTelegram(clock=lambda: now[0])
    async with Bot(fake.token, request=FakeRequest(fake)) as b:
        alice = fake.user(101, "Alice")
        await alice.start_bot(wait=False)
        await b.send_message(alice.id, "Pick", reply_markup=menu_markup())
        board = fake.last_message(alice)
        assert board is not None
        await alice.tap(board, "Red", wait=False)
        await alice.tap(board, "Blue", wait=False)
        first, second = fake.callback_queries
        now[0] += 14
        await b.answer_callback_query(first)
        now[0] += 2  # the second query is 16 s old now
        with pytest.raises(BadRequest, match="Query is too old"):
            await b.answer_callback_query(second)
        with pytest.raises(AssertionError, match="answered too late"):
            fake.assert_all_callbacks_answered()
        assert fake.callback_queries[second].late
        assert fake.answers_per_callback() == {first: 1, second: 1}
    # on the wall clock there is no window unless asked for: a slow machine fails no test
    assert FakeTelegram().callback_answer_timeout is None
    assert FakeTelegram(callback_answer_timeout=15).callback_answer_timeout == 15


async def test_forbid_user_silently(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.user(101, "Alice")
    await alice.start_bot(wait=False)
    sent = await bot.send_message(alice.id, "hand")
    updates = len(fake.pending_updates)
    fake.forbid_user(alice)
    with pytest.raises(Forbidden, match="bot was blocked by the user"):
        await bot.send_message(alice.id, "hi")
    with pytest.raises(Forbidden, match="bot was blocked by the user"):
        await bot.edit_message_text("new hand", alice.id, sent.message_id)
    assert len(fake.pending_updates) == updates  # no my_chat_member: the 403 is all it gets
    fake.allow_user(alice)
    await bot.send_message(alice.id, "back")
    fake.forbid_user(alice.id, announce=True)
    assert fake.pending_updates[-1]["my_chat_member"]["new_chat_member"]["status"] == "kicked"
    bob = fake.user(102, "Bob")  # never started the bot
    with pytest.raises(Forbidden, match="bot can't initiate conversation with a user"):
        await bot.send_message(bob.id, "hi")


async def _fault_pattern(seed: int, p: float = 0.3) -> list[str | None]:
    fake = FakeTelegram()
    alice = fake.user(101, "Alice")
    await alice.start_bot(wait=False)
    async with Bot(fake.token, request=FakeRequest(fake)) as b:
        fake.fault_rate(p, kinds=("502", "timeout", "429"), seed=seed)  # after getMe
        for i in range(40):
            with contextlib.suppress(NetworkError, RetryAfter):
                await b.send_message(alice.id, f"m{i}")
    return [c.fault for c in fake.calls("sendMessage")]


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
async def test_fault_rate_is_reproducible_and_counted(fake: FakeTelegram, bot: Bot) -> None:
    one, two, other = await _fault_pattern(7), await _fault_pattern(7), await _fault_pattern(8)
    assert one == two != other
    assert {"502", "timeout", "429"} <= set(one) and None in one
    alice = fake.user(101, "Alice")
    await alice.start_bot(wait=False)
    fake.fault_rate(1.0, methods=["editMessageText"], kinds=("503",))
    sent = await bot.send_message(alice.id, "untouched method")
    with pytest.raises(NetworkError, match="Service Unavailable"):
        await bot.edit_message_text("x", alice.id, sent.message_id)
    fake.fault_rate(1.0)  # every method but getUpdates
    assert await bot.get_updates(timeout=0) is not None
    with pytest.raises((NetworkError, TimedOut)):
        await bot.get_me()
    fake.fault_rate(0)
    await bot.edit_message_text("x", alice.id, sent.message_id)
    assert [c.method for c in fake.faults()] == ["editMessageText", "getMe"]
    fake.time_out("sendMessage")
    fake.clear_faults()
    await bot.send_message(alice.id, "no fault left")
    with pytest.raises(ValueError, match="unknown fault kinds"):
        fake.fault_rate(0.5, kinds=("418",))


async def test_photos_are_sent_with_their_bytes_and_edited_in_place(
    fake: FakeTelegram, app_factory: AppFactory
) -> None:
    """sendPhoto keeps the uploaded bytes (in-process and over HTTP), editMessageMedia
    replaces the picture and caption, an unchanged edit is "not modified", and a photo has
    no text to edit."""
    from telegram import InputMediaPhoto
    from telegram.error import BadRequest

    app = app_factory()
    alice = fake.user(111, "Alice")
    alice.started = True
    async with fake.running(app):
        sent = await app.bot.send_photo(alice.id, b"first picture", caption="<b>v1</b>",
                                        parse_mode="HTML", reply_markup=menu_markup())
        msg = fake.last_message(alice)
        assert msg is not None and msg.text is None
        assert fake.photo_bytes(msg) == b"first picture"
        assert msg.extra["caption"] == "v1" and msg.buttons
        assert sent.photo and sent.caption == "v1"
        await app.bot.edit_message_media(
            InputMediaPhoto(b"second picture", caption="v2"), alice.id, msg.message_id,
            reply_markup=menu_markup())
        assert fake.photo_bytes(msg) == b"second picture" and msg.extra["caption"] == "v2"
        assert msg.edits == 1
        file_id = msg.extra["photo"][-1]["file_id"]
        with pytest.raises(BadRequest, match="not modified"):
            await app.bot.edit_message_media(InputMediaPhoto(file_id, caption="v2"),
                                             alice.id, msg.message_id,
                                             reply_markup=menu_markup())
        await app.bot.edit_message_caption(alice.id, msg.message_id, caption="v3")
        assert msg.extra["caption"] == "v3" and not msg.buttons
        with pytest.raises(BadRequest, match="no text"):
            await app.bot.edit_message_text("text", alice.id, msg.message_id)
        with pytest.raises(BadRequest, match=r"(?i)wrong file identifier"):
            await app.bot.send_photo(alice.id, "no-such-file")


# --------------------------------------------------------------------------- forum topics
async def test_forum_topics_threads_and_replies(
    fake: FakeTelegram, app_factory: AppFactory
) -> None:
    """A user's message in a topic carries its thread id (``is_topic_message``), and PTB's
    reply goes into the same topic; "General" has no thread id."""
    seen = seen_dict()
    app = add_tiny_bot(app_factory(), seen)
    alice, bob = fake.user(101, "Alice"), fake.user(102, "Bob")
    forum = fake.create_group("Forum", [alice, bob], forum=True, bot_admin=True)
    assert forum.type == "supergroup" and forum.to_json()["is_forum"] is True
    async with fake.running(app):
        topic = fake.create_topic(forum, "Cards", by=alice)
        created = fake.message(forum, topic)
        assert created.service and created.extra["forum_topic_created"]["name"] == "Cards"
        await bob.send(forum, "hello topic", topic=topic)
        await bob.send(forum, "hello general")
        in_topic = fake.topic_messages(forum, topic)
        assert [m.text for m in in_topic] == ["hello topic", "hello topic"]
        assert in_topic[1].from_id == fake.bot_id
        assert in_topic[1].extra["is_topic_message"] is True
        assert [m.text for m in fake.topic_messages(forum, None)] == ["hello general"] * 2
        assert "message_thread_id" not in fake.last_message(forum).extra  # type: ignore[union-attr]
        # A reply to a message in the topic goes into the topic.
        await alice.send(forum, "a reply", reply_to=in_topic[1])
        assert fake.topic_messages(forum, topic)[-1].text == "a reply"
    assert seen["echo"] == ["hello topic", "hello general", "a reply"]


async def test_forum_topic_methods_and_rights(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.user(101, "Alice")
    forum = fake.create_group("Forum", [alice], forum=True, bot_admin=True)
    plain = fake.create_group("Plain", [alice], supergroup=True, bot_admin=True)
    with pytest.raises(BadRequest, match=r"(?i)the chat is not a forum"):
        await bot.create_forum_topic(plain.id, "Game")
    topic = await bot.create_forum_topic(forum.id, "Kolkhoz #1 — Classic")
    assert topic.name == "Kolkhoz #1 — Classic"
    tid = topic.message_thread_id
    sent = await bot.send_message(forum.id, "lobby", message_thread_id=tid)
    assert sent.message_thread_id == tid and sent.is_topic_message
    assert [m.text for m in fake.topic_messages(forum, tid)] == ["lobby"]
    general = await bot.send_message(forum.id, "note")
    assert general.message_thread_id is None and not general.is_topic_message
    with pytest.raises(BadRequest, match=r"(?i)message thread not found"):
        await bot.send_message(forum.id, "x", message_thread_id=9999)
    with pytest.raises(BadRequest, match=r"(?i)message thread not found"):
        await bot.send_message(plain.id, "x", message_thread_id=9999)

    # Closing: a closed topic still takes the messages of a bot that manages topics.
    assert await bot.close_forum_topic(forum.id, tid)
    assert fake.topic(forum, tid).closed
    with pytest.raises(BadRequest, match=r"(?i)TOPIC_NOT_MODIFIED"):
        await bot.close_forum_topic(forum.id, tid)
    await bot.send_message(forum.id, "late", message_thread_id=tid)
    assert await bot.reopen_forum_topic(forum.id, tid)
    # Renaming: a service message in the topic; the same name is no change.
    assert await bot.edit_forum_topic(forum.id, tid, name="Kolkhoz #1 — Zone")
    assert fake.topic(forum, tid).name == "Kolkhoz #1 — Zone"
    edited = fake.topic_messages(forum, tid, include_service=True)[-1]
    assert edited.extra["forum_topic_edited"] == {"name": "Kolkhoz #1 — Zone"}
    with pytest.raises(BadRequest, match=r"(?i)TOPIC_NOT_MODIFIED"):
        await bot.edit_forum_topic(forum.id, tid, name="Kolkhoz #1 — Zone")

    # Without the right to manage topics: no new topic; its own it may still close.
    forum.bot_can_manage_topics = False
    member = await bot.get_chat_member(forum.id, fake.bot_id)
    assert getattr(member, "can_manage_topics", None) is False
    with pytest.raises(BadRequest, match=r"(?i)not enough rights to create a topic"):
        await bot.create_forum_topic(forum.id, "Another")
    other = fake.create_topic(forum, "Chat", by=alice, announce=False)
    with pytest.raises(BadRequest, match=r"(?i)not enough rights"):
        await bot.close_forum_topic(forum.id, other)
    assert await bot.close_forum_topic(forum.id, tid)
    with pytest.raises(BadRequest, match=r"(?i)TOPIC_CLOSED"):
        await bot.send_message(forum.id, "closed", message_thread_id=tid)
    forum.bot_can_manage_topics = True

    # Deleting a topic deletes its messages: sends fail, and edits of the old ones.
    board = await bot.send_message(forum.id, "board", message_thread_id=other)
    fake.delete_topic(forum, other)
    assert fake.topic_messages(forum, other) == []
    assert fake.topic_messages(forum, other, include_deleted=True)[0].text == "board"
    with pytest.raises(BadRequest) as e:
        await bot.send_message(forum.id, "x", message_thread_id=other)
    assert e.value.message == "Message thread not found"
    assert fake.calls("sendMessage", ok=False)[-1].description == (
        "Bad Request: message thread not found")
    with pytest.raises(BadRequest, match=r"(?i)message to edit not found"):
        await bot.edit_message_text("new", chat_id=forum.id, message_id=board.message_id)
    assert await bot.delete_forum_topic(forum.id, tid)
    assert fake.topic(forum, tid).deleted
    with pytest.raises(BadRequest, match=r"(?i)message thread not found"):
        await bot.delete_forum_topic(forum.id, tid)
