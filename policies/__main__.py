"""`pulumi preview --policy-pack policies`: the PolicyPack and nothing else (its constructor starts the
analyzer's gRPC server and blocks, so nothing imports this file). The rules are the installed package's
(`dra_gpu_platform.policies`; requirements.txt installs this repository into the pack's virtualenv)."""

from pulumi_policy import PolicyPack

from dra_gpu_platform.policies.pack import PACK_DESCRIPTION, PACK_LEVEL, PACK_NAME, POLICIES

PolicyPack(name=PACK_NAME, policies=POLICIES, enforcement_level=PACK_LEVEL, description=PACK_DESCRIPTION)
