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
