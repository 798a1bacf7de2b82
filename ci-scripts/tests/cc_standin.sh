#!/bin/sh
# A C compiler stand-in for `cargo check` of another OS's target (the C parts of
# libsqlite3-sys and libmimalloc-sys): preprocessing runs the host cc (the cc crate
# learns the compiler family from it), compiling writes an empty host object wherever
# one is asked for (a check links nothing; ar only needs a real object file).
out="" pre="" last=""
for a in "$@"; do
  case "$a" in
    -E) pre=1 ;;
    "-?") exit 1 ;;  # not an MSVC-style compiler
  esac
  last="$a"
done
[ -z "$pre" ] || exec cc -E "$last"
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift ;;
  esac
  shift
done
[ -z "$out" ] || exec cc -c -x c /dev/null -o "$out"
