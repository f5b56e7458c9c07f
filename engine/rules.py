"""The rules configuration: one frozen dataclass whose fields are the options of RULES.md.

The five presets are the seeds' recommended setups (see ``shared/spec/RULES.md``, "Presets").
Every field combines with every preset, e.g. ``dataclasses.replace(preset("zone"),
medals_score=True)``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from enum import StrEnum
from typing import Any, Final


class FirstLead(StrEnum):
    LEFT_OF_PLANNER = "left_of_planner"  # seeds 000/002
    PLANNER = "planner"  # seed 001


class Assignment(StrEnum):
    SUIT = "suit"  # seeds 000/002: each card to its own suit's job, trumps anywhere
    PRESENT = "present"  # seed 001: any job whose suit is present in the trick


class Reward(StrEnum):
    BRIGADIER = "brigadier"  # "Орден — начальнику, работа — нам" (52 cards)
    NONE = "none"  # "Игра по-северному" / "Северный вариант"
    STACK = "stack"  # Колхозик "Орден": the workers themselves become the reward


class Requisition(StrEnum):
    BRIGADIERS = "brigadiers"
    EVERYONE = "everyone"  # "Разговоры вели даже с мышами"


class Losers(StrEnum):
    EACH = "each"  # seed 002
    HIGHEST = "highest"  # seed 000


class Drunkard(StrEnum):
    """What the trump Jack (Пьяница) on a failed job does (RULES.md revision 4)."""

    CANCELS = "cancels"  # seeds 001/002: the Jack goes north, nothing else happens there
    REPLACES = "replaces"  # seed 000: the requisition goes on, the Jack instead of one card


class Reveal(StrEnum):
    MATCHING = "matching"  # seeds 002 and 001 "Орден": every matching card
    HIGHEST = "highest"  # seed 001's mice rule: the highest hidden matching card
    PLOT = "plot"  # seed 000: the exposed player's whole face-down plot


class Theme(StrEnum):
    JOBS = "jobs"  # Пахота / Жатва / Мастерская / Зерно
    FIELDS = "fields"  # Пшеница / Свёкла / Картофель / Подсолнечник


@dataclass(frozen=True, slots=True)
class Rules:
    """Every option of the reference rules. Defaults are the ``classic`` preset (seed 002)."""

    deck: int = 52
    threshold: int = 40
    years: int = 5
    first_lead: FirstLead = FirstLead.LEFT_OF_PLANNER
    trump_lead_restricted: bool = True
    trump_wins: bool = True
    final_year_short: bool = False
    assignment: Assignment = Assignment.SUIT
    reward: Reward = Reward.BRIGADIER
    accumulate_rewards: bool = False
    requisition: Requisition = Requisition.BRIGADIERS
    losers: Losers = Losers.EACH
    reveal: Reveal = Reveal.MATCHING
    nomenklatura: bool = True
    #: Games stored before revision 4 have no such key: they go on with ``cancels``, the
    #: rule they started with.
    drunkard: Drunkard = Drunkard.CANCELS
    famine: bool = False
    mice_fallback: bool = False
    swap: bool = False
    medals_score: bool = False
    #: House rules (RULES.md revision 4), off in every preset.
    pass_cards: bool = False
    hero: bool = False
    theme: Theme = Theme.JOBS

    def __post_init__(self) -> None:
        # Accept plain strings for the enum fields (e.g. from JSON or a settings form).
        for name, enum in _ENUM_FIELDS.items():
            value = getattr(self, name)
            if not isinstance(value, enum):
                try:
                    object.__setattr__(self, name, enum(value))
                except ValueError:
                    allowed = ", ".join(m.value for m in enum)
                    raise ValueError(f"{name} must be one of {allowed}, not {value!r}") from None
        for name in _BOOL_FIELDS:
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be true or false, not {getattr(self, name)!r}")
        if self.deck not in (52, 36):
            raise ValueError(f"deck must be 52 or 36, not {self.deck!r}")
        if not isinstance(self.threshold, int) or not 1 <= self.threshold <= 500:
            raise ValueError(
                f"threshold must be a whole number from 1 to 500, not {self.threshold!r}"
            )
        if not isinstance(self.years, int) or not 1 <= self.years <= 20:
            raise ValueError(f"years must be a whole number from 1 to 20, not {self.years!r}")

    @property
    def hero_applies(self) -> bool:
        """Whether ``hero`` can name a Hero under these rules: only with Brigadiers searched
        and reward cards (RULES.md, "Requisition"); otherwise it is on but inert."""
        return (self.hero and self.requisition is not Requisition.EVERYONE
                and self.reward is Reward.BRIGADIER)

    @property
    def has_rewards(self) -> bool:
        """Whether the game uses reward piles (the 52-card deck)."""
        return self.deck == 52

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready values (enum members become their strings)."""
        return {k: (v.value if isinstance(v, StrEnum) else v) for k, v in asdict(self).items()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        """Inverse of :meth:`to_dict`; unknown keys raise :class:`ValueError`."""
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown rule options: {', '.join(sorted(unknown))}")
        return cls(**data)


_ENUM_FIELDS: Final[dict[str, type[StrEnum]]] = {
    "first_lead": FirstLead,
    "assignment": Assignment,
    "reward": Reward,
    "requisition": Requisition,
    "losers": Losers,
    "reveal": Reveal,
    "drunkard": Drunkard,
    "theme": Theme,
}
_BOOL_FIELDS: Final = (
    "trump_lead_restricted",
    "trump_wins",
    "final_year_short",
    "accumulate_rewards",
    "nomenklatura",
    "famine",
    "mice_fallback",
    "swap",
    "medals_score",
    "pass_cards",
    "hero",
)

PRESETS: Final[dict[str, Rules]] = {
    # seed 002: the cleaned-up original.
    "classic": Rules(),
    # seed 000: the original text.
    "original": Rules(
        threshold=36,
        trump_lead_restricted=False,
        trump_wins=False,  # "The highest-ranking card of the lead suit wins"
        final_year_short=True,  # "Перебои со снабжением" in the last year
        losers=Losers.HIGHEST,
        reveal=Reveal.PLOT,  # "reveal all cards in their Личный Участок"
        drunkard=Drunkard.REPLACES,  # "sent north instead of a player's card"
    ),
    # seed 001, "Колхоз".
    "kolkhoz": Rules(
        first_lead=FirstLead.PLANNER,
        trump_lead_restricted=False,
        assignment=Assignment.PRESENT,
        accumulate_rewards=True,
        mice_fallback=True,
        famine=True,
        swap=True,
        theme=Theme.FIELDS,
    ),
    # seed 001, "Колхозник" (36 cards).
    "kolkhoznik": Rules(
        deck=36,
        first_lead=FirstLead.PLANNER,
        trump_lead_restricted=False,
        assignment=Assignment.PRESENT,
        reward=Reward.STACK,
        mice_fallback=True,
        swap=True,
        theme=Theme.FIELDS,
    ),
    # seed 001, "Зонский режим" (36 cards).
    "zone": Rules(
        deck=36,
        first_lead=FirstLead.PLANNER,
        trump_lead_restricted=False,
        assignment=Assignment.PRESENT,
        reward=Reward.NONE,
        requisition=Requisition.EVERYONE,
        losers=Losers.HIGHEST,
        reveal=Reveal.HIGHEST,
        swap=True,
        theme=Theme.FIELDS,
    ),
}


def preset(name: str) -> Rules:
    """The named preset (``classic``, ``original``, ``kolkhoz``, ``kolkhoznik``, ``zone``).

    Raises :class:`ValueError` for an unknown name.
    """
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(
            f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}"
        ) from None


def preset_name(rules: Rules) -> str | None:
    """The preset these rules equal (ignoring ``medals_score``), or None for a custom setup."""
    plain = _without_medals(rules)  # one copy, not one per preset
    for name, candidate in PRESETS.items():
        if candidate in (rules, plain):
            return name
    return None


def _without_medals(rules: Rules) -> Rules:
    from dataclasses import replace

    return replace(rules, medals_score=False)
