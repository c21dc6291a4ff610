/**
 * Cleanup policies while the cleanup component is down (ADR 0018, "Ready across processes"): their
 * Ready condition is the cleanup controller's to write, so when that component has gone away
 * (its Lease released or not renewed: component-presence.ts) nobody would turn it False. The
 * admission controller's leader does: every CleanupPolicy and ClusterCleanupPolicy is set not Ready,
 * the condition naming the component and why. When the component is back, its leader reconciles
 * each policy and writes its own condition again (policy-loop.ts compares the Ready condition).
 */
import type { JsonObject } from "../../engine/index.js";
import { patchCleanupStatus } from "../../kube/cleanup-calls.js";
import { listObjects } from "../../kube/list-objects.js";
import type { KubeClient } from "../../kube/kube-client.js";
import { cleanupStatus, type NotReady } from "./reconcile.js";

const KINDS = [
  { resource: "clustercleanuppolicies", kind: "ClusterCleanupPolicy", namespaced: false },
  { resource: "cleanuppolicies", kind: "CleanupPolicy", namespaced: true },
] as const;

/** The Ready condition a cleanup policy gets while the cleanup component is down. */
export function componentDown(why: string): NotReady {
  return {
    reason: "ComponentNotRunning",
    message: `Bylaw's cleanup component, which runs cleanup policies, is not running (${why}), so nothing is cleaned up`,
  };
}

/** Sets every cleanup policy not Ready with `notReady` (unless it says so already); returns how many were written. */
export async function markCleanupPolicies(o: {
  readonly client: KubeClient;
  readonly notReady: NotReady;
  readonly now: number;
}): Promise<number> {
  let written = 0;
  for (const k of KINDS) {
    const items = await listObjects(o.client, {
      group: "kyverno.io",
      version: "v2",
      resource: k.resource,
      kind: k.kind,
      namespaced: k.namespaced,
      preferred: true,
      verbs: ["list"],
    });
    for (const item of items) {
      const current = isJsonObject(item["status"]) ? item["status"] : undefined;
      if (readyOf(current) === `False\u001f${o.notReady.reason}\u001f${o.notReady.message}`) continue;
      const md = (item["metadata"] ?? {}) as { name?: string; namespace?: string };
      const status = cleanupStatus({ current, lastExecutionTime: undefined, notReady: o.notReady, now: o.now });
      await patchCleanupStatus(o.client, { namespace: md.namespace ?? "", name: md.name ?? "" }, status);
      written++;
    }
  }
  return written;
}

function readyOf(status: JsonObject | undefined): string {
  const conditions = Array.isArray(status?.["conditions"]) ? status["conditions"] : [];
  const c = conditions.find((x) => isJsonObject(x) && x["type"] === "Ready");
  return isJsonObject(c) ? [c["status"], c["reason"], c["message"]].map(String).join("\u001f") : "";
}

function isJsonObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
