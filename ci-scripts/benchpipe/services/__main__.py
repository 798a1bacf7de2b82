"""`python -m benchpipe.services --missing-apt`: the Debian packages of the services
whose server tools are missing here, for install-tools.sh (standard library only)."""

import sys

from benchpipe.services import missing_apt

if sys.argv[1:] != ["--missing-apt"]:
    sys.exit("usage: python -m benchpipe.services --missing-apt")
print(" ".join(missing_apt()))
