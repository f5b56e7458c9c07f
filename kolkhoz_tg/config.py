"""Settings from the environment (prefix ``KOLKHOZ_``) and an optional ``.env`` file."""

from __future__ import annotations

from datetime import timedelta
from functools import lru_cache
from typing import Any

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from kolkhoz_tg.timeutil import parse_duration

DEFAULT_DATABASE_URL = "sqlite:///kolkhoz.sqlite3"
LOCALES = ("ru", "en")


class Settings(BaseSettings):
    """Everything an operator may set; see ``docs/operators.md``."""

    model_config = SettingsConfigDict(
        env_prefix="KOLKHOZ_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )

    database_url: str = DEFAULT_DATABASE_URL
    bot_token: SecretStr | None = None
    bot_api_url: str | None = None
    #: The Bot API version of the server, when known (a self-hosted older one, e.g. "10.0"):
    #: below 10.3 cards that may not be played go out as ·9♥· buttons without a first try
    #: (unset: found out from the first refusal).
    bot_api_version: str | None = Field(default=None, pattern=r"^\d+\.\d+$")
    locale: str = "ru"
    #: The default turn time limit of a new game (a chat or a game may set its own).
    turn_timeout: timedelta = timedelta(hours=24)
    #: When reminders go out: "50%" (half the time limit gone) or "1h" (one hour before).
    reminders: str = "50%,1h"
    #: Consecutive timeouts after which a bot stand-in plays the seat.
    standin_after: int = Field(default=2, ge=1, le=100)
    #: How often the safety sweep looks for missed deadlines.
    sweep_interval: timedelta = timedelta(seconds=60)
    #: How often the outbox relay looks for messages still to send (e.g. after a failure).
    relay_interval: timedelta = timedelta(seconds=2)
    #: PostgreSQL: wait for each commit to reach the disk (``synchronous_commit = on``).
    #: Off by default: a commit then survives a crash of the bot or of PostgreSQL's
    #: processes, and only an operating system crash or a power cut can lose the last
    #: fraction of a second of moves, never corrupt a game: the durability SQLite's WAL
    #: with ``synchronous=NORMAL`` gives the default set-up, at about half the cost of a move.
    pg_durable_commits: bool = False
    #: Webhook mode's public URL, for ``kolkhoz bot --webhook`` given without one (the
    #: compose file's webhook replicas); polling ignores it.
    webhook_url: str | None = None
    #: Webhook mode: the secret Telegram sends with every update (default: derived from the
    #: token, so every replica agrees), and where this process listens.
    webhook_secret: SecretStr | None = None
    webhook_listen: str = "0.0.0.0"
    webhook_port: int = Field(default=8080, ge=0, le=65535)
    #: The level of the Telegram bot's bots by default: "+ Bot" in the lobby, the bots filling
    #: empty seats, and stand-ins in a chat that chose none (``engine.ai.LEVELS``).
    bot_level: str = Field(default="strong", pattern="^(random|normal|strong|hard)$")
    #: The engine the bots think with (:mod:`kolkhoz_tg.compiled_engine`): ``auto`` the
    #: compiled one when it is built for these sources, else plain Python; ``compiled``
    #: refuse to start without it; ``plain`` never use it. The moves are the same.
    engine: str = Field(default="auto", pattern="^(auto|compiled|plain)$")
    #: Where ``kolkhoz engine build`` keeps compiled engines (none: ``.cache/compiled-engine``
    #: beside ``engine/``).
    engine_cache: str | None = None
    #: Worker processes that think for search bots (0: one thread in this process).
    bot_workers: int = Field(default=1, ge=0, le=64)
    #: Thinking all search bots of a game share between two human moves, in seconds.
    bot_thinking: float = Field(default=3.0, gt=0, le=60)
    #: Logs: ``text`` for people, ``json`` (one object a line) for log collectors.
    log_format: str = Field(default="text", pattern="^(text|json)$")
    log_level: str = "INFO"
    #: Where ``kolkhoz bot`` writes its heartbeat and ``kolkhoz health`` reads it (none:
    #: no heartbeat; the Docker image sets ``/tmp/kolkhoz-health.json``).
    health_file: str | None = None
    #: How old the heartbeat, the last database check and the last ``getUpdates`` may be
    #: for ``kolkhoz health`` to say the bot is healthy.
    health_max_age: timedelta = timedelta(seconds=60)
    #: Port of the Prometheus metrics (``GET /metrics``, :mod:`kolkhoz_tg.metrics`); none:
    #: no metrics.
    metrics_port: int | None = Field(default=None, ge=0, le=65535)

    @field_validator("turn_timeout", "sweep_interval", "relay_interval", "health_max_age",
                     mode="before")
    @classmethod
    def _duration(cls, value: Any) -> timedelta:
        return parse_duration(value)

    @field_validator("locale")
    @classmethod
    def _locale(cls, value: str) -> str:
        value = value.strip().lower()[:2]
        if value not in LOCALES:
            raise ValueError(f"locale must be one of {', '.join(LOCALES)}")
        return value

    @property
    def reminder_specs(self) -> list[str]:
        return [part.strip() for part in self.reminders.split(",") if part.strip()]


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
