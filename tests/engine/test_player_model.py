"""The learned model of the players (engine.ai.model) and the inference that uses it: the
shipped weights, probabilities that are probabilities, a legal move in every preset, worlds
weighed from what the seat saw and nothing else."""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import random
import statistics

import pytest

from engine import PRESETS, Game, Phase, preset
from engine.ai import AIPlayer, default_action
from engine.ai.infer import Inference, WorldPool
from engine.ai.model import (
    ASSIGN_FEATURES,
    GROUPS,
    PLAY_FEATURES,
    POLICY_FILE,
    PolicyModel,
    features,
    learned_policy,
)
from engine.ai.search import PlayoutGame, SearchParams
from engine.determinize import Determinizer
from tests.engine.scripted import decision_states, twin_searches

PRESET_NAMES = sorted(PRESETS)


def test_the_shipped_weights_name_the_features_they_weigh() -> None:
    data = json.loads(POLICY_FILE.read_text(encoding="utf-8"))
    assert data["features"] == {"lead": list(PLAY_FEATURES), "follow": list(PLAY_FEATURES),
                                "assign": list(ASSIGN_FEATURES)}
    model = learned_policy()
    assert set(model.weights) == set(GROUPS)
    # Learned, not zeros: every group leans on some of its features.
    assert all(max(abs(w) for w in model.weights[g]) > 0.5 for g in GROUPS)
    with pytest.raises(ValueError, match="expected"):
        PolicyModel({"lead": [0.0], "follow": [], "assign": []})


@pytest.mark.parametrize("name", PRESET_NAMES)
@pytest.mark.parametrize("players", [3, 4, 5])
def test_the_model_plays_every_preset_to_the_end(name: str, players: int) -> None:
    """The model's likeliest move in every seat is legal to the end of the game, and its
    probabilities sum to 1 wherever it models the decision."""
    model = learned_policy()
    g = Game.new(preset(name), players, seed=players)
    modelled = 0
    while not g.is_over:
        seat = g.to_act[0]
        legal = g.legal_actions(seat)
        probs = model.probabilities(g, seat, legal)
        if probs is not None:
            modelled += 1
            assert len(probs) == len(legal)
            assert math.isclose(sum(probs), 1.0) and min(probs) > 0.0
            card = legal[-1].card_id
            assert 0.0 < model.likelihood(g, seat, legal, card) <= 1.0
        action = model.action(g, seat)
        assert action in legal
        g.apply(seat, action)
    assert modelled > 20


def test_features_read_only_the_seats_share() -> None:
    """Two games the seat cannot tell apart give the same features for each of its moves."""
    checked = 0
    for g, seat in decision_states("kolkhoz", 4, seed=3, every=3):
        legal = g.legal_actions(seat)
        other = Game.determinize(copy.deepcopy(g.view(seat)), random.Random(checked))
        assert features(g, seat, legal) == features(other, seat, other.legal_actions(seat))
        checked += g.phase in (Phase.PLAY, Phase.ASSIGN)
    assert checked >= 10


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_the_model_finds_the_real_deal_of_heuristic_players(name: str) -> None:
    """At a table of heuristic players, the real deal explains their plays better under the
    model than most worlds dealt at random (0.5 would mean the plays taught nothing)."""
    model = learned_policy()
    ranks = []
    for seed in range(3):
        for g, seat in decision_states(name, 4, seed, every=6):
            det = Determinizer(PlayoutGame, g.view(seat))
            inference = Inference(det, model=model)
            if len(inference.events) < 3:
                continue
            real = inference.weight(g)
            rng = random.Random(seed)
            sampled = [inference.weight(det.sample(rng)) for _ in range(30)]
            ranks.append((sum(w < real for w in sampled) + 0.5 * sampled.count(real)) / 30)
    assert len(ranks) >= 6
    assert statistics.mean(ranks) > 0.65, (name, statistics.mean(ranks))


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_a_pool_of_worlds_is_weighed_from_the_view_alone(name: str) -> None:
    """The no-leak rule for inference: two games that differ only in cards the seat cannot
    see give the same worlds with the same weights, and every world fits the view."""
    model = learned_policy()
    checked = 0
    for g, seat in decision_states(name, 4, seed=7, every=7):
        view = g.view(seat)
        other = Game.determinize(copy.deepcopy(view), random.Random(checked))
        assert other.view(seat) == view
        pools = []
        for game in (g, other):
            det = Determinizer(PlayoutGame, game.view(seat))
            pools.append(WorldPool(det, Inference(det, model=model), random.Random(5), 12))
        first, second = pools
        assert first.weights == second.weights
        assert [w.to_json() for w in first.worlds] == [w.to_json() for w in second.worlds]
        assert all(w.view(seat) == view for w in first.worlds)
        assert 1.0 <= first.effective <= 12.0 + 1e-9
        checked += any(other.hands[s] != g.hands[s] for s in range(4) if s != seat)
    assert checked >= 3


def test_a_search_with_the_model_learns_nothing_the_seat_cannot_see() -> None:
    params = SearchParams(playouts=12, infer_pool=8, infer_model=True)
    checked = 0
    for g, seat in decision_states("classic", 4, seed=4, every=9):
        first, second, _ = twin_searches(g, seat, params, 2, checked)
        assert first == second
        checked += 1
    assert checked >= 5


def test_with_nothing_to_explain_the_pool_weighs_every_world_alike() -> None:
    g = Game.new(preset("classic"), 4, seed=8)
    seat = g.to_act[0]
    det = Determinizer(PlayoutGame, g.view(seat))
    pool = WorldPool(det, Inference(det, model=learned_policy()), random.Random(0), 10)
    assert pool.weights == [1.0] * 10 and pool.effective == pytest.approx(10.0)
    assert default_action(pool.draw(random.Random(1)), seat) in g.legal_actions(seat)


HOUSE_RULES = [{"hero": True}, {"pass_cards": True}, {"pass_cards": True, "hero": True},
               {"drunkard": "replaces"}, {"drunkard": "cancels"}, {"medals_score": True}]


@pytest.mark.parametrize("house", HOUSE_RULES,
                         ids=lambda h: "-".join(f"{k}={v}" for k, v in h.items()))
@pytest.mark.parametrize("name", PRESET_NAMES)
def test_inference_plays_every_house_rule_to_the_end_on_views_alone(
    name: str, house: dict[str, object]
) -> None:
    """A search that infers with the model (tiny budget), and the model itself, in every seat
    of every preset with each house rule of revision 4: legal moves from the view alone, and
    what is inferred is about other seats."""
    rules = dataclasses.replace(preset(name), **house)  # type: ignore[arg-type]
    players = 3 + len(house) % 3
    g = Game.new(rules, players, seed=len(name))
    ais = [AIPlayer("strong", seed=s, iterations=2, infer=True) for s in range(players)]
    for ai in ais:  # a small pool: the rules are what is checked here
        assert ai.params is not None and ai.params.infer_model
        ai.params = dataclasses.replace(ai.params, infer_pool=6)
    model = learned_policy()
    while not g.is_over:
        seat = g.to_act[0]
        view = g.view(seat)
        if seat == 0:
            action = model.action(g, seat)
        else:
            advice = ais[seat].advise(view)
            assert all(f.seat != seat for f in advice.inferred)
            action = advice.action
        assert action in g.legal_actions(seat)
        g.apply(seat, action)
    assert g.winners()


def test_a_search_can_play_its_worlds_out_with_the_model() -> None:
    """SearchParams.playout_model: every seat of a playout plays the model's likeliest move;
    the choice is legal and the same for two games the seat cannot tell apart."""
    params = SearchParams(playouts=6, playout_model=True)
    checked = 0
    for g, seat in decision_states("zone", 3, seed=2, every=13):
        first, second, _ = twin_searches(g, seat, params, 9, checked)
        assert first == second and 0 <= first.best < len(g.legal_actions(seat))
        checked += 1
    assert checked >= 3
