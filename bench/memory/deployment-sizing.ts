/**
 * The shipped Deployment's memory limit (deploy/base/deployment.yaml) and the V8 heap Node gives a
 * process inside a cgroup of that limit (V8's HeapSizeFromPhysicalMemory: old space a quarter of it
 * ×2 on 64-bit, semi-spaces 1 MiB), as node flags, so that a bench on a large machine runs `bylaw
 * serve` with the heap it has in the cluster.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";

export interface DeploymentSizing {
  /** limits.memory of the Deployment's container, in MiB. */
  readonly limitMiB: number;
  /** The node flags that size V8's heap as Node does under that limit. */
  readonly nodeArgs: readonly string[];
}

export function deploymentSizing(repoRoot: string): DeploymentSizing {
  const doc = parse(readFileSync(join(repoRoot, "deploy", "base", "deployment.yaml"), "utf8")) as {
    spec: { template: { spec: { containers: { resources: { limits: { memory: string } } }[] } } };
  };
  const text = doc.spec.template.spec.containers[0]?.resources.limits.memory ?? "";
  const m = /^(\d+)Mi$/.exec(text);
  if (m === null) throw new Error(`unexpected memory limit ${text} in deploy/base/deployment.yaml`);
  const limitMiB = Number(m[1]);
  return { limitMiB, nodeArgs: [`--max-old-space-size=${Math.floor(limitMiB / 2)}`, "--max-semi-space-size=1"] };
}
