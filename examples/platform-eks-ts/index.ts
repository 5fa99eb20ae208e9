// The whole GPU platform on EKS: a cluster with a public endpoint for one office range, an H100 pool,
// a DeviceClass and a dra-only tenant namespace. The sections are the stack file's, in camelCase as there.
import * as draGpuPlatform from "@pulumi/dra-gpu-platform";

const platform = new draGpuPlatform.GpuPlatform("gpu-prod", {
    region: "us-east-1",
    cluster: {
        platform: "eks",
        name: "gpu-prod",
        kubernetesVersion: "1.35",
        eks: { endpointPublicAccess: true, publicAccessCidrs: ["203.0.113.0/24"] }
    },
    nodePools: [
        { name: "h100-train", gpu: "H100", minNodes: 1, maxNodes: 2, labels: { team: "research" } }
    ],
    deviceClasses: [{ name: "h100", gpu: "H100", minMemory: "79Gi" }],
    namespaces: [
        {
            name: "ml-research",
            migration: "dra-only",
            quota: { claims: 10, devices: { h100: 16 } },
            claimTemplates: [{ name: "two-h100", deviceClass: "h100", count: 2 }]
        }
    ]
});

export const kubeconfig = platform.kubeconfig;
export const deviceClasses = platform.deviceClassNames;
