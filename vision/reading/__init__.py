"""``Detections`` -> ``FrameReading``: each tile box fixed, its halves counted, backs
and covered halves set apart, markers looked for again (``reader.TileReader``)."""
