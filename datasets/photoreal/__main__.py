"""``python -m datasets.photoreal --out DIR --count N [--seed S] [--mat/--no-mat]``."""

import sys

from datasets.photoreal.generate import main

sys.exit(main())
