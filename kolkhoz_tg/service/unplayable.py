"""Why the cards of a hand may not be played now, as the engine says (for the private
message's disabled card buttons and the reason line above them)."""

from __future__ import annotations

from engine import Action, Game


def unplayable(game: Game, seat: int, active: bool) -> dict[str, str]:
    """Each card of ``seat``'s hand it may not play now, by its action text
    (``play:10H``), with the reason code :meth:`ReadingService.why_illegal
    <kolkhoz_tg.service.reading.ReadingService.why_illegal>` answers for it
    (``follow_suit``, ``trump_lead``, ``not_your_turn`` …; ``not_active`` when the game is
    not running)."""
    out: dict[str, str] = {}
    for c in game.hands[seat]:
        action = Action.play(c)
        if not active:
            out[action.text] = "not_active"
            continue
        err = game.why_illegal(seat, action)
        if err is not None:
            out[action.text] = err.reason
    return out
