# Sourced by ci-scripts/test (so what it puts on PATH stays there): installs what the
# tests need and a fresh machine lacks, each step only when it is missing. The README's
# test command and CI (.ci/run) both come through here, so either works first.
# cargo install / go install put binaries here, and a fresh shell's PATH may lack both.
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$HOME/go/bin:/usr/local/go/bin:$PATH:/usr/sbin:/sbin"
if command -v go >/dev/null 2>&1; then export PATH="$PATH:$(go env GOPATH)/bin"; fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

log() { printf 'test: installing: %s\n' "$*" >&2; }
# On Linux (CI here) a failed install fails the run; on the Windows and macOS legs of
# ci.yml the linters and browser packages are best effort, and the tests that need a
# missing tool say so.
try_() {
  if "$@"; then return 0; fi
  if [ "$(uname -s)" = Linux ]; then return 1; fi
  log "could not run: $* (continuing; the tests that need it say so)"
}
sudo_() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null 2>&1; then sudo -n "$@"; else "$@"; fi; }

# --- Debian packages: gnuplot (charts), the database servers of the scenarios'
# services (benchpipe/services says which packages), Chromium and Node.js (site tests)
missing=()
command -v gnuplot >/dev/null 2>&1 || missing+=(gnuplot-nox)
py3="$(command -v python3 || command -v python)"
# shellcheck disable=SC2207  # package names are single words
missing+=($(PYTHONPATH="$root/ci-scripts" "$py3" -m benchpipe.services --missing-apt))
{ command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; } || missing+=(chromium)
# Node.js and npm drive the browser test (playwright-core); runners have them, bare Debian does not
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
# Wine and mingw-w64 (Linux only): the Windows builds are built and run here under Wine
if [ "$(uname -s)" = Linux ]; then
  command -v wine >/dev/null 2>&1 || missing+=(wine wine64)
  command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || missing+=(gcc-mingw-w64-x86-64)
  # Valgrind counts the timed window's instructions (benchpipe/instructions.py, test_valgrind_window.py)
  command -v valgrind >/dev/null 2>&1 || missing+=(valgrind)
  # objcopy copies the counted programs' libraries without debug links (benchpipe/valgrind_libs.py)
  command -v objcopy >/dev/null 2>&1 || missing+=(binutils)
fi
if [ "${#missing[@]}" -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1; then
    log "apt-get install ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    # An install killed part-way (a cancelled run) leaves dpkg interrupted, and every
    # later apt-get refuses until it is finished: finish it first.
    if [ -n "$(dpkg --audit 2>/dev/null)" ]; then
      log "dpkg --configure -a (an earlier install was interrupted)"
      sudo_ dpkg --configure -a
    fi
    sudo_ apt-get update -q
    sudo_ apt-get install -y -q --no-install-recommends "${missing[@]}"
  else
    log "missing ${missing[*]} and no apt-get: install them by hand (see ci-scripts/bench doctor)"
  fi
fi

# --- hyperfine >= 1.19 (per-run memory in its JSON); 1.20.0 pinned
hf_ok=0
if command -v hyperfine >/dev/null 2>&1; then
  v="$(hyperfine --version | awk '{print $2}')"
  if [ "$(printf '%s\n1.19.0\n' "$v" | sort -V | head -n1)" = "1.19.0" ]; then hf_ok=1; fi
fi
if [ "$hf_ok" = 0 ]; then
  log "cargo install --locked hyperfine@1.20.0"
  cargo install --locked hyperfine@1.20.0
fi

# --- clippy and rustfmt (the test command's lint and format checks), with rustup
if command -v rustup >/dev/null 2>&1; then
  if ! cargo clippy --version >/dev/null 2>&1 || ! cargo fmt --version >/dev/null 2>&1; then
    log "rustup component add clippy rustfmt"
    try_ rustup component add clippy rustfmt
  fi
  # macOS targets' standard libraries: the tests `cargo check` and clippy the Rust code for
  # macOS; the Windows (GNU) one: the tests build it and run it under Wine
  for t in x86_64-apple-darwin aarch64-apple-darwin x86_64-pc-windows-gnu; do
    if ! rustup target list --installed 2>/dev/null | grep -qx "$t"; then
      log "rustup target add $t"
      try_ rustup target add "$t"
    fi
  done
fi

# --- actionlint (workflow lint), pinned, from the Go module proxy
if ! command -v actionlint >/dev/null 2>&1; then
  log "go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.7"
  try_ go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.7
fi

# --- zizmor (workflow security audit), pinned, in a tools venv of its own
tools_venv="$root/.bench/tools-venv"
tools_bin="$tools_venv/bin"  # Scripts on Windows
if [ -d "$tools_venv/Scripts" ]; then tools_bin="$tools_venv/Scripts"; fi
if [ ! -x "$tools_bin/zizmor" ] && [ ! -x "$tools_bin/zizmor.exe" ]; then
  log "pip install zizmor==1.32.0 (into .bench/tools-venv)"
  py3="$(command -v python3 || command -v python)"
  try_ "$py3" -m venv "$tools_venv"
  if [ -d "$tools_venv/Scripts" ]; then tools_bin="$tools_venv/Scripts"; fi
  try_ "$tools_bin/python" -m pip install --quiet --disable-pip-version-check zizmor==1.32.0
fi
# --- ruff (the pipeline's Python lint, ci-scripts/pyproject.toml), pinned, same venv
if [ ! -x "$tools_bin/ruff" ] && [ ! -x "$tools_bin/ruff.exe" ]; then
  log "pip install ruff==0.14.5 (into .bench/tools-venv)"
  py3="$(command -v python3 || command -v python)"
  [ -d "$tools_venv" ] || try_ "$py3" -m venv "$tools_venv"
  if [ -d "$tools_venv/Scripts" ]; then tools_bin="$tools_venv/Scripts"; fi
  try_ "$tools_bin/python" -m pip install --quiet --disable-pip-version-check ruff==0.14.5
fi
export PATH="$PATH:$tools_bin"

# --- node packages of the browser tests, if there are any
if [ -f "$root/ci-scripts/tests/browser/package.json" ] && [ ! -d "$root/ci-scripts/tests/browser/node_modules/playwright-core" ]; then
  log "npm ci (ci-scripts/tests/browser)"
  try_ bash -c 'cd "$1" && npm ci --no-audit --no-fund' _ "$root/ci-scripts/tests/browser"
fi

unset -f log try_ sudo_
