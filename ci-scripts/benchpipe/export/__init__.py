"""Results in other tools' formats, one module per format (github-action-benchmark's
customSmallerIsBetter in benchmark_action.py)."""
