"""Tile boxes fixed before they are read: snapped to the divider, given their
neighbours' shape, turned along a train (``variants``), pieces joined, duplicates and
hollow markers dropped."""
