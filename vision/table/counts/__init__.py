"""The counts of the tiles laid on the trains, settled once the trains are laid: by a
tile's neighbours and the reader's ranges (``consistency``), then decoded together
under the set's one tile of each kind (``decode``)."""
