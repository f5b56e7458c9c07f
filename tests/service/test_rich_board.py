"""The rich board's HTML (present/rich.py) from a game's public view, in both languages:
what Telegram's rich HTML accepts (checked by the fake's reader), names escaped, a long log
cut to Telegram's limits keeping its newest tricks."""

from __future__ import annotations

import html

import pytest

from kolkhoz_tg import present
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.present import rich
from kolkhoz_tg.service import GameService
from tests.faketg.rich import MAX_BLOCKS, MAX_RICH_TEXT, read_html
from tests.service.helpers import step


def _game(service: GameService, moves: int) -> int:
    game = service.create_game(-100, 1, creator_name="<Ann & Co>", players=4, seed=7)
    service.join(game.id, 2, "Boris")
    service.start(game.id, 1, fill_with_ai=True)
    for _ in range(moves):
        assert step(service, game.id)
    return game.id


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_the_rich_board_reads_as_telegram_reads_it(service: GameService, lang: str) -> None:
    tr = translator(lang)
    game_id = _game(service, 12)
    bv = service.board(game_id)
    assert bv.view is not None
    text_board = present.board_message(tr, bv, service.clock.now(), "kolkhoz_bot").text
    out = present.board_rich(tr, bv, service.clock.now(), ["Boris 9♥"])
    seen, _blocks = read_html(out)  # raises as Telegram would on what it refuses
    assert "&lt;Ann &amp; Co&gt;" in out and "<Ann" not in out
    for word in ("Job", "Hours", "Reward", "Player", "Medals", "Face up"):
        assert f"<th>{html.escape(tr.gettext(word), quote=False)}</th>" in out
    # The same public facts as the text board: its first line, the jobs' hours, the moves.
    for part in text_board.splitlines()[0].split(" · "):
        assert part in seen, part
    for job in bv.view.jobs:
        assert f"{job.hours}/{job.threshold}" in seen
    assert "🕘 Boris 9♥" in seen
    if bv.view.tricks:
        summary = tr.ngettext("The year so far: {n} trick", "The year so far: {n} tricks",
                              len(bv.view.tricks))
        assert f"<summary>📜 {summary}</summary>" in out
    if lang == "ru":
        assert tr.ngettext("The year so far: {n} trick", "The year so far: {n} tricks",
                           21) == "В этом году сыграна 21 взятка"


def test_a_long_log_keeps_its_newest_tricks_within_telegrams_limits(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    tr = translator("ru")
    game_id = _game(service, 12)
    long = [f"Взятка {i}: " + "10♥ " * 30 for i in range(2000)] + ["Взятка 2001 из 2001: —"]
    monkeypatch.setattr(rich, "trick_lines", lambda *a, **k: list(long))
    out = present.board_rich(tr, service.board(game_id), service.clock.now())
    seen, blocks = read_html(out)
    assert len(seen) <= MAX_RICH_TEXT and blocks <= MAX_BLOCKS
    assert "Взятка 1999:" in seen and "Взятка 0:" not in seen and "…" in seen


def test_fit_log() -> None:
    assert rich.fit_log(["a", "b"]) == ["a", "b"]
    assert rich.fit_log(["aaaa", "bbbb", "cccc"], room=10) == ["…", "bbbb", "cccc"]
    assert rich.fit_log([str(i) for i in range(10)], most=4) == ["…", "7", "8", "9"]
