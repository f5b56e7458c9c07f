"""Typed moves, one vocabulary for every front end: the bot's ``/play 10H``, ``/assign 10H S``,
``/trump ♠``, ``/swap 9H KC``, ``/pass 9H`` and the terminal's answers, turned into engine
action texts. Nothing here knows Telegram.

Players type cards the way they say them, in either language: ``10H``, ``TH``, ``10♥``,
``10ч``, ``Вп`` (валет пик), ``10 червы``, ``queen of spades``, ``дама пик``. Suits and jobs may
also be named: ``S``, ``♠``, ``п``, ``пики``, ``spades``, or the job's name in either theme
(``Зерно``, ``Grain``, ``Подсолнечник``, ``Sunflowers``). The swap is declined with any of
:data:`PASS_WORDS`. Latin letters typed in the Russian keyboard layout read too (``10Р`` for
``10H``, ``ЙЫ`` for ``QS``, ``зфыы`` for ``pass``) when the text means nothing as it is: no card
written with Russian letters reads both ways.
"""

from __future__ import annotations

import contextlib
import itertools
import re
from collections.abc import Callable

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

#: The words that decline the swap (``/swap pass``, or the answer ``пас``), lower case.
PASS_WORDS = frozenset({"pass", "no", "none", "-", "нет", "пас", "пропуск", "не", "оставить"})
_FILLER = {"of", "to", "on", "в", "на", "->", "→", ">", "<", "за", "for"}

#: The typed commands, each the kind of action it makes.
COMMANDS = ("play", "assign", "trump", "swap", "pass")

# Each key as a Latin (US) layout types it, and as the Russian (ЙЦУКЕН) layout types it.
_LATIN_KEYS = "`qwertyuiop[]asdfghjkl;'zxcvbnm,./~QWERTYUIOP{}ASDFGHJKL:\"ZXCVBNM<>?"
_RUSSIAN_KEYS = "ёйцукенгшщзхъфывапролджэячсмитьбю.ЁЙЦУКЕНГШЩЗХЪФЫВАПРОЛДЖЭЯЧСМИТЬБЮ,"
_TO_RUSSIAN = str.maketrans(_LATIN_KEYS, _RUSSIAN_KEYS)
# Back from the Russian layout: the letters only (its punctuation means what it is).
_TO_LATIN = str.maketrans({r: lat for lat, r in zip(_LATIN_KEYS, _RUSSIAN_KEYS, strict=True)
                           if r.isalpha()})


def russian_layout(text: str) -> str:
    """What the keys that type ``text`` in the Latin layout type in the Russian one
    (``q`` → ``й``, ``help`` → ``рудз``)."""
    return text.translate(_TO_RUSSIAN)


def latin_layout(text: str) -> str:
    """What the keys that type ``text``'s Russian letters type in the Latin layout
    (``ЙЫ`` → ``QS``); anything else is left as it is."""
    return text.translate(_TO_LATIN)


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


def is_pass_word(text: str) -> bool:
    """Whether ``text`` declines the swap (one of :data:`PASS_WORDS`, any letter case)."""
    return text.strip().lower() in PASS_WORDS


def parse_typed(
    command: str, args: str, *, strict: bool = True,
    job_of: Callable[[int], Suit | None] | None = None,
) -> str:
    """The engine action text for a typed move, e.g. ``("play", "10ч")`` → ``"play:10H"``.

    ``command`` is ``play``, ``assign``, ``trump``, ``swap`` or ``pass`` (the card passed to
    a neighbour, house rule ``pass_cards``). ``strict``: every word must be part of the move
    (the bot's commands); otherwise words after the move are let go, a card to pass is the
    last one named (``pass 9H``) and the words are first read as they are split, filler and
    all (the terminal's answers). ``job_of``: the job of an assignment named by its card
    alone (None: the job must be named). When the text reads as nothing, it is read again as
    typed in the Russian keyboard layout. Raises :class:`TypedError` (the first reading's,
    when no reading of the words makes a move)."""
    error: TypedError | None = None
    for tokens in _readings(args, strict):
        try:
            return _parse_tokens(command, args, tokens, strict, job_of)
        except TypedError as e:
            error = error or e
    raise error or TypedError("usage", command, args)


def _readings(args: str, strict: bool) -> list[list[str]]:
    """The token lists to try, in order: the text as typed, then as the Russian layout types
    it; lenient, each first split as it is (filler kept), then their filler readings."""
    texts = list(dict.fromkeys((args, latin_layout(args))))
    readings = [] if strict else [_split(t) for t in texts]
    for text in texts:
        readings.extend(_token_readings(text))
    return readings


def _split(args: str) -> list[str]:
    return [t for t in re.split(r"[\s,;/]+", args.strip()) if t]


def _token_readings(args: str) -> list[list[str]]:
    """The ways to read ``args`` as tokens, the likeliest first: "10♥" stays one token,
    "10 ♥" is two; commas and slashes separate; filler words go. Russian «в» is a filler
    ("into") and the jack's letter too: first every «в» goes, then each choice of the
    ones kept as a jack ("/play В п", "/assign в п в ч")."""
    raw = _split(args)
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


def _card(command: str, tokens: list[str]) -> tuple[int, list[str]]:
    """:func:`_card_from`, its failure told as a :class:`TypedError`."""
    try:
        return _card_from(tokens)
    except ValueError as exc:
        raise TypedError("bad_card" if tokens else "usage", command, str(exc)) from None


def _last_card(command: str, tokens: list[str]) -> tuple[int, list[str]]:
    """The card named last (``pass 9H``, ``pass 10 червы``), the words before it let go;
    the error is the first word's."""
    for start in range(len(tokens) - 1, 0, -1):
        with contextlib.suppress(ValueError):
            cid, rest = _card_from(tokens[start:])
            if not rest:
                return cid, rest
    return _card(command, tokens)


def _trump(command: str, args: str, tokens: list[str], strict: bool) -> str:
    if not tokens or (strict and len(tokens) != 1):
        raise TypedError("usage", command, args)
    try:
        return Action.trump(parse_suit(tokens[0])).text
    except ValueError:
        raise TypedError("bad_suit", command, tokens[0]) from None


def _play(command: str, args: str, tokens: list[str], strict: bool) -> str:
    cid, rest = _card(command, tokens)
    if rest and strict:
        raise TypedError("usage", command, args)
    return Action.play(cid).text


def _pass(command: str, args: str, tokens: list[str], strict: bool) -> str:
    cid, rest = _card(command, tokens) if strict else _last_card(command, tokens)
    if rest:
        raise TypedError("usage", command, args)
    return Action.pass_card(cid).text


def _assign(command: str, args: str, tokens: list[str], strict: bool,
            job_of: Callable[[int], Suit | None] | None) -> str:
    cid, rest = _card(command, tokens)
    if not rest and job_of is not None and (named := job_of(cid)) is not None:
        return Action.assign(cid, named).text
    if not rest or (strict and len(rest) != 1):
        raise TypedError("usage", command, args)
    try:
        job = parse_suit(rest[0])
    except ValueError:
        raise TypedError("bad_suit", command, rest[0]) from None
    return Action.assign(cid, job).text


def _swap(command: str, args: str, tokens: list[str], strict: bool) -> str:
    if tokens and is_pass_word(tokens[0]) and (len(tokens) == 1 or not strict):
        return Action.swap_pass().text
    if len(tokens) < 2:
        raise TypedError("usage", command, args)
    try:
        hand, rest = _card_from(tokens)
        plot, rest = _card_from(rest)
    except ValueError as exc:
        raise TypedError("bad_card", command, str(exc)) from None
    if rest and strict:
        raise TypedError("usage", command, args)
    return Action.swap(hand, plot).text


_READERS: dict[str, Callable[[str, str, list[str], bool], str]] = {
    "play": _play, "trump": _trump, "swap": _swap, "pass": _pass,
}


def _parse_tokens(command: str, args: str, tokens: list[str], strict: bool,
                  job_of: Callable[[int], Suit | None] | None) -> str:
    if command == "assign":
        return _assign(command, args, tokens, strict, job_of)
    reader = _READERS.get(command)
    if reader is None:
        raise TypedError("usage", command, args)
    return reader(command, args, tokens, strict)
