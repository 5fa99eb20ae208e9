"""Where this repository lives, for links that must work outside it (alert runbook URLs). Pure data.

The repository has no configured remote; REPOSITORY_URL is the one place to change if it moves.
"""

from __future__ import annotations

REPOSITORY_URL = "https://github.com/dra-gpu-platform/dra-gpu-platform"
DEFAULT_BRANCH = "main"
# GitHub renders Markdown under /blob/<branch>/; each alert has docs/monitoring/runbooks/<Alert>.md.
RUNBOOKS_URL = f"{REPOSITORY_URL}/blob/{DEFAULT_BRANCH}/docs/monitoring/runbooks"
