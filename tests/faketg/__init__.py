"""A fake Telegram Bot API for running the real PTB application offline in tests.

See ``docs/testing.md``. Typical use::

    fake = FakeTelegram()
    app = build_app(fake)  # ApplicationBuilder().token(fake.token).request(FakeRequest(fake))...
    alice = fake.user(1, "Alice")
    async with fake.running(app):
        await alice.start_bot()
        assert "Welcome" in fake.last_message(alice).text

Faults, each logged in ``fake.sent_log`` with ``ApiCall.fault`` set (``fake.faults()``):

- ``fake.flood(method, times, retry_after)``: 429, PTB raises ``RetryAfter``;
- ``fake.fail(method, status=502, times=1, description=None, html=False)``: an HTTP error
  that takes no effect (5xx: PTB raises ``NetworkError``);
- ``fake.time_out(method, times=1, after=True)``: PTB raises ``TimedOut``; ``after=True``
  means the call took effect and only the reply was lost;
- ``fake.fault_rate(p, methods=None, kinds=("502", "timeout"), seed=0)``: random faults,
  reproducible by seed, never on getUpdates; ``fault_rate(0)`` stops them;
- ``fake.forbid_user(user)`` / ``fake.allow_user(user)``: 403 "bot was blocked by the user"
  without the ``my_chat_member`` update (``FakeUser.block_bot`` sends it); a user who never
  started the bot gets 403 "bot can't initiate conversation with a user";
- ``fake.remove_bot(group)``: 403 from the group.

A callback query may be answered once (a second answer, or one later than
``fake.callback_answer_timeout`` on a test clock, gets 400 "query is too old");
``fake.answers_per_callback()`` counts the attempts and ``assert_all_callbacks_answered``
(run by ``fake.running``) fails on a query unanswered, answered late or answered twice.
"""

from .core import FakeTelegram, Params
from .errors import ApiError, InjectedTimeout
from .formatting import parse_html, parse_markdown_v2, parse_text
from .models import (
    ApiCall,
    Button,
    CallbackAnswer,
    CallbackQueryRecord,
    FakeChat,
    FakeTopic,
    InlineAnswer,
    InlineQueryRecord,
    StoredMessage,
)
from .transport import (
    FakeBotApiServer,
    FakeRequest,
    RealTelegramAccess,
    forbid_real_telegram,
    free_port,
    inprocess_builder,
)
from .users import FakeUser

__all__ = [
    "ApiCall",
    "ApiError",
    "Button",
    "CallbackAnswer",
    "CallbackQueryRecord",
    "FakeBotApiServer",
    "FakeChat",
    "FakeRequest",
    "FakeTelegram",
    "FakeTopic",
    "FakeUser",
    "InjectedTimeout",
    "InlineAnswer",
    "InlineQueryRecord",
    "Params",
    "RealTelegramAccess",
    "StoredMessage",
    "forbid_real_telegram",
    "free_port",
    "inprocess_builder",
    "parse_html",
    "parse_markdown_v2",
    "parse_text",
]
