"""Bot API errors as the fake returns them (same JSON shape as Telegram)."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """A failed Bot API call: becomes ``{"ok": false, "error_code": ..., ...}``."""

    def __init__(
        self, code: int, description: str, parameters: dict[str, Any] | None = None
    ) -> None:
        super().__init__(description)
        self.code = code
        self.description = description
        self.parameters = parameters

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "ok": False,
            "error_code": self.code,
            "description": self.description,
        }
        if self.parameters:
            body["parameters"] = self.parameters
        return body


def bad_request(text: str, parameters: dict[str, Any] | None = None) -> ApiError:
    return ApiError(400, f"Bad Request: {text}", parameters)


def forbidden(text: str) -> ApiError:
    return ApiError(403, f"Forbidden: {text}")


def conflict(text: str) -> ApiError:
    return ApiError(409, f"Conflict: {text}")


def too_many_requests(retry_after: int) -> ApiError:
    return ApiError(
        429, f"Too Many Requests: retry after {retry_after}", {"retry_after": retry_after}
    )


#: What Telegram's front end says for each 5xx status (the description of the JSON error).
SERVER_ERRORS = {
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}


def server_error(status: int, description: str | None = None) -> ApiError:
    """A 5xx answer: PTB raises ``telegram.error.NetworkError`` with ``description``."""
    return ApiError(status, description or SERVER_ERRORS.get(status, "Internal Server Error"))


def gateway_page(status: int, description: str) -> bytes:
    """The HTML page nginx answers with when the Bot API behind it is down (not JSON:
    PTB raises ``NetworkError("<phrase> (<status>). Parsing the server response ... failed")``)."""
    title = f"{status} {description}"
    return (
        f"<html>\r\n<head><title>{title}</title></head>\r\n<body>\r\n"
        f"<center><h1>{title}</h1></center>\r\n<hr><center>nginx</center>\r\n"
        "</body>\r\n</html>\r\n"
    ).encode()


class InjectedTimeout(Exception):
    """Raised by :meth:`FakeTelegram.handle` for a timeout fault: the transport turns it
    into what PTB's HTTPX request raises on a timeout (``telegram.error.TimedOut``).

    ``after``: the call took effect and only the reply was lost (a read timeout); else it
    never reached the server (a connect timeout)."""

    def __init__(self, method: str, *, after: bool) -> None:
        super().__init__(
            f"{method}: timed out "
            + ("waiting for the reply (the call took effect)" if after else
               "connecting (the call never reached the server)")
        )
        self.method = method
        self.after = after


class InjectedDisconnect(Exception):
    """Raised by :meth:`FakeTelegram.handle` for a dropped connection: the transport turns
    it into what PTB's HTTPX request raises then (``telegram.error.NetworkError`` from an
    httpx error).

    ``after``: the call took effect and the connection broke before the reply (httpx's
    ``RemoteProtocolError``: "Server disconnected without sending a response"); else the
    connection was never made (``ConnectError``: the call never reached the server)."""

    def __init__(self, method: str, *, after: bool) -> None:
        super().__init__(
            f"{method}: the connection broke "
            + ("before the reply (the call took effect)" if after else
               "before the call (it never reached the server)")
        )
        self.method = method
        self.after = after
