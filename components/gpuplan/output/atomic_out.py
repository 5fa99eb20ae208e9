"""Outputs that are never half-written: every command's files under --out appear all at once or not at all.

A command hands `commit()` everything it writes (relative path -> text) and the top-level entries it owns. Then:
1. the files are written into a new temporary sibling of --out (`.<name>.gpuplan-tmp-*`, same file system), whose
   `.owner` file this process holds locked while it lives (taken under the lock of step 2, before anyone can see
   the folder);
2. under an exclusive lock on `.<name>.gpuplan.lock` beside --out (fcntl.flock, released by the kernel when the
   process dies), with SIGINT/SIGTERM held back for the whole process (gpuplan/output/signals.py `held`), a journal naming each entry and the inode it was written as goes
   into the temporary folder, then each owned entry is swapped in: a file by rename(2), a folder by
   renameat2(RENAME_EXCHANGE) where the kernel has it (else two renames), an owned entry this run did not produce
   is moved out. Until its swap, the previous entry stays whole: a manifests/ folder is never a mix of two runs;
3. the journal is dropped and the temporary folder (now holding the previous entries) deleted.
A process killed in step 2 (SIGKILL cannot be held back) leaves its journal; the next commit into the same --out
finishes those swaps first, under the same lock, so readers never keep a mix. A temporary folder without a
journal whose owner is gone is deleted. Other files in --out (another command's outputs) are never touched.

Failures are the user's environment, not bugs: OutputError (exit 2) names the path and how to fix it.
Durability against power loss (fsync) is not attempted: the guarantee is against interrupted processes.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import json
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from dra_gpu_platform.inputs.problems import MISSING, InputError, Problem
from gpuplan.output import signals

JOURNAL = ".gpuplan-commit.json"
OWNER = ".owner"
STAGED = "new"  # the run's entries, inside the temporary folder
PREVIOUS = "old"  # the entries they replaced
LOCK_TIMEOUT_ENV = "GPUPLAN_LOCK_TIMEOUT"  # seconds a commit waits for the lock (default 60)
_RENAME_EXCHANGE = 2  # linux/fs.h
# What this command has swapped in (the interrupt message says so): per commit --out (or the file), its number of
# files, and whether it is a folder.
COMMITS: list[tuple[Path, int, bool]] = []


class OutputError(InputError):
    """--out cannot be written (permissions, read-only file system, no space, a file in the way, a held lock)."""


def _problem(path: Path | str, rule: str, fix: str, value=MISSING) -> OutputError:
    return OutputError([Problem(str(path), "--out", value, rule, fix)], "the output folder")


def _explain(error: OSError, path: Path | str, out: Path) -> OutputError:
    """The problem names the --out the user gave; the path that failed (a lock file, a parent) is in the rule."""
    failed = f" ({error.filename})" if error.filename and str(error.filename) != str(path) else ""
    elsewhere = (
        f"pass --out to a folder you may write, e.g. --out {Path(tempfile.gettempdir()) / ('gpuplan-' + out.name)}"
    )
    reasons = {
        errno.EACCES: ("no permission to write here", elsewhere),
        errno.EPERM: ("the operation is not permitted here", elsewhere),
        errno.EROFS: ("the file system is read-only (a read-only checkout or mount?)", elsewhere),
        errno.ENOSPC: ("no space left on the device", f"free some space, or {elsewhere}"),
        errno.EDQUOT: ("the disk quota is exhausted", f"free some space, or {elsewhere}"),
        errno.ENOTDIR: ("a file stands where a folder is needed", f"remove or rename that file, or {elsewhere}"),
        errno.EEXIST: ("a file stands where a folder is needed", f"remove or rename that file, or {elsewhere}"),
        errno.ENAMETOOLONG: ("the path is too long", "pass a shorter --out"),
        errno.EXDEV: ("the temporary folder and --out are on different file systems", elsewhere),
    }
    rule, fix = reasons.get(error.errno, (f"cannot write: {error.strerror or error}", elsewhere))
    return _problem(path, f"the output cannot be written: {rule}{failed}", fix)


# --------------------------------------------------------------------------------------------- signals


def interrupted(signum: int) -> str:
    """The interrupt's one line: what this command wrote. Each commit swaps in all of its outputs or none, and a
    command commits once, after its work: so nothing, or all of them."""
    name = signal.Signals(signum).name
    if not COMMITS:
        return f"gpuplan: stopped by {name}; nothing of this run was written; earlier outputs are kept whole"
    written = "; ".join(
        f"{count} file{'s' if count != 1 else ''} in {where}" if folder else str(where)
        for where, count, folder in COMMITS
    )
    return f"gpuplan: stopped by {name}; all of this run's outputs were written whole before it: {written}"


# --------------------------------------------------------------------------------------------- swaps


def _exchange(source: Path, target: Path) -> bool:
    """Atomically swap two existing paths (renameat2 RENAME_EXCHANGE); False where the kernel cannot."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd = -100
    if renameat2(at_fdcwd, os.fsencode(source), at_fdcwd, os.fsencode(target), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(target))


def _swap_in(staged: Path, target: Path, previous: Path) -> None:
    """Put `staged` at `target`; what was at `target` ends up at `previous` (or is replaced, for a file)."""
    if target.is_dir() and not target.is_symlink():
        if staged.is_dir() and _exchange(staged, target):
            staged.rename(previous)  # the previous folder, now at the staged name: out of the way
            return
        target.rename(previous)  # no exchange: the one moment --out lacks this entry, two renames long
    elif staged.is_dir() and (target.exists() or target.is_symlink()):
        target.rename(previous)
    os.replace(staged, target)


def _inode(path: Path) -> int | None:
    try:
        return path.lstat().st_ino
    except FileNotFoundError:
        return None


def _finish(temp: Path, out: Path) -> None:
    """Carry out (or complete) the journalled swaps of one temporary folder. Idempotent: an entry whose target
    already is the journalled inode is done."""
    journal = json.loads((temp / JOURNAL).read_text(encoding="utf-8"))
    (temp / PREVIOUS).mkdir(exist_ok=True)
    for name, inode in journal["entries"].items():
        staged, target = temp / STAGED / name, out / name
        if _inode(target) == inode:
            continue
        if _inode(staged) == inode:
            _swap_in(staged, target, temp / PREVIOUS / name)
    for name in journal["remove"]:
        target = out / name
        if target.exists() or target.is_symlink():
            target.rename(temp / PREVIOUS / name)
    (temp / JOURNAL).unlink()


def _remove_tree(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


def _discard(temp: Path | None, owner_fd: int | None) -> None:
    """Delete a commit's temporary folder and let go of it. A journal still there means swaps failed half way:
    the folder stays, the next commit finishes them."""
    if temp is not None and not (temp / JOURNAL).exists():
        _remove_tree(temp)
    if owner_fd is not None:
        os.close(owner_fd)


# --------------------------------------------------------------------------------------------- locks


def _lock_path(out: Path) -> Path:
    return out.parent / f".{out.name}.gpuplan.lock"


def _temp_prefix(out: Path) -> str:
    return f".{out.name}.gpuplan-tmp-"


@contextmanager
def _locked(out: Path) -> Iterator[None]:
    path = _lock_path(out)
    timeout = float(os.environ.get(LOCK_TIMEOUT_ENV) or 60)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise _problem(
                        out,
                        f"another gpuplan run has held the lock on this output folder ({path}) for "
                        f"more than {timeout:g} s",
                        "wait for the other run to finish (or stop it), or pass another --out",
                    ) from None
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _owner_gone(temp: Path) -> bool:
    try:
        fd = os.open(temp / OWNER, os.O_RDWR | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return True  # killed before it took ownership
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


def recover(out: Path) -> None:
    """Under the lock: finish interrupted commits into `out` and delete temporary folders of dead runs (a live
    run holds its folder's `.owner` locked from the moment the folder exists, see commit())."""
    for temp in sorted(out.parent.glob(_temp_prefix(out) + "*")):
        if (temp / JOURNAL).exists():
            _finish(temp, out)  # its owner died inside the lock: nobody else can be using it
            _remove_tree(temp)
        elif _owner_gone(temp):
            _remove_tree(temp)


# --------------------------------------------------------------------------------------------- commit


def _check_out(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise _problem(out, "--out names a file, not a folder", f"pass a folder (it is created), or move {out} away")
    for parent in out.parents:
        if parent.exists():
            if not parent.is_dir():
                raise _problem(parent, f"{parent} is a file, so --out {out} cannot be created", "pass another --out")
            break


def _top_level(files: Mapping[str, str]) -> list[str]:
    names = []
    for relative in files:
        parts = Path(relative).parts
        if not parts or Path(relative).is_absolute() or ".." in parts or parts[0] in (JOURNAL, OWNER):
            raise ValueError(f"not a path inside --out: {relative!r}")
        if parts[0] not in names:
            names.append(parts[0])
    return names


def commit(out: Path | str, files: Mapping[str, str], *, owned: Iterable[str] = ()) -> list[Path]:
    """Write `files` (path relative to `out` -> text) so that they replace their top-level entries of `out` at
    once; entries in `owned` that `files` does not produce are removed. Returns the written paths.
    Raises OutputError (exit 2) when the environment does not allow it."""
    shown = Path(out)
    written = [shown / relative for relative in files]
    out = Path(os.path.realpath(shown))  # a symlinked --out: the temporary folder must sit beside the real one
    if out.parent == out:
        raise _problem(
            shown, "--out is the root of the file system", "pass a folder below it, e.g. --out build/<stack>"
        )
    entries = _top_level(files)
    remove = [name for name in owned if name not in entries]
    _check_out(out)
    temp: Path | None = None
    owner_fd: int | None = None
    try:
        out.mkdir(parents=True, exist_ok=True)
        # Under the lock, so that recover() (which runs under it too) never sees the folder before it has a
        # locked owner and takes it for a dead run's; signals held, so that the folder is never made and forgotten.
        with _locked(out), signals.held():
            temp = Path(tempfile.mkdtemp(prefix=_temp_prefix(out), dir=out.parent))
            owner_fd = os.open(temp / OWNER, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
            fcntl.flock(owner_fd, fcntl.LOCK_EX)
        staged = temp / STAGED
        for relative, text in files.items():
            path = staged / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        inodes = {name: (staged / name).lstat().st_ino for name in entries}
        with _locked(out), signals.held():
            recover(out)
            journal = temp / (JOURNAL + ".part")
            journal.write_text(json.dumps({"out": str(out), "entries": inodes, "remove": remove}), encoding="utf-8")
            journal.rename(temp / JOURNAL)
            _finish(temp, out)
            COMMITS.append((shown, len(written), True))  # before the held signals run: the message must say so
            # Still held: a signal as the block ends must not leave the temporary folder behind.
            _discard(temp, owner_fd)
            temp = owner_fd = None
    except OSError as error:
        raise _explain(error, shown, shown) from None
    finally:
        if temp is not None or owner_fd is not None:  # stopped or failed before the end
            with signals.held():
                _discard(temp, owner_fd)
    return written


def write_file(path: Path | str, text: str) -> Path:
    """One file, atomically: a temporary sibling renamed over it (an interrupted write leaves the old file)."""
    path = Path(path)
    if path.is_dir():
        raise _problem(path, "the path names a folder, not a file", "pass a file path")
    temp: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(prefix=f".{path.name}.gpuplan-tmp-", dir=path.parent)
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        with signals.held():
            os.replace(temp, path)
            temp = None
            COMMITS.append((path, 1, False))
    except OSError as error:
        raise _explain(error, path, path.parent) from None
    finally:
        if temp is not None:
            with signals.held():
                Path(temp).unlink(missing_ok=True)
    return path
