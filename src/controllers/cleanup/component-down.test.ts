import { test } from "node:test";
import assert from "node:assert/strict";
import { componentDown, markCleanupPolicies } from "./component-down.js";
import type { KubeClient } from "../../kube/kube-client.js";

const down = componentDown("its Lease bylaw/bylaw-cleanup-controller has no holder");

test("the condition names the cleanup component and why it is down", () => {
  assert.deepEqual(down, {
    reason: "ComponentNotRunning",
    message:
      "Bylaw's cleanup component, which runs cleanup policies, is not running (its Lease bylaw/bylaw-cleanup-controller has no holder), so nothing is cleaned up",
  });
});

test("every cleanup policy not yet saying so is set not Ready; one that says so already is left alone", async () => {
  const patched: { path: string; body: unknown }[] = [];
  const saying = {
    conditions: [{ type: "Ready", status: "False", reason: down.reason, message: down.message }],
  };
  const lists: Record<string, unknown[]> = {
    clustercleanuppolicies: [
      { metadata: { name: "sweep" }, status: { conditions: [{ type: "Ready", status: "True", reason: "Ready" }] } },
    ],
    cleanuppolicies: [{ metadata: { name: "old", namespace: "team-a" }, status: saying }],
  };
  const client = {
    getJson: (path: string) => Promise.resolve({ items: lists[/\/(\w+)\?/.exec(path)?.[1] ?? ""] ?? [], metadata: {} }),
    sendJson: (_method: string, path: string, body: unknown) => {
      patched.push({ path, body });
      return Promise.resolve({});
    },
  } as unknown as KubeClient;
  assert.equal(await markCleanupPolicies({ client, notReady: down, now: Date.parse("2026-01-01T00:00:00Z") }), 1);
  assert.equal(patched.length, 1);
  assert.equal(patched[0]?.path, "/apis/kyverno.io/v2/clustercleanuppolicies/sweep/status");
  assert.match(JSON.stringify(patched[0]?.body), /"status":"False","reason":"ComponentNotRunning"/);
});
