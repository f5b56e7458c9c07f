"""Typed moves: ``/play 10H``, ``/play 10♥``, ``/play 10ч``, ``/assign 10H S``, ``/trump ♠``,
``/swap 9H KC``, turned into engine action texts.

Players type cards the way they say them, in either language: ``10H``, ``TH``, ``10♥``,
``10ч``, ``Вп`` (валет пик), ``10 червы``, ``queen of spades``, ``дама пик``. Suits and jobs may
also be named: ``S``, ``♠``, ``п``, ``пики``, ``spades``, or the job's name in either theme
(``Зерно``, ``Grain``, ``Подсолнечник``, ``Sunflowers``). Nothing here knows Telegram.
"""

from __future__ import annotations

import contextlib
import itertools
import re

from engine import Action, Suit, parse_card
from engine.cards import card_id

_SUIT_WORDS: dict[str, Suit] = {}
for _suit, _words in {
    Suit.H: "h hearts heart черви червы черва червей ♥ ♡ пахота plowing ploughing пшеница wheat",
    Suit.D: "d diamonds diamond бубны буби бубна бубей ♦ ♢ жатва harvest свёкла свекла beets beet",
    Suit.C: "c clubs club трефы трефа крести треф ♣ ♧ мастерская workshop картофель картошка "
    "potatoes potato",
    Suit.S: "s spades spade пики пика пик ♠ ♤ зерно grain подсолнечник подсолнух sunflowers "
    "sunflower",
}.items():
    for _w in _words.split():
        _SUIT_WORDS[_w] = _suit
# Single Russian letters: ч б т п (червы, бубны, трефы, пики).
_SUIT_WORDS.update({"ч": Suit.H, "б": Suit.D, "т": Suit.C, "п": Suit.S})

_RANK_WORDS: dict[str, int] = {
    "ace": 1, "туз": 1, "jack": 11, "валет": 11, "queen": 12, "дама": 12, "king": 13,
    "король": 13, "ten": 10, "десятка": 10, "nine": 9, "девятка": 9, "eight": 8,
    "восьмёрка": 8, "восьмерка": 8, "seven": 7, "семёрка": 7, "семерка": 7, "six": 6,
    "шестёрка": 6, "шестерка": 6,
}
for _r in range(2, 11):
    _RANK_WORDS[str(_r)] = _r
_RANK_WORDS.update({"a": 1, "j": 11, "q": 12, "k": 13, "t": 10, "в": 11, "д": 12, "к": 13})

_PASS_WORDS = {"pass", "no", "none", "-", "нет", "пас", "пропуск", "не", "оставить"}
_FILLER = {"of", "to", "on", "в", "на", "->", "→", ">", "<", "за", "for"}


class TypedError(ValueError):
    """A typed move that could not be read. ``code`` names the problem for translation:
    ``usage`` (wrong number of parts), ``bad_card``, ``bad_suit``; ``text`` is the bad part."""

    def __init__(self, code: str, command: str, text: str = "") -> None:
        super().__init__(f"{code}: /{command} {text}".strip())
        self.code = code
        self.command = command
        self.text = text


def parse_suit(text: str) -> Suit:
    """A suit or job from a letter, symbol, Russian letter, suit name or job name."""
    key = text.strip().lower().replace("ё", "е") if text.strip() else ""
    suit = _SUIT_WORDS.get(key) or _SUIT_WORDS.get(text.strip().lower())
    if suit is None:
        try:
            return Suit.parse(text)
        except ValueError:
            raise ValueError(text) from None
    return suit


def _token_readings(args: str) -> list[list[str]]:
    """The ways to read ``args`` as tokens, the likeliest first: "10♥" stays one token,
    "10 ♥" is two; commas and slashes separate; filler words go. Russian «в» is a filler
    ("into") and the jack's letter too: first every «в» goes, then each choice of the
    ones kept as a jack ("/play В п", "/assign в п в ч")."""
    raw = [t for t in re.split(r"[\s,;/]+", args.strip()) if t]
    both = [i for i, t in enumerate(raw) if t.lower() in _FILLER and t.lower() in _RANK_WORDS]
    readings = []
    for kept in itertools.chain.from_iterable(
            itertools.combinations(both, n) for n in range(min(len(both), 4) + 1)):
        readings.append([t for i, t in enumerate(raw)
                         if t.lower() not in _FILLER or i in kept])
    return readings


def _card_from(tokens: list[str]) -> tuple[int, list[str]]:
    """Read one card from the front of ``tokens``; return its id and the rest."""
    if not tokens:
        raise ValueError("")
    first = tokens[0]
    try:
        return parse_card(first), tokens[1:]
    except ValueError:
        pass
    if len(tokens) >= 2:
        rank = _RANK_WORDS.get(first.lower().replace("ё", "е")) or _RANK_WORDS.get(first.lower())
        if rank is not None:
            try:
                return card_id(rank, parse_suit(tokens[1])), tokens[2:]
            except ValueError:
                pass
    raise ValueError(first)


def parse_typed(command: str, args: str) -> str:
    """The engine action text for a typed move, e.g. ``("play", "10ч")`` → ``"play:10H"``.

    ``command`` is ``play``, ``assign``, ``trump``, ``swap`` or ``pass`` (the card passed to
    a neighbour, house rule ``pass_cards``). Raises :class:`TypedError`
    (the first reading's, when no reading of the words makes a move)."""
    readings = _token_readings(args)
    try:
        return _parse_tokens(command, args, readings[0])
    except TypedError:
        for tokens in readings[1:]:
            with contextlib.suppress(TypedError):
                return _parse_tokens(command, args, tokens)
        raise


def _parse_tokens(command: str, args: str, tokens: list[str]) -> str:
    if command == "trump":
        if len(tokens) != 1:
            raise TypedError("usage", command, args)
        try:
            return Action.trump(parse_suit(tokens[0])).text
        except ValueError:
            raise TypedError("bad_suit", command, tokens[0]) from None
    if command in ("play", "pass"):
        try:
            cid, rest = _card_from(tokens)
        except ValueError as exc:
            raise TypedError("bad_card" if tokens else "usage", command, str(exc)) from None
        if rest:
            raise TypedError("usage", command, args)
        return (Action.play(cid) if command == "play" else Action.pass_card(cid)).text
    if command == "assign":
        try:
            cid, rest = _card_from(tokens)
        except ValueError as exc:
            raise TypedError("bad_card" if tokens else "usage", command, str(exc)) from None
        if len(rest) != 1:
            raise TypedError("usage", command, args)
        try:
            job = parse_suit(rest[0])
        except ValueError:
            raise TypedError("bad_suit", command, rest[0]) from None
        return Action.assign(cid, job).text
    if command == "swap":
        if len(tokens) == 1 and tokens[0].lower() in _PASS_WORDS:
            return Action.swap_pass().text
        if len(tokens) < 2:
            raise TypedError("usage", command, args)
        try:
            hand, rest = _card_from(tokens)
            plot, rest = _card_from(rest)
        except ValueError as exc:
            raise TypedError("bad_card" if tokens else "usage", command, str(exc)) from None
        if rest:
            raise TypedError("usage", command, args)
        return Action.swap(hand, plot).text
    raise TypedError("usage", command, args)
