import sys

from companion_app.cli import main

sys.exit(main())
