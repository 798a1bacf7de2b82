"""`bench doctor [--install]`: which external tools are there, which are missing, and
the exact command that installs each. `--install` installs what it can: hyperfine via
cargo (no root needed) and, as root on Debian/Ubuntu, the apt packages."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from rich.table import Table

from benchpipe import services, tools
from benchpipe.terminal import wide_console

NAME = "doctor"
HELP = "check (and with --install, install) the tools the pipeline needs"


def add_arguments(p):
    p.add_argument("--install", action="store_true", help="install what is missing (hyperfine via cargo; Debian packages with apt-get, as root or via sudo -n)")
    p.add_argument("--for", dest="stage", choices=("run", "site", "all"), default="all",
                   help="fail only on what this stage needs: run (build and measure), site (charts), all (default)")


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def _install(found: list[tools.Tool]) -> None:
    missing = [t for t in found if not t.ok]
    hf = next((t for t in found if t.name == "hyperfine"), None)
    if hf and not hf.ok:
        cargo = tools.which("cargo")
        if cargo:
            print(f"doctor: {tools.HYPERFINE_INSTALL}", file=sys.stderr)
            subprocess.run([cargo, "install", "--locked", "hyperfine@1.20.0"], check=False)
        else:
            print("doctor: cannot install hyperfine: cargo is missing", file=sys.stderr)
    apt = sorted({t.apt for t in missing if t.apt})
    if not apt:
        return
    if not shutil.which("apt-get"):
        print(f"doctor: not installing {' '.join(apt)}: no apt-get here; use the commands shown", file=sys.stderr)
        return
    # Root only for apt itself (passwordless sudo on CI runners), never for the pipeline.
    sudo = [] if _is_root() else ["sudo", "-n"]
    if sudo and not (shutil.which("sudo") and subprocess.run(["sudo", "-n", "true"], capture_output=True).returncode == 0):
        print(f"doctor: not installing {' '.join(apt)}: needs root (or passwordless sudo); use the commands shown",
              file=sys.stderr)
        return
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    print(f"doctor: apt-get install -y {' '.join(apt)}", file=sys.stderr)
    subprocess.run([*sudo, "apt-get", "update", "-q"], check=False, env=env)
    subprocess.run([*sudo, "env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "-q",
                    "--no-install-recommends", *apt], check=False, env=env)


def run(args) -> int:
    return doctor(install=args.install, stage=args.stage)


def all_tools() -> list[tools.Tool]:
    """The pipeline's tools, and the servers' of every service (optional)."""
    return tools.check_all() + services.doctor_tools()


def doctor(install: bool = False, stage: str = "all") -> int:
    """Print the tools table (installing first what is missing, with `install`); 1 when
    something `stage` needs is missing or unusable."""
    found = all_tools()
    if install:
        # Only what the stage uses: a bench job has no use for gnuplot or a browser.
        _install([t for t in found if stage in ("all", t.stage)])
        found = all_tools()
    console = wide_console()  # a CI log is wider than 80 columns
    table = Table(title="bench doctor", show_lines=False)
    for col in ("tool", "status", "version / problem", "needed for", "install with"):
        table.add_column(col, overflow="fold", max_width=48)
    for t in found:
        if t.ok:
            status = "[green]ok[/]"
        elif t.needed_for(stage):
            status = "[red]MISSING[/]" if t.path is None else "[red]TOO OLD[/]"
        else:
            why = "optional" if not t.required else f"for {t.stage}"
            status = f"[yellow]missing[/] ({why})" if t.path is None else "[yellow]unusable[/]"
        detail = t.problem or (t.version or "").replace(t.path or "\0", "").strip()
        table.add_row(t.name, status, detail, t.purpose, "" if t.ok else t.install)
    console.print(table)
    bad = [t.name for t in found if t.needed_for(stage) and not t.ok]
    if bad:
        print(f"bench doctor: missing or unusable: {', '.join(bad)} (install commands above)", file=sys.stderr)
        return 1
    return 0
