"""Per-seat and public views: the only window a front end has on a game.

A view holds exactly what RULES.md ("Hidden information") lets its reader see: their own hand
and whole plot, every face-up card, the table and the jobs, visible rewards, trump, medals and
counts. The public view (``seat=None``) is what any seat may see, so it fits a group message.

With ``pass_cards`` a passed card is known to its sender and its receiver only: the reader's
own player entry names the card it chose (``pass_sent``) and, once the cards moved, the card
it received (``pass_received``); every other entry, and the public view, has None there, and
``pass_pending`` says only who has yet to choose.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

from engine.actions import Action, ActionKind
from engine.cards import CARD_TEXT, CARDS, HOURS, JACKS, SUITS, Card, Suit
from engine.data import GameData
from engine.legality import compute_legal, forced_among
from engine.phase import Phase
from engine.rules import Reward, Rules


@lru_cache(maxsize=64)
def _rules_frozen(rules: Rules) -> tuple[tuple[str, Any], ...]:
    return tuple(rules.to_dict().items())


def _rules_dict(rules: Rules) -> dict[str, Any]:
    # Rules are frozen and hashable: convert each distinct setup once.
    return dict(_rules_frozen(rules))


# ---------------------------------------------------------------------- the typed view

_CARD_BY_TEXT: Final = {CARD_TEXT[i]: CARDS[i] for i in range(52)}


def _card(text: str) -> Card:
    return _CARD_BY_TEXT[text]


def _card_or_none(text: str | None) -> Card | None:
    return None if text is None else _CARD_BY_TEXT[text]


def _texts(cards: tuple[Card, ...]) -> list[str]:
    return [CARD_TEXT[c.id] for c in cards]


def _typed(cards: Iterable[int]) -> tuple[Card, ...]:
    return tuple([CARDS[c] for c in cards])


def _secret(game: GameData, seat: int | None) -> frozenset[int]:
    """The cards ``seat`` may not see wherever they are now (none once the game is over)."""
    if game.is_over:
        return frozenset()
    face_up = game.face_up
    secret = set(game.deck)
    for s in range(game.n):
        if s != seat:
            secret.update(game.hands[s])
            secret.update(c for c in game.plots[s] if c not in face_up)
    return frozenset(secret)


def _masked(
    cards: Iterable[tuple[int, int]], secret: frozenset[int],
) -> tuple[tuple[int, Card | None], ...]:
    return tuple((s, CARDS[c] if c not in secret else None) for s, c in cards)


def _player(game: GameData, s: int, seat: int | None) -> PlayerView:
    """Seat ``s`` as ``seat`` sees it: hand, face-down cards, stacks below the top and the
    passed cards only for the reader's own seat."""
    own = s == seat
    face_up = game.face_up
    plot = game.plots[s]
    hidden = [c for c in plot if c not in face_up]
    # Others' face-up cards in card order: a plot's own order tells which card a swap
    # replaced, which only its owner saw.
    revealed = _typed([c for c in plot if c in face_up] if own
                      else sorted(c for c in plot if c in face_up))
    medals = game.medals[s]
    sent = received = None
    if own and game.passes:
        x = game.pass_sent(s)
        sent = None if x is None else CARDS[x]
        x = game.pass_received(s)
        received = None if x is None else CARDS[x]
    return PlayerView(
        seat=s,
        hand=_typed(game.hands[s]) if own else None,
        hand_count=len(game.hands[s]),
        plot_revealed=revealed,
        plot_hidden=_typed(hidden) if own else None,
        hidden_count=len(hidden),
        medals=medals,
        brigadier=game.brigadier_year[s],
        completed_job=game.completed_year[s],
        points_in_sight=sum(c.points for c in revealed)
        + (medals if game.rules.medals_score else 0),
        # This year's Колхозик stacks: the top card is face-up; the rest only the owner may
        # see.
        stacks=tuple(
            tuple(CARDS[c] if own or i == 0 else None for i, c in enumerate(stack))
            for stack in game.stacks[s]
        ),
        # pass_cards: the card the reader passes (passed) this year and the card it received
        # once the cards moved; only in the reader's own entry.
        pass_sent=sent,
        pass_received=received,
    )


@dataclass(frozen=True, slots=True)
class JobView:
    """One job (a suit) as a reader sees it, with what a card would do to it."""

    suit: Suit
    hours: int
    threshold: int
    rewards: tuple[Card, ...]  # visible rewards
    workers: tuple[Card, ...]
    complete: bool
    completed_by: int | None
    reward_pile: int  # cards left in this job's reward pile
    drunkard: Card | None = None  # the trump Jack when it works no hours (nomenklatura)
    reward: Reward = Reward.BRIGADIER

    def hours_of(self, card: Card) -> int:
        """Work hours ``card`` adds (the trump Jack none with ``nomenklatura``)."""
        return 0 if card == self.drunkard else HOURS[card.id]

    def hours_after(self, card: Card) -> int:
        """This job's hours once ``card`` is placed on it."""
        return self.hours + self.hours_of(card)

    def completes(self, card: Card) -> bool:
        """Whether placing ``card`` brings this job to its threshold (it completes once the
        trick's last card is placed)."""
        return not self.complete and self.hours_after(card) >= self.threshold

    def rewards_won(self, card: Card) -> tuple[Card, ...]:
        """The visible reward cards the Brigadier would take if ``card`` completes the job
        (``reward = brigadier``); empty otherwise."""
        if self.reward is Reward.BRIGADIER and self.completes(card):
            return self.rewards
        return ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "hours": self.hours,
            "threshold": self.threshold,
            "rewards": _texts(self.rewards),
            "workers": _texts(self.workers),
            "complete": self.complete,
            "completed_by": self.completed_by,
            "reward_pile": self.reward_pile,
        }


@dataclass(frozen=True, slots=True)
class PlayerView:
    """One seat as the reader sees it: hand and face-down cards only for the reader's own."""

    seat: int
    hand: tuple[Card, ...] | None  # None: not the reader's seat
    hand_count: int
    plot_revealed: tuple[Card, ...]
    plot_hidden: tuple[Card, ...] | None  # the reader's own face-down cards, else None
    hidden_count: int
    medals: int
    brigadier: bool  # was Brigadier at least once this year
    completed_job: bool  # completed a job this year
    points_in_sight: int  # face-up plot points, plus medals when they score
    stacks: tuple[tuple[Card | None, ...], ...] = ()  # this year's stacks, top card first
    #: pass_cards, the reader's own seat only: the card it chose to pass this year, and the
    #: card it received once the cards moved (None otherwise, and for every other seat).
    pass_sent: Card | None = None
    pass_received: Card | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "hand": None if self.hand is None else _texts(self.hand),
            "hand_count": self.hand_count,
            "plot_revealed": _texts(self.plot_revealed),
            "plot_hidden": (
                self.hidden_count if self.plot_hidden is None else _texts(self.plot_hidden)
            ),
            "medals": self.medals,
            "brigadier": self.brigadier,
            "completed_job": self.completed_job,
            "stacks": [[None if c is None else CARD_TEXT[c.id] for c in st] for st in self.stacks],
            "pass_sent": None if self.pass_sent is None else CARD_TEXT[self.pass_sent.id],
            "pass_received": (
                None if self.pass_received is None else CARD_TEXT[self.pass_received.id]
            ),
        }


@dataclass(frozen=True, slots=True)
class TrickView:
    """A finished trick of this year: cards in play order (None where the card has since
    gone where the reader may not look) and its winner."""

    cards: tuple[tuple[int, Card | None], ...]
    winner: int

    @property
    def led(self) -> Suit | None:
        first = self.cards[0][1] if self.cards else None
        return None if first is None else first.suit


@dataclass(frozen=True, slots=True)
class View:
    """A frozen, typed view of a game for one reader (``viewer`` None: the public).

    Built from the game's data by :meth:`of` (:meth:`engine.Game.typed_view`), or from a
    JSON view (a stored one, an AI player's input) and the reader's legal action texts by
    :meth:`from_dict`; :meth:`to_dict` gives the JSON view (:meth:`engine.Game.view` is
    ``View.of(game, seat, legal=False).to_dict()``).
    """

    viewer: int | None
    rules: Rules
    players_count: int
    year: int
    years: int
    phase: Phase
    planner: int
    lead: int
    trump: Suit | None
    trump_played: bool
    lean: bool
    famine: bool
    short: bool
    hand_size: int
    tricks_played: int
    tricks_total: int
    to_act: tuple[int, ...]
    jobs: tuple[JobView, ...]  # by suit ♥ ♦ ♣ ♠
    trick: tuple[tuple[int, Card], ...]
    pending: tuple[Card, ...]
    brigadier: int | None
    last_trick: tuple[tuple[int, Card | None], ...]
    last_trick_winner: int | None
    tricks: tuple[TrickView, ...]
    players: tuple[PlayerView, ...]
    north: tuple[Card, ...]
    deck_count: int
    discarded_rewards: tuple[Card, ...]
    swap_pending: tuple[int, ...]
    ended_early: bool
    scores: tuple[int, ...] | None
    winners: tuple[int, ...] | None
    pass_pending: tuple[int, ...] = ()  # pass_cards: the seats yet to choose their card
    legal: tuple[Action, ...] = ()  # the reader's legal actions now

    # -- construction ---------------------------------------------------------------------

    @classmethod
    def of(cls, game: GameData, seat: int | None, *, legal: bool = True) -> View:
        """What ``seat`` may see of ``game`` (None: the public view), built from the game's
        data; ``legal``: with the reader's legal actions (:meth:`engine.Game.view` needs
        none). Raises :class:`ValueError` for a seat not in the game."""
        if seat is not None and (type(seat) is not int or not 0 <= seat < game.n):
            raise ValueError(f"no seat {seat!r} in a {game.n}-player game")
        rules = game.rules
        trump = None if game.trump is None else SUITS[game.trump]
        drunkard = CARDS[JACKS[trump]] if trump is not None and rules.nomenklatura else None
        threshold = rules.threshold
        jobs = tuple(
            JobView(
                suit=j,
                hours=game.hours[j],
                threshold=threshold,
                rewards=_typed(game.rewards[j]),
                workers=_typed(game.workers[j]),
                complete=game.completed_by[j] is not None,
                completed_by=game.completed_by[j],
                reward_pile=len(game.reward_piles[j]),
                drunkard=drunkard,
                reward=rules.reward,
            )
            for j in SUITS
        )
        over = game.is_over
        # Cards this reader may not see wherever they are now; only used to mask the history
        # of the last trick (its cards may have gone face-down into a stack, or back into the
        # deck). Once the game is over every plot is scored in the open, so nothing is masked.
        secret = _secret(game, seat)
        return cls(
            viewer=seat,
            rules=rules,
            players_count=game.n,
            year=game.year,
            years=rules.years,
            phase=game.phase,
            planner=game.planner,
            lead=game.lead,
            trump=trump,
            trump_played=game.trump_played,
            lean=game.lean,
            famine=game.famine,
            short=game.short,
            hand_size=game.hand_size,
            tricks_played=game.tricks_done,
            tricks_total=game.tricks_total,
            to_act=tuple(game.to_act),
            jobs=jobs,
            trick=tuple((s, CARDS[c]) for s, c in game.trick),
            pending=_typed(game.pending),
            brigadier=game.brigadier,
            # A card of the last trick that has since gone where the reader may not look
            # (face-down into another seat's Колхозик stack, or back into the deck) shows as
            # None.
            last_trick=_masked(game.last_trick, secret),
            last_trick_winner=game.last_trick_winner,
            # This year's finished tricks in order, masked like the last trick: what a careful
            # player remembers (who led what, who showed out of a suit).
            tricks=tuple(TrickView(_masked(t, secret), w) for t, w in game.tricks),
            players=tuple(_player(game, s, seat) for s in range(game.n)),
            north=_typed(game.north),
            deck_count=len(game.deck),
            discarded_rewards=_typed(game.discarded),
            swap_pending=tuple(game.swap_pending),
            ended_early=game.ended_early,
            scores=tuple(game.scores()) if over else None,
            winners=tuple(game.winners()) if over else None,
            pass_pending=tuple(game.pass_pending),
            legal=tuple(compute_legal(game, seat)) if legal and seat is not None else (),
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any], legal: Iterable[Action | str] = ()) -> View:
        """The typed form of a JSON view (:meth:`engine.Game.view`), with the reader's legal
        actions (objects or texts). Raises :class:`ValueError` for data that is not a view."""
        try:
            rules = Rules.from_dict(data["rules"])
            trump = None if data["trump"] is None else Suit.parse(data["trump"])
            drunkard = CARDS[JACKS[trump]] if trump is not None and rules.nomenklatura else None
            medals_score = rules.medals_score
            jobs = tuple(
                JobView(
                    suit=s,
                    hours=j["hours"],
                    threshold=j["threshold"],
                    rewards=tuple(map(_card, j["rewards"])),
                    workers=tuple(map(_card, j["workers"])),
                    complete=j["complete"],
                    completed_by=j["completed_by"],
                    reward_pile=j["reward_pile"],
                    drunkard=drunkard,
                    reward=rules.reward,
                )
                for s, j in ((s, data["jobs"][s.letter]) for s in SUITS)
            )
            players = []
            for p in data["players"]:
                revealed = tuple(map(_card, p["plot_revealed"]))
                hidden = p["plot_hidden"]
                own = not isinstance(hidden, int)
                players.append(
                    PlayerView(
                        seat=p["seat"],
                        hand=None if p["hand"] is None else tuple(map(_card, p["hand"])),
                        hand_count=p["hand_count"],
                        plot_revealed=revealed,
                        plot_hidden=tuple(map(_card, hidden)) if own else None,
                        hidden_count=len(hidden) if own else hidden,
                        medals=p["medals"],
                        brigadier=p["brigadier"],
                        completed_job=p["completed_job"],
                        points_in_sight=sum(c.points for c in revealed)
                        + (p["medals"] if medals_score else 0),
                        stacks=tuple(
                            tuple(_card_or_none(c) for c in st) for st in p.get("stacks", ())
                        ),
                        pass_sent=_card_or_none(p.get("pass_sent")),
                        pass_received=_card_or_none(p.get("pass_received")),
                    )
                )
            over = data["phase"] == Phase.OVER.value
            return cls(
                viewer=data["viewer"],
                rules=rules,
                players_count=data["players_count"],
                year=data["year"],
                years=data["years"],
                phase=Phase(data["phase"]),
                planner=data["planner"],
                lead=data["lead"],
                trump=trump,
                trump_played=data["trump_played"],
                lean=data["lean"],
                famine=data["famine"],
                short=data.get("short", False),
                hand_size=data["hand_size"],
                tricks_played=data["tricks_played"],
                tricks_total=data["tricks_total"],
                to_act=tuple(data["to_act"]),
                jobs=jobs,
                trick=tuple((s, _card(c)) for s, c in data["trick"]),
                pending=tuple(map(_card, data["pending"])),
                brigadier=data["brigadier"],
                last_trick=tuple((s, _card_or_none(c)) for s, c in data["last_trick"]),
                last_trick_winner=data["last_trick_winner"],
                tricks=tuple(
                    TrickView(tuple((s, _card_or_none(c)) for s, c in t["cards"]), t["winner"])
                    for t in data.get("tricks", ())
                ),
                players=tuple(players),
                north=tuple(map(_card, data["north"])),
                deck_count=data["deck_count"],
                discarded_rewards=tuple(map(_card, data["discarded_rewards"])),
                swap_pending=tuple(data["swap_pending"]),
                ended_early=data["ended_early"],
                scores=tuple(data["scores"]) if over and "scores" in data else None,
                winners=tuple(data["winners"]) if over and "winners" in data else None,
                pass_pending=tuple(data.get("pass_pending", ())),
                legal=tuple(Action.parse(a) for a in legal),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a Kolkhoz view: {exc!r}") from None

    def to_dict(self) -> dict[str, Any]:
        """The JSON view this typed view stands for (equal to :meth:`engine.Game.view`)."""
        view: dict[str, Any] = {
            "viewer": self.viewer,
            "rules": _rules_dict(self.rules),
            "players_count": self.players_count,
            "year": self.year,
            "years": self.years,
            "phase": self.phase.value,
            "planner": self.planner,
            "lead": self.lead,
            "trump": None if self.trump is None else self.trump.letter,
            "trump_played": self.trump_played,
            "lean": self.lean,
            "famine": self.famine,
            "short": self.short,
            "hand_size": self.hand_size,
            "tricks_played": self.tricks_played,
            "tricks_total": self.tricks_total,
            "to_act": list(self.to_act),
            "jobs": {j.suit.letter: j.to_dict() for j in self.jobs},
            "trick": [[s, CARD_TEXT[c.id]] for s, c in self.trick],
            "pending": _texts(self.pending),
            "brigadier": self.brigadier,
            "last_trick": [
                [s, None if c is None else CARD_TEXT[c.id]] for s, c in self.last_trick
            ],
            "last_trick_winner": self.last_trick_winner,
            "tricks": [
                {
                    "cards": [[s, None if c is None else CARD_TEXT[c.id]] for s, c in t.cards],
                    "winner": t.winner,
                }
                for t in self.tricks
            ],
            "players": [p.to_dict() for p in self.players],
            "north": _texts(self.north),
            "deck_count": self.deck_count,
            "discarded_rewards": _texts(self.discarded_rewards),
            "swap_pending": list(self.swap_pending),
            "pass_pending": list(self.pass_pending),
            "ended_early": self.ended_early,
        }
        if self.scores is not None:
            view["scores"] = list(self.scores)
        if self.winners is not None:
            view["winners"] = list(self.winners)
        return view

    # -- the questions front ends ask -------------------------------------------------------

    def job(self, suit: Suit | int | str) -> JobView:
        """The job of a suit (a :class:`Suit`, its index or its letter)."""
        if isinstance(suit, str):
            suit = Suit.parse(suit)
        return self.jobs[int(suit)]

    @property
    def me(self) -> PlayerView | None:
        """The reader's own seat, or None for the public view."""
        return None if self.viewer is None else self.players[self.viewer]

    @property
    def over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def led_suit(self) -> Suit | None:
        """The suit led to the current trick, if a card is on the table."""
        return self.trick[0][1].suit if self.trick else None

    @property
    def playable(self) -> frozenset[Card]:
        """The hand cards the reader may play now."""
        return frozenset(a.card for a in self.legal if a.kind is ActionKind.PLAY and a.card)

    @property
    def passable(self) -> frozenset[Card]:
        """The hand cards the reader may pass now (``pass_cards``, the pass phase)."""
        return frozenset(a.card for a in self.legal if a.kind is ActionKind.PASS and a.card)

    @property
    def passing(self) -> bool:
        """Whether this year has a pass (``pass_cards``, from year 2 on)."""
        return self.rules.pass_cards and self.year >= 2 and self.phase is not Phase.OVER

    @property
    def pass_left(self) -> bool:
        """Whether this year's passed cards go to the left neighbour (seat + 1, even years)
        rather than to the right one (seat - 1, odd years)."""
        return self.year % 2 == 0

    @property
    def pass_to(self) -> int | None:
        """The seat the reader's passed card goes to this year (None: no pass this year, or
        the public view)."""
        if self.viewer is None or not self.passing:
            return None
        return (self.viewer + (1 if self.pass_left else -1)) % self.players_count

    @property
    def pass_from(self) -> int | None:
        """The seat whose passed card the reader receives this year (None: no pass this
        year, or the public view)."""
        if self.viewer is None or not self.passing:
            return None
        return (self.viewer + (-1 if self.pass_left else 1)) % self.players_count

    def actions_by_card(self) -> dict[Card, tuple[Action, ...]]:
        """The reader's legal plays, assignments, swaps and card passes grouped by the card
        they move (in legal order); trump actions and ``swap:pass`` are not tied to a card."""
        out: dict[Card, list[Action]] = {}
        for a in self.legal:
            if a.card is not None:
                out.setdefault(a.card, []).append(a)
        return {c: tuple(v) for c, v in out.items()}

    def assignments(self, card: Card) -> tuple[Action, ...]:
        """The legal assignments of ``card`` (one per job it may go to)."""
        return tuple(a for a in self.legal if a.kind is ActionKind.ASSIGN and a.card == card)

    @property
    def forced(self) -> Action | None:
        """The action the reader has no choice about (see :meth:`engine.Game.forced_action`)."""
        return forced_among(self.legal, self.phase is Phase.ASSIGN)
