"""The `dra-gpu-platform` component package: GpuPlatform and the finer components for every Pulumi language
(docs/library.md).

- `package`: the provider that hosts them (Construct, GetSchema); `__main__.py` serves it.
- `gpu_platform`, `eks_gpu_node_pool`, `aks_gpu_node_pool`, `device_classes`, `tenant_namespace`, `gpu_operator`,
  `dra_driver`: the hosted components, each the library's class built from the inputs the engine sends.
- `sections`: those inputs back into stack-file sections and the library's arguments, validated by the one config path.
- `shapes`, `arguments`, `generate`: the input types (`input_types.py`: the sections' enums and objects; `inputs.py`:
  one TypedDict per component) and `schema.json`, generated from the config models and the table of each component's
  other arguments.
"""
