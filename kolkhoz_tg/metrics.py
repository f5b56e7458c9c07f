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
- ``kolkhoz_engine_compiled`` — 1 when the bots think with the compiled engine
  (:mod:`kolkhoz_tg.compiled_engine`), 0 on plain Python;
- the process's own (``process_start_time_seconds`` for restarts, memory, CPU).

docs/operators.md lists the alerts worth setting on them. The front end counts through the
functions here (:func:`tap_timer`, :func:`count_move`, :func:`send_failed`, :func:`flood_wait`,
:func:`bot_decided`): until :func:`serve` is called they do nothing, and prometheus_client
is not even loaded (a bot without metrics saves its memory). The counters then live in one
:class:`_Counters` for the process; the figures read from the database come from the service
at each scrape (:class:`ServiceFigures`, :meth:`GameService.operator_figures`).
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from kolkhoz_tg import compiled_engine
from kolkhoz_tg.service.records import OperatorFigures as Figures

if TYPE_CHECKING:
    from prometheus_client.core import Metric

log = logging.getLogger(__name__)


class _Counters:
    """The process's registry and its counters (made by the first :func:`serve`)."""

    def __init__(self) -> None:
        from prometheus_client import (
            CollectorRegistry,
            Counter,
            Gauge,
            Histogram,
            PlatformCollector,
            ProcessCollector,
        )

        self.registry = registry = CollectorRegistry()
        ProcessCollector(registry=registry)
        PlatformCollector(registry=registry)
        self.taps = Histogram(
            "kolkhoz_tap_seconds", "Button taps answered, and the time their handling took",
            buckets=(0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0), registry=registry)
        self.moves = Counter("kolkhoz_moves", "Moves applied, by who made them", ["actor"],
                             registry=registry)
        self.send_failures = Counter(
            "kolkhoz_send_failures", "Bot API calls that failed after their retries",
            ["method", "reason"], registry=registry)
        self.flood_waits = Counter("kolkhoz_flood_waits", "Flood control (429) met, by chat",
                                   ["chat"], registry=registry)
        self.flood_seconds = Counter(
            "kolkhoz_flood_wait_seconds",
            "Seconds Telegram's flood control asked to wait, by chat", ["chat"],
            registry=registry)
        self.bot_decisions = Histogram(
            "kolkhoz_bot_decision_seconds", "Search-bot decisions, and the time each took",
            ["level"], buckets=(0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0),
            registry=registry)
        self.engine = Gauge(
            "kolkhoz_engine_compiled",
            "1 when the bots think with the compiled engine, 0 on plain Python",
            registry=registry)
        self.engine.set_function(lambda: float(compiled_engine.is_compiled()))


#: The counters once :func:`serve` made them (kept after :func:`stop`: one set a process).
_counters: _Counters | None = None


@contextlib.contextmanager
def tap_timer() -> Iterator[None]:
    """Times the handling of a button tap."""
    counters = _counters
    if counters is None:
        yield
        return
    with counters.taps.time():
        yield


def count_move(actor: str) -> None:
    """A move applied, by ``actor`` (``player``, ``bot``, ``timeout``, …)."""
    if _counters is not None:
        _counters.moves.labels(actor).inc()


def send_failed(method: str, reason: str) -> None:
    """A Bot API call (``method``) that failed for good, for ``reason``."""
    if _counters is not None:
        _counters.send_failures.labels(method, reason).inc()


def flood_wait(chat: str, seconds: float) -> None:
    """Flood control met in ``chat``, asking to wait ``seconds``."""
    if _counters is not None:
        _counters.flood_waits.labels(chat).inc()
        _counters.flood_seconds.labels(chat).inc(seconds)


def bot_decided(level: str, seconds: float) -> None:
    """A search bot of ``level`` decided in ``seconds``."""
    if _counters is not None:
        _counters.bot_decisions.labels(level).observe(seconds)


class ServiceFigures:
    """A collector that reads :class:`Figures` at each scrape (``read``: the service's)."""

    def __init__(self, read: Callable[[], Figures]) -> None:
        self.read = read

    def collect(self) -> Iterable[Metric]:
        from prometheus_client.core import GaugeMetricFamily

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
    database figures read by ``read``; returns the port. Once a process. From now on the
    front end's counts are kept."""
    global _counters
    with _lock:
        if "server" in _served:
            return int(_served["server"].server_port)
        from prometheus_client import start_http_server

        if _counters is None:
            _counters = _Counters()
        collector = ServiceFigures(read)
        _counters.registry.register(collector)
        server, _thread = start_http_server(port, addr=addr, registry=_counters.registry)
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
        if collector is not None and _counters is not None:
            _counters.registry.unregister(collector)
        if server is not None:
            server.shutdown()
            server.server_close()
