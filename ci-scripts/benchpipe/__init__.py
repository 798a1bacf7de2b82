"""The Go-vs-Rust benchmark pipeline: catalogue -> build -> run -> results -> compare,
history -> charts -> site -> publish. One module per stage; `commands/` holds one file
per subcommand of `ci-scripts/bench`."""

from pathlib import Path

CI_SCRIPTS = Path(__file__).resolve().parent.parent
ROOT = CI_SCRIPTS.parent
SCHEMAS = CI_SCRIPTS / "schemas"
