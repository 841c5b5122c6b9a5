"""R1-R3 setup, R11 end and scores, ranking and tie-breaks, R12 the variant, and resigning."""

from __future__ import annotations

import random

import pytest

from engine import (
    AssamRotated,
    Color,
    Facing,
    FormatError,
    GameConfig,
    GameEnded,
    IllegalActionError,
    Phase,
    PlayerEliminated,
    Score,
    TurnStarted,
    Variant,
    current_player,
    deal,
    legal_actions,
    new_game,
    parse_square,
    ranking_of,
    record_of,
    replay_events,
    replay_record,
    replay_steps,
    resign,
    scores,
    seat_colors,
)
from tests.engine.builders import ONTO_D4, board, of_type, play, start


@pytest.mark.parametrize(
    ("players", "rugs"),
    [
        (2, [{Color.RED: 12, Color.BLUE: 12}, {Color.YELLOW: 12, Color.BROWN: 12}]),
        (3, [{Color.RED: 15}, {Color.YELLOW: 15}, {Color.BLUE: 15}]),
        (4, [{Color.RED: 12}, {Color.YELLOW: 12}, {Color.BLUE: 12}, {Color.BROWN: 12}]),
    ],
)
def test_r1_players_start_with_30_dirhams_and_their_rugs(
    players: int, rugs: list[dict[Color, int]]
) -> None:
    """R1: 30 dirhams each; 4 x 12, 3 x 15 or 2 x 24 (12 of each of two colours) rugs."""
    state = start(players)
    assert state.dirhams == (30,) * players
    assert [state.rugs_left(seat) for seat in range(players)] == rugs


def test_r1_seat_colours() -> None:
    """R1: seat 0 red, 1 yellow, 2 blue, 3 brown; in 2 players red+blue and yellow+brown."""
    assert [seat_colors(4, s) for s in range(4)] == [
        (Color.RED,),
        (Color.YELLOW,),
        (Color.BLUE,),
        (Color.BROWN,),
    ]
    assert seat_colors(2, 0) == (Color.RED, Color.BLUE)
    assert seat_colors(2, 1) == (Color.YELLOW, Color.BROWN)


@pytest.mark.parametrize("players", [1, 5, 0, -2])
def test_r1_only_2_3_or_4_players(players: int) -> None:
    """R1: a game has 2, 3 or 4 players."""
    with pytest.raises(FormatError, match="2, 3 or 4 players"):
        deal(players, Variant.STANDARD, random.Random(1))


def test_r12_deal_knows_only_two_variants() -> None:
    """R12: a game is "standard" or "rotate-after"."""
    assert deal(3, "rotate-after", random.Random(1)).variant is Variant.ROTATE_AFTER
    with pytest.raises(FormatError, match="standard"):
        deal(3, "fast", random.Random(1))


def test_r2_piles_are_shuffled_from_the_seed() -> None:
    """R2, R13: each 2-player pile holds 12 of each of the seat's colours, shuffled by seed."""
    config = deal(2, Variant.STANDARD, random.Random(7))
    assert config.piles is not None
    for seat, pile in enumerate(config.piles):
        first, second = seat_colors(2, seat)
        assert len(pile) == 24
        assert pile.count(first) == 12
        assert pile.count(second) == 12
    assert deal(2, Variant.STANDARD, random.Random(7)) == config
    assert deal(2, Variant.STANDARD, random.Random(8)).piles != config.piles


def test_r2_r13_a_seed_deals_its_piles_in_a_fixed_order_of_draws() -> None:
    """R2, R13: `deal` draws the first player (unless the host chose one), then shuffles seat
    0's pile, then seat 1's, from the caller's RNG. With the first player chosen, the seed's
    first draws go to the piles: the same seed deals the same piles whichever seat is chosen."""
    for seed in range(5):
        rng = random.Random(seed)
        expected = []
        for seat in range(2):
            pile = [c for c in seat_colors(2, seat) for _ in range(12)]
            rng.shuffle(pile)
            expected.append(tuple(pile))
        for first in (0, 1):
            config = deal(2, Variant.STANDARD, random.Random(seed), first_player=first)
            assert config.piles == tuple(expected)
        rng = random.Random(seed)
        drawn = rng.randrange(2)
        config = deal(2, Variant.STANDARD, random.Random(seed))
        assert config.first_player == drawn
        assert config.piles == deal(2, Variant.STANDARD, rng, first_player=drawn).piles


def test_r2_the_top_of_the_pile_is_laid() -> None:
    """R2: the mover lays the top rug of their pile, and the next one comes up."""
    piles = (
        (Color.BLUE, Color.RED) + (Color.BLUE, Color.RED) * 11,
        (Color.YELLOW, Color.BROWN) * 12,
    )
    state = new_game(GameConfig(2, Variant.STANDARD, 0, piles))
    assert state.next_rug_color(0) is Color.BLUE
    state, _ = play(state, "S", "D1", "c2d2")  # Assam now on d3
    assert state.color_at(parse_square("c2")) is Color.BLUE
    assert state.next_rug_color(0) is Color.RED
    assert state.pile(0) == piles[0][1:]
    assert state.rugs_left(0) == {Color.RED: 12, Color.BLUE: 11}


def test_r2_piles_must_hold_the_seats_colours() -> None:
    """R2: a pile of the wrong colours or size is refused."""
    piles = ((Color.RED,) * 24, (Color.YELLOW, Color.BROWN) * 12)
    with pytest.raises(FormatError, match="12 red and blue"):
        new_game(GameConfig(2, Variant.STANDARD, 0, piles))


def test_r3_assam_starts_on_d4_facing_north() -> None:
    """R3: Assam on the centre square d4 facing N."""
    state = start(3)
    assert (state.assam, state.facing) == (parse_square("d4"), Facing.N)
    assert state.turn == 1
    assert state.to_move == 0


def test_r3_first_player_from_the_seed_or_the_host() -> None:
    """R3: the first player is drawn from the caller's RNG unless the host chooses one."""
    drawn = {deal(4, Variant.STANDARD, random.Random(seed)).first_player for seed in range(40)}
    assert drawn == {0, 1, 2, 3}
    for players in (3, 4):
        for seed in range(40):  # the seed's first draw, a seat from 0 to players - 1
            expected = random.Random(seed).randrange(players)
            assert deal(players, Variant.STANDARD, random.Random(seed)).first_player == expected
    config = deal(3, Variant.STANDARD, random.Random(1), first_player=2)
    assert config.first_player == 2
    assert new_game(config).to_move == 2


def test_r3_a_host_may_choose_seat_0_to_move_first() -> None:
    """R3: seat 0 is a host's choice like any other: it is kept, and no RNG is needed."""
    for seed in range(20):  # several of these seeds would draw another seat
        config = deal(4, Variant.STANDARD, random.Random(seed), first_player=0)
        assert config.first_player == 0
        assert new_game(config).to_move == 0
    config = deal(3, Variant.STANDARD, first_player=0)
    assert config.first_player == 0
    assert new_game(config).to_move == 0


def test_r3_turns_go_round_in_seat_order() -> None:
    """R3: after the first player, seats follow in order, wrapping round."""
    state = new_game(GameConfig(3, Variant.STANDARD, 2, None))
    movers = []
    for _ in range(5):
        movers.append(state.to_move)
        state, _ = play(state, "S", "D1")
        state, events = play(state, legal_actions(state)[0])
    assert movers == [2, 0, 1, 2, 0]
    assert of_type(events, TurnStarted) == [TurnStarted(1, 6)]


def test_r11_game_ends_after_the_last_rug_of_the_last_holder() -> None:
    """R11: the last rug laid ends the game at once, with the ranking."""
    state = board(3, [("a1a2", "red"), ("a3a4", "yellow")], phase=Phase.PLACE, to_move=2)
    state = state._replace(stock=(0, 0, 1, 0), dirhams=(30, 30, 30))
    after, events = play(state, "c3d3")
    assert after.is_over
    assert after.phase is Phase.OVER
    assert after.to_move is None
    assert legal_actions(after) == []
    assert current_player(after) is None
    (ended,) = of_type(events, GameEnded)
    assert ended.reason == "rugs-exhausted"
    # Every seat has 30 dirhams and 2 visible squares: a three-way shared win.
    assert ended.scores == (Score(0, 30, 2, 32), Score(1, 30, 2, 32), Score(2, 30, 2, 32))
    assert ended.ranking == ((0, 1, 2),)
    assert ended.tie_break == "shared"
    with pytest.raises(IllegalActionError, match="game is over"):
        play(after, "S")


def test_r11_seats_without_rugs_are_skipped_until_all_are_out() -> None:
    """R11: a seat that has laid all its rugs takes no more turns; the game goes on."""
    state = board(3, phase=Phase.PLACE, to_move=0)
    state = state._replace(stock=(1, 0, 1, 0))
    after, _ = play(state, "c3d3")
    assert (after.to_move, after.phase) == (2, Phase.ORIENT)


def test_r11_score_is_dirhams_plus_visible_squares() -> None:
    """R11: each visible half rug is a point; in 2 players both colours count."""
    rugs = [("a1a2", "red"), ("b1b2", "blue"), ("b2c2", "yellow"), ("g7g6", "brown")]
    state = board(2, rugs, dirhams=(25, 35))
    assert scores(state) == (Score(0, 25, 3, 28), Score(1, 35, 4, 39))


@pytest.mark.parametrize(
    ("dirhams", "ranking", "tie_break"),
    [
        ((33, 30, 29), ((0,), (1,), (2,)), "score"),  # totals 35, 33, 33
        ((30, 29, 31), ((2,), (0,), (1,)), "score"),  # totals 32, 32, 35
        ((32, 31, 29), ((0,), (1,), (2,)), "dirhams"),  # totals 34, 34, 33
    ],
)
def test_r11_ranking_by_score_then_dirhams(
    dirhams: tuple[int, ...], ranking: tuple[tuple[int, ...], ...], tie_break: str
) -> None:
    """R11: highest score wins; a tie goes to more dirhams; a tie on both is shared."""
    rugs = [("a1a2", "red"), ("a3a4", "yellow"), ("a5a6", "blue"), ("c1c2", "yellow")]
    state = board(3, rugs, phase=Phase.PLACE, to_move=2, dirhams=dirhams)
    # Laying blue's last rug on c2c3 hides one yellow square: red 2, yellow 3, blue 4 visible.
    state = state._replace(stock=(0, 0, 1, 0), assam=parse_square("c4"))
    after, _ = play(state, "c2c3")
    totals = [s.total for s in scores(after)]
    assert totals == [dirhams[0] + 2, dirhams[1] + 3, dirhams[2] + 4]
    assert after.outcome is not None
    assert (after.outcome.ranking, after.outcome.tie_break) == (ranking, tie_break)


def test_r11_two_seats_equal_on_score_and_dirhams_share_first_place_above_a_third() -> None:
    """R11: a tie on both score and dirhams is a shared win even when a third seat is still
    in below it; the outcome says so ("shared"), as the final picture does."""
    state = board(3, [("a1a2", "red"), ("a3a4", "yellow")], phase=Phase.PLACE, to_move=2)
    state = state._replace(stock=(0, 0, 1, 0), dirhams=(31, 31, 30))
    after, events = play(state, "c3d3")
    assert [s.total for s in scores(after)] == [33, 33, 32]  # 2 visible squares each
    assert after.outcome is not None
    assert (after.outcome.ranking, after.outcome.tie_break) == (((0, 1), (2,)), "shared")
    (ended,) = of_type(events, GameEnded)
    assert (ended.ranking, ended.tie_break) == (((0, 1), (2,)), "shared")


@pytest.mark.parametrize(
    ("totals", "dirhams", "seats_in", "eliminated", "expected"),
    [
        ([40, 40, 30], [30, 30, 20], [0, 1, 2], [], (((0, 1), (2,)), "shared")),
        ([40, 40, 40], [30, 30, 20], [0, 1, 2], [], (((0, 1), (2,)), "shared")),
        ([40, 40, 30, 50], [30, 30, 20, 0], [0, 1, 2], [3], (((0, 1), (2,), (3,)), "shared")),
        ([30, 40, 40], [20, 30, 30], [0, 1, 2], [], (((1, 2), (0,)), "shared")),
        ([40, 40, 30], [31, 30, 20], [0, 1, 2], [], (((0,), (1,), (2,)), "dirhams")),
        ([40, 30, 30], [30, 20, 20], [0, 1, 2], [], (((0,), (1, 2)), "score")),
    ],
    ids=[
        "two-of-three",
        "two-of-three-all-on-40",
        "two-of-three-and-one-out",
        "the-last-two-seats",
        "dirhams-decide",
        "a-tie-below-first",
    ],
)
def test_r11_ranking_of_says_what_decided_first_place(
    totals: list[int],
    dirhams: list[int],
    seats_in: list[int],
    eliminated: list[int],
    expected: tuple[tuple[tuple[int, ...], ...], str],
) -> None:
    """R11: "shared" whenever the seats in first place are equal on score and dirhams, however
    many seats follow them; a tie further down leaves first place to the score."""
    assert ranking_of(totals, dirhams, seats_in, eliminated) == expected


def test_r9_r11_an_eliminated_seat_ranks_last_whatever_its_score() -> None:
    """R9: eliminated players cannot win, even with many visible squares."""
    rugs = [(f"{c}1{c}2", "yellow") for c in "abcdefg"]
    state = board(3, rugs, phase=Phase.PLACE, to_move=0)
    state = state._replace(eliminated=(1,), dirhams=(10, 0, 20), stock=(1, 0, 0, 0))
    after, _ = play(state, "c3d3")
    assert after.outcome is not None
    assert after.outcome.ranking == ((2,), (0,), (1,))
    assert scores(after)[1].total == 14  # counted the same way, ignored by the ranking


def test_r12_variant_turn_is_roll_move_pay_lay_then_turn() -> None:
    """R12: no orient step; after laying, a quarter turn L or R (keeping straight is refused)."""
    state = start(3, Variant.ROTATE_AFTER)
    assert state.phase is Phase.ROLL
    assert legal_actions(state) == ["D1", "D2", "D3", "D4"]
    state, _ = play(state, "D2", "c3d3")  # Assam d4 -> d2
    assert (state.phase, state.to_move) == (Phase.ROTATE, 0)
    assert legal_actions(state) == ["L", "R"]
    with pytest.raises(IllegalActionError, match="quarter turn"):
        play(state, "S")
    state, events = play(state, "R")
    assert of_type(events, AssamRotated) == [AssamRotated(0, "R", Facing.E)]
    assert (state.phase, state.to_move, state.facing) == (Phase.ROLL, 1, Facing.E)
    state, _ = play(state, "D1")  # the next player moves in that facing: d2 -> e2
    assert state.assam == parse_square("e2")


def test_r12_no_rotation_after_an_elimination_or_the_end() -> None:
    """R12: the mover who was eliminated, or who ended the game, does not turn Assam."""
    state = board(3, [("d4d5", "yellow")], assam="d3", facing="S", variant=Variant.ROTATE_AFTER)
    state = state._replace(dirhams=(1, 30, 59))
    after, events = play(state, "D1")  # d4 is yellow: red owes 2, holds 1
    assert of_type(events, PlayerEliminated) == [PlayerEliminated(0, 15)]
    assert (after.phase, after.to_move, after.turn) == (Phase.ROLL, 1, 2)
    assert legal_actions(after) == ["D1", "D2", "D3", "D4"]
    last = board(3, phase=Phase.PLACE, variant=Variant.ROTATE_AFTER)._replace(stock=(1, 0, 0, 0))
    after, events = play(last, "c3d3")
    assert after.is_over
    assert of_type(events, GameEnded)
    assert legal_actions(after) == []


def test_resign_passes_the_turn_and_can_end_the_game() -> None:
    """Resigning acts like elimination (R9): dirhams and unplaced rugs gone, rugs neutral,
    turn passes, last player wins."""
    state = start(3)
    state, _ = play(state, "S", "D1")
    after, events = resign(state, 0)
    assert of_type(events, PlayerEliminated) == [PlayerEliminated(0, 15, resigned=True)]
    assert state.dirhams[0] > 0
    assert after.dirhams == (0, *state.dirhams[1:])
    assert (after.to_move, after.phase) == (1, Phase.ORIENT)
    after, _ = resign(after, 2)
    assert after.outcome is not None
    assert after.outcome.reason == "last-player-standing"
    assert after.outcome.ranking == ((1,), (2,), (0,))
    with pytest.raises(IllegalActionError, match="game is over"):
        resign(after, 1)


def test_r12_a_seat_that_resigns_before_turning_assam_passes_the_turn_unturned() -> None:
    """R9, R12: in the variant a seat that resigns after laying its rug, when it is to turn
    Assam, is out like an eliminated mover: no rotation is asked, the next seat still in starts
    its turn with the roll, and Assam keeps the facing he had."""
    state, _ = play(start(3, Variant.ROTATE_AFTER), "D2", "c3d3")
    assert (state.phase, state.to_move) == (Phase.ROTATE, 0)
    after, events = resign(state, 0)
    assert of_type(events, TurnStarted) == [TurnStarted(1, 2)]
    assert (after.phase, after.to_move, after.facing) == (Phase.ROLL, 1, state.facing)
    assert legal_actions(after) == ["D1", "D2", "D3", "D4"]


def test_a_resignation_out_of_turn_leaves_the_turn_being_played() -> None:
    """Only the resigning seat's own turn passes on: a seat that resigns while another plays
    its turn leaves that turn where it was (the same seat to move, in the same phase, no new
    turn), and the order goes on without the seat that left."""
    state, _ = play(start(4), "S", "D1")  # seat 0 is about to lay its rug
    assert (state.to_move, state.phase, state.turn) == (0, Phase.PLACE, 1)
    after, events = resign(state, 2)
    assert (after.to_move, after.phase, after.turn) == (0, Phase.PLACE, 1)
    assert of_type(events, TurnStarted) == []
    after, _ = play(after, "c2d2")
    assert (after.to_move, after.phase) == (1, Phase.ORIENT)
    after, _ = play(after, "S", "D1", "c3d3")
    assert after.to_move == 3, "seat 2 is skipped"
    after, _ = resign(start(3, first_player=1), 0)  # before seat 1 has turned Assam
    assert (after.to_move, after.phase, after.turn) == (1, Phase.ORIENT, 1)


def test_resign_is_kept_in_the_record_and_replays() -> None:
    """A resignation is kept as the record's "resignations" extra; replay repeats it."""
    state, _ = play(start(3), "S", "D1", "c2d2")
    state, _ = resign(state, 2)
    state, _ = play(state, "S", "D2")
    record = record_of(state)
    assert record.extras["resignations"] == [[3, 2]]
    assert replay_record(record) == state


def test_resignations_between_the_same_actions_replay_in_the_order_they_fell() -> None:
    """Two seats resigning one after the other, the higher seat first: the replay repeats
    that order (the other order would pass the turn to the first quitter in between)."""
    state = start(4, first_player=2)
    state, first = resign(state, 3)
    state, second = resign(state, 2)
    record = record_of(state)
    assert record.extras["resignations"] == [[0, 3], [0, 2]]
    assert replay_record(record) == state
    assert [events for _, events in replay_events(record)] == [first, second]


def test_replay_steps_and_events_place_resignations_where_they_fell() -> None:
    """replay_events gives every step (actions and resignations) with its events; replay_steps
    one state per action, a resignation showing from the action after it (or in the last)."""
    state, _ = play(start(3), "S", "D1", "c2d2")
    state, _ = resign(state, 2)
    state, _ = play(state, "S", "D2")
    final, _ = resign(state, 1)  # after the last action: seat 0 is the last player standing
    record = record_of(final)
    assert record.extras["resignations"] == [[3, 2], [5, 1]]
    steps = list(replay_steps(record))
    assert len(steps) == len(record.actions) == 5
    assert [s.eliminated for s in steps] == [(), (), (), (2,), (2, 1)]
    assert steps[-1] == final
    assert final.is_over
    events = list(replay_events(record))
    resigned = [
        [e.seat for e in told if isinstance(e, PlayerEliminated) and e.resigned]
        for _, told in events
    ]
    assert resigned == [[], [], [], [2], [], [], [1]]
    assert events[-1][0] == final
    assert of_type(events[-1][1], GameEnded)[0].reason == "last-player-standing"


def test_resign_refuses_a_seat_not_in_the_game() -> None:
    """Only a seat still in may resign: not a seat the game does not have, nor one already
    out (resigned or eliminated), which would be out twice."""
    for seat in (3, -1):
        with pytest.raises(IllegalActionError, match="not in the game"):
            resign(start(3), seat)
    state, _ = resign(start(4), 1)
    with pytest.raises(IllegalActionError, match="seat 1 is not in the game"):
        resign(state, 1)
    out = board(3, [("d4d5", "yellow")], dirhams=(1, 30, 59), **ONTO_D4)
    out, _ = play(out, "D1")  # seat 0 owes 2 with 1 dirham: eliminated
    assert out.eliminated == (0,)
    with pytest.raises(IllegalActionError, match="seat 0 is not in the game"):
        resign(out, 0)


def test_r13_same_seed_and_choices_replay_the_same_game() -> None:
    """R13: all chance comes from the caller's seeded RNG, so a seed replays a game exactly;
    the die is an explicit action ("D1".."D4") in the record, never drawn by the engine."""
    from engine.playout import checked_playout

    def game(seed: int) -> tuple[str, ...]:
        rng = random.Random(seed)
        return checked_playout(new_game(deal(2, Variant.STANDARD, rng)), rng).history

    assert game(42) == game(42)
    assert game(42) != game(43)
    history = game(42)
    assert {a for a in history if a.startswith("D")} <= {"D1", "D2", "D3", "D4"}
    state = new_game(deal(2, Variant.STANDARD, random.Random(42)))
    for action in history:
        state, _ = play(state, action)
    assert state.history == history
    assert state.is_over
