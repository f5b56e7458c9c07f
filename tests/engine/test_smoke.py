from engine import Game, preset
from engine.ai import default_action


def test_classic_game_finishes() -> None:
    g = Game.new(preset("classic"), players=4, seed=1)
    while not g.is_over:
        seat = g.to_act[0]
        g.apply(seat, default_action(g, seat))
    assert g.year == 5
    assert len(g.scores()) == 4
    assert g.winners()
