"""The shared libraries a counted program loads, copied without their debug links (Linux).

Valgrind reads the debug symbols of every shared library it can find them for, at every
start, and has no option to skip them. Debian's valgrind package depends on libc6-dbg,
so each counted run of a program that links the C library (Rust's, and Go's with cgo)
read the C library's 4 MB of DWARF first: 0.12 s of a 0.33 s trivial run on an idle
machine, 0.4-0.6 s of a Rust cpu run at the pass's size beside a busy neighbour (1.7-2.0 s
-> 1.1-1.4 s). The pass counts instructions, not names, so it runs the programs with
copies of their libraries from which objcopy took the build-id note and the debug link,
the two ways Valgrind looks the symbols up: the same code byte for byte, the same counts
(tests/test_valgrind_window.py). The loader's own debug file is still read (its path is
fixed in the program), and so are the programs' own symbols: they are counted as built.

Copies are made once a process, into one temporary folder that is removed at exit, and
given to the programs through LD_LIBRARY_PATH (which the dynamic loader searches before
its default folders). A library the loader found in a glibc-hwcaps folder is left to it
(under Valgrind it may choose another level), and so is every library where objcopy is
missing or fails: then Valgrind reads its symbols as before, and nothing else changes."""

from __future__ import annotations

import atexit
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

# `ldd` prints "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)" for each resolved library
_RESOLVED = re.compile(r"^\s*(\S+)\s+=>\s+(/\S+)\s+\(0x[0-9a-f]+\)\s*$", re.M)
STRIPPED = (".note.gnu.build-id", ".gnu_debuglink")

# folders of copies, each with the library its copy of a name was made from (or tried:
# a name without a file in the folder is left to the loader)
_folders: list[tuple[Path, dict[str, Path]]] = []
_env: dict[str, dict[str, str]] = {}       # a program -> what its pass environment adds


def shared_libraries(program: str) -> dict[str, Path]:
    """The libraries the dynamic loader resolves for program, by name (ldd); none for a
    static program (Go without cgo) or where ldd is missing or fails."""
    try:
        out = subprocess.run(["ldd", program], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return {}
    return {name: Path(path) for name, path in _RESOLVED.findall(out.stdout)} if out.returncode == 0 else {}


def _copy(lib: Path, dest: Path) -> bool:
    """lib copied to dest without STRIPPED; False where it is left to the loader."""
    objcopy = shutil.which("objcopy")
    if not objcopy or "glibc-hwcaps" in lib.parts:
        return False
    cmd = [objcopy, *(f"--remove-section={s}" for s in STRIPPED), str(lib), str(dest)]
    try:
        if subprocess.run(cmd, capture_output=True, timeout=60).returncode == 0:
            return True
    except (OSError, subprocess.SubprocessError):
        pass
    dest.unlink(missing_ok=True)
    return False


def _folder_for(libs: dict[str, Path]) -> tuple[Path, dict[str, Path]]:
    """A folder whose copies agree with libs on every name both have (two programs that
    resolve one name to two files get a folder each), made where none does."""
    for folder, made_from in _folders:
        if all(made_from.get(name, path) == path for name, path in libs.items()):
            return folder, made_from
    folder = Path(tempfile.mkdtemp(prefix="bench-valgrind-libs-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    _folders.append((folder, {}))
    return _folders[-1]


def env_for(program: str, env: dict[str, str]) -> dict[str, str]:
    """What to add to env (the pass's environment) to count program with copies of its
    libraries: {"LD_LIBRARY_PATH": <folder>[:<env's own>]}, or {} where none was copied."""
    if program not in _env:
        libs = shared_libraries(program)
        add = {}
        if libs:
            folder, made_from = _folder_for(libs)
            for name, path in libs.items():
                if name not in made_from:
                    made_from[name] = path
                    _copy(path, folder / name)
            if any((folder / name).exists() for name in libs):
                add = {"LD_LIBRARY_PATH": str(folder)}
        _env[program] = add
    add = _env[program]
    if add and env.get("LD_LIBRARY_PATH"):
        return {"LD_LIBRARY_PATH": add["LD_LIBRARY_PATH"] + os.pathsep + env["LD_LIBRARY_PATH"]}
    return dict(add)


def description() -> str:
    """What the results file's env.instructions says of the libraries."""
    if not shutil.which("objcopy"):
        return ("the system's (objcopy not found: Valgrind reads their debug symbols at every start; "
                "install binutils)")
    return ("copies of the programs' shared libraries without their debug links (Valgrind reads no debug "
            "symbols of them; the same code)")
