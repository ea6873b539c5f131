"""What changed since the table was bare: the known table of a fixed camera, photos registered."""
