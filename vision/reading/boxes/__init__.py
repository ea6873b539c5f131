"""Tile boxes fixed before they are read: snapped to the divider, given their
neighbours' shape, pieces joined, duplicates and hollow markers dropped."""
