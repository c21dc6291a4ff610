/**
 * Issue 35 §6, Events as Kyverno writes them, end to end against `scripts/cluster.sh up DIR
 * --with-bylaw` with kubectl (Bylaw as deploy/ ships it, with its ServiceAccount and RBAC):
 * - an Audit failure at admission: `kubectl get events --field-selector reason=PolicyViolation`
 *   shows Kyverno's text on the ConfigMap (`policy require-team/check-team fail: …`) and on the
 *   policy (`ConfigMap events-a/loose: [check-team] fail; …`), from kyverno-admission;
 * - an Enforce failure: the request is denied, and the policy's Event says `(blocked)`;
 * - a mutation: PolicyApplied `… is successfully mutated` (with --omit-events=PolicySkipped);
 * - a dry run leaves no Event (the webhook declares sideEffects NoneOnDryRun);
 * - isomorphic Events (same action, reason, controller, regarding and related) are one Event with
 *   `series.count`, as client-go's recorder writes them for Kyverno;
 * - with exceptions on and --omit-events= : an excepted ConfigMap gets PolicySkipped on the
 *   PolicyException and on the policy; with --reports-controller the background scan of a failing
 *   ConfigMap writes kyverno-scan's PolicyViolation;
 * - the flood: with --max-queued-events 1, a tenant creating 200 violating ConfigMaps gets every one
 *   admitted, and what did not fit the queue is dropped and counted in kyverno_events_dropped_total
 *   (each review's second Event never fits), rather than held in memory or sent to the API server.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  bylawEnv,
  eventually,
  kubectlOk,
  restartBylaw,
  startCluster,
  started,
  tearDown,
  type Cluster,
} from "./cluster-harness.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;

const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);

/** An Audit ClusterPolicy with one rule per label, each requiring it of ConfigMaps labelled series=yes. */
function requireLabels(name: string, labels: readonly string[]): unknown {
  return {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name },
    spec: {
      validationFailureAction: "Audit",
      rules: labels.map((label) => ({
        name: `check-${label}`,
        match: { any: [{ resources: { kinds: ["ConfigMap"], selector: { matchLabels: { series: "yes" } } } }] },
        validate: { message: `label ${label} is required`, pattern: { metadata: { labels: { [label]: "?*" } } } },
      })),
    },
  };
}

const POLICIES = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: require-team
spec:
  validationFailureAction: Audit
  rules:
    - name: check-team
      match:
        any:
          - resources:
              kinds: [ConfigMap]
              namespaces: [events-a, flood]
      validate:
        message: "label team is required"
        pattern:
          metadata:
            labels:
              team: "?*"
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: no-forbidden
spec:
  validationFailureAction: Enforce
  rules:
    - name: check-forbidden
      match:
        any:
          - resources:
              kinds: [ConfigMap]
              namespaces: [events-a]
      validate:
        message: "label forbidden must not be yes"
        pattern:
          metadata:
            =(labels):
              =(forbidden): "!yes"
---
${JSON.stringify(requireLabels("require-app", ["app", "tier"]))}
---
apiVersion: kyverno.io/v1
kind: Policy
metadata:
  name: add-owner
  namespace: events-a
spec:
  rules:
    - name: owner
      match:
        any:
          - resources:
              kinds: [Secret]
      mutate:
        patchStrategicMerge:
          metadata:
            labels:
              owner: platform
`;

/** Exempts require-team's check-team for ConfigMaps labelled exempt=yes. */
const EXCEPTION = `apiVersion: kyverno.io/v2
kind: PolicyException
metadata:
  name: allow-exempt
  namespace: default
spec:
  exceptions:
    - policyName: require-team
      ruleNames: [check-team]
  match:
    any:
      - resources:
          kinds: [ConfigMap]
          selector:
            matchLabels:
              exempt: "yes"
`;

interface CoreEvent {
  readonly message?: string;
  readonly action?: string;
  readonly type?: string;
  readonly reportingComponent?: string;
  readonly involvedObject?: { readonly kind?: string; readonly name?: string; readonly namespace?: string };
  readonly related?: { readonly kind?: string; readonly name?: string };
}

async function events(namespace: string, reason: string): Promise<CoreEvent[]> {
  const out = await ok(["get", "events", "-n", namespace, "--field-selector", `reason=${reason}`, "-o", "json"]);
  return (JSON.parse(out) as { items: CoreEvent[] }).items;
}

async function droppedEvents(): Promise<number> {
  const port = bylawEnv(current().dir)["BYLAW_METRICS_PORT"];
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith("kyverno_events_dropped_total "));
  assert.ok(line !== undefined, "kyverno_events_dropped_total on /metrics");
  return Number(line.split(" ")[1]);
}

const configMap = (name: string, namespace: string, labels: Record<string, string> = {}): unknown => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace, labels },
  data: { k: "v" },
});

describe(
  "Events from admission, as Kyverno's kyverno-admission writes them",
  { timeout: buildTimeoutMs + 10 * 60_000 },
  () => {
    before(async () => {
      process.env["BYLAW_CLUSTER_BYLAW_ARGS"] = "--omit-events=PolicySkipped";
      try {
        cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
      } finally {
        delete process.env["BYLAW_CLUSTER_BYLAW_ARGS"];
      }
      for (const ns of ["events-a", "flood"]) await ok(["create", "namespace", ns]);
      await ok(["apply", "-f", "-"], POLICIES);
      await eventually("the policies Ready", 60_000, async () => {
        const out = await ok(["get", "clusterpolicy", "-o", "jsonpath={.items[*].status.conditions[*].status}"]);
        const states = out.trim().split(/\s+/);
        return states.length >= 3 && states.every((x) => x === "True") ? true : undefined;
      });
    });

    after(async () => {
      await tearDown(cluster);
    });

    test("an Audit failure: PolicyViolation on the ConfigMap and on the policy, Kyverno's texts", async () => {
      await eventually("the Audit policy to be served", 60_000, async () => {
        await ok(["create", "-f", "-"], JSON.stringify(configMap(`probe-${Date.now()}`, "events-a")));
        return (await events("events-a", "PolicyViolation")).length > 0 ? true : undefined;
      });
      await ok(["create", "-f", "-"], JSON.stringify(configMap("loose", "events-a")));
      const onObject = await eventually("the Event on ConfigMap loose", 30_000, async () =>
        (await events("events-a", "PolicyViolation")).find((e) => e.involvedObject?.name === "loose"),
      );
      assert.equal(
        onObject.message,
        "policy require-team/check-team fail: validation error: label team is required. rule check-team failed at path /metadata/labels/",
      );
      assert.equal(onObject.type, "Warning");
      assert.equal(onObject.reportingComponent, "kyverno-admission");
      assert.equal(onObject.involvedObject?.kind, "ConfigMap");
      const onPolicy = await eventually("the Event on require-team", 30_000, async () =>
        (await events("default", "PolicyViolation")).find((e) => e.related?.name === "loose"),
      );
      assert.equal(onPolicy.involvedObject?.kind, "ClusterPolicy");
      assert.equal(onPolicy.involvedObject?.name, "require-team");
      assert.equal(onPolicy.action, "Resource Passed");
      assert.equal(
        onPolicy.message,
        "ConfigMap events-a/loose: [check-team] fail; validation error: label team is required. rule check-team failed at path /metadata/labels/",
      );
    });

    test("an Enforce failure is denied; the policy's Event says (blocked), and the object has none", async () => {
      const r = await current().kubectl(
        ["create", "-f", "-"],
        JSON.stringify(configMap("bad", "events-a", { team: "a", forbidden: "yes" })),
      );
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /denied the request/);
      const blocked = await eventually("the (blocked) Event on no-forbidden", 30_000, async () =>
        (await events("default", "PolicyViolation")).find((e) => e.related?.name === "bad"),
      );
      assert.equal(blocked.involvedObject?.name, "no-forbidden");
      assert.equal(blocked.action, "Resource Blocked");
      assert.match(
        blocked.message ?? "",
        /^ConfigMap events-a\/bad: \[check-forbidden\] fail \(blocked\); validation error: /,
      );
      assert.equal(
        (await events("events-a", "PolicyViolation")).filter((e) => e.involvedObject?.name === "bad").length,
        0,
      );
    });

    test("isomorphic Events are one Event with a count: two failing rules give the ConfigMap and the policy one PolicyViolation each, series.count 2", async () => {
      await ok(["create", "-f", "-"], JSON.stringify(configMap("twice", "events-a", { team: "a", series: "yes" })));
      interface V1Event {
        readonly reason?: string;
        readonly note?: string;
        readonly reportingController?: string;
        readonly series?: { readonly count?: number; readonly lastObservedTime?: string };
        readonly regarding?: { readonly name?: string };
        readonly related?: { readonly name?: string };
      }
      const v1Events = async (namespace: string): Promise<V1Event[]> =>
        (JSON.parse(await ok(["get", "events.events.k8s.io", "-n", namespace, "-o", "json"])) as { items: V1Event[] })
          .items;
      const onObject = await eventually("one Event with a count on ConfigMap twice", 30_000, async () => {
        const mine = (await v1Events("events-a")).filter(
          (e) => e.reason === "PolicyViolation" && e.regarding?.name === "twice",
        );
        return mine.length === 1 && mine[0]?.series?.count === 2 ? mine[0] : undefined;
      });
      // The note is the first rule's, as client-go keeps it (the note is no part of what makes Events one).
      assert.match(
        onObject.note ?? "",
        /^policy require-app\/check-(app|tier) fail: validation error: label (app|tier) is required/,
      );
      assert.equal(onObject.reportingController, "kyverno-admission");
      assert.match(onObject.series?.lastObservedTime ?? "", /^\d{4}-\d\d-\d\dT/);
      const onPolicy = await eventually("one Event with a count on require-app", 30_000, async () => {
        const mine = (await v1Events("default")).filter(
          (e) => e.reason === "PolicyViolation" && e.regarding?.name === "require-app" && e.related?.name === "twice",
        );
        return mine.length === 1 && mine[0]?.series?.count === 2 ? mine : undefined;
      });
      assert.equal(onPolicy.length, 1);
    });

    test("a mutation: PolicyApplied on the Policy, in its namespace", async () => {
      await ok(["create", "secret", "generic", "creds", "-n", "events-a", "--from-literal=k=v"]);
      const applied = await eventually("the PolicyApplied Event of add-owner", 30_000, async () =>
        (await events("events-a", "PolicyApplied")).find((e) => e.related?.name === "creds"),
      );
      assert.equal(applied.involvedObject?.kind, "Policy");
      assert.equal(applied.involvedObject?.name, "add-owner");
      assert.equal(applied.type, "Normal");
      assert.equal(applied.message, "Secret events-a/creds is successfully mutated");
      assert.equal(applied.reportingComponent, "kyverno-admission");
    });

    test("a dry run leaves no Event", async () => {
      await ok(["create", "--dry-run=server", "-f", "-"], JSON.stringify(configMap("dry", "events-a")));
      await ok(["create", "-f", "-"], JSON.stringify(configMap("after-dry", "events-a")));
      await eventually("the Event of the next request", 30_000, async () =>
        (await events("events-a", "PolicyViolation")).find((e) => e.involvedObject?.name === "after-dry"),
      );
      const all = [...(await events("events-a", "PolicyViolation")), ...(await events("default", "PolicyViolation"))];
      assert.equal(all.filter((e) => e.involvedObject?.name === "dry" || e.related?.name === "dry").length, 0);
    });

    test("with exceptions and the reports controller: PolicySkipped on the exception and the policy at admission; kyverno-scan's PolicyViolation from the background scan", async () => {
      await restartBylaw(current(), {
        extraArgs: "--omit-events= --enable-policy-exception --exception-namespace default --reports-controller",
      });
      await ok(["apply", "-f", "-"], EXCEPTION);
      const onException = await eventually("the exception honoured", 60_000, async () => {
        const name = `exempt-${Date.now()}`;
        await ok(["create", "-f", "-"], JSON.stringify(configMap(name, "events-a", { exempt: "yes" })));
        for (let i = 0; i < 10; i++) {
          const found = (await events("default", "PolicySkipped")).find(
            (e) => e.involvedObject?.kind === "PolicyException" && e.related?.name === name,
          );
          if (found !== undefined) return found;
          await new Promise((r) => setTimeout(r, 500));
        }
        return undefined;
      });
      assert.equal(onException.involvedObject?.name, "allow-exempt");
      assert.match(
        onException.message ?? "",
        /^resource ConfigMap\/events-a\/exempt-\d+ was skipped from policy rule require-team\/check-team$/,
      );
      assert.equal(onException.reportingComponent, "kyverno-admission");
      assert.equal(onException.type, "Normal");
      const onPolicy = await eventually("PolicySkipped on require-team", 30_000, async () =>
        (await events("default", "PolicySkipped")).find(
          (e) => e.involvedObject?.kind === "ClusterPolicy" && e.related?.name?.startsWith("exempt-") === true,
        ),
      );
      assert.match(
        onPolicy.message ?? "",
        /^resource ConfigMap\/events-a\/exempt-\d+ was skipped from rule check-team due to policy exceptions default\/allow-exempt$/,
      );
      // The ConfigMap admitted with a failure at the start is scanned by the reports controller.
      const scanned = await eventually("kyverno-scan's Event on ConfigMap loose", 90_000, async () =>
        (await events("events-a", "PolicyViolation")).find(
          (e) => e.involvedObject?.name === "loose" && e.reportingComponent === "kyverno-scan",
        ),
      );
      assert.equal(
        scanned.message,
        "policy require-team/check-team fail: validation error: label team is required. rule check-team failed at path /metadata/labels/",
      );
    });

    test("the flood: 200 violating ConfigMaps are all admitted; what does not fit the queue is dropped and counted", async () => {
      await restartBylaw(current(), { extraArgs: "--max-queued-events 1" });
      const before = await droppedEvents();
      const list = {
        apiVersion: "v1",
        kind: "List",
        items: [...Array(200).keys()].map((i) => configMap(`f-${i}`, "flood")),
      };
      const t0 = performance.now();
      await ok(["create", "-f", "-"], JSON.stringify(list));
      const seconds = (performance.now() - t0) / 1000;
      console.log(`# 200 violating ConfigMaps created in ${seconds.toFixed(1)} s`);
      assert.equal(
        (await ok(["get", "configmap", "-n", "flood", "-o", "name"]))
          .split("\n")
          .filter((l) => l.startsWith("configmap/f-")).length,
        200,
      );
      // Each review makes two Events at once; a queue of one takes the first only.
      const dropped = (await droppedEvents()) - before;
      assert.ok(dropped >= 200, `at least 200 Events dropped, got ${dropped}`);
      // Every Event made was either written or dropped: none is held once the queue has drained.
      const written = await eventually("the flood's Events written or dropped", 60_000, async () => {
        const onObjects = (await events("flood", "PolicyViolation")).filter(
          (e) => e.reportingComponent === "kyverno-admission",
        ).length;
        const onPolicy = (await events("default", "PolicyViolation")).filter(
          (e) => e.related?.name?.startsWith("f-") === true,
        ).length;
        return onObjects + onPolicy + dropped === 400 ? { onObjects, onPolicy } : undefined;
      });
      console.log(
        `# written: ${written.onObjects} on the ConfigMaps, ${written.onPolicy} on the policy; dropped ${dropped}`,
      );
      assert.ok(written.onPolicy <= 200);
    });
  },
);
