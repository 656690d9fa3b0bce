"""The server load benchmark's own arithmetic: histograms, shares of bots, URLs, frames."""

from __future__ import annotations

import json
import random

import pytest

from bench.server_load import Figures, least_undisturbed_cpu, round_ratios
from bench.server_load_bots import bucket, merge, move_frame, percentile, reply_error, split
from bench.server_load_servers import database_url


def test_buckets_keep_microseconds_below_a_millisecond_and_three_digits_above() -> None:
    assert bucket(0.000_412_9) == 412
    assert bucket(0.000_999_9) == 999
    assert bucket(0.001_234_5) == 1230
    assert bucket(0.012_345) == 12_300
    assert bucket(0.999_9) == 999_000
    assert bucket(2.5) == 2_500_000


def test_percentiles_of_a_histogram_match_a_sorted_list_to_the_bucket() -> None:
    rng = random.Random(3)
    samples = sorted(rng.lognormvariate(-7, 1) for _ in range(10_001))
    histogram = merge([{bucket(s): 1} for s in samples])
    for q in (0.5, 0.99, 0.999):
        exact = samples[int(len(samples) * q)] * 1000
        assert percentile(histogram, q) == bucket(exact / 1000) / 1000
        assert percentile(histogram, q) == pytest.approx(exact, rel=0.01, abs=0.001)


def test_histograms_merge_across_processes_with_json_keys() -> None:
    one = json.loads(json.dumps({500: 2, 1230: 1}))  # keys come back as strings
    two = {500: 1, 9990: 4}
    merged = merge([one, two])
    assert merged == {500: 3, 1230: 1, 9990: 4}
    assert percentile(merged, 0.0) == 0.5
    assert percentile(merged, 0.5) == 9.99
    assert percentile({}, 0.5) != percentile({}, 0.5)  # NaN: nothing measured


def test_bots_split_evenly_across_processes_in_index_order() -> None:
    assert split(10_000, 4) == [(0, 2500), (2500, 2500), (5000, 2500), (7500, 2500)]
    assert split(10, 3) == [(0, 4), (4, 3), (7, 3)]
    assert split(2, 5) == [(0, 1), (1, 1)]  # never an empty share
    assert split(7, 1) == [(0, 7)]


def test_database_url_swaps_the_database_of_the_admin_url() -> None:
    admin = "postgresql://postgres@127.0.0.1:5432/postgres"
    assert (
        database_url(admin, "simon_bench_x") == "postgresql://postgres@127.0.0.1:5432/simon_bench_x"
    )
    assert (
        database_url("postgresql://u:p@db:5432/postgres?sslmode=disable", "b")
        == "postgresql://u:p@db:5432/b?sslmode=disable"
    )
    assert database_url("postgresql://db", "b") == "postgresql://db/b"
    with pytest.raises(ValueError):
        database_url("postgresql://", "b")


def test_move_frames_are_what_json_dumps_writes() -> None:
    for message_id, move in ((0, "3-7x1"), (123_456, "10-1x12")):
        frame = move_frame(message_id, move)
        assert frame == json.dumps({"type": "move", "id": message_id, "move": move})


def test_replies_other_than_moved_are_named_by_their_error_code() -> None:
    assert reply_error('{"type":"error","id":4,"code":"unavailable","message":"x"}') == (
        "unavailable"
    )
    assert reply_error('{"type":"error","code":"illegal-move"}') == "illegal-move"
    assert reply_error('{"type":"state","id":4}') == "unexpected-state"


def round_of(cpu: float, others: float = 0.0, per_second: float = 2000.0) -> Figures:
    return Figures(
        kind="simon", backend="embedded", bots=1000, round_trips=int(per_second * 10),
        seconds=10.0, p50_ms=1.0, p99_ms=5.0, p999_ms=9.0, cpu_us_per_rt=cpu,
        rss_per_player_kib=30.0, rss_before_mib=50.0, rss_playing_mib=80.0, database=None,
        refused=0, refused_all=0, errors={}, connect_seconds=5.0,
        connect_cpu_ms_per_player=5.0, service_cpu_us_per_rt={}, others_cores=others,
        asked_per_second=2000.0,
    )  # fmt: skip


def test_a_round_is_disturbed_by_other_work_or_by_falling_behind() -> None:
    assert not round_of(100.0).disturbed
    assert not round_of(100.0, others=0.19, per_second=1970).disturbed
    assert round_of(100.0, others=0.25).disturbed
    assert round_of(100.0, per_second=1900).disturbed  # starved: answers in bigger batches


def test_the_summary_is_the_least_of_the_undisturbed_rounds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    starved = round_of(80.0, per_second=1650)  # the least, but it fell behind
    assert least_undisturbed_cpu("simon", [round_of(120.0), starved, round_of(110.0)]) == 110.0
    assert capsys.readouterr().out == ""
    assert least_undisturbed_cpu("simon", [starved, round_of(90.0, others=1.0)]) == 80.0
    assert "every round of simon was disturbed" in capsys.readouterr().out


def test_round_by_round_each_server_is_set_against_its_own_rounds_echo() -> None:
    echoes = [round_of(100.0), round_of(130.0), round_of(90.0, others=1.0)]
    rounds = [round_of(150.0), round_of(156.0), round_of(80.0)]
    assert round_ratios(rounds, echoes) == [1.5, 1.2]  # the third pair was disturbed
