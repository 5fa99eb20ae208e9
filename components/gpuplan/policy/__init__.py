"""`gpuplan policy`: a recorded program run fed through the CrossGuard policy pack with the pack's own analyzer
(runner), and the report's text view (text; the JSON is PolicyReport.as_json).

Who may import: gpuplan commands.
"""

__all__ = ["runner", "text"]  # the public modules of this package
