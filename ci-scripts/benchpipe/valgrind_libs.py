"""The shared libraries a counted program loads, copied without their debug links (Linux).

Valgrind reads the debug symbols of every shared library it can find them for, at every
start, and has no option to skip them. Debian's valgrind package depends on libc6-dbg,
so each counted run of a program that links the C library (Rust's, and Go's with cgo)
read the C library's 4 MB of DWARF first: 0.12-0.14 s of a trivial run on an idle
machine; measured on the quick preset's Rust cpu, fanout and sleep families, 0.80 s a
counted run with the system's libraries against 0.60 s with copies (idle), and 1.7-2.0 s
against 1.1-1.4 s for Rust cpu beside a busy neighbour. The pass counts instructions, not
names, so it runs the programs with copies of their libraries from which objcopy took the
build-id note and the debug link, the two ways Valgrind looks the symbols up: the same
code byte for byte, the same counts (tests/test_valgrind_window.py). The loader's own
debug file is still read (its path is fixed in the program), and so are the programs'
own symbols: they are counted as built.

Each distinct set of libraries is copied once a process, into a temporary folder of its
own that is removed at exit, and given to the program through LD_LIBRARY_PATH (which the
dynamic loader searches before its default folders, after a DT_RPATH). The copies are
used only where the loader, asked with that environment, resolves every copied library
to its copy. A library the loader found in a glibc-hwcaps folder is left to it (under
Valgrind it may choose another level), and so is every library where objcopy is missing
or fails, or anything about the copies does: then Valgrind reads its symbols as before,
and nothing else changes."""

from __future__ import annotations

import atexit
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from benchpipe import tools

# `ldd` prints "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)" for each resolved library
_RESOLVED = re.compile(r"^\s*(\S+)\s+=>\s+(/\S+)\s+\(0x[0-9a-f]+\)\s*$", re.M)
STRIPPED = (".note.gnu.build-id", ".gnu_debuglink")

_folders: dict[frozenset, Path | None] = {}   # a set of (name, library) -> its copies (None: none usable)
_env: dict[tuple, dict[str, str]] = {}        # (program, LD_LIBRARY_PATH) -> what its pass environment adds


def shared_libraries(program: str, env: dict[str, str] | None = None) -> dict[str, Path]:
    """The libraries the dynamic loader resolves for program in env, by name (ldd); none
    for a static program (Go without cgo) or where ldd is missing or fails. Not the loader
    (a name with a folder in it, as some systems print the loader's line)."""
    try:
        out = subprocess.run(["ldd", program], capture_output=True, text=True, timeout=30, env=env)
    except (OSError, subprocess.SubprocessError):
        return {}
    if out.returncode != 0:
        return {}
    return {name: Path(path) for name, path in _RESOLVED.findall(out.stdout) if "/" not in name}


def _copy(lib: Path, dest: Path) -> bool:
    """lib copied to dest without STRIPPED; False where it is left to the loader."""
    objcopy = tools.which("objcopy")
    if not objcopy or "glibc-hwcaps" in lib.parts:
        return False
    cmd = [objcopy, *(f"--remove-section={s}" for s in STRIPPED), str(lib), str(dest)]
    try:
        return subprocess.run(cmd, capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _copies(program: str, libs: dict[str, Path], env: dict[str, str]) -> Path | None:
    """A folder of copies of libs that the loader takes for program in env (None: none)."""
    folder = Path(tempfile.mkdtemp(prefix="bench-valgrind-libs-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    copied = {name: folder / name for name, path in libs.items() if _copy(path, folder / name)}
    if copied and shared_libraries(program, _with_folder(folder, env)).items() >= copied.items():
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    return None


def _with_folder(folder: Path, env: dict[str, str]) -> dict[str, str]:
    own = env.get("LD_LIBRARY_PATH")
    return {**env, "LD_LIBRARY_PATH": str(folder) + (os.pathsep + own if own else "")}


def env_for(program: str, env: dict[str, str]) -> dict[str, str]:
    """What to add to env (the pass's environment) to count program with copies of its
    libraries: {"LD_LIBRARY_PATH": <folder>[:<env's own>]}, or {} where none is used."""
    key = (program, env.get("LD_LIBRARY_PATH"))
    if key not in _env:
        try:
            libs = shared_libraries(program, env)
            group = frozenset(libs.items())
            if libs and group not in _folders:
                _folders[group] = _copies(program, libs, env)
            folder = _folders.get(group)
            _env[key] = {"LD_LIBRARY_PATH": _with_folder(folder, env)["LD_LIBRARY_PATH"]} if folder else {}
        except OSError:   # no temporary folder, a full disk: the system's libraries, as before
            _env[key] = {}
    return dict(_env[key])


def description() -> str:
    """What the results file's env.instructions says of the libraries."""
    if not tools.which("objcopy"):
        return ("the system's (objcopy not found: Valgrind reads their debug symbols at every start; "
                "install binutils)")
    return ("copies of the programs' shared libraries without their debug links where objcopy made them "
            "(Valgrind reads no debug symbols of those; the same code); static programs have none")
