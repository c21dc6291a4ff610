/** `bylaw apply -p` prints what Kyverno 1.19's CLI prints: one merged openreports ClusterReport, then namespaced policies' reports. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";

const policies = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: require-team}
spec:
  validationFailureAction: Audit
  rules:
    - name: check-team
      match: {any: [{resources: {kinds: [Pod]}}]}
      validate:
        message: team label required
        pattern: {metadata: {labels: {team: "?*"}}}
---
apiVersion: kyverno.io/v1
kind: Policy
metadata: {name: named, namespace: shop}
spec:
  rules:
    - name: has-name
      match: {any: [{resources: {kinds: [Pod]}}]}
      validate:
        message: a name
        pattern: {metadata: {name: "?*"}}
`;
const pods = `apiVersion: v1
kind: Pod
metadata: {name: good, namespace: shop, labels: {team: a}}
spec: {containers: [{name: c, image: nginx:1}]}
---
apiVersion: v1
kind: Pod
metadata: {name: bad, namespace: shop}
spec: {containers: [{name: c, image: nginx:1}]}
`;

async function apply(extra: string[]) {
  const dir = tempTree({ "p.yaml": policies, "r.yaml": pods });
  const io = recordingIo();
  const code = await main(["apply", join(dir, "p.yaml"), "-r", join(dir, "r.yaml"), "-p", ...extra], io);
  return { code, out: io.stdout.join("\n"), err: io.stderr.join("\n") };
}

interface Report {
  apiVersion: string;
  kind: string;
  metadata: Record<string, unknown>;
  summary: Record<string, number>;
  results: { policy: string; rule: string; result: string; message: string; resources: { name: string }[] }[];
}

describe("bylaw apply -p: Kyverno 1.19's report", () => {
  test("one openreports.io/v1alpha1 ClusterReport named merged, then each namespaced policy's report after ---", async () => {
    const { code, out } = await apply([]);
    assert.equal(code, 1);
    assert.doesNotMatch(out, /pass: \d+, fail:/, "no summary line, as kyverno apply -p");
    const docs = parseAllDocuments(out).map((d) => d.toJSON() as Report);
    assert.deepEqual(
      docs.map((d) => [d.apiVersion, d.kind, d.metadata]),
      [
        // No creationTimestamp, as kyverno apply -p v1.19.0 prints them.
        ["openreports.io/v1alpha1", "ClusterReport", { name: "merged" }],
        ["openreports.io/v1alpha1", "PolicyReport", { name: "named", namespace: "shop" }],
      ],
    );
    const [cluster, namespaced] = docs;
    assert.deepEqual(cluster?.summary, { error: 0, fail: 1, pass: 1, skip: 0, warn: 0 });
    assert.deepEqual(
      cluster?.results.map((r) => [r.policy, r.rule, r.resources[0]?.name, r.result]),
      [
        ["require-team", "check-team", "good", "pass"],
        ["require-team", "check-team", "bad", "fail"],
      ],
    );
    assert.deepEqual(namespaced?.summary, { error: 0, fail: 0, pass: 2, skip: 0, warn: 0 });
    assert.equal(namespaced?.results[0]?.policy, "shop/named");
    // Keys sorted at every level and a sequence at its key's indentation, as sigs.k8s.io/yaml writes them.
    assert.match(
      out,
      /^apiVersion: openreports\.io\/v1alpha1\nkind: ClusterReport\nmetadata:\n {2}name: merged\nresults:\n- message: /,
    );
    assert.match(
      out,
      /^source: ""\nsummary:\n {2}error: 0\n {2}fail: 1\n {2}pass: 1\n {2}skip: 0\n {2}warn: 0\n\n---\napiVersion/m,
    );
    // A blank line after each report (the io adds the last newline), as kyverno apply -p prints them.
    assert.ok(out.endsWith("warn: 0\n"), out.slice(-40));
  });

  test("--output-format json prints each report as one JSON object (--- between them)", async () => {
    const { out } = await apply(["--output-format", "json"]);
    const parts = out.split("\n---\n").map((p) => JSON.parse(p) as Report);
    assert.deepEqual(
      parts.map((p) => p.kind),
      ["ClusterReport", "PolicyReport"],
    );
    assert.equal(
      parts[0]?.results[1]?.message,
      "validation error: team label required. rule check-team failed at path /metadata/labels/",
    );
  });

  test("--output-format yaml is the default; --report-api wgpolicyk8s keeps a wgpolicyk8s.io PolicyReport per namespace", async () => {
    const untimed = (text: string) => text.replace(/seconds: \d+/g, "seconds: N");
    assert.equal(untimed((await apply(["--output-format", "yaml"])).out), untimed((await apply([])).out));
    const { out } = await apply(["--report-api", "wgpolicyk8s"]);
    const docs = parseAllDocuments(out).map((d) => d.toJSON() as Report);
    assert.deepEqual(
      docs.map((d) => [d.apiVersion, d.kind, d.metadata["namespace"]]),
      [["wgpolicyk8s.io/v1alpha2", "PolicyReport", "shop"]],
    );
    const bad = await apply(["--report-api", "v1"]);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--report-api must be one of openreports, wgpolicyk8s \(got "v1"\)/);
  });
  test("a CEL policy's rows carry its severity and category; one written with a namespace (cluster-scoped kind) files its rows as namespace/name in a report of its own, as Kyverno's CLI keys it", async () => {
    // Checked beside kyverno apply -p v1.19.0 (a ValidatingPolicy, a ValidatingAdmissionPolicy, the corpus's add-volume MutatingPolicy).
    const vpol = (name: string, extra: string) => `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata:
  name: ${name}
${extra}  annotations:
    policies.kyverno.io/category: Sample
    policies.kyverno.io/severity: medium
spec:
  validationActions: [Audit]
  matchConstraints:
    resourceRules:
      - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  validations:
    - expression: "has(object.metadata.labels)"
      message: labels
`;
    const dir = tempTree({
      "p.yaml": `${vpol("plain", "")}---\n${vpol("stray", "  namespace: kyverno\n")}`,
      "r.yaml": pods,
    });
    const io = recordingIo();
    await main(["apply", join(dir, "p.yaml"), "-r", join(dir, "r.yaml"), "-p", "--output-format", "json"], io);
    const parts = io.stdout
      .join("\n")
      .split("\n---\n")
      .map((p) => JSON.parse(p) as Report);
    assert.deepEqual(
      parts.map((p) => [
        p.kind,
        p.metadata["name"],
        p.metadata["namespace"],
        [...new Set(p.results.map((r) => r.policy))],
      ]),
      [
        ["ClusterReport", "merged", undefined, ["plain"]],
        ["PolicyReport", "stray", "kyverno", ["kyverno/stray"]],
      ],
    );
    const row = parts[0]?.results[0] as unknown as Record<string, unknown>;
    assert.deepEqual([row["category"], row["severity"]], ["Sample", "medium"]);
  });
});
