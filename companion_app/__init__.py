"""companion_app package."""
