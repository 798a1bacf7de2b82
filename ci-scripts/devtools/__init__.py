"""Tools for developing the pipeline, not part of it: synthetic results and histories
(for the tests and the site benchmark) and the site benchmark itself.

    python -m devtools.synthetic --days 365 --out DIR      (from ci-scripts/)
    python -m devtools.sitebench --work DIR
"""
