"""Swiss rounds at 2-seat tables: the seating of least cost (bot/services/swiss_cost.py) is a
minimum-cost perfect matching, found exactly by networkx's blossom algorithm on the complete
graph of the players (integer weights, so no rounding). With an odd count, a vertex for the bye
joins the graph, linked to every player with the fewest byes: the matching picks the bye and the
tables together.

Equal costs are told apart by a bonus per pair, a power of two that is larger the better-ranked
the pair (its better player first, then the other): of two seatings equal in cost, the one
where the best-ranked player whose opponent differs has the better-ranked opponent wins. The
bonuses are below one unit of cost and no two sets of pairs add up to the same bonus, so the
least-cost seating is unique: every process (and every version of the library) gets the same
tables for the same round.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.services.swiss_cost import Costs


def matched_pairs(
    costs: Costs, count: int, bye_takers: Sequence[int] = ()
) -> tuple[list[tuple[int, int]], int | None]:
    """The least-cost pairs of players 0..count-1 (ranking places), each pair best-ranked
    first, in ranking order of their first; with `bye_takers` (ranking places, best first;
    needed when `count` is odd), also the one who takes the bye."""
    # Imported here, not at the top: loading networkx takes about 0.1 s, as long as the rest of
    # the bot's start-up; only the first 2-seat Swiss round of a process pays it.
    import networkx as nx

    bye = count
    costs_of: list[tuple[int, int, int]] = [
        (a, b, costs.pair[a][b]) for a in range(count) for b in range(a + 1, count)
    ]
    costs_of += [
        (taker, bye, costs.bye_step * below) for below, taker in enumerate(reversed(bye_takers))
    ]
    costs_of.sort()  # ranking order of the pairs: the better player, then the other
    top = max((cost for _, _, cost in costs_of), default=0) + 1
    shift = len(costs_of) + 1
    graph: nx.Graph[int] = nx.Graph()
    graph.add_nodes_from(range(count + 1 if bye_takers else count))
    graph.add_weighted_edges_from(
        (a, b, ((top - cost) << shift) + (1 << (shift - 1 - index)))
        for index, (a, b, cost) in enumerate(costs_of)
    )
    mate: dict[int, int] = {}
    for a, b in nx.max_weight_matching(graph, maxcardinality=True):
        mate[a], mate[b] = b, a
    pairs = [(a, mate[a]) for a in range(count) if a < mate[a] < count]
    return pairs, mate.get(bye)
