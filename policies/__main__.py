"""`pulumi preview --policy-pack policies`: the PolicyPack and nothing else (its constructor starts the
analyzer's gRPC server and blocks, so nothing imports this file)."""

import sys
from pathlib import Path

# The CLI runs this folder as a script; the rules are the package `policies` and use `components`, both
# found from the repository root.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pulumi_policy import PolicyPack  # noqa: E402

from policies.pack import PACK_DESCRIPTION, PACK_LEVEL, PACK_NAME, POLICIES  # noqa: E402

PolicyPack(name=PACK_NAME, policies=POLICIES, enforcement_level=PACK_LEVEL, description=PACK_DESCRIPTION)
