"""The plugin of the `dra-gpu-platform` component package. Pulumi's Python language host runs a plugin folder's
`__main__.py` as `python provider/ <engine address>` in the virtualenv that PulumiPlugin.yaml names
(docs/references.md#pulumi-python-plugin); it prints the port of the gRPC server the engine then calls."""

import sys
from pathlib import Path

# `python provider/` puts provider/ itself first on sys.path; its modules import each other as the `provider`
# package (as the tests and the generator do), so the folder above it takes that place.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

from provider.package import serve  # noqa: E402  (needs the path above)

serve(sys.argv[1:])
