"""What an operator watches, in Prometheus's text format (``prometheus_client``).

Off unless ``KOLKHOZ_METRICS_PORT`` is set: then :func:`serve` answers ``GET /metrics`` on
that port (a small server of its own, in polling and in webhook mode alike). The figures:

- ``kolkhoz_tap_seconds`` — button taps answered, and how long handling one took;
- ``kolkhoz_moves_total{actor}`` — moves applied (``player``, ``bot``, ``timeout``,
  ``standin``, ``forced``);
- ``kolkhoz_outbox_owed`` and ``kolkhoz_outbox_oldest_seconds`` — messages the outbox still
  owes and the age of the oldest (read from the database at each scrape);
- ``kolkhoz_send_failures_total{method,reason}`` — Bot API calls that failed for good;
- ``kolkhoz_flood_waits_total{chat}`` and ``kolkhoz_flood_wait_seconds_total{chat}`` —
  flood control met, by chat;
- ``kolkhoz_deadlines_due`` and ``kolkhoz_deadlines_late`` — games whose deadline has passed,
  and of them those more than a minute late (the sweep should have played them);
- ``kolkhoz_bot_decision_seconds{level}`` — search-bot decisions and their time;
- ``kolkhoz_games_active`` — games being played;
- the process's own (``process_start_time_seconds`` for restarts, memory, CPU).

docs/operators.md lists the alerts worth setting on them. The counters live in this module
(one process, one set); the figures read from the database come from the service at each
scrape (:class:`ServiceFigures`, :meth:`GameService.operator_figures`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    start_http_server,
)
from prometheus_client.core import GaugeMetricFamily, Metric

from kolkhoz_tg.service.records import OperatorFigures as Figures

log = logging.getLogger(__name__)

REGISTRY = CollectorRegistry()
ProcessCollector(registry=REGISTRY)
PlatformCollector(registry=REGISTRY)

TAPS = Histogram(
    "kolkhoz_tap_seconds", "Button taps answered, and the time their handling took",
    buckets=(0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0), registry=REGISTRY)
MOVES = Counter("kolkhoz_moves", "Moves applied, by who made them", ["actor"],
                registry=REGISTRY)
SEND_FAILURES = Counter(
    "kolkhoz_send_failures", "Bot API calls that failed after their retries",
    ["method", "reason"], registry=REGISTRY)
FLOOD_WAITS = Counter("kolkhoz_flood_waits", "Flood control (429) met, by chat", ["chat"],
                      registry=REGISTRY)
FLOOD_SECONDS = Counter("kolkhoz_flood_wait_seconds",
                        "Seconds Telegram's flood control asked to wait, by chat", ["chat"],
                        registry=REGISTRY)
BOT_DECISIONS = Histogram(
    "kolkhoz_bot_decision_seconds", "Search-bot decisions, and the time each took",
    ["level"], buckets=(0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0), registry=REGISTRY)


class ServiceFigures:
    """A collector that reads :class:`Figures` at each scrape (``read``: the service's)."""

    def __init__(self, read: Callable[[], Figures]) -> None:
        self.read = read

    def collect(self) -> Iterable[Metric]:
        try:
            f = self.read()
        except Exception as e:  # the database is down: the scrape still answers
            log.info("metrics: the database figures could not be read: %s", e)
            return
        yield GaugeMetricFamily("kolkhoz_outbox_owed",
                                "Messages the outbox still owes", value=f.outbox_owed)
        yield GaugeMetricFamily("kolkhoz_outbox_oldest_seconds",
                                "Age of the oldest message the outbox owes (0: none)",
                                value=f.outbox_oldest_seconds)
        yield GaugeMetricFamily("kolkhoz_games_active", "Games being played",
                                value=f.games_active)
        yield GaugeMetricFamily("kolkhoz_deadlines_due",
                                "Running games whose deadline has passed",
                                value=f.deadlines_due)
        yield GaugeMetricFamily("kolkhoz_deadlines_late",
                                "Running games more than a minute past their deadline",
                                value=f.deadlines_late)


_served: dict[str, Any] = {}
_lock = threading.Lock()


def serve(port: int, read: Callable[[], Figures], addr: str = "0.0.0.0") -> int:
    """Answer ``GET /metrics`` on ``port`` (0: any free one) in a thread of its own, the
    database figures read by ``read``; returns the port. Once a process."""
    with _lock:
        if "server" in _served:
            return int(_served["server"].server_port)
        collector = ServiceFigures(read)
        REGISTRY.register(collector)
        server, _thread = start_http_server(port, addr=addr, registry=REGISTRY)
        _served.update(server=server, collector=collector)
        log.info("metrics on port %s (/metrics)", server.server_port)
        return int(server.server_port)


def served_port() -> int | None:
    """The port :func:`serve` answers on, if it does."""
    with _lock:
        server = _served.get("server")
        return None if server is None else int(server.server_port)


def stop() -> None:
    """Stop answering (a clean shutdown, a test)."""
    with _lock:
        server = _served.pop("server", None)
        collector = _served.pop("collector", None)
        if collector is not None:
            REGISTRY.unregister(collector)
        if server is not None:
            server.shutdown()
            server.server_close()
