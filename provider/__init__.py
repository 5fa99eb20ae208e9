"""The `dra-gpu-platform` component package: GpuPlatform for every Pulumi language (docs/library.md).

- `package`: the provider that hosts GpuPlatform (Construct, GetSchema); `__main__.py` serves it.
- `gpu_platform`: the hosted component, the library's GpuPlatform built from the inputs the engine sends.
- `sections`: those inputs back into stack-file sections, validated by the one config path.
- `shapes`, `generate`: the input types (`inputs.py`) and `schema.json`, generated from the config models.
"""
