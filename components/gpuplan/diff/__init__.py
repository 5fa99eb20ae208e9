"""`gpuplan diff`: compare two recorded plans and classify every change.

Who may import: gpuplan commands.
"""

__all__ = ["compare", "names", "revisions"]  # the public modules of this package
