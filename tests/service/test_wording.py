"""The wording a native Russian reader asked for stays: game numbers read «№ 12», usage lines
start with «Использование:», one form of «Сейчас не ваш ход», no «п» for spades next to the
job Пахота, the reader's own «Вы» capitalised where it starts an item, a completing card
reads «норма ✅»; and English text never uses «guillemets»."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from engine import Game, Phase, preset
from engine.events import event_from_dict
from engine.views import View
from kolkhoz_tg import present
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.service import GameService
from tests.service.helpers import header, new_game

LOCALES = Path(__file__).resolve().parents[2] / "locales"


def _catalog(locale: str) -> Catalog:
    with (LOCALES / locale / "LC_MESSAGES" / "messages.po").open("rb") as f:
        return read_po(f, locale=locale)


def _pairs(locale: str) -> list[tuple[str, str]]:
    """(msgid, msgstr) of every message, each plural form on its own."""
    out = []
    for m in _catalog(locale):
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        out += [(ids[0], s) for s in strings]
    return out


def test_english_never_uses_guillemets() -> None:
    wrong = [s for _i, s in _pairs("en") if "«" in s or "»" in s]
    assert not wrong, wrong


def test_russian_game_numbers_read_with_numero() -> None:
    for msgid, text in _pairs("ru"):
        assert "#" not in text, text
        if "#{id}" in msgid:
            assert "№ {id}" in text, text


def test_russian_usage_lines_say_usage_capitalised() -> None:
    usage = [(i, s) for i, s in _pairs("ru") if i.lower().startswith("usage:")]
    assert len(usage) > 5
    for msgid, text in usage:
        assert text.startswith("Использование: "), (msgid, text)


def test_russian_wording_is_one_form_per_thing() -> None:
    strings = [s for _i, s in _pairs("ru")]
    assert not [s for s in strings if "ход не ваш" in s]
    # «п» (пики) as a job's suit reads as Пахота: the examples name ♠ or the job instead.
    assert not [s for s in strings if re.search(r"\d[чбтп] п\b", s)]
    assert not [s for s in strings if "забирает {name}" in s]
    assert not [s for s in strings if "Сильнейший" in s or "сильнейший" in s]


def test_the_board_capitalises_you_where_it_starts_an_item(service: GameService) -> None:
    game, _ = new_game(service, humans=1, seed=5)
    view = service.seat_view(game.id, 1)
    now = service.clock.now()
    for locale, you in (("ru", "Вы"), ("en", "You")):
        text = present.board_text(translator(locale), view.game, view.view, now, None, view.seat)
        [medals] = [line for line in text.splitlines() if line.startswith("🏅 ")]
        items = medals.removeprefix("🏅 ").split(" · ")
        assert any(re.fullmatch(rf"{you} \d+", item) for item in items), medals


@pytest.mark.parametrize(("locale", "done"), [("ru", ", норма ✅)"), ("en", ", done ✅)")])
def test_a_card_that_completes_a_job_says_so_after_a_comma(locale: str, done: str) -> None:
    tr = translator(locale)
    for seed in range(100):
        g = Game.new(preset("classic"), 4, seed=seed)
        rng = random.Random(seed)
        while not g.is_over:
            seat = g.to_act[0]
            if g.phase is Phase.ASSIGN:
                view = View.from_dict(g.view(seat), [a.text for a in g.legal_actions(seat)])
                for action in view.legal:
                    job = view.job(action.suit) if action.suit is not None else None
                    if (job is not None and action.card is not None and not job.complete
                            and job.hours < job.threshold and job.completes(action.card)):
                        label = present.action_label(tr, view, action)
                        assert label.endswith(done), label
                        return
            g.apply(seat, rng.choice(g.legal_actions(seat)))
    pytest.fail("no card completed a job in 100 games")


def test_a_requisitioned_card_goes_north_in_plain_russian() -> None:
    game = header("Анна")
    event = event_from_dict({"type": "CardSentNorth", "job": "H", "seat": 0, "card": "9H"})
    text = present.event_text(translator("ru"), game, event, "jobs")
    assert text == "Пахота: на Север уходит 9♥ (Анна)."
    stand_in = translator("ru").gettext("A bot now plays for {name} until they are back.",
                                        name="Глеб")
    assert stand_in == "Вместо игрока Глеб пока ходит бот."
