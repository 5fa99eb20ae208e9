"""`gpuplan diff`: two recorded runs of the stack compared per URN as the Pulumi engine would (engine, over the
path algebra of paths), what each change costs (safety: verdicts, version steps, rename hints), the report as
diff.json (report) and as text (text), the names --allow-replace takes (names), and the deployed side read from git
(revisions).

Who may import: gpuplan commands.
"""

__all__ = ["engine", "names", "paths", "report", "revisions", "safety", "text"]  # the public modules of this package
