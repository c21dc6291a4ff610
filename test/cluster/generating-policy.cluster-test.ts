/**
 * GeneratingPolicy in a cluster (issue 34 §3), end to end against the real control plane with
 * Bylaw: Bylaw runs the kind offline (bylaw test, bylaw apply) but does not serve it yet, so the
 * policy webhook refuses a GeneratingPolicy and a NamespacedGeneratingPolicy at `kubectl apply`,
 * saying so (never admitted and silently not run), and the refusal names the policy.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { eventually, kubectlOk, startCluster, started, tearDown, type Cluster } from "./cluster-harness.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;

const current = (): Cluster => started(cluster);

const NOT_SERVED =
  "is not served: Bylaw runs GeneratingPolicies offline (bylaw test, bylaw apply) but does not serve them in a cluster yet; it is refused rather than admitted and never run";

const gpol = (kind: string, namespace?: string): string =>
  JSON.stringify({
    apiVersion: "policies.kyverno.io/v1",
    kind,
    metadata: { name: "default-deny", ...(namespace !== undefined ? { namespace } : {}) },
    spec: {
      matchConstraints: {
        resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["namespaces"] }],
      },
      generate: [
        {
          expression:
            'generator.Apply(object.metadata.name, [{"apiVersion": dyn("networking.k8s.io/v1"), "kind": dyn("NetworkPolicy"), "metadata": dyn({"name": "default-deny"}), "spec": dyn({"podSelector": dyn({})})}])',
        },
      ],
    },
  });

/** kubectl apply of `doc`: the error kubectl prints, or "" when admitted. */
async function refusal(doc: string): Promise<string> {
  const r = await current().kubectl(["apply", "-f", "-"], doc);
  return r.code === 0 ? "" : r.stderr;
}

describe("GeneratingPolicy in a cluster", { timeout: buildTimeoutMs + 10 * 60_000 }, () => {
  before(async () => {
    cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
    await kubectlOk(current(), ["create", "namespace", "team"]);
    await eventually("the policy webhook registered", 90_000, async () =>
      (await refusal(gpol("GeneratingPolicy"))).includes("is not served") ? true : undefined,
    );
  });

  after(async () => {
    await tearDown(cluster);
  });

  test("a GeneratingPolicy is refused at kubectl apply, naming the policy and that Bylaw runs the kind offline only", async () => {
    const text = await refusal(gpol("GeneratingPolicy"));
    assert.match(text, /denied the request: GeneratingPolicy default-deny is not served: /);
    assert.ok(text.includes(`GeneratingPolicy default-deny ${NOT_SERVED}`), text);
    const stored = await current().kubectl(["get", "generatingpolicies.policies.kyverno.io", "-o", "name"]);
    assert.equal(stored.stdout.trim(), "", "nothing was stored");
  });

  test("a NamespacedGeneratingPolicy is refused the same way", async () => {
    const text = await refusal(gpol("NamespacedGeneratingPolicy", "team"));
    assert.ok(text.includes(`NamespacedGeneratingPolicy default-deny ${NOT_SERVED}`), text);
  });
});
