"""One module per subcommand of `ci-scripts/bench` (asv style)."""
