"""Reports rendered from pipeline data for people: the Go-vs-Rust summary (terminal and
Markdown) and the A/B comparison (PR comment, job summary). md.py escapes every string
that comes from input."""
