"""Transports for :class:`~.core.FakeTelegram`: in-process ``BaseRequest`` and HTTP server."""

from __future__ import annotations

import asyncio
import contextlib
import email.parser
import email.policy
import json
import socket
import traceback
from collections.abc import Callable
from http import HTTPStatus
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit

import httpx
from telegram._utils.types import ODVInput
from telegram.error import NetworkError, TimedOut
from telegram.ext import ApplicationBuilder
from telegram.request import BaseRequest, RequestData

from .errors import InjectedDisconnect, InjectedTimeout

if TYPE_CHECKING:
    from .core import FakeTelegram


class RealTelegramAccess(BaseException):  # a BaseException on purpose, see below
    """Raised when a test tries to reach the real Telegram.

    A ``BaseException`` so that PTB's request layer (which turns any ``Exception`` into a
    retried ``NetworkError``) cannot swallow it.
    """


def forbid_real_telegram(monkeypatch: Any) -> list[str]:
    """Make any request to ``*.telegram.org`` fail loudly (``monkeypatch`` is pytest's).

    PTB's ``Bot`` defaults ``get_updates_request`` to a real HTTPX client: a test that
    wires only ``request=`` would otherwise poll the real Telegram. Returns the list the
    blocked URLs are recorded in (token stripped).
    """
    from telegram.request import HTTPXRequest

    original = HTTPXRequest.do_request
    attempts: list[str] = []

    async def guarded(self: HTTPXRequest, url: str, *args: Any, **kwargs: Any) -> Any:
        host = urlsplit(url).hostname or ""
        if host == "telegram.org" or host.endswith(".telegram.org"):
            attempts.append(f"{url.split('/bot')[0]}/bot<TOKEN>/{url.rsplit('/', 1)[-1]}")
            raise RealTelegramAccess(f"a test tried to reach the real Telegram: {attempts[-1]}")
        return await original(self, url, *args, **kwargs)

    monkeypatch.setattr(HTTPXRequest, "do_request", guarded)
    return attempts


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def split_api_path(path: str) -> tuple[str, str] | None:
    """``/bot<TOKEN>/<method>`` (any prefix before it) -> (token, method)."""
    parts = [p for p in path.split("/") if p]
    if len(parts) < 2 or (len(parts) >= 3 and parts[-3] == "file"):
        return None
    token, method = parts[-2], parts[-1]
    if token.startswith("bot"):
        token = token[3:]
    return token, method


#: How long the HTTP server keeps a timed-out request unanswered at most (the client gives
#: up long before, after its read timeout).
HOLD_TIMED_OUT = 300.0


def encode_body(body: dict[str, Any] | bytes) -> bytes:
    return body if isinstance(body, bytes) else json.dumps(body).encode()


async def _dispatch(
    fake: FakeTelegram, token: str, method: str, params: dict[str, Any], transport: str
) -> tuple[int, dict[str, Any] | bytes]:
    try:
        return await fake.handle(token, method, params, transport=transport)
    except (asyncio.CancelledError, InjectedTimeout, InjectedDisconnect):
        raise
    except Exception as exc:  # a bug in the fake: make it visible
        fake.internal_errors.append(exc)
        return 500, {
            "ok": False,
            "error_code": 500,
            "description": f"Internal Server Error: fake Telegram crashed: {exc!r}\n"
            + traceback.format_exc(),
        }


class FakeRequest(BaseRequest):
    """PTB request object that calls the fake directly (no sockets).

    Use one for ``request`` and one for ``get_updates_request``::

        ApplicationBuilder().token(fake.token)
            .request(FakeRequest(fake)).get_updates_request(FakeRequest(fake))
    """

    def __init__(self, fake: FakeTelegram, read_timeout: float | None = 5.0) -> None:
        self.fake = fake
        self._read_timeout = read_timeout

    @property
    def read_timeout(self) -> float | None:
        return self._read_timeout

    async def initialize(self) -> None:
        return None

    async def shutdown(self) -> None:
        return None

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        route = split_api_path(urlsplit(url).path)
        if route is None:
            body = {"ok": False, "error_code": 404, "description": "Not Found"}
            return 404, json.dumps(body).encode()
        token, api_method = route
        # exactly what the HTTP transport would put on the wire: strings (JSON for non-str)
        params: dict[str, Any] = dict(request_data.json_parameters) if request_data else {}
        if request_data is not None and request_data.contains_files:
            for name, value in request_data.multipart_data.items():
                content = value[1] if isinstance(value, tuple) else value
                params.setdefault(name, self.fake.stash_upload(bytes(content)))
        await asyncio.sleep(0)  # a network call is never synchronous
        try:
            status, answer = await _dispatch(self.fake, token, api_method, params, "inprocess")
        except InjectedTimeout as exc:
            # what HTTPXRequest raises on an httpx timeout
            cause = httpx.ReadTimeout(str(exc)) if exc.after else httpx.ConnectTimeout(str(exc))
            raise TimedOut from cause
        except InjectedDisconnect as exc:
            # what HTTPXRequest raises on any other httpx error
            broke: httpx.HTTPError = (
                httpx.RemoteProtocolError("Server disconnected without sending a response.")
                if exc.after else httpx.ConnectError("All connection attempts failed"))
            raise NetworkError(f"httpx.{broke.__class__.__name__}: {broke}") from broke
        return status, encode_body(answer)


def inprocess_builder(fake: FakeTelegram) -> ApplicationBuilder[Any, Any, Any, Any, Any, Any]:
    """An ``ApplicationBuilder`` wired to ``fake`` in-process (token and both requests)."""
    return (
        ApplicationBuilder()
        .token(fake.token)
        .request(FakeRequest(fake))
        .get_updates_request(FakeRequest(fake))
    )


class FakeBotApiServer:
    """The fake on a real socket: ``http://127.0.0.1:PORT/bot<TOKEN>/<method>``.

    Point PTB at it with ``ApplicationBuilder().base_url(server.base_url)``.
    Speaks enough HTTP/1.1 for httpx: keep-alive, Content-Length or chunked bodies,
    form-urlencoded, JSON and multipart parameters.
    """

    def __init__(self, fake: FakeTelegram, host: str = "127.0.0.1", port: int = 0) -> None:
        self.fake = fake
        self.host = host
        self.port = port
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.Task[Any]] = set()
        self.requests = 0

    @property
    def base_url(self) -> str:
        """The value for ``ApplicationBuilder().base_url`` (``KOLKHOZ_BOT_API_URL``)."""
        return f"http://{self.host}:{self.port}/bot"

    def builder(self) -> ApplicationBuilder[Any, Any, Any, Any, Any, Any]:
        """An ``ApplicationBuilder`` pointed at this server (token and ``base_url``)."""
        return ApplicationBuilder().token(self.fake.token).base_url(self.base_url)

    async def start(self) -> FakeBotApiServer:
        self._server = await asyncio.start_server(self._serve, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        if self._server is None:
            return
        self._server.close()
        for task in list(self._connections):
            task.cancel()
        for task in list(self._connections):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        with contextlib.suppress(Exception):
            await self._server.wait_closed()
        self._server = None

    async def __aenter__(self) -> FakeBotApiServer:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._connections.add(task)
        try:
            while True:
                request = await self._read_request(reader)
                if request is None:
                    break
                verb, target, headers, body = request
                result = await self._respond_unless_gone(reader, verb, target, headers, body)
                if result is None:
                    break  # the client hung up (e.g. PTB cancelled its long poll)
                status, payload = result
                data = encode_body(payload)
                kind = "text/html" if isinstance(payload, bytes) else "application/json"
                keep_alive = headers.get("connection", "").lower() != "close"
                head = (
                    f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\n"
                    f"Content-Type: {kind}\r\n"
                    f"Content-Length: {len(data)}\r\n"
                    f"Connection: {'keep-alive' if keep_alive else 'close'}\r\n\r\n"
                )
                writer.write(head.encode() + data)
                await writer.drain()
                if not keep_alive:
                    break
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        except asyncio.CancelledError:
            # server stopping: end quietly (asyncio's stream callback would log a
            # cancelled connection task as an error)
            pass
        finally:
            if task is not None:
                self._connections.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _respond_unless_gone(
        self,
        reader: asyncio.StreamReader,
        verb: str,
        target: str,
        headers: dict[str, str],
        body: bytes,
    ) -> tuple[int, dict[str, Any] | bytes] | None:
        """Answer the request, but abandon it if the client disconnects meanwhile, so a
        cancelled long poll ends here as it does in-process (not logged, no 409 later)."""
        respond = asyncio.ensure_future(self._respond(verb, target, headers, body))
        if respond.done():
            return respond.result()
        hangup = asyncio.ensure_future(reader.read(1))
        try:
            await asyncio.wait({respond, hangup}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            respond.cancel()
            hangup.cancel()
            raise
        if respond.done():
            hangup.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await hangup
            return respond.result()
        respond.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await respond
        return None

    async def _read_request(
        self, reader: asyncio.StreamReader
    ) -> tuple[str, str, dict[str, str], bytes] | None:
        line = await reader.readline()
        if not line.strip():
            return None
        verb, target, _version = line.decode("latin-1").split(" ", 2)
        headers: dict[str, str] = {}
        while True:
            h = await reader.readline()
            if h in (b"\r\n", b"\n", b""):
                break
            name, _, value = h.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        body = b""
        if "content-length" in headers:
            body = await reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int((await reader.readline()).split(b";")[0].strip(), 16)
                if size == 0:
                    await reader.readline()
                    break
                chunks.append(await reader.readexactly(size))
                await reader.readline()
            body = b"".join(chunks)
        self.requests += 1
        return verb, target, headers, body

    async def _respond(
        self, verb: str, target: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, dict[str, Any] | bytes] | None:
        url = urlsplit(target)
        route = split_api_path(url.path)
        if route is None or verb not in ("GET", "POST"):
            return 404, {"ok": False, "error_code": 404, "description": "Not Found"}
        params: dict[str, Any] = dict(parse_qsl(url.query, keep_blank_values=True))
        try:
            params.update(parse_body(headers.get("content-type", ""), body,
                                     stash=self.fake.stash_upload))
        except ValueError as exc:
            return 400, {
                "ok": False,
                "error_code": 400,
                "description": f"Bad Request: can't parse request body: {exc}",
            }
        token, method = route
        try:
            return await _dispatch(self.fake, token, method, params, "http")
        except InjectedTimeout:
            # A timeout fault: never answer; the client times out and hangs up, which ends
            # this request in _respond_unless_gone.
            await asyncio.sleep(HOLD_TIMED_OUT)
            return 504, {"ok": False, "error_code": 504, "description": "Gateway Timeout"}
        except InjectedDisconnect:
            return None  # the connection is closed without a reply


def parse_body(
    content_type: str, body: bytes, stash: Callable[[bytes], str] | None = None
) -> dict[str, Any]:
    """Parameters of a Bot API request body (form, JSON or multipart); an uploaded file
    becomes what ``stash`` makes of its bytes (``<file NAME>`` without one)."""
    if not body:
        return {}
    kind = content_type.split(";", 1)[0].strip().lower()
    if kind == "application/json":
        data = json.loads(body)
        if not isinstance(data, dict):
            raise ValueError("JSON body must be an object")
        return data
    if kind == "multipart/form-data":
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            f"Content-Type: {content_type}\r\n\r\n".encode() + body
        )
        params: dict[str, Any] = {}
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            if not isinstance(name, str):
                continue
            filename = part.get_filename()
            payload = part.get_payload(decode=True)
            if filename:
                content = payload if isinstance(payload, bytes) else b""
                params[name] = stash(content) if stash else f"<file {filename}>"
            else:
                raw = payload if isinstance(payload, bytes) else b""
                params[name] = raw.decode(part.get_content_charset() or "utf-8")
        return params
    return dict(parse_qsl(body.decode("utf-8"), keep_blank_values=True))
