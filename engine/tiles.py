"""Dominoes: the :class:`Tile` value type and the double-N sets."""

from __future__ import annotations

from functools import cache
from typing import Any

#: Set sizes the rules know (double-N).
SET_SIZES = (6, 9, 12, 15, 18)


class Tile:
    """One domino, an unordered pair of pip values kept in canonical order ``a <= b``.

    >>> Tile(7, 5)
    Tile(5, 7)
    >>> str(Tile(7, 5))
    '5-7'
    >>> Tile.parse("12-12").is_double
    True
    """

    __slots__ = ("a", "b")

    a: int
    b: int

    def __init__(self, a: int, b: int) -> None:
        if a > b:
            a, b = b, a
        object.__setattr__(self, "a", a)
        object.__setattr__(self, "b", b)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Tile is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Tile is immutable")

    @classmethod
    def parse(cls, text: str) -> Tile:
        """Parse the text form ``"a-b"``; raises :class:`ValueError` naming the text."""
        parts = text.strip().split("-")
        if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
            raise ValueError(f"not a tile: {text!r} (expected 'a-b')")
        return cls(int(parts[0]), int(parts[1]))

    @property
    def is_double(self) -> bool:
        return self.a == self.b

    @property
    def pips(self) -> int:
        return self.a + self.b

    def has(self, value: int) -> bool:
        return self.a == value or self.b == value

    def other(self, value: int) -> int:
        """The value at the other end from ``value`` (which must be on the tile)."""
        if value == self.a:
            return self.b
        if value == self.b:
            return self.a
        raise ValueError(f"{self} has no {value}")

    @property
    def pair(self) -> tuple[int, int]:
        """``(a, b)`` with ``a <= b``."""
        return (self.a, self.b)

    def __iter__(self) -> Any:
        return iter((self.a, self.b))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Tile):
            return self.a == other.a and self.b == other.b
        return NotImplemented

    def __lt__(self, other: Tile) -> bool:
        return (self.a, self.b) < (other.a, other.b)

    def __le__(self, other: Tile) -> bool:
        return (self.a, self.b) <= (other.a, other.b)

    def __hash__(self) -> int:
        return hash((self.a, self.b))

    def __str__(self) -> str:
        return f"{self.a}-{self.b}"

    def __repr__(self) -> str:
        return f"Tile({self.a}, {self.b})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Tile, (self.a, self.b))


@cache
def _full_set(n: int) -> tuple[Tile, ...]:
    return tuple(Tile(a, b) for a in range(n + 1) for b in range(a, n + 1))


def full_set(n: int) -> list[Tile]:
    """Every tile of a double-``n`` set in canonical order: ``(n+1)(n+2)/2`` tiles.

    >>> len(full_set(12))
    91
    """
    if n < 0:
        raise ValueError(f"set size must be >= 0, got {n}")
    return list(_full_set(n))
