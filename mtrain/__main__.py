import sys

from mtrain.cli import main

sys.exit(main())
