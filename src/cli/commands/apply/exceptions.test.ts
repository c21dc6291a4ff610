/** `bylaw apply -e/--exception FILE`: PolicyExceptions read from files, through the CLI entry. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";

const policy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: no-privileged}
spec:
  validationFailureAction: Enforce
  rules:
    - name: privileged
      match: {any: [{resources: {kinds: [Pod]}}]}
      validate:
        message: "Privileged mode is not allowed."
        pattern: {spec: {containers: [{=(securityContext): {=(privileged): "false"}}]}}
`;
const pods = `apiVersion: v1
kind: Pod
metadata: {name: tool, namespace: ops}
spec: {containers: [{name: c, image: "tool:1", securityContext: {privileged: true}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop}
spec: {containers: [{name: c, image: "web:1", securityContext: {privileged: true}}]}
`;
const exception = `apiVersion: kyverno.io/v2
kind: PolicyException
metadata: {name: ops-tool, namespace: ops}
spec:
  exceptions:
    - policyName: no-privileged
      ruleNames: [privileged]
  match:
    any:
      - resources: {kinds: [Pod], namespaces: [ops], names: [tool]}
`;

async function apply(extra: string[], files: Record<string, string>, stdin = "") {
  const dir = tempTree({ "p.yaml": policy, "pods.yaml": pods, ...files });
  const io = recordingIo(stdin);
  const code = await main(
    ["apply", join(dir, "p.yaml"), "-r", join(dir, "pods.yaml"), ...extra.map((a) => a.replace("$DIR", dir))],
    io,
  );
  return { code, out: io.stdout.join("\n"), err: io.stderr.join("\n") };
}

describe("bylaw apply --exception", () => {
  test("the excepted resource is skipped; the others still fail", async () => {
    const { code, out } = await apply(["-e", "$DIR/ex.yaml", "--output-format", "json"], { "ex.yaml": exception });
    assert.equal(code, 1);
    const results = (JSON.parse(out) as { results: { resource: string; result: string }[] }).results;
    assert.deepEqual(
      results.map((r) => [r.resource, r.result]),
      [
        ["Pod/ops/tool", "skip"],
        ["Pod/shop/web", "fail"],
      ],
    );
  });

  test("--policy-report names the exceptions that applied in the result's properties, as Kyverno does", async () => {
    const { out } = await apply(["-e", "$DIR/ex.yaml", "-p", "--report-api", "wgpolicyk8s"], { "ex.yaml": exception });
    const reports = parseAllDocuments(out).map(
      (d) =>
        d.toJSON() as {
          metadata: { namespace: string };
          results: { result: string; properties: Record<string, string> }[];
        },
    );
    const ops = reports.find((r) => r.metadata.namespace === "ops");
    assert.deepEqual(
      ops?.results.map((r) => [r.result, r.properties]),
      [["skip", { exceptions: "ops-tool", process: "background scan" }]],
    );
    const shop = reports.find((r) => r.metadata.namespace === "shop");
    assert.deepEqual(shop?.results[0]?.properties, { process: "background scan" });
  });

  test("the text's header counts the exceptions, as kyverno apply's; --exceptions and stdin (-) work too", async () => {
    const { out } = await apply(["--exceptions", "-"], {}, exception);
    assert.match(out, /^\nApplying 3 policy rule\(s\) to 2 resource\(s\) with 1 exception\(s\)\.\.\.\n/);
    const summary = await apply(["--exceptions", "-", "--output-format", "summary"], {}, exception);
    assert.match(summary.out, /Applied 1 policy to 2 resources with 1 exception: 1 resource with findings\./);
  });

  test("other documents in an exception file are skipped with a warning", async () => {
    const { err } = await apply(["-e", "$DIR/ex.yaml"], {
      "ex.yaml": `${exception}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n`,
    });
    assert.match(err, /ex\.yaml: document 2 \(line \d+\): skipped: not a PolicyException \(kind "ConfigMap"\)/);
  });

  test("an invalid exception exits 2 naming the document and field; the results still print", async () => {
    const { code, out, err } = await apply(["-e", "$DIR/ex.yaml"], {
      "ex.yaml": exception.replace("policyName: no-privileged", "policyNam: no-privileged"),
    });
    assert.equal(code, 2);
    assert.match(err, /ex\.yaml: document 1 \(line 1\): invalid PolicyException: spec\.exceptions\[0\]/);
    assert.match(out, /pass: 0, fail: 2/);
  });

  test("a missing exception file exits 2 and names the path", async () => {
    const { code, err } = await apply(["-e", "$DIR/nope.yaml"], {});
    assert.equal(code, 2);
    assert.match(err, /--exception: .*no such file or directory: .*nope\.yaml/);
  });
});
