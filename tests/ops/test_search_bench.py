"""benchmarks/search_bench.py: its measurement is deterministic where it should be."""

from __future__ import annotations

from benchmarks.search_bench import measure


def test_the_digest_is_a_function_of_the_code_and_the_budget() -> None:
    # The digest is what tells a faster engine that decides alike from one that does not.
    first = measure(40, compiled=False)
    again = measure(40, compiled=False)
    other = measure(41, compiled=False)
    assert first["engine"] == "plain" and first["positions"] == again["positions"]
    assert int(first["positions"]) > 150  # every preset, 3 to 5 players
    assert first["digest"] == again["digest"]
    assert other["digest"] != first["digest"]
    assert 0 < float(first["p50"]) <= float(first["p99"])
