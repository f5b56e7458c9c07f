"""Errors the service raises for requests that cannot be carried out.

Each has a short :attr:`ServiceError.code` a front end translates (``game_not_found``,
``not_creator`` …); the message is English, for logs.
"""

from __future__ import annotations


class ServiceError(Exception):
    """A request was refused; nothing was changed."""

    code = "error"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code


class NotFound(ServiceError):
    """No such game (``game_not_found``), user (``user_not_found``) or chat."""

    code = "not_found"


class NotAllowed(ServiceError):
    """The user may not do this (``not_creator``, ``not_seated`` …)."""

    code = "not_allowed"


class WrongState(ServiceError):
    """The game is not in a state that allows this (``not_lobby``, ``not_active`` …)."""

    code = "wrong_state"


class BadRequest(ServiceError):
    """A value is out of range or malformed (``bad_preset``, ``bad_duration`` …)."""

    code = "bad_request"


class Busy(ServiceError):
    """The database stayed locked by another process longer than the service waits (SQLite's
    short busy timeout): nothing changed; the request may simply be made again."""

    code = "busy"
