import sys

from benchpipe.cli import main

sys.exit(main())
