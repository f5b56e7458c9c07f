"""The one name for JSON data in the service: what the database and the outbox store, and
what only codecs (``to_json`` / ``from_json``, :func:`~kolkhoz_tg.service.payloads.decode`)
take or return. Records themselves are typed; a ``JsonObject`` never crosses to a screen."""

from __future__ import annotations

from typing import Any, TypeAlias

#: A JSON object as stored (``json.loads`` of a row's column).
JsonObject: TypeAlias = dict[str, Any]
