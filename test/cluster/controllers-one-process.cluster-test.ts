/**
 * The admission controller with the cleanup and reports controllers in one `bylaw serve --cluster`
 * process, as an admin (who may list, watch and delete every kind): the cleanup controller's TTL loop
 * then watches every deletable resource, far more watches than the API client's request connections.
 * Policy status must still be written (the bug that made these controllers opt-in: the watches took
 * every connection, and status writes waited for a watch to end, 5 minutes later).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../deploy/render.js";
import {
  crdsEstablished,
  eventually,
  kubectlOk as kubectlIn,
  started,
  startCluster,
  stopCluster,
  type Cluster,
} from "./cluster-harness.js";
import { startServe, type ServeProcess } from "./serve-process.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;
let serve: ServeProcess | undefined;
let components: ServeProcess | undefined;
const kubectlOk = (args: readonly string[], input?: string): Promise<string> =>
  kubectlIn(started(cluster), args, input);

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
  observedGeneration?: number;
}

/** The policy's Ready condition once it has `status` for its current generation (30 s at most). */
function readyOf(kind: string, name: string, status: "True" | "False", namespace?: string): Promise<Condition> {
  return eventually(`${kind} ${name} Ready ${status}`, 30_000, async () => {
    const object = JSON.parse(
      await kubectlOk(["get", kind, name, "-o", "json", ...(namespace !== undefined ? ["-n", namespace] : [])]),
    ) as { metadata: { generation: number }; status?: { conditions?: Condition[] } };
    const c = object.status?.conditions?.find((x) => x.type === "Ready");
    return c?.status === status && c.observedGeneration === object.metadata.generation ? c : undefined;
  });
}

const policy = (kind: string, name: string, field: string, namespace?: string) => `apiVersion: kyverno.io/v1
kind: ${kind}
metadata:
  name: ${name}
${namespace !== undefined ? `  namespace: ${namespace}\n` : ""}spec:
  validationFailureAction: Audit
  rules:
  - name: check
    match:
      any:
      - resources:
          kinds: [ConfigMap]
    validate:
      message: "needs a team label"
      deny:
        conditions:
          any:
          - key: "${field}"
            operator: Equals
            value: ""
`;

describe(
  "bylaw serve --cluster with the cleanup and reports controllers in the same process",
  { timeout: buildTimeoutMs + 10 * 60_000 },
  () => {
    before(
      async () => {
        cluster = await startCluster(buildTimeoutMs);
        await kubectlOk(["apply", "--server-side", "-k", join(repoRoot(), "deploy", "crds")]);
        await crdsEstablished(started(cluster), ["crd", "--all"]);
        await kubectlOk(["create", "namespace", "team-a"]);
        serve = await startServe([
          "--cluster",
          "--kubeconfig",
          started(cluster).kubeconfig,
          "--cleanup-controller",
          "--reports-controller",
        ]);
        const s = serve;
        await eventually("readiness", 60_000, async () =>
          (await s.get("/health/readiness")).status === 200 ? true : undefined,
        );
      },
      { timeout: buildTimeoutMs + 120_000 },
    );

    after(async () => {
      const code = await serve?.stop();
      if (serve !== undefined) assert.equal(code, 0, `bylaw serve exit code; output:\n${serve.output()}`);
      // Killed, not stopped: this process (cleanup and reports with --leader-elect) does not exit yet after
      // SIGTERM (a handle is left open; found, not fixed, in this change: see ADR 0018, "Not yet").
      await components?.kill("SIGKILL");
      if (cluster === undefined) return;
      const down = await stopCluster(cluster.dir);
      assert.equal(down.code, 0, `scripts/cluster.sh down failed: ${down.stderr}`);
      rmSync(cluster.dir, { recursive: true, force: true });
    });

    test("the TTL loop watches every kind (a labelled ConfigMap is deleted), and policy status is still written", async () => {
      // The TTL loop has started its watches of every deletable kind once a labelled ConfigMap goes.
      await kubectlOk(["create", "configmap", "short-lived", "-n", "team-a"]);
      await kubectlOk(["label", "configmap", "short-lived", "-n", "team-a", "cleanup.kyverno.io/ttl=2s"]);
      await eventually("the ConfigMap labelled with a TTL deleted", 120_000, async () =>
        (await kubectlOk(["get", "configmap", "-n", "team-a", "-o", "name"])).includes("short-lived")
          ? undefined
          : true,
      );
      // Every discovery-listed kind is watched by now (the pass runs in discovery order; give it time to end).
      await new Promise((r) => setTimeout(r, 15_000));

      await kubectlOk(
        ["apply", "-f", "-"],
        policy("ClusterPolicy", "team-label", "{{ request.object.metadata.labels.team || '' }}"),
      );
      assert.equal((await readyOf("cpol", "team-label", "True")).reason, "Succeeded");

      await kubectlOk(["apply", "-f", "-"], policy("ClusterPolicy", "broken", "{{ request.object.metadata.[ }}"));
      assert.match((await readyOf("cpol", "broken", "False")).message, /^not served by Bylaw: spec\.rules\[0\]/);

      await kubectlOk(
        ["apply", "-f", "-"],
        policy("Policy", "team-label", "{{ request.object.metadata.labels.team || '' }}", "team-a"),
      );
      assert.equal((await readyOf("pol", "team-label", "True", "team-a")).reason, "Succeeded");
    });

    test("--component cleanup --component reports: one process, each leader-elected on its own Lease, no admission work", async () => {
      // The admission process above stops: what follows is done by the component process alone.
      const code = await serve?.stop();
      assert.equal(code, 0);
      serve = undefined;
      components = await startServe([
        "--cluster",
        "--kubeconfig",
        started(cluster).kubeconfig,
        "--component",
        "cleanup",
        "--component",
        "reports",
        "--leader-elect",
        "--leader-elect-namespace",
        "default",
      ]);
      const holders = await eventually("both components' Leases held", 60_000, async () => {
        const leases = JSON.parse(await kubectlOk(["get", "leases", "-n", "default", "-o", "json"])) as {
          items: { metadata: { name: string }; spec: { holderIdentity?: string } }[];
        };
        const held = new Map(leases.items.map((l) => [l.metadata.name, l.spec.holderIdentity ?? ""]));
        const names = ["bylaw-cleanup-controller", "bylaw-reports-controller"];
        return names.every((n) => (held.get(n) ?? "") !== "") ? names : undefined;
      });
      assert.equal(holders.length, 2);
      const leases = await kubectlOk(["get", "leases", "-n", "default", "-o", "name"]);
      assert.doesNotMatch(leases, /bylaw-admission/, "no admission Lease: the process is not the admission controller");

      await kubectlOk(["create", "configmap", "short-lived-2", "-n", "team-a"]);
      await kubectlOk(["label", "configmap", "short-lived-2", "-n", "team-a", "cleanup.kyverno.io/ttl=2s"]);
      await eventually("the ConfigMap labelled with a TTL deleted by the cleanup component", 120_000, async () =>
        (await kubectlOk(["get", "configmap", "-n", "team-a", "-o", "name"])).includes("short-lived-2")
          ? undefined
          : true,
      );

      // Policy status is the admission controller's: a new policy gets none from this process.
      await kubectlOk(["apply", "-f", "-"], policy("ClusterPolicy", "later", "{{ request.object.metadata.name }}"));
      await new Promise((r) => setTimeout(r, 5000));
      assert.equal(await kubectlOk(["get", "cpol", "later", "-o", "jsonpath={.status.conditions}"]), "");
      const output = components.output();
      assert.match(output, /cleanup controller started/);
      assert.match(output, /reports controller started/);
    });
  },
);
