"""gpuplan commands; every module here defines register(app)."""
