"""The plugin as Pulumi runs it (`python provider/ <engine address>`): it starts a gRPC server, prints its port,
and serves provider/schema.json and the distribution's version."""

from __future__ import annotations

import json
import subprocess
import sys

import grpc
from google.protobuf import empty_pb2
from pulumi.runtime.proto import provider_pb2, provider_pb2_grpc

from provider.generate import SCHEMA
from provider.package import VERSION
from tests.conftest import ROOT


def test_the_plugin_serves_the_committed_schema_and_the_distributions_version():
    plugin = subprocess.Popen(
        [sys.executable, str(ROOT / "provider"), "127.0.0.1:1"],  # the engine address is only read on Construct
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = plugin.stdout.readline()
        assert line.strip().isdigit(), f"the plugin printed no port: {line!r} {plugin.stderr.read()}"
        port = int(line)
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = provider_pb2_grpc.ResourceProviderStub(channel)
            served = stub.GetSchema(provider_pb2.GetSchemaRequest(version=0), timeout=30).schema
            info = stub.GetPluginInfo(empty_pb2.Empty(), timeout=30)
    finally:
        plugin.terminate()
        plugin.communicate(timeout=30)
    assert json.loads(served) == json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert info.version == VERSION
