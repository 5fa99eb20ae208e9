"""`gpuplan preview`: the program run offline, its plan.json and manifests rendered and validated (stack), the
resource tree (tree), the capacity table (capacity_table), and the report as JSON and text (report).

Who may import: gpuplan commands and render (which previews first).
"""

__all__ = ["capacity_table", "report", "stack", "tree"]  # the public modules of this package
