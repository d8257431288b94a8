"""A population of simple opponents, for measuring strength against players unlike our own bots.

A bot tuned against a few opponents can be strong against them and weak
against anyone else. To say how strong a bot is, it must meet many players
it was never tuned on. This module builds them from parametric families:

- **bidding rules** (a *limit*: the highest total bid the seat will make this
  auction round, worked out afresh at every decision): a share of the coins
  held (``share``); pacing the coins over the auctions left (``pace``); a share
  of the spread between the highest and lowest house revealed this round
  (``spread``); bidding only when the top house reaches a threshold (``top``);
  a share of the value gap between the top house and the one a pass takes now
  (``gap``) or between the two best houses (``lead``); mixtures with
  randomness (``jitter``, ``coinflip``, ``gamble``); and bidding straight up
  to the limit instead of one coin at a time (``...jump``);
- **sale rules**: lowest, highest and median house; rank matching (the
  house whose rank in the hand matches how rich this round's cheques are
  among those not yet won); cheque matching (the house nearest twice the
  mean, or twice the top, cheque); a mixture of rank matching and chance;
  greedy (the best cheque expected now, every hand being known by deduction
  and the other seats taken to play at random) and greedy with a share of
  what the house would earn later kept back (``greedysave``);
- **people's advice** from the rules' strategy notes: pass at once when the
  houses on the table are close in value (``close4``, ``close8``: the spread
  is at most 4 or 8), and keep the best houses for the rounds with the
  richest cheques, sacrificing small houses when the cheques are poor or
  alike (``savebest``). :data:`HUMAN_LIKE` names the members built that way.

- **stronger families** (:data:`STRONG_BIDDERS`, :data:`STRONG_SELLERS`),
  added because the first ones won at most ~17% against three ``expert``
  and so could not test a bot meant to beat it: bids on the value gap in
  expected cheques (``expert``'s valuation, another ``alpha``: ``vgap``),
  the value gap or the spread scaled by the coins left per auction
  (``vpace``, ``spreadpace``), keeping pace with what the others spent
  (``keeppace``, ``keepgap``), one raise then pass (``once``, ``oncejump``),
  the value gap with chance (``vjitter``, ``vcoin``), pass on close houses
  else bid the value gap (``closev``); sold by ``expert``'s own sale with or
  without its opponent model, cheque-quantile matching over the rounds left
  (``quantile``), or by reading the deduced hands to take a rich top cheque
  with the least house sure to win it (``anticipate...``).

Each bidding rule meets four sale rules (chosen cyclically so that every
sale rule meets every kind of bidding rule; the stronger bidders among the
stronger sale rules), and the human-like pairs are added, which gives
:func:`generated_names`. The registered baselines and
``expert`` belong to the population too (:data:`REGISTERED`); the search bots
(``hard``, ``hard-v1``) are measured against on their own, by name (they are
slow and are the bots under test).

**The split.** :func:`tuning` and :func:`held_out` split :func:`member_names`
in two with the fixed seed :data:`SPLIT_SEED`, family by family (each family's
members are shuffled and dealt alternately), so both halves hold every family;
the first population's halves are kept exactly as they were before the
stronger families came (see :func:`_split`).
The held-out half is for **measurement only**: no training, tuning or
self-play of any bot may read it, or the measurement says nothing about
players the bot has never seen. Train and tune on :func:`tuning`.

Every member reads only its :class:`~forsale.view.View`, plays one of
``view.legal_actions()`` at every player count and under every ruleset, and
draws randomness only from the generator it is given.

**Measurement equipment, not a shipped bot.** This module lives in the
measurement harness (``bench/harness``), not in the ``forsale`` package, and
the bots' registry never imports it. Importing it registers the members
*unlisted* in the registry of the importing process: after ``import
harness.population``, ``make_agent("pop-share20-rank")`` builds one (no front
end lists them, and a server seats none of them). The bench scripts import it;
a tournament's worker processes import it too when told to
(``run_tournament(..., bot_modules=[MODULE])``, ``forsale tournament
--bot-module harness.population`` with ``bench/`` on ``PYTHONPATH``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from forsale.actions import PASS, SELLS, Action, bid
from forsale.bots.expert import sale_choice, sale_posteriors, view_house_values
from forsale.bots.registry import register
from forsale.view import View

SPLIT_SEED = 14
"""The seed of the tuning / held-out split (issue 14). Changing it changes which players are unseen: don't."""

REGISTERED: tuple[str, ...] = ("random", "value", "smart", "prudent", "cheapskate", "bigspender", "expert")
"""Registered bots that are members too (the baselines and ``expert``), split like the generated ones."""

Limit = Callable[[View, random.Random], float]
Choose = Callable[[View, random.Random], int]


@dataclass(frozen=True)
class Bidder:
    """A bidding rule: ``limit(view, rng)`` is the highest total bid it will make now; ``jump``: bid it at once."""

    name: str
    family: str
    limit: Limit
    jump: bool = False


@dataclass(frozen=True)
class Seller:
    """A sale rule: ``choose(view, rng)`` is the house of the viewing seat's hand to sell."""

    name: str
    choose: Choose


class PopulationAgent:
    """One member: a bidding rule and a sale rule (see the module docstring)."""

    def __init__(self, name: str, bidder: Bidder, seller: Seller) -> None:
        self.name = name
        self.bidder = bidder
        self.seller = seller

    def act(self, view: View, rng: random.Random, budget: float | None = None) -> Action:
        seat = view.seat
        assert seat is not None
        if view.phase == "auction":
            coins, high = view.coins[seat], view.high
            if coins <= high:  # cannot raise: passing is the only move
                return PASS
            limit = min(coins, int(self.bidder.limit(view, rng)))
            if limit <= high:
                return PASS
            return bid(limit if self.bidder.jump else high + 1)
        return SELLS[self.seller.choose(view, rng)]


# -- what the rules read from a view -------------------------------------------------


def _coins(view: View) -> int:
    assert view.seat is not None
    return view.coins[view.seat]


def _revealed(view: View) -> list[int]:
    """The houses revealed this auction round (taken ones included), ascending."""
    return sorted(view.auction_tables[-1])


def _spread(view: View) -> int:
    revealed = _revealed(view)
    return revealed[-1] - revealed[0]


def _auctions_left(view: View) -> int:
    """Auction rounds still to play, this one included."""
    return view.rules.rounds - len(view.auction_tables) + 1


def _richness(view: View) -> float:
    """How rich this sale round is, 0..1: the mean rank of its cheques among the cheques not yet won."""
    pool = sorted(view.unseen_cheques + view.table)
    if len(pool) < 2:
        return 0.5
    ranks = [(pool.index(c) + (len(pool) - 1 - pool[::-1].index(c))) / 2 for c in view.table]
    return sum(ranks) / len(ranks) / (len(pool) - 1)


# -- bidding families ----------------------------------------------------------------


def _share(s: float) -> Limit:
    return lambda view, rng: s * _coins(view)


def _pace(f: float) -> Limit:
    return lambda view, rng: f * _coins(view) / _auctions_left(view)


def _spread_share(k: float) -> Limit:
    return lambda view, rng: k * _spread(view)


def _top(threshold: int, s: float) -> Limit:
    return lambda view, rng: s * _coins(view) if _revealed(view)[-1] >= threshold else 0.0


def _gap(k: float) -> Limit:
    """A share of what winning the round gains over passing now: the top house left minus the lowest."""
    return lambda view, rng: k * (max(view.table) - min(view.table))


def _lead(k: float) -> Limit:
    """Worth fighting for only as much as the top house leads the second one (plus one coin)."""

    def limit(view: View, rng: random.Random) -> float:
        revealed = _revealed(view)
        return k * (revealed[-1] - revealed[-2]) + 1 if len(revealed) > 1 else 0.0

    return limit


def _jitter(base: Limit, width: float) -> Limit:
    return lambda view, rng: base(view, rng) * rng.uniform(1 - width, 1 + width)


def _either(p: float, first: Limit, second: Limit) -> Limit:
    """``first`` with chance ``p`` at each decision, else ``second``."""
    return lambda view, rng: first(view, rng) if rng.random() < p else second(view, rng)


def _close(closeness: int, k: float) -> Limit:
    """People's advice: houses close in value are not worth a fight, so pass at once; else bid a share of the gap."""
    return lambda view, rng: 0.0 if _spread(view) <= closeness else k * (max(view.table) - min(view.table))


BIDDERS: tuple[Bidder, ...] = (
    *(Bidder(f"share{round(s * 100)}", "share", _share(s)) for s in (0.2, 0.3, 0.45, 0.6, 0.8)),
    *(Bidder(f"pace{round(f * 100)}", "pace", _pace(f)) for f in (0.75, 1.0, 1.5, 2.5)),
    *(Bidder(f"spread{round(k * 100)}", "spread", _spread_share(k)) for k in (0.15, 0.25, 0.4, 0.6)),
    *(Bidder(f"top{t}", "top", _top(t, s)) for t, s in ((18, 0.5), (22, 0.6), (26, 0.8))),
    *(Bidder(f"gap{round(k * 100)}", "gap", _gap(k)) for k in (0.2, 0.35, 0.5, 0.65, 0.8)),
    *(Bidder(f"lead{round(k * 100)}", "lead", _lead(k)) for k in (0.5, 1.0)),
    Bidder("jitter40", "random", _jitter(_share(0.4), 0.5)),
    Bidder("coinflip", "random", _either(0.5, _spread_share(0.4), lambda view, rng: 0.0)),
    Bidder("gamble20", "random", _either(0.2, _share(0.8), _pace(1.0))),
    Bidder("share45jump", "jump", _share(0.45), jump=True),
    Bidder("spread40jump", "jump", _spread_share(0.4), jump=True),
    Bidder("pace150jump", "jump", _pace(1.5), jump=True),
    Bidder("close4", "human", _close(4, 0.35)),
    Bidder("close8", "human", _close(8, 0.5)),
)
"""Every bidding rule, by name (the ``family`` groups them for the split)."""


# -- sale rules ----------------------------------------------------------------------


def _lowest(view: View, rng: random.Random) -> int:
    return min(view.hand)


def _highest(view: View, rng: random.Random) -> int:
    return max(view.hand)


def _median(view: View, rng: random.Random) -> int:
    hand = sorted(view.hand)
    return hand[len(hand) // 2]


def _rank(view: View, rng: random.Random) -> int:
    """The house whose rank in the hand matches the round's richness."""
    hand = sorted(view.hand)
    return hand[round(_richness(view) * (len(hand) - 1))]


def _nearest(target: Callable[[View], float]) -> Choose:
    def choose(view: View, rng: random.Random) -> int:
        t = target(view)
        return min(sorted(view.hand), key=lambda h: (abs(h - t), h))

    return choose


def _rank_or_random(p: float) -> Choose:
    def choose(view: View, rng: random.Random) -> int:
        hand = sorted(view.hand)
        return hand[int(rng.random() * len(hand))] if rng.random() < p else _rank(view, rng)

    return choose


def _below(ps: list[float]) -> list[float]:
    """``P(exactly j of the independent events happen)`` for chances ``ps``."""
    dist = [1.0]
    for p in ps:
        dist = [a * (1 - p) + b * p for a, b in zip([*dist, 0.0], [0.0, *dist])]
    return dist


def _expected_cheques(view: View, cheques: list[float]) -> dict[int, float]:
    """Per house of the hand: the cheque of rank ``j`` in ``cheques`` expected if each other seat plays at random."""
    others = [hand for s, hand in enumerate(view.hands) if s != view.seat and hand]
    return {
        h: sum(d * c for d, c in zip(_below([sum(x < h for x in o) / len(o) for o in others]), cheques))
        for h in view.hand
    }


def _greedy(later: float) -> Choose:
    """The house with the best cheque expected now, less ``later`` times the cheque it would expect in a later round.

    All hands are known by deduction; the other seats are taken to play uniformly at random.
    """

    def choose(view: View, rng: random.Random) -> int:
        now = _expected_cheques(view, sorted(view.table))
        if later == 0 or not view.cheques_to_come:
            return max(sorted(view.hand), key=lambda h: now[h])
        unseen = sorted(view.unseen_cheques)
        n = len(view.table)  # a later round's cheques, roughly: n evenly spaced quantiles of the unseen ones
        future = [unseen[min(len(unseen) - 1, round((k + 0.5) * len(unseen) / n - 0.5))] for k in range(n)]
        then = _expected_cheques(view, [float(c) for c in future])
        return max(sorted(view.hand), key=lambda h: now[h] - later * then[h])

    return choose


def _save_best(view: View, rng: random.Random) -> int:
    """People's advice: the best house for the richest cheques, the smallest when the cheques are poor or alike."""
    cheques = sorted(view.table)
    richness = _richness(view)
    if richness >= 0.7:
        return max(view.hand)
    if richness <= 0.4 or cheques[-1] - cheques[0] <= 3:
        return min(view.hand)
    return _median(view, rng)


SELLERS: tuple[Seller, ...] = (
    Seller("rank", _rank),
    Seller("lowest", _lowest),
    Seller("match", _nearest(lambda view: 2 * sum(view.table) / len(view.table))),
    Seller("highest", _highest),
    Seller("savebest", _save_best),
    Seller("median", _median),
    Seller("matchtop", _nearest(lambda view: 2 * max(view.table))),
    Seller("rankmix25", _rank_or_random(0.25)),
    Seller("greedy", _greedy(0.0)),
    Seller("greedysave", _greedy(0.6)),
)
"""Every sale rule, by name."""

_SELLER = {s.name: s for s in SELLERS}


# -- stronger families: rules that reckon in expected cheques --------------------------
#
# The families above are mostly far weaker than ``expert`` (the best won about 17% against three of
# it), so a bot could beat every held-out table and still lose to the simple heuristics people write.
# These reckon a house's worth as ``expert`` does, in the cheques it is expected to earn
# (:func:`forsale.bots.expert.view_house_values`), or read what the deduced hands say about this sale.


def _value_gap(view: View) -> float:
    """What winning the round is worth over passing now, in expected cheques: v(top house) - v(lowest)."""
    values = view_house_values(view)
    return values[max(view.table)] - values[min(view.table)]


def _cash_ratio(view: View) -> float:
    """Coins left per auction still to play, against the even pace of the start (0.5..2; 1 when coins start at 0)."""
    start = view.rules.starting_coins / view.rules.rounds
    if start <= 0:
        return 1.0
    return max(0.5, min(2.0, _coins(view) / _auctions_left(view) / start))


def _vgap(k: float) -> Limit:
    """``expert``'s bidding with another ``alpha``: ``k`` times the value gap."""
    return lambda view, rng: k * _value_gap(view)


def _vpace(k: float) -> Limit:
    """The value gap, scaled up when coins are plentiful for the auctions left and down when they are short."""
    return lambda view, rng: k * _value_gap(view) * _cash_ratio(view)


def _spread_pace(k: float) -> Limit:
    """A share of the table's spread (in house numbers), scaled by the coins left per auction still to play."""
    return lambda view, rng: k * _spread(view) * _cash_ratio(view)


def _keep_pace(f: float, g: float) -> Limit:
    """Spend as the others spend: catch up what the average other seat spent more, plus ``f`` of the even pace
    and ``g`` times the value gap."""

    def limit(view: View, rng: random.Random) -> float:
        seat = view.seat
        assert seat is not None
        start = view.rules.starting_coins
        others = [start - c for s, c in enumerate(view.coins) if s != seat]
        behind = sum(others) / len(others) - (start - view.coins[seat])
        return max(0.0, behind) + f * _coins(view) / _auctions_left(view) + g * _value_gap(view)

    return limit


def _once(k: float) -> Limit:
    """Opportunist: one raise in a round (up to ``k`` times the value gap), then pass once outbid."""

    def limit(view: View, rng: random.Random) -> float:
        assert view.seat is not None
        return 0.0 if view.bids[view.seat] > 0 else k * _value_gap(view)

    return limit


def _close_value(closeness: int) -> Limit:
    """People's advice with a valuer's bid: pass at once when the houses are close, else bid the value gap."""
    return lambda view, rng: 0.0 if _spread(view) <= closeness else _value_gap(view)


STRONG_BIDDERS: tuple[Bidder, ...] = (
    *(Bidder(f"vgap{round(k * 100)}", "vgap", _vgap(k)) for k in (0.8, 1.25, 1.5)),
    *(Bidder(f"vpace{round(k * 100)}", "vpace", _vpace(k)) for k in (0.7, 1.0, 1.4)),
    *(Bidder(f"spreadpace{round(k * 100)}", "spreadpace", _spread_pace(k)) for k in (0.3, 0.5, 0.8)),
    *(Bidder(f"keeppace{round(f * 100)}", "keeppace", _keep_pace(f, 0.5)) for f in (0.5, 0.75, 1.0, 1.5)),
    *(Bidder(f"keepgap{round(g * 100)}", "keeppace", _keep_pace(0.0, g)) for g in (0.8, 1.0)),
    Bidder("once120", "once", _once(1.2)),
    *(Bidder(f"oncejump{round(k * 100)}", "once", _once(k), jump=True) for k in (0.7, 1.0)),
    Bidder("vjitter", "vrandom", lambda view, rng: rng.uniform(0.6, 1.4) * _value_gap(view)),
    Bidder("vcoin", "vrandom", _either(0.75, _vgap(1.0), lambda view, rng: 0.0)),
    *(Bidder(f"closev{c}", "humanv", _close_value(c)) for c in (2, 4, 7)),
)
"""Bidding rules that reckon in expected cheques (the ``family`` groups them for the split)."""


def _expert_sale(modelled: bool) -> Choose:
    """``expert``'s sale (:func:`forsale.bots.expert.sale_choice`), with its opponent model or with the prior only."""

    def choose(view: View, rng: random.Random) -> int:
        assert view.seat is not None
        posts = None
        if modelled:
            posts = sale_posteriors(
                view.players, view.hands, view.history, view.sale_tables[:-1],
                view.unseen_cheques + view.table, view.rules.rounds,
            )  # fmt: skip
        rounds_after = view.rules.rounds - view.round - 1
        return sale_choice(view.seat, view.hands, view.table, view.unseen_cheques, rounds_after, posts)

    return choose


QUANTILE_SAMPLES = 12
"""Deals of the cheques still to come that :func:`_quantile` draws to rank this round among the rounds left."""


def _quantile(view: View, rng: random.Random) -> int:
    """Cheque-quantile matching: the house whose rank in the hand is this round's rank among the rounds left.

    The rounds after this one are drawn from the unseen cheques; a round's worth is the sum of its cheques.
    """
    hand = sorted(view.hand)
    later = len(hand) - 1
    if later == 0:
        return hand[0]
    n, now = len(view.table), sum(view.table)
    pool = list(view.unseen_cheques)
    below = 0.0
    for _ in range(QUANTILE_SAMPLES):
        rng.shuffle(pool)
        sums = [sum(pool[r * n : r * n + n]) for r in range(later)]
        below += sum(1.0 if s < now else 0.5 if s == now else 0.0 for s in sums)
    return hand[round(below / QUANTILE_SAMPLES)]


def _anticipate(fallback: Choose) -> Choose:
    """Read the others' hands (known by deduction): take a rich top cheque with the least house sure to win it.

    When some house beats every other seat's highest and the top cheque is at least the median of the
    cheques not yet won, sell the smallest such house; otherwise sell by ``fallback``.
    """

    def choose(view: View, rng: random.Random) -> int:
        hand = sorted(view.hand)
        rivals = [max(h) for s, h in enumerate(view.hands) if s != view.seat and h]
        pool = sorted(view.unseen_cheques + view.table)
        sure = [h for h in hand if h > max(rivals, default=0)]
        if sure and len(hand) > 1 and max(view.table) >= pool[len(pool) // 2]:
            return sure[0]
        return fallback(view, rng)

    return choose


STRONG_SELLERS: tuple[Seller, ...] = (
    Seller("expertsale", _expert_sale(True)),
    Seller("quantile", _quantile),
    Seller("anticipatelow", _anticipate(_lowest)),
    Seller("expertprior", _expert_sale(False)),
    Seller("anticipate", _anticipate(_rank)),
    Seller("anticipatexp", _anticipate(_expert_sale(False))),
    _SELLER["greedysave"],
)
"""The sale rules the stronger bidders meet: ``expert``'s own (with and without its opponent model), quantile
matching, hand reading (falling back on rank matching, the lowest house or ``expert``'s prior sale), greedy."""

_HUMAN_PAIRS = (
    ("close4", "savebest"), ("close8", "savebest"), ("close4", "rank"), ("gap35", "savebest"),
    ("closev4", "savebest"), ("closev7", "savebest"),
)  # fmt: skip
HUMAN_LIKE: tuple[str, ...] = tuple(f"pop-{b}-{s}" for b, s in _HUMAN_PAIRS)
"""Members that play as the strategy notes advise people to (close houses: pass; best houses: richest cheques)."""


def _pairs() -> dict[str, tuple[Bidder, Seller]]:
    """Each bidding rule with four sale rules, chosen cyclically (the stronger bidders among the stronger sellers)."""
    bidders = {b.name: b for b in BIDDERS + STRONG_BIDDERS}
    pairs: dict[str, tuple[Bidder, Seller]] = {}
    blocks = ((BIDDERS, SELLERS, (0, 3, 5, 7)), (STRONG_BIDDERS, STRONG_SELLERS, (0, 2, 4, 5)))
    combos = [(b, sellers[(i + k) % len(sellers)]) for bs, sellers, ks in blocks for i, b in enumerate(bs) for k in ks]
    combos += [(bidders[b], _SELLER[s]) for b, s in _HUMAN_PAIRS]
    for b, s in combos:  # a human pair the cycle already made is the same member: kept once
        pairs.setdefault(f"pop-{b.name}-{s.name}", (b, s))
    return pairs


_PAIRS = _pairs()


def generated_names() -> list[str]:
    """The generated members' names (``pop-<bidding rule>-<sale rule>``), in a fixed order."""
    return list(_PAIRS)


def member(name: str) -> PopulationAgent:
    """The generated member called ``name``; ``KeyError`` if there is none."""
    bidder, seller = _PAIRS[name]
    return PopulationAgent(name, bidder, seller)


def family(name: str) -> str:
    """A member's family for the split: its bidding rule's family, or ``registered`` for the registered bots."""
    return _PAIRS[name][0].family if name in _PAIRS else "registered"


def member_names() -> list[str]:
    """Everyone in the population: the generated members, then :data:`REGISTERED`."""
    return generated_names() + list(REGISTERED)


def _deal_out(families: dict[str, list[str]], rng_of: Callable[[str], random.Random]) -> tuple[list[str], list[str]]:
    """Each family's members shuffled by ``rng_of(family)`` and dealt alternately to the two halves."""
    tune: list[str] = []
    held: list[str] = []
    for fam in sorted(families):
        rng = rng_of(fam)
        names = sorted(families[fam])
        rng.shuffle(names)
        first_half = rng.random() < 0.5  # which half gets the odd member of an odd family
        for i, name in enumerate(names):
            (tune if (i % 2 == 0) == first_half else held).append(name)
    return tune, held


def _split() -> tuple[list[str], list[str]]:
    """The first population's halves as they were, then each stronger family split by a generator of its own.

    The first population (the :data:`BIDDERS` members and :data:`REGISTERED`) is dealt with one generator
    seeded ``SPLIT_SEED``, as before the stronger families came, so no member that tuning has already met
    moves into the held-out half, and none held out moves into tuning. Each stronger family is dealt with
    its own generator, seeded by ``SPLIT_SEED`` and the family's name, so a family added later moves no other.
    """
    first: dict[str, list[str]] = {}
    stronger: dict[str, list[str]] = {}
    firsts = {b.name for b in BIDDERS}
    for name in member_names():
        old = name not in _PAIRS or _PAIRS[name][0].name in firsts
        (first if old else stronger).setdefault(family(name), []).append(name)
    shared = random.Random(SPLIT_SEED)
    tune, held = _deal_out(first, lambda fam: shared)
    more_tune, more_held = _deal_out(stronger, lambda fam: random.Random(f"{SPLIT_SEED}:{fam}"))
    return sorted(tune + more_tune), sorted(held + more_held)


_TUNING, _HELD_OUT = _split()


def tuning() -> list[str]:
    """The tuning half: the only members training, tuning and self-play may meet."""
    return list(_TUNING)


def held_out() -> list[str]:
    """The held-out half, **for measurement only** (``bench/strength.py``): never train or tune against it."""
    return list(_HELD_OUT)


def _factory(name: str) -> Callable[[], PopulationAgent]:
    return lambda: member(name)


for _name, (_bidder, _seller) in _PAIRS.items():
    register(_name, f"population: bids by {_bidder.name}, sells by {_seller.name}", listed=False)(_factory(_name))
