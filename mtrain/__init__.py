"""The ``mtrain`` command line, above every package: each contributes its sub-commands
(``cli.COMMANDS``), so any layer may be imported from here."""
