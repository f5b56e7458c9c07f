"""A fake Telegram Bot API for running the real PTB application offline in tests.

See ``docs/testing.md``. Typical use::

    fake = FakeTelegram()
    app = build_app(fake)  # ApplicationBuilder().token(fake.token).request(FakeRequest(fake))...
    alice = fake.user(1, "Alice")
    async with fake.running(app):
        await alice.start_bot()
        assert "Welcome" in fake.last_message(alice).text
"""

from .core import FakeTelegram, Params
from .errors import ApiError
from .formatting import parse_html, parse_markdown_v2, parse_text
from .models import (
    ApiCall,
    Button,
    CallbackAnswer,
    CallbackQueryRecord,
    FakeChat,
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
    "FakeUser",
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
