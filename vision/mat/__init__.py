"""The printable hub mat: its geometry in mm, drawing it, finding it in an image."""
