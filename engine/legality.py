"""Where a tile may be laid: the placement rules, stated once.

The round (which generates legal moves from hands) and the observer (which
judges the tiles a camera saw) both ask :func:`allowed` where the player to
move may lay a tile now, and :func:`breach` names the rule a tile laid on one
train breaks, as an :class:`engine.alerts.AlertCode`. :func:`fit`
is the other half of a tile's judgement: whether it matches the end it lies
on (and, with chicken feet, whether a side tile answers a double). Once a
tile is down, :func:`lay` says what it did: the train's new end, the double it
satisfied or opened, whether the mover's turn goes on; the round's moves and
the observer's search both apply it.

Trains are keys of any hashable kind: the round uses train indexes, the
observer the trains' owners.

>>> from engine.rules import RuleSet
>>> where = allowed(RuleSet(), 0, lambda p: [p, "mexican"], ["mexican"], [], lambda k: True,
...                 after_double=False, chaining=False, first_turn=False)
>>> where.singles, where.doubles
(['mexican'], [])
>>> breach(where, 0, 0, "5-7", double=False).code
<AlertCode.UNSATISFIED_DOUBLE: 'unsatisfied-double'>
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Generic, NamedTuple, TypeVar

from engine.alerts import AlertCode
from engine.rules import CHICKEN_FOOT_ANSWERS, RuleSet

K = TypeVar("K", bound=Hashable)


class Breach(NamedTuple):
    """The rule a tile breaks: an alert ``code`` and a sentence for the players."""

    code: AlertCode
    message: str


class Allowed(NamedTuple, Generic[K]):
    """Where the player to move may lay a tile now, and what holds them elsewhere."""

    #: trains a non-double may go on
    singles: Sequence[K]
    #: trains a double may go on
    doubles: Sequence[K]
    #: the open doubles the mover is held to (earlier turns', or their own); empty when free
    bound: Sequence[K]
    #: those of ``bound`` the rules' order lets them satisfy now
    required: Sequence[K]
    #: ``bound`` holds doubles left from earlier turns
    earlier: bool
    #: the ``bound`` doubles bar a double too
    bars_doubles: bool
    #: trains open to the mover (own, Mexican, marked open; only their own on a first turn)
    normal: Sequence[K]
    #: why only the mover's own train takes a tile: "", "chain" or "first turn"
    only_own: str
    #: why no double may be laid ("" when one may)
    double_limit: str


#: Builds an :class:`Allowed` from a tuple of its fields without the Python-level
#: ``__new__`` of a named tuple: self-play asks :func:`allowed` tens of times a round.
_new = tuple.__new__


def _required(doubles: list[K], order: str, rank: Mapping[K, int] | None) -> list[K]:
    """The doubles that may be satisfied now, per the rules' order.

    Without ``rank`` the list is in laid order; with it, doubles of equal rank
    (laid in one observation) tie and all count.
    """
    if order == "any":
        return doubles
    if rank is None:
        return [doubles[0]] if order == "played" else [doubles[-1]]
    ranks = [rank.get(k, -1) for k in doubles]
    pick = min(ranks) if order == "played" else max(ranks)
    return [k for k, r in zip(doubles, ranks, strict=True) if r == pick]


def allowed(
    rules: RuleSet,
    mover: K,
    trains_open: Callable[[K], Sequence[K]],
    open_doubles: Sequence[K],
    fresh: Sequence[K],
    live: Callable[[K], bool],
    *,
    after_double: bool,
    chaining: bool,
    first_turn: bool,
    rank: Mapping[K, int] | None = None,
) -> Allowed[K]:
    """Where ``mover`` may lay a non-double and a double right now.

    ``trains_open(mover)``: the trains their markers open to the mover (their
    own and the Mexican train included; asked only when no double from an
    earlier turn holds the mover); ``open_doubles``: trains ending in an open
    double, in laid order; ``fresh``: the trains the mover laid doubles on this
    turn; ``live(train)``: its open double can still be satisfied;
    ``first_turn``: the mover has not finished a turn yet this round;
    ``rank``: when each open double was laid, where several may tie.
    """
    order = rules.satisfy_order
    normal: Sequence[K]
    doubles: Sequence[K]
    if open_doubles:
        # An open double left from an earlier turn blocks every other train [000].
        blocking = [k for k in open_doubles if k not in fresh and live(k)]
        if blocking:
            required = _required(blocking, order, rank)
            return _new(Allowed, (required, [], blocking, required, True, True, (), "", ""))
    if chaining:
        # A first-turn chain [001] continues on one's own train only.
        normal, only_own = [mover], "chain"
    elif first_turn and rules.first_turn == "own-train-only":
        # [002][004]: the first tile must start (or extend) one's own train.
        normal, only_own = [mover], "first turn"
    else:
        normal, only_own = trains_open(mover), ""
    doubles, limit = normal, ""
    per_turn, cap = rules.doubles_per_turn, rules.max_open_doubles
    if per_turn and len(fresh) >= per_turn:
        # At most so many doubles per turn [002].
        doubles, limit = [], f"more than {per_turn} double(s) in one turn"
    elif cap and sum(1 for k in open_doubles if live(k)) >= cap:
        # At most so many open doubles on the table [002].
        doubles, limit = [], f"more than {cap} open double(s)"
    if after_double:
        must_own = rules.must_satisfy_own_double or rules.chicken_foot
        mine = [k for k in fresh if k in open_doubles and live(k)]
        if mine and (must_own or len(mine) >= 2):
            # Several doubles in one turn are satisfied in the rule's order; with
            # [001 variant]/[003] one's own double must be satisfied first.
            required = _required(mine, order, rank)
            singles_doubles = [] if must_own else doubles
            return _new(Allowed, (required, singles_doubles, mine, required, False, must_own,
                                  normal, only_own, limit))
    return _new(Allowed, (normal, doubles, [], [], False, False, normal, only_own, limit))


def breach(where: Allowed[K], mover: K, train: K, tile: str, *, double: bool) -> Breach | None:
    """The rule a tile (``tile``, its text) laid on ``train`` breaks, or None when legal."""
    if where.bound and (where.bars_doubles or not double):
        # Open doubles are satisfied first, in the rules' order.
        if not double and train in where.required:
            return None
        first = where.required[0]
        if not double and train in where.bound:
            message = f"double on train {first} must be satisfied first"
            return Breach(AlertCode.DOUBLE_ORDER, message)
        the = "" if where.earlier else "the "
        message = f"tile {tile} while {the}double on train {first} is open"
        return Breach(AlertCode.UNSATISFIED_DOUBLE, message)
    if double and where.double_limit:
        return Breach(AlertCode.EXTRA_TILE, where.double_limit)
    if where.only_own and train != mover:
        if where.only_own == "chain":
            return Breach(AlertCode.EXTRA_TILE, f"tile {tile} after a first-turn chain")
        message = f"seat {mover} must start their own train on their first turn"
        return Breach(AlertCode.FIRST_TURN, message)
    # Another player's train takes a tile only when it is open.
    if train != mover and train not in where.normal:
        return Breach(AlertCode.CLOSED_TRAIN, f"train {train} is not open")
    return None


def fit(near: int, far: int, end: int, chicken: Sequence[int] | None, *, foot: bool
        ) -> Breach | None:
    """Whether a tile ``[near, far]`` matches where it lies (None when it does).

    ``end``: the train's open end; ``chicken``: the chicken foot on that train,
    ``(the double's value, answers still owed)``, None without one; ``foot``:
    the tile is a side tile.
    """
    if foot:
        # A chicken foot's side tile answers the double once its line tile is down.
        if not chicken or chicken[1] == CHICKEN_FOOT_ANSWERS or near != chicken[0]:
            message = f"side tile [{near}, {far}] does not answer a double"
            return Breach(AlertCode.MISMATCH, message)
        return None
    # A tile's near end must match the end it is laid on.
    if near != end:
        return Breach(AlertCode.MISMATCH, f"tile [{near}, {far}] laid on {end}")
    if chicken and chicken[1] < CHICKEN_FOOT_ANSWERS:
        tile = f"{min(near, far)}-{max(near, far)}"
        message = f"tile {tile} before the chicken foot is answered"
        return Breach(AlertCode.UNSATISFIED_DOUBLE, message)
    return None


#: What one tile laid on a train did (:func:`lay`), in this order:
#: ``end``: the train's open end now (unchanged by a side tile);
#: ``chicken``: the train's chicken foot now, ``(the double's value, answers still owed)``,
#: None without one; ``satisfied``: the double waiting on the train no longer waits (it
#: leaves the open doubles); ``double``: the tile is a double, which waits on the train
#: while the mover owes a follow-up; ``chains``: a non-double that lets a first-turn chain
#: [001] go on (the turn is not over). A plain tuple: self-play lays every tile through it.
Laid = tuple[int, "tuple[int, int] | None", bool, bool, bool]


def lay(rules: RuleSet, near: int, far: int, end: int, chicken: tuple[int, int] | None,
        foot: bool, own: bool, first_turn: bool, blocked: bool) -> Laid:
    """What the tile ``[near, far]`` laid on a train ending in ``end`` does (:data:`Laid`).

    ``chicken``: the train's chicken foot before it (None without one);
    ``foot``: it is a side tile of that foot; ``own``: the train is the mover's
    own; ``first_turn``: the mover has not finished a turn yet this round;
    ``blocked``: an open double from an earlier turn constrains the mover (read
    only where a first-turn chain could go on, so a caller may work it out only
    then). Whatever the tile breaks, this is what it does once down.

    >>> lay(RuleSet(), 5, 7, 5, None, False, True, False, False)
    (7, None, True, False, False)
    """
    if chicken is None:
        after, satisfied = None, not foot
    else:  # an answer to a chicken foot: the double waits until every answer is down
        left = chicken[1] - 1
        after, satisfied = ((chicken[0], left), False) if left > 0 else (None, True)
    if near == far and not foot:
        if rules.chicken_foot:
            after = (near, CHICKEN_FOOT_ANSWERS)
        return far, after, satisfied, True, False
    chains = own and first_turn and rules.first_turn == "chain" and not blocked
    return end if foot else far, after, satisfied, False, chains
