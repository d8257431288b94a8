"""Quick pairing's matching rule (:mod:`forsale.server.lobby.matching`): examples, and properties over any queue."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forsale.server.lobby.matching import BASE_GAP, PLAYER_COUNTS, WIDEN, Match, Seeker, bot_level, match

ANY = frozenset(PLAYER_COUNTS)


def seeker(name: str, mu: float = 25.0, counts: tuple[int, ...] | frozenset[int] = ANY, rated: bool = False,
           joined: float = 0.0, bots_after: float | None = None, bot_account: bool = False) -> Seeker:  # fmt: skip
    return Seeker(name, mu, frozenset(counts), rated, joined, bots_after, bot_account)


def test_the_largest_table_everyone_asked_for() -> None:
    people = [seeker(f"p{i}", joined=i) for i in range(7)]
    assert match(people, now=7) == [Match(6, False, ("p0", "p1", "p2", "p3", "p4", "p5"))]
    fours = [seeker(f"q{i}", counts=(4,), joined=i) for i in range(3)]
    assert match(fours, now=3) == []  # three who want four wait for a fourth
    assert match([*fours, seeker("q3", counts=(3, 4), joined=3)], now=3) == [Match(4, False, ("q0", "q1", "q2", "q3"))]


def test_rated_and_casual_never_meet() -> None:
    people = [seeker("a"), seeker("b"), seeker("c", rated=True), seeker("d", rated=True)]
    assert match(people, now=0) == []
    people += [seeker("e"), seeker("f", rated=True)]
    tables = match(people, now=0)
    assert sorted((t.rated, sorted(t.members)) for t in tables) == [(False, ["a", "b", "e"]), (True, ["c", "d", "f"])]


def test_the_accepted_rating_span_widens_with_the_wait() -> None:
    far = 10.0  # three players 5 apart: a span of 10
    people = [seeker("low", 25 - far / 2), seeker("mid", 25), seeker("high", 25 + far / 2)]
    assert match(people, now=0) == []
    wait = (far - BASE_GAP) / WIDEN
    assert match(people, now=wait - 0.01) == []
    assert [sorted(t.members) for t in match(people, now=wait)] == [["high", "low", "mid"]]


def test_a_newcomer_is_not_thrown_to_a_far_table_by_someone_elses_wait() -> None:
    old = [seeker("old1", 10, joined=0), seeker("old2", 10, joined=0)]
    assert match([*old, seeker("new", 30, joined=100)], now=100) == []  # the old two would take anyone; "new" not
    assert match([*old, seeker("new2", 10.5, joined=100)], now=100)[0].members == ("old1", "old2", "new2")


def test_the_closest_ratings_are_seated_together() -> None:
    people = [
        seeker("a", 25, (3,), joined=0),
        seeker("far", 26.9, (3,)),
        seeker("b", 25.5, (3,)),
        seeker("c", 24.6, (3,)),
    ]
    assert match(people, now=0) == [Match(3, False, ("a", "c", "b"))]


def test_bots_fill_only_for_those_who_asked_after_their_wait() -> None:
    alone = seeker("a", 25, bots_after=10)
    assert match([alone], now=9.9) == []
    assert match([alone], now=10) == [Match(4, False, ("a",), "medium")]
    assert match([seeker("never")], now=1e6) == []
    two = [seeker("a", 25, bots_after=10), seeker("b", 25.5, joined=5)]  # b wants no bots: a waits or goes alone
    assert match(two, now=10) == [Match(4, False, ("a",), "medium")]
    willing = [seeker("a", 25, (3, 5), bots_after=10), seeker("b", 25.5, (5,), joined=5, bots_after=60)]
    assert match(willing, now=10) == [Match(5, False, ("a", "b"), "medium")]  # the size that seats both


def test_a_bot_account_sits_only_with_people_who_accept_bots() -> None:
    robot = seeker("robot", joined=0, bot_account=True)  # anchors: it waited longest
    never = [seeker("n1", 25.1, joined=1), seeker("n2", 25.2, joined=2)]
    assert match([robot, *never], now=3) == []  # the people who said never wait for people
    assert match([*never, seeker("n3", 26, joined=3), robot], now=3) == [Match(3, False, ("n1", "n2", "n3"))]
    willing = [seeker("w1", 25.1, joined=1, bots_after=60), seeker("w2", 25.2, joined=2, bots_after=600)]
    assert match([robot, *willing], now=3) == [Match(3, False, ("robot", "w1", "w2"))]
    # the anchor says never: the bot account is passed over for a farther person, though it is nearer
    mixed = [seeker("n1", 25, (3,), joined=0), robot, seeker("w1", 25.5, (3,), joined=1, bots_after=60)]
    assert match([*mixed, seeker("n4", 26, (3,), joined=2)], now=3) == [Match(3, False, ("n1", "w1", "n4"))]
    # a willing anchor takes the bot account first; a never-bots person is then passed over
    mixed = [seeker("w1", 25, (3,), joined=0, bots_after=60), robot, seeker("n1", 25.2, (3,), joined=1)]
    assert match(mixed, now=3) == []
    robots = [robot, seeker("robot2", 25.3, joined=1, bot_account=True), seeker("robot3", 25.4, bot_account=True)]
    assert match(robots, now=3) == [Match(3, False, ("robot", "robot2", "robot3"))]  # bot accounts among themselves


def test_the_bots_level_follows_the_peoples_ratings() -> None:
    assert bot_level([15.0]) == "easy" and bot_level([25.0]) == "medium" and bot_level([30.0, 28.0]) == "hard"
    assert match([seeker("strong", 35, (3,), rated=True, bots_after=0)], now=0) == [Match(3, True, ("strong",), "hard")]


def test_a_seeker_asks_for_some_table_size() -> None:
    with pytest.raises(ValueError):
        seeker("x", counts=())
    with pytest.raises(ValueError):
        seeker("x", counts=(2, 3))


seekers = st.lists(
    st.builds(
        Seeker,
        account_id=st.sampled_from([f"a{i}" for i in range(40)]),
        mu=st.floats(0, 50),
        counts=st.frozensets(st.sampled_from(PLAYER_COUNTS), min_size=1),
        rated=st.booleans(),
        joined=st.floats(0, 100),
        bots_after=st.none() | st.floats(0, 100),
        bot_account=st.booleans(),
    ),
    max_size=40,
    unique_by=lambda s: s.account_id,
)


@settings(max_examples=150, deadline=None)
@given(queue=seekers, now=st.floats(0, 200))
def test_any_queue_gives_tables_that_keep_every_rule(queue: list[Seeker], now: float) -> None:
    by_id = {s.account_id: s for s in queue}
    tables = match(queue, now)
    seated = [m for t in tables for m in t.members]
    assert len(seated) == len(set(seated)) and set(seated) <= set(by_id)  # nobody twice, nobody from nowhere
    for table in tables:
        members = [by_id[m] for m in table.members]
        assert 1 <= len(members) <= table.players and table.players in PLAYER_COUNTS
        assert all(table.players in s.counts for s in members[1:])  # the bot fill's anchor may be the only one
        assert table.players in members[0].counts
        assert {s.rated for s in members} == {table.rated}  # never rated with casual
        span = max(s.mu for s in members) - min(s.mu for s in members)
        assert span <= min(s.gap(now) for s in members) + 1e-9
        never = any(s.people_only for s in members)  # a person who said never to bots: no bot account either
        assert not (never and any(s.bot_account for s in members))
        if table.bots:
            assert table.bot in ("easy", "medium", "hard") and members[0].wants_bots(now)
            assert all(s.bots_after is not None for s in members)
        else:
            assert table.bot is None
    assert match(list(reversed(queue)), now) == tables  # deterministic, whatever the order read


def plainly(queue: list[Seeker], now: float) -> list[Match]:
    """The rule as the module docstring says it, by brute force (every anchor sorts everyone): the reference."""
    from forsale.server.lobby.matching import FILL_ORDER

    def group(anchor: Seeker, others: list[Seeker], size: int) -> list[Seeker]:
        members, low, high, limit = [anchor], anchor.mu, anchor.mu, anchor.gap(now)

        def mixes(other: Seeker) -> bool:  # a bot account with a person who said never to bots
            kinds = [*members, other]
            return any(s.bot_account for s in kinds) and any(s.bots_after is None and not s.bot_account for s in kinds)

        for other in sorted(others, key=lambda o: (abs(o.mu - anchor.mu), o.joined, o.account_id)):
            if len(members) < size and size in other.counts and not mixes(other):
                lo, hi, li = min(low, other.mu), max(high, other.mu), min(limit, other.gap(now))
                if hi - lo <= li:
                    members, low, high, limit = [*members, other], lo, hi, li
        return members

    taken: set[str] = set()
    out = []
    for anchor in sorted(queue, key=lambda s: (s.joined, s.account_id)):
        if anchor.account_id in taken:
            continue
        others = [s for s in queue if s.rated == anchor.rated and s.account_id not in taken and s is not anchor]
        found = next(
            ((n, g) for n in sorted(anchor.counts, reverse=True) if len(g := group(anchor, others, n)) == n), None
        )
        if found is None and anchor.wants_bots(now):
            willing = [s for s in others if s.bots_after is not None]
            tries = [(n, group(anchor, willing, n)) for n in FILL_ORDER if n in anchor.counts]
            found = max(tries, key=lambda t: (len(t[1]), -tries.index(t)))
        if found is not None:
            size, members = found
            bot = bot_level(s.mu for s in members) if len(members) < size else None
            out.append(Match(size, anchor.rated, tuple(s.account_id for s in members), bot))
            taken.update(s.account_id for s in members)
    return out


@settings(max_examples=100, deadline=None)
@given(queue=seekers, now=st.floats(0, 200))
def test_the_fast_scan_makes_the_tables_the_plain_rule_makes(queue: list[Seeker], now: float) -> None:
    assert match(queue, now) == plainly(queue, now)


def test_a_queue_of_hundreds_is_matched_in_milliseconds() -> None:
    import random
    import time

    draw = random.Random(34)
    queue = [
        seeker(f"p{i}", draw.gauss(25, 4), rated=draw.random() < 0.3, joined=draw.uniform(0, 30)) for i in range(600)
    ]
    started = time.perf_counter()
    tables = match(queue, now=30)
    assert time.perf_counter() - started < 0.5  # brute force took seconds
    assert sum(len(t.members) for t in tables) > 500
