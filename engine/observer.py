"""The observer: judges a sequence of observed tables (the camera's view).

It is fed tables only (no hands, no boneyard), one observation at a time.
Everything that changes between two consecutive observations belongs to the
player to move (CONTRACTS.md, ``check``). Their turn ends at the first
non-double tile, at a pass event, or when their own train becomes open (a
pass event and a new own marker in the same observation end one turn
together); the next observation then belongs to the next seat clockwise.

Where several tiles appeared at once, the observer tries the orders in which
they could have been laid (each train's tiles in their order along the
train) and judges the one with the fewest breaches, so that a legal turn is
never reported. Each tile is judged by :mod:`engine.legality`, the rules
:class:`engine.round.Round` plays by, and the observer does not cry wolf:
the public view of a legal game yields no error alert. Whatever the camera
saw is judged; nothing here raises for odd contents.

Passes nobody saw. A camera cannot hear "I pass": a player whose own train
already shows the "open" marker state (the marker on under the ``open``
convention, off under ``private``) passes without changing the table, also
when they cannot satisfy an open double or follow their own double. Until the
log announces a pass (a ``"pass"`` event; from the first one on, every pass is
taken to be announced and an event stays authoritative), the observer
therefore also explains each change as "the seats before a later player
passed unseen, then that player did this", provided every seat skipped over
showed the open state before and still does (a marker put on is a pass seen
and ends the mover's turn as above). It keeps up to ``_MAX_HYPOTHESES``
explanations with at most one breach, best first: fewest breaches, then
fewest moves unseen (below), then fewest markers changed by someone other than
their owner, then fewest unseen passes (the nearest player), and follows the
best. A breach is reported only when every explanation shows one; the best
one's breaches are then reported, maybe an observation or more late (``at``
keeps the index where it happened).
What cannot be seen: a breach by a player whose own train is open can be
indistinguishable from an unseen pass and a later player's legal play, e.g.
a tile on a closed train is its owner's own play if the breaching player
passed, and a tile on one's own open train with the marker left on
(``marker-stale``) is the next player's legal play on that open train. Such
a breach counts as legal while it stays explained and is reported once later
observations rule the innocent explanation out (the next player's own turn
usually does); a round that ends first leaves it unreported. A marker that
comes off a train with no tile laid on it (a train closes only with its
owner's own tile) is ``marker-stale`` too, whoever played: the marker stayed
after the owner's play or came off without one; told once per stale marker.

Moves nobody saw. A camera can miss a move outright (a tile never read, or read
on no train); every later change would then be given to the seat before its
player's, and each play on one's own train be a breach. With ``unseen_moves``
(the camera's referee), where every explanation above shows a breach, the
likeliest one's is reported as without it, and the explanations in which one
seat skipped over moved unseen (whatever its train shows) are kept for the next
table: where it shows fewer breaches under one of them, that one is followed (a
move missed costs one alert, not one at every later play); otherwise they are
dropped. No breach waits for them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from engine.alerts import Alert, AlertCode
from engine.interleavings import laying_orders
from engine.legality import Breach, allowed, breach, fit, lay
from engine.observer_state import Hypothesis, State, Turn
from engine.rules import CHICKEN_FOOT_ANSWERS, RuleSet
from engine.table import MEXICAN, Owner, Pair, TableState
from engine.tiles import Tile

#: At most this many explanations of who played (after unseen passes) are kept.
_MAX_HYPOTHESES = 8

class Observer:
    """Judges observed tables one at a time (see the module docstring).

    >>> from engine.rules import RuleSet
    >>> from engine.table import TableState
    >>> obs = Observer(RuleSet(), players=2, engine=12, first=0)
    >>> obs.observe(TableState.parse("12 | 0: | 1: | mexican:"))
    []
    >>> [str(a.code) for a in obs.observe(TableState.parse("12 | 0: 12-5 | 1: 3-4 | mexican:"))]
    ['extra-tile']
    """

    def __init__(self, rules: RuleSet, players: int, engine: int, first: int = 0,
                 unseen_moves: bool = False) -> None:
        self.rules = rules
        #: whether a seat may also have moved unseen (see the module docstring)
        self.unseen_moves = unseen_moves
        self.players = players
        self.engine = engine
        self.first = first
        self.to_move = first % players if players > 0 else 0
        self.index = -1
        self.ended = False
        self.size = rules.set + 1
        self._opens = rules.marker_opens
        self._trains: dict[Owner, tuple[Pair, ...]] = {}
        self._markers: dict[Owner, bool] = {}
        self._open: list[Owner] = []
        self._rank: dict[Owner, int] = {}
        self._feet: dict[Owner, tuple[Pair, ...]] = {}
        self._cf: dict[Owner, list[int]] = {}  # chicken foot: owner -> [value, answers left]
        self._turn: Turn | None = None  # carried over between observations of one turn
        self.started: set[int] = set()
        self._stale: set[int] = set()  # seats told marker-stale whose train is still open
        self.alerts: list[Alert] = []
        #: set at the first announced pass: from then on no pass goes unseen
        self.passes_announced = False
        #: other explanations of the past that raised no error (states, best first)
        self._alternatives: list[Hypothesis] = []
        #: moves missed, stray markers and unseen passes the state followed assumes
        self._likelihood = (0, 0, 0)

    # ------------------------------------------------------------------ public

    def observe(self, table: TableState, event: str | None = None) -> list[Alert]:
        """Judge the next observed table; returns the alerts it raises (maybe none)."""
        self.index += 1
        alerts = self._start(table) if self.index == 0 else self._step(table, event)
        self.alerts.extend(alerts)
        return alerts

    @property
    def errors(self) -> list[Alert]:
        return [a for a in self.alerts if a.is_error]

    @property
    def open_doubles(self) -> list[Owner]:
        """The trains whose double waits to be satisfied after the last table, laid order."""
        return list(self._open)

    @property
    def answers_owed(self) -> bool:
        """A chicken foot still owes answers after the last table."""
        return bool(self._cf)

    @property
    def moves_missed(self) -> int:
        """Moves the account followed takes as unseen (``unseen_moves``)."""
        return self._likelihood[0]

    @property
    def explanations(self) -> int:
        """How many accounts of who played (after unseen passes) are still open; 1 when sure."""
        return 1 + len(self._alternatives)

    # ------------------------------------------------------------------ helpers

    def _alert(self, code: AlertCode, train: Owner | None, message: str,
               seat: int | None = -1) -> Alert:
        return Alert(self.index, code, self.to_move if seat == -1 else seat, train, message)

    def _valid(self, pair: Pair) -> bool:
        return 0 <= pair[0] < self.size and 0 <= pair[1] < self.size

    def _is_open(self, owner: Owner, markers: dict[Owner, bool]) -> bool:
        if owner == MEXICAN:
            return True
        return markers.get(owner, not self._opens) == self._opens

    @staticmethod
    def _trains_of(
        table: TableState,
    ) -> tuple[dict[Owner, tuple[Pair, ...]], dict[Owner, tuple[Pair, ...]], dict[Owner, bool]]:
        """Lines, chicken feet and markers per owner (a second train for one owner is ignored)."""
        trains: dict[Owner, tuple[Pair, ...]] = {}
        feet: dict[Owner, tuple[Pair, ...]] = {}
        markers: dict[Owner, bool] = {}
        for train in table.trains:
            if train.owner in trains:
                continue
            trains[train.owner] = train.tiles
            feet[train.owner] = train.feet
            markers[train.owner] = train.marker
        return trains, feet, markers

    def _counts(self, groups: list[tuple[Pair, ...]]) -> list[int]:
        """Tiles on the table carrying each value (each distinct tile once)."""
        tiles = {Tile(self.engine, self.engine)} if 0 <= self.engine < self.size else set()
        for pairs in groups:
            tiles.update(Tile(*p) for p in pairs if self._valid(p))
        count = [0] * self.size
        for tile in tiles:
            count[tile.a] += 1
            if tile.b != tile.a:
                count[tile.b] += 1
        return count

    def _static(self, table: TableState, new: list[tuple[Owner, Pair]]) -> list[Alert]:
        """not-in-set and duplicate-tile for the tiles that are new in this observation."""
        alerts = []
        seen: Counter[Tile] = Counter({Tile(self.engine, self.engine): 1})
        for train in table.trains:
            seen.update(Tile(*p) for p in train.tiles)
            seen.update(Tile(*p) for p in train.feet)
        for owner, pair in new:
            if not self._valid(pair):
                top = self.size - 1
                message = f"tile {list(pair)} has a value outside the double-{top} set"
                alerts.append(self._alert(AlertCode.NOT_IN_SET, owner, message))
            times = seen[Tile(*pair)]
            if times > 1:
                message = f"tile {Tile(*pair)} is on the table {times} times"
                alerts.append(self._alert(AlertCode.DUPLICATE_TILE, owner, message))
        return alerts

    # ------------------------------------------------------------------ the first table

    def _start(self, table: TableState) -> list[Alert]:
        trains, feet, markers = self._trains_of(table)
        new = [(o, p) for o, pairs in trains.items() for p in pairs]
        new += [(o, p) for o, pairs in feet.items() for p in pairs]
        alerts = [Alert(a.at, a.code, None, a.train, a.message) for a in self._static(table, new)]
        for owner, pairs in trains.items():
            end = self.engine
            for k, (near, far) in enumerate(pairs):
                if near != end:
                    alerts.append(
                        Alert(self.index, AlertCode.MISMATCH, None, owner,
                              f"tile {k} [{near}, {far}] does not match {end}")
                    )
                end = far
        self._trains, self._feet, self._markers = trains, feet, markers
        self._open = [o for o, pairs in trains.items() if pairs and pairs[-1][0] == pairs[-1][1]]
        self._rank = {o: 0 for o in self._open}
        if self.rules.chicken_foot:
            self._cf = {o: [trains[o][-1][1], CHICKEN_FOOT_ANSWERS] for o in self._open}
        return alerts

    # ------------------------------------------------------------------ later tables

    def _diff(
        self, old: tuple[Pair, ...], now: tuple[Pair, ...], owner: Owner, alerts: list[Alert]
    ) -> int:
        """Length of the common prefix; what was beyond it in ``old`` is reported removed."""
        k = 0
        while k < len(old) and k < len(now) and Tile(*old[k]) == Tile(*now[k]):
            k += 1
        for j in range(k, len(old)):
            alerts.append(
                self._alert(AlertCode.TILE_REMOVED, owner,
                            f"tile {Tile(*old[j])} is gone from the train")
            )
        return k

    def _step(self, table: TableState, event: str | None) -> list[Alert]:
        """Judge ``table`` under every live explanation of the past (see the module docstring)."""
        if event == "pass":
            self.passes_announced = True
        if self.ended or self.passes_announced:
            self._alternatives, self._likelihood = [], (0, 0, 0)
            return self._judge_step(table, event)
        unseen, strays, skips = self._likelihood
        current = Hypothesis(self._snapshot(), [], strays, unseen, skips)
        hypotheses = [current] + self._alternatives
        changed = self._shows_change(table)
        children: list[tuple[tuple[int, ...], list[Alert], Hypothesis, bool]] = []
        for h, hyp in enumerate(hypotheses):
            for k, moved, alerts, stray in self._explanations(hyp.state, table, event, changed):
                errors = [a for a in alerts if a.is_error]
                child = Hypothesis(self._snapshot(), hyp.pending + errors,
                                   hyp.strays + stray, hyp.unseen + moved, hyp.skips + k,
                                   hyp.on_trial)
                key = (len(child.pending), child.unseen, child.strays, child.skips, h, k)
                children.append((key, hyp.pending + alerts, child, bool(moved)))
        children.sort(key=lambda item: item[0])
        # A move missed is an explanation only of a breach, and only once it is told: where
        # every other explanation shows one, the likeliest one's is reported (late ones
        # too), and the explanations with a move missed are kept for one more table: the
        # next play bears one out (it shows fewer breaches: followed) or they are dropped.
        seen = next(item for item in children if not item[3])
        _, alerts, best, _ = seen
        if best.pending:
            best.pending = []
            trials = [item[2] for item in children if item[3] and item[0][0] < seen[0][0]]
            for trial in trials:
                trial.on_trial = True
            kept = [best] + trials[:_MAX_HYPOTHESES - 1]
        else:
            kept = []
            for rank, _, child, missed in children:
                if len(kept) == _MAX_HYPOTHESES or rank[0] > 1:
                    break
                if missed or (child.on_trial and kept):
                    continue  # a move missed not borne out by the table after it
                if all(child.state != other.state for other in kept):
                    kept.append(child)
            best.on_trial = False
        self._restore(best.state)
        self._alternatives = kept[1:]
        self._likelihood = (best.unseen, best.strays, best.skips)
        return alerts

    def _shows_change(self, table: TableState) -> bool:
        trains, feet, markers = self._trains_of(table)
        return (trains, feet) != (self._trains, self._feet) or any(
            self._is_open(o, markers) != self._is_open(o, self._markers)
            for o in range(self.players)
        )

    def _explanations(
        self, state: State, table: TableState, event: str | None, changed: bool
    ) -> Iterator[tuple[int, int, list[Alert], bool]]:
        """Judge ``table`` from ``state`` for its mover, then for later seats after passes.

        Yields (seats skipped, of them moves unseen, alerts, stray markers) with the
        observer left in the state each explanation leads to. Later seats are tried
        only where every seat skipped over could have passed without a trace (its
        train was open and still is: a marker put on or taken off is a turn seen, and
        observations come at least once per turn), or, with ``unseen_moves``, moved
        unseen; and not for an announced pass.
        """
        self._restore(state)
        mover, old = self.to_move, self._markers
        markers = self._trains_of(table)[2]
        alerts = self._judge_step(table, event)
        yield 0, 0, alerts, self._stray_markers(old, markers, mover)
        if event == "pass" or not changed or self.players < 2:
            return
        moved = 0
        for k in range(1, self.players + 1):
            skipped = [(mover + j) % self.players for j in range(k)]
            last = skipped[-1]
            if not (self._is_open(last, old) and self._is_open(last, markers)):
                if moved or not self.unseen_moves:
                    return  # that seat's pass would have left a trace (or it played)
                moved = 1  # it played, and the camera missed it
            seat = (mover + k) % self.players
            self._restore(state)
            # the mover's unfinished turn ends in a pass nobody saw: its doubles wait
            notices = [] if self._turn is None else self._waiting(self._turn, mover)
            self.started.update(skipped)
            self.to_move, self._turn = seat, None
            alerts = notices + self._judge_step(table, event)
            yield k, moved, alerts, self._stray_markers(old, markers, seat)

    def _stray_markers(self, old: dict[Owner, bool], new: dict[Owner, bool], seat: int) -> bool:
        """True when a seat other than ``seat`` changed its marker (only owners touch theirs)."""
        return any(
            self._is_open(owner, old) != self._is_open(owner, new)
            for owner in range(self.players)
            if owner != seat
        )

    def _closed_late(self, trains: dict[Owner, tuple[Pair, ...]], markers: dict[Owner, bool],
                     grown: set[Owner]) -> list[Alert]:
        """marker-stale for a personal train that closes with no new tile on it (``grown``:
        the trains that have new tiles, or whose closing another alert covers).

        A train closes only as its owner plays on it, so a marker that comes off
        (under the usual convention) later than that stayed after the owner's own
        play (or was taken off without one). Told once: not again for a seat
        already told its marker stayed.
        """
        alerts = []
        for owner in range(self.players):
            if owner not in trains or owner not in self._markers:
                continue
            if not self._is_open(owner, self._markers) or self._is_open(owner, markers):
                continue
            if owner in self._stale:
                self._stale.discard(owner)
            elif owner not in grown:
                message = (f"the marker on train {owner} came off with no tile laid on it: "
                           f"it stayed after seat {owner}'s own play, or came off without one")
                alerts.append(self._alert(AlertCode.MARKER_STALE, owner, message, owner))
        return alerts

    def _waiting(self, turn: Turn, seat: int) -> list[Alert]:
        """``open-double`` notices for the doubles laid this turn that wait to be satisfied."""
        notices = []
        for owner in turn.fresh:
            if owner in turn.open and self._live(owner, turn):
                value = self._value(owner, turn)
                message = f"the double {value}-{value} on train {owner} waits"
                notices.append(self._alert(AlertCode.OPEN_DOUBLE, owner, message, seat))
        return notices

    def _snapshot(self) -> State:
        return (
            self._trains, self._feet, self._markers, list(self._open), dict(self._rank),
            {o: list(v) for o, v in self._cf.items()},
            None if self._turn is None else self._turn.copy(),
            set(self.started), self.to_move, self.ended, set(self._stale),
        )

    def _restore(self, state: State) -> None:
        (self._trains, self._feet, self._markers, opened, rank, cf, turn, started,
         self.to_move, self.ended, stale) = state
        self._stale = set(stale)
        self._open, self._rank = list(opened), dict(rank)
        self._cf = {o: list(v) for o, v in cf.items()}
        self._turn = None if turn is None else turn.copy()
        self.started = set(started)

    def _judge_step(self, table: TableState, event: str | None) -> list[Alert]:
        """Judge ``table`` against the player to move and commit what it shows."""
        trains, feet, markers = self._trains_of(table)
        alerts: list[Alert] = []
        mover = self.to_move

        # 1. What is gone, what is new: per train (and its feet), the common prefix.
        base_ends: dict[Owner, int] = {}
        kept: list[tuple[Pair, ...]] = []
        changed: set[Owner] = set()
        reopened: list[Owner] = []
        sequences: list[tuple[Owner, bool, list[Pair]]] = []
        for owner in list(self._trains) + [o for o in trains if o not in self._trains]:
            for foot, old, now in (
                (False, self._trains.get(owner, ()), trains.get(owner, ())),
                (True, self._feet.get(owner, ()), feet.get(owner, ())),
            ):
                k = self._diff(old, now, owner, alerts)
                if k < len(old):
                    changed.add(owner)
                kept.append(now[:k])
                if not foot:
                    base_ends[owner] = now[k - 1][1] if k else self.engine
                    if k < len(old) and k and now[k - 1][0] == now[k - 1][1]:
                        reopened.append(owner)  # a tile laid on a double is gone
                if len(now) > k:
                    sequences.append((owner, foot, list(now[k:])))
        alerts += self._static(table, [(o, p) for o, _, seq in sequences for p in seq])
        if self.ended:
            for owner, _, seq in sequences:
                for pair in seq:
                    message = f"tile {Tile(*pair)} after the round ended"
                    alerts.append(self._alert(AlertCode.EXTRA_TILE, owner, message))
            self._trains, self._feet, self._markers = trains, feet, markers
            return alerts

        # 2. Judge the new tiles in the order with the fewest breaches.
        still_open = [o for o in self._open if o not in changed and o in base_ends]
        still_open += [o for o in reopened if o not in still_open]
        carried = self._turn or Turn({}, [], [])
        turn = Turn(
            base_ends,
            still_open,
            self._counts(kept),
            list(carried.fresh),
            carried.after_double,
            carried.over,
            carried.chaining,
            carried.played_own,
            {o: self._rank.get(o, self.index - 1) for o in still_open},
            {o: list(v) for o, v in self._cf.items() if o in still_open},
        )
        breaches, turn = self._best_order(sequences, turn, mover)
        alerts += breaches

        # 3. Markers and the end of the turn.
        own_open_before = self._is_open(mover, self._markers)
        own_open_now = self._is_open(mover, markers)
        newly_open = own_open_now and not own_open_before
        passed = event == "pass" or newly_open
        if event == "pass" and not own_open_now:
            message = f"seat {mover} passed and their train is not marked"
            alerts.append(self._alert(AlertCode.MARKER_MISSING, mover, message))
        ends_turn = passed or turn.over or turn.chaining or event == "out"
        if ends_turn and not passed and turn.played_own and own_open_now and event != "out":
            message = f"seat {mover} played on their own train and the marker stayed"
            alerts.append(self._alert(AlertCode.MARKER_STALE, mover, message))
            self._stale.add(mover)
        told = {mover} if event == "pass" else set()  # marker-missing covers a pass's marker
        alerts += self._closed_late(trains, markers, {o for o, _, _ in sequences} | told)
        self._trains, self._feet, self._markers = trains, feet, markers
        self._open, self._rank, self._cf = turn.open, turn.rank, turn.cf
        if event == "out":
            self.ended = True
        if ends_turn:
            if event != "out":
                alerts += self._waiting(turn, mover)
            self.started.add(mover)
            self.to_move = (mover + 1) % self.players
            self._turn = None
        else:
            self._turn = turn
        return alerts

    # ------------------------------------------------------------------ the search

    def _best_order(
        self, sequences: list[tuple[Owner, bool, list[Pair]]], turn: Turn, mover: int
    ) -> tuple[list[Alert], Turn]:
        """Judge the new tiles in the order with the fewest breaches (trains' own order kept)."""
        best: tuple[list[Alert], Turn] | None = None
        for order in laying_orders(sequences):
            result = self._judge(order, turn.copy(), mover)
            if best is None or len(result[0]) < len(best[0]):
                best = result
                if not result[0]:
                    break
        return best or ([], turn)

    def _judge(
        self, order: list[tuple[Owner, bool, Pair]], turn: Turn, mover: int
    ) -> tuple[list[Alert], Turn]:
        """Replay ``order`` (tiles laid one by one) on ``turn``; the breaches it shows."""
        alerts = []
        for owner, foot, pair in order:
            found = self._check(owner, foot, pair, turn, mover)
            if found is not None:
                alerts.append(self._alert(found.code, owner, found.message))
            self._lay(owner, foot, pair, turn, mover)
        return alerts, turn

    def _value(self, owner: Owner, turn: Turn) -> int:
        """The value of the open double on a train (the chicken foot's, once answered)."""
        cf = turn.cf.get(owner)
        return cf[0] if cf else turn.ends.get(owner, self.engine)

    def _live(self, owner: Owner, turn: Turn) -> bool:
        """True when the double on ``owner``'s train can still be satisfied."""
        value = self._value(owner, turn)
        return 0 <= value < self.size and turn.count[value] < self.size

    def _check(self, owner: Owner, foot: bool, pair: Pair, turn: Turn, mover: int
               ) -> Breach | None:
        """The breach one tile makes (engine.legality), or None."""
        near, far = pair
        # One non-double tile per turn (a first-turn chain [001] goes on).
        if turn.over:
            message = f"tile {Tile(near, far)} after the turn's last tile"
            return Breach(AlertCode.EXTRA_TILE, message)
        end = turn.ends.get(owner, self.engine)
        misfit = fit(near, far, end, turn.cf.get(owner), foot=foot)
        if misfit is not None:
            return misfit
        def trains_open(seat: Owner) -> list[Owner]:
            return [o for o in turn.ends if o == seat or self._is_open(o, self._markers)]

        where = allowed(
            self.rules, mover, trains_open, turn.open, turn.fresh,
            lambda o: self._live(o, turn), after_double=turn.after_double,
            chaining=turn.chaining, first_turn=mover not in self.started, rank=turn.rank,
        )
        return breach(where, mover, owner, str(Tile(near, far)), double=near == far)

    def _blocked(self, turn: Turn, owner: Owner, mover: int) -> bool:
        """An open double from an earlier turn constrains the mover (worked out only where a
        first-turn chain could go on)."""
        if self.rules.first_turn != "chain" or owner != mover or mover in self.started:
            return False
        return any(o not in turn.fresh and self._live(o, turn) for o in turn.open)

    def _lay(self, owner: Owner, foot: bool, pair: Pair, turn: Turn, mover: int) -> None:
        """Put the tile down in the search state (whatever the breach): :func:`lay`."""
        near, far = pair
        if self._valid(pair):
            tile = Tile(near, far)
            turn.count[tile.a] += 1
            if tile.b != tile.a:
                turn.count[tile.b] += 1
        if owner == mover:
            turn.played_own = True
        cf = turn.cf.get(owner)
        end, chicken, satisfied, double, chains = lay(
            self.rules, near, far, turn.ends.get(owner, self.engine),
            None if cf is None else (cf[0], cf[1]), foot, owner == mover,
            mover not in self.started, self._blocked(turn, owner, mover))
        if not foot or owner in turn.ends:
            turn.ends[owner] = end
        if chicken is not None:
            turn.cf[owner] = list(chicken)
        elif cf is not None:
            del turn.cf[owner]
        if satisfied and owner in turn.open:
            turn.open.remove(owner)
        if double:
            turn.open.append(owner)
            turn.rank[owner] = self.index
            turn.fresh.append(owner)
            turn.after_double = True
        elif turn.over:
            return
        elif chains:
            turn.chaining = True
            turn.after_double = False
        else:
            turn.over = True


def replay(
    rules: RuleSet,
    players: int,
    engine: int,
    first: int,
    observations: list[tuple[TableState, str | None]],
) -> list[Alert]:
    """Feed every observation to a new :class:`Observer`; all the alerts, in order."""
    observer = Observer(rules, players, engine, first)
    for table, event in observations:
        observer.observe(table, event)
    return observer.alerts
