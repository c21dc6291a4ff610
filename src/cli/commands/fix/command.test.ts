/** `bylaw fix policy|test`: deprecated fields rewritten in place; --dry-run prints a diff and changes nothing. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { main } from "../../main.js";
import { parseTestFile } from "../../test-suite/test-file.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";

const oldPolicy = `# keep this comment
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: sync}
spec:
  validationFailureAction: enforce
  generateExistingOnPolicyUpdate: true
  rules:
    - name: gen
      match:
        resources: {kinds: [Namespace]}
      preconditions:
        - {key: "{{ request.object.metadata.name }}", operator: NotEqual, value: kube-system}
      generate: {apiVersion: v1, kind: ConfigMap, name: x, namespace: "{{ request.object.metadata.name }}", data: {data: {a: b}}}
    - name: check
      match: {any: [{resources: {kinds: [Pod]}}]}
      validate: {pattern: {metadata: {labels: {team: "?*"}}}}
`;

async function run(args: string[]) {
  const io = recordingIo();
  const code = await main(args, io);
  return { code, out: io.stdout.join("\n"), err: io.stderr.join("\n") };
}

describe("bylaw fix policy", () => {
  test("moves spec.generateExistingOnPolicyUpdate to generate.generateExisting, and the other deprecated fields", async () => {
    const dir = tempTree({ "p.yaml": oldPolicy });
    const r = await run(["fix", "policy", dir]);
    assert.equal(r.code, 0, r.err);
    const text = readFileSync(join(dir, "p.yaml"), "utf8");
    assert.match(text, /^# keep this comment/);
    const doc = parse(text) as { spec: Record<string, unknown> & { rules: Record<string, Record<string, unknown>>[] } };
    assert.equal(doc.spec["generateExistingOnPolicyUpdate"], undefined);
    assert.equal(doc.spec["validationFailureAction"], undefined);
    const [gen, check] = doc.spec.rules;
    assert.equal(gen?.["generate"]?.["generateExisting"], true);
    assert.deepEqual(gen?.["match"], { any: [{ resources: { kinds: ["Namespace"] } }] });
    assert.deepEqual(gen?.["preconditions"], {
      all: [{ key: "{{ request.object.metadata.name }}", operator: "NotEquals", value: "kube-system" }],
    });
    assert.equal(check?.["validate"]?.["failureAction"], "Enforce");
    assert.match(r.err, /generateExistingOnPolicyUpdate is deprecated/);
    const again = await run(["fix", "policy", dir]);
    assert.equal(again.err, "", "a fixed file has nothing left to fix");
  });

  test("--dry-run prints a unified diff and leaves the file alone", async () => {
    const dir = tempTree({ "p.yaml": oldPolicy });
    const r = await run(["fix", "policy", join(dir, "p.yaml"), "--dry-run"]);
    assert.equal(r.code, 0);
    assert.match(r.out, /^-  generateExistingOnPolicyUpdate: true$/m);
    assert.match(r.out, /^\+\s+generateExisting: true$/m);
    assert.equal(readFileSync(join(dir, "p.yaml"), "utf8"), oldPolicy);
  });

  test("documents that are not policies are left as they are", async () => {
    const text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n";
    const dir = tempTree({ "c.yaml": text });
    const r = await run(["fix", "policy", dir]);
    assert.equal(r.code, 0);
    assert.equal(readFileSync(join(dir, "c.yaml"), "utf8"), text);
  });
});

describe("bylaw fix test", () => {
  test("an old test file becomes one bylaw test reads", async () => {
    const dir = tempTree({
      "kyverno-test.yaml":
        "name: old\npolicies: [p.yaml]\nresources: [r.yaml]\nresults:\n  - {policy: p, rule: r, resource: web, status: fail, kind: Pod}\n",
    });
    const r = await run(["fix", "test", dir]);
    assert.equal(r.code, 0, r.err);
    const parsed = parseTestFile(parse(readFileSync(join(dir, "kyverno-test.yaml"), "utf8")) as never);
    assert.ok(parsed.ok, JSON.stringify(parsed));
    assert.equal(parsed.spec.name, "old");
    assert.deepEqual(
      parsed.spec.results.map((x) => [x.resources.join(), x.result]),
      [["web", "fail"]],
    );
  });
});

describe("bylaw fix --dry-run", () => {
  const hasPatch = spawnSync("patch", ["--version"]).status === 0;
  test(
    "the diff is a unified diff that patch(1) applies to give exactly what fix writes, for policies and tests",
    { skip: hasPatch ? false : "patch is not installed" },
    async () => {
      const oldTest =
        "name: old\npolicies: [p.yaml]\nresources: [r.yaml]\nresults:\n  - {policy: p, rule: r, resource: web, status: fail, kind: Pod}\n";
      for (const [target, file, text] of [
        ["policy", "p.yaml", oldPolicy],
        ["test", "kyverno-test.yaml", oldTest],
      ] as const) {
        const dir = tempTree({ [file]: text, "orig.yaml": text });
        const diff = await run(["fix", target, join(dir, file), "--dry-run"]);
        assert.equal(diff.code, 0, diff.err);
        const patched = join(dir, "patched.yaml");
        const applied = spawnSync("patch", ["-s", "-o", patched, join(dir, "orig.yaml")], {
          input: diff.out + "\n",
          encoding: "utf8",
        });
        assert.equal(applied.status, 0, applied.stderr + applied.stdout);
        assert.equal(readFileSync(join(dir, file), "utf8"), text, "--dry-run changed nothing");
        assert.equal((await run(["fix", target, join(dir, file)])).code, 0);
        assert.equal(readFileSync(patched, "utf8"), readFileSync(join(dir, file), "utf8"), target);
      }
    },
  );
});

describe("bylaw fix usage", () => {
  test("no target, an unknown target or no path: one-line usage error", async () => {
    for (const args of [["fix"], ["fix", "values", "."], ["fix", "policy"]]) {
      const r = await run(args);
      assert.equal(r.code, 2, args.join(" "));
      assert.equal(r.err.split("\n").length, 2);
    }
  });
});
