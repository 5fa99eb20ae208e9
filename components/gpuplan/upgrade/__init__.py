"""`gpuplan upgrade`: the stages' stack files, the report (diff per stage, fit at both ends) and its text and runbook.

Who may import: gpuplan commands.
"""

__all__ = [
    "report",
    "stages",
    "text",
]  # the public modules of this package
