"""``python -m datasets.photoreal --out DIR --count N [--seed S] [--mat/--no-mat]``: scenes;
``python -m datasets.photoreal sprites OUT [--count N --seed S]``: the sprite library."""

import sys

if sys.argv[1:2] == ["sprites"]:
    from datasets.photoreal.sprites import main as sprites_main

    sys.exit(sprites_main(sys.argv[2:]))

from datasets.photoreal.generate import main

sys.exit(main())
