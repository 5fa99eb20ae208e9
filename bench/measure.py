"""Child-process measurements: wall time, CPU time and peak memory of one command, medians, line fits.

Every measurement runs in a fresh child (`os.wait4` gives that child's own CPU time and peak RSS), so the
numbers include interpreter start and imports, as a person running the command sees them.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "bench" / ".work"
PYTHON = sys.executable


@dataclass(frozen=True)
class Sample:
    wall_s: float
    cpu_s: float  # user + system of the child
    peak_rss_mib: float
    returncode: int

    def as_json(self) -> dict:
        return {k: round(v, 4) if isinstance(v, float) else v for k, v in asdict(self).items()}


def child_env() -> dict[str, str]:
    """The environment of every measured child.

    Bytecode: a shell with PYTHONDONTWRITEBYTECODE=1 (as on this machine) makes every process compile the SDKs'
    sources again (pulumi_aws.ec2 alone is seconds), which a developer's machine does once. The children write
    and reuse .pyc files under bench/.work/pycache instead, so floor and preview are both measured warm.
    """
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(WORK / "pycache")
    env["PYTHONHASHSEED"] = "0"
    env.pop("GPUPLAN_DEBUG", None)
    return env


def run(command: Sequence[str], *, cwd: Path = ROOT, timeout: float = 900, capture: bool = False) -> tuple[Sample, str]:
    """Run one child to completion, reaped with os.wait4 so CPU time and peak RSS are that child's alone.
    Returns the sample and (when capture) the child's stdout."""
    start = time.perf_counter()
    process = subprocess.Popen(
        list(command),
        cwd=cwd,
        env=child_env(),
        stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    out_chunks: list[bytes] = []
    err_chunks: list[bytes] = []
    readers = []
    for stream, sink in ((process.stdout, out_chunks), (process.stderr, err_chunks)):
        if stream is not None:
            reader = threading.Thread(target=lambda s=stream, k=sink: k.append(s.read()), daemon=True)
            reader.start()
            readers.append(reader)
    killer = threading.Timer(timeout, process.kill)
    killer.start()
    try:
        _, status, usage = os.wait4(process.pid, 0)
    finally:
        killer.cancel()
    wall = time.perf_counter() - start
    for reader in readers:
        reader.join()
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()
    returncode = os.waitstatus_to_exitcode(status)
    process.returncode = returncode  # reaped here: keep Popen from waiting for it again
    sample = Sample(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0, returncode)
    if returncode not in (0, 1):
        stderr = b"".join(err_chunks).decode("utf-8", "replace")
        sys.stderr.write(f"bench: {' '.join(command)} exited {returncode}\n{stderr[-2000:]}\n")
    return sample, b"".join(out_chunks).decode("utf-8", "replace")


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def summary(samples: Sequence[Sample]) -> dict:
    return {
        "runs": len(samples),
        "wall_s": round(median([s.wall_s for s in samples]), 4),
        "cpu_s": round(median([s.cpu_s for s in samples]), 4),
        "peak_rss_mib": round(max(s.peak_rss_mib for s in samples), 1),
        "wall_all_s": [round(s.wall_s, 3) for s in samples],
    }


def line_fit(xs: Sequence[float], ys: Sequence[float]) -> dict:
    """Least-squares y = intercept + slope·x, with each point's residual (absolute and relative to the fit)."""
    n = len(xs)
    mean_x, mean_y = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mean_x) ** 2 for x in xs)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=False)) / sxx if sxx else 0.0
    intercept = mean_y - slope * mean_x
    fitted = [intercept + slope * x for x in xs]
    residuals = [y - f for y, f in zip(ys, fitted, strict=False)]
    total = sum((y - mean_y) ** 2 for y in ys)
    r2 = 1 - sum(r * r for r in residuals) / total if total else 1.0
    return {
        "intercept": round(intercept, 4),
        "slope": slope,
        "r2": round(r2, 5),
        "residuals": [round(r, 4) for r in residuals],
        "residuals_pct": [round(100 * r / f, 1) if f else None for r, f in zip(residuals, fitted, strict=False)],
    }


def fresh_dir(path: Path) -> Path:
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    return path


def load_average() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def _system_busy_s() -> float | None:
    """CPU-seconds all processes on the machine have used since boot (/proc/stat), or None off Linux."""
    try:
        with open("/proc/stat", encoding="utf-8") as stat:
            fields = stat.readline().split()[1:]
    except OSError:
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(v) for v in fields[:8])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


class LoadWatch:
    """How busy the machine was with other work while a section ran: CPU-seconds used by every process
    minus what this process and its children used, against what the CPUs could give."""

    def __enter__(self) -> LoadWatch:
        self._busy = _system_busy_s()
        self._ours = self._our_cpu()
        self._start = time.perf_counter()
        self._load = load_average()
        return self

    def __exit__(self, *exc) -> None:
        wall = time.perf_counter() - self._start
        busy = _system_busy_s()
        ours = self._our_cpu() - self._ours
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        self.result = {
            "wall_s": round(wall, 1),
            "ours_cpu_s": round(ours, 1),
            "load_average_start": self._load,
            "load_average_end": load_average(),
        }
        if busy is not None and self._busy is not None:
            others = max(0.0, busy - self._busy - ours)
            self.result["others_cpu_s"] = round(others, 1)
            self.result["others_share_of_cpus"] = round(others / (wall * cpus), 3) if wall else None

    @staticmethod
    def _our_cpu() -> float:
        import resource

        own = resource.getrusage(resource.RUSAGE_SELF)
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
