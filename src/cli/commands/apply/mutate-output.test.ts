/** `bylaw apply` with mutate and generate policies: where the produced resources go, and how they print. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";
import { policyFixture } from "../../../../test/support/policy-fixtures.js";

const policies = `${policyFixture("add-team")}---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: quota}
spec:
  rules:
    - name: gen
      match: {any: [{resources: {kinds: [Namespace]}}]}
      generate:
        apiVersion: v1
        kind: ResourceQuota
        name: default
        namespace: "{{ request.object.metadata.name }}"
        data: {spec: {hard: {pods: "10"}}}
`;
const resources = `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop}
spec: {containers: [{name: c, image: nginx:1}]}
---
apiVersion: v1
kind: Namespace
metadata: {name: shop}
`;

describe("bylaw apply: mutated and generated resources", () => {
  test("without -o each is printed as kyverno apply prints it: after `policy NAME applied to NS/Kind/name:`, keys sorted", async () => {
    const dir = tempTree({ "p.yaml": policies, "r.yaml": resources });
    const io = recordingIo();
    assert.equal(await main(["apply", join(dir, "p.yaml"), "-r", join(dir, "r.yaml")], io), 0);
    const out = io.stdout.join("\n");
    const mutated = [
      "policy add-team applied to shop/Pod/web:",
      "apiVersion: v1",
      "kind: Pod",
      // go-yaml v3's layout, as Kyverno 1.19's CLI marshals it: four spaces, a sequence indented under its key.
      "metadata:",
      "    labels:",
      "        team: bravo",
      "    name: web",
      "    namespace: shop",
      "spec:",
      "    containers:",
      "        - image: nginx:1",
      "          name: c",
      "",
      "---",
      "",
      "",
      "Mutation:",
      "Mutation has been applied successfully.",
      // A kyverno.io mutate policy prints every resource it was applied to, changed or not.
      "policy add-team applied to /Namespace/shop:",
    ].join("\n");
    assert.ok(out.startsWith(`\nApplying 4 policy rule(s) to 2 resource(s)...\n\n${mutated}`), out);
    assert.match(
      out,
      /\npolicy quota applied to \/Namespace\/shop:\napiVersion: v1\nkind: ResourceQuota\nmetadata:\n {4}labels:\n(?: {8}.*\n)*? {8}generate\.kyverno\.io\/policy-name: quota\n[^]*?\n---\n\n\nGenerate:\nGeneration completed successfully\.\npass: 2, fail: 0, warn: 0, error: 0, skip: 0 $/,
    );
  });

  test("--output-format summary: Bylaw's summary, then the resources as one YAML stream, each headed by a comment", async () => {
    const dir = tempTree({ "p.yaml": policies, "r.yaml": resources });
    const io = recordingIo();
    const args = ["apply", join(dir, "p.yaml"), "-r", join(dir, "r.yaml"), "--output-format", "summary"];
    assert.equal(await main(args, io), 0);
    const out = io.stdout.join("\n");
    assert.match(out, /^Applied 2 policies to 2 resources: no findings\./);
    const yamlPart = out.slice(out.indexOf("\n---\n") + 5);
    const docs = parseAllDocuments(yamlPart).map(
      (d) => d.toJSON() as { kind: string; metadata: { labels?: Record<string, string> } },
    );
    assert.deepEqual(
      docs.map((d) => d.kind),
      ["Pod", "ResourceQuota"],
    );
    assert.equal(docs[0]?.metadata.labels?.["team"], "bravo");
    assert.equal(docs[1]?.metadata.labels?.["generate.kyverno.io/policy-name"], "quota");
    assert.match(out, /# mutated by add-team\n/);
  });

  test("-o DIR writes one file per resource; -o FILE.yaml one stream", async () => {
    const dir = tempTree({ "p.yaml": policies, "r.yaml": resources });
    const io = recordingIo();
    assert.equal(await main(["apply", join(dir, "p.yaml"), "-r", join(dir, "r.yaml"), "-o", join(dir, "out")], io), 0);
    assert.deepEqual(readdirSync(join(dir, "out")).sort(), ["pod-shop-web.yaml", "resourcequota-shop-default.yaml"]);
    // As kyverno apply -o: the resources go to the files, stdout keeps the "Mutation:"/"Generate:" lines.
    assert.doesNotMatch(io.stdout.join("\n"), /kind: Pod|applied to/);
    assert.equal(io.stdout.join("\n").match(/\nMutation:\nMutation has been applied successfully\./g)?.length, 2);
    assert.equal(io.stdout.join("\n").match(/\nGenerate:\nGeneration completed successfully\./g)?.length, 1);
    await main(["apply", join(dir, "p.yaml"), "-r", join(dir, "r.yaml"), "-o", join(dir, "all.yaml")], recordingIo());
    assert.equal(parseAllDocuments(readFileSync(join(dir, "all.yaml"), "utf8")).length, 2);
  });

  test("nothing is written when an input fails to load", async () => {
    const dir = tempTree({ "p.yaml": policies, "r.yaml": resources, "bad.yaml": "kind: [unclosed" });
    const io = recordingIo();
    assert.equal(
      await main(
        ["apply", join(dir, "p.yaml"), "-r", join(dir, "r.yaml"), "-r", join(dir, "bad.yaml"), "-o", join(dir, "out")],
        io,
      ),
      2,
    );
    assert.equal(existsSync(join(dir, "out")), false);
  });

  test("--output-format json carries the resources; the old -o json still works with a warning", async () => {
    const dir = tempTree({ "p.yaml": policies, "r.yaml": resources });
    const io = recordingIo();
    await main(["apply", join(dir, "p.yaml"), "-r", join(dir, "r.yaml"), "--output-format", "json"], io);
    const parsed = JSON.parse(io.stdout.join("\n")) as { resources: { why: string }[] };
    assert.deepEqual(
      parsed.resources.map((r) => r.why),
      ["mutated", "generated"],
    );
    const old = recordingIo();
    await main(["apply", join(dir, "p.yaml"), "-r", join(dir, "r.yaml"), "-o", "json"], old);
    assert.ok(JSON.parse(old.stdout.join("\n")));
    assert.match(old.stderr.join("\n"), /read as --output-format json/);
  });

  test("--target-resource gives mutate-existing rules their targets", async () => {
    const policy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: stamp}
spec:
  rules:
    - name: stamp
      match: {any: [{resources: {kinds: [Secret]}}]}
      mutate:
        targets: [{apiVersion: v1, kind: ConfigMap, namespace: "{{ request.object.metadata.namespace }}"}]
        patchStrategicMerge: {metadata: {annotations: {touched: "yes"}}}
`;
    const dir = tempTree({
      "p.yaml": policy,
      "r.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: a}\n",
      "t.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: a}\n",
    });
    const io = recordingIo();
    assert.equal(
      await main(
        [
          "apply",
          join(dir, "p.yaml"),
          "-r",
          join(dir, "r.yaml"),
          "--target-resource",
          join(dir, "t.yaml"),
          "--output-format",
          "json",
        ],
        io,
      ),
      0,
    );
    const parsed = JSON.parse(io.stdout.join("\n")) as {
      results: { resource: string; result: string; action: string }[];
      resources: { why: string; resource: { metadata: { annotations: Record<string, string> } } }[];
    };
    assert.deepEqual(
      parsed.results.map((r) => [r.resource, r.result, r.action]),
      [["ConfigMap/a/c", "pass", "-"]],
    );
    assert.equal(parsed.resources[0]?.why, "mutated-target");
    assert.equal(parsed.resources[0]?.resource.metadata.annotations["touched"], "yes");
  });
});
