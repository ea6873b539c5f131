"""``python -m datasets.composite OUT --sprites DIR [--count N --seed S --jobs J]``."""

import sys

from datasets.composite.write import main

sys.exit(main())
