/**
 * bylaw apply with context entries nothing in the run can load (an imageRegistry entry without
 * --registry, a ConfigMap neither a cluster nor the resources hold): as Kyverno's CLI, the entry is
 * skipped, a plain read is an unknown-key error, a fallback the policy gives applies, and stderr says
 * so once per entry.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../main.js";
import { recordingIo } from "../../../test/support/fake-io.js";
import { tempTree } from "../../../test/support/temp-dir.js";

const policy = (withDefault: boolean) => `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: image-user}
spec:
  validationFailureAction: Enforce
  background: false
  rules:
    - name: not-root
      match: {any: [{resources: {kinds: [Pod]}}]}
      context:
        - name: imageData
          imageRegistry: {reference: "{{ request.object.spec.containers[0].image }}"}
        - name: user
          variable:
            jmesPath: imageData.configData.config.User
${withDefault ? "            default: root\n" : ""}      validate:
        message: "runs as {{ user }}"
        deny:
          conditions:
            any:
              - {key: "{{ user }}", operator: Equals, value: root}
`;
const pods = `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop}
spec: {containers: [{name: c, image: nginx:1}]}
---
apiVersion: v1
kind: Pod
metadata: {name: api, namespace: shop}
spec: {containers: [{name: c, image: nginx:1}]}
`;

async function applyCapturingStderr(args: string[]) {
  const io = recordingIo();
  const written: string[] = [];
  const original = process.stderr.write.bind(process.stderr);
  process.stderr.write = (chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  };
  try {
    const code = await main(["apply", ...args, "--detailed-results"], io);
    return { code, io, stderr: written.join("") };
  } finally {
    process.stderr.write = original;
  }
}

test("apply without --registry: the variable's default applies, with one warning naming the entries", async () => {
  const dir = tempTree({ "p.yaml": policy(true), "r.yaml": pods });
  const { code, io, stderr } = await applyCapturingStderr([join(dir, "p.yaml"), "-r", join(dir, "r.yaml")]);
  assert.equal(code, 1, io.stdout.join("\n"));
  assert.match(io.stdout.join("\n"), /runs as root/);
  const warnings = stderr.split("\n").filter((l) => l.includes('context entry "imageData"'));
  assert.equal(warnings.length, 1, stderr);
  assert.match(
    warnings[0] ?? "",
    /^warning: context entry "imageData" reads an image registry, and this run has no registry access: the entry is skipped, as Kyverno's CLI skips it.*Run with --registry/,
  );
});

test("apply without --registry and no default: the rule is an error (the query of the skipped entry fails), and the warning names --registry", async () => {
  const dir = tempTree({ "p.yaml": policy(false), "r.yaml": pods });
  const { io, stderr } = await applyCapturingStderr([
    join(dir, "p.yaml"),
    "-r",
    join(dir, "r.yaml"),
    "--output-format",
    "summary",
  ]);
  // kyverno apply's text for the same policy (checked beside it): the query of the skipped entry fails.
  assert.match(
    io.stdout.join("\n"),
    /ERROR[\s\S]*failed to apply jmespath imageData\.configData\.config\.User to variable <nil>: JMESPath query failed: Unknown key "imageData" in path/,
  );
  assert.doesNotMatch(io.stdout.join("\n"), /PASS|FAIL/);
  assert.match(stderr, /context entry "imageData" .*is skipped.*Run with --registry/);
});

const celPolicy = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: base-images}
spec:
  validationActions: [Audit]
  matchConstraints:
    resourceRules:
      - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods]}
  validations:
    - expression: "object.spec.containers.all(c, image.GetMetadata(c.image).config != null)"
`;

test("CEL image.GetMetadata without --registry: the result's message is Kyverno's text; how to read registries is said once, on stderr", async () => {
  const dir = tempTree({ "p.yaml": celPolicy, "r.yaml": pods });
  const { io, stderr } = await applyCapturingStderr([join(dir, "p.yaml"), "-r", join(dir, "r.yaml"), "-o", "json"]);
  const results = (JSON.parse(io.stdout.join("\n")) as { results: { result: string; message: string }[] }).results;
  assert.equal(results.length, 2);
  for (const r of results) {
    assert.equal(r.result, "error");
    assert.match(r.message, /failed to get image data: image data for nginx:1 not found in the context$/);
  }
  const warnings = stderr.split("\n").filter((l) => l.includes("no registry access"));
  assert.deepEqual(warnings, [
    "warning: image data was not in the context and this run has no registry access: run with --registry to read it from the registry",
  ]);
});

const configMapPolicy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: cm}
spec:
  background: false
  rules:
    - name: plain
      match: {any: [{resources: {kinds: [Pod]}}]}
      context: [{name: filters, configMap: {name: filters, namespace: default}}]
      validate:
        message: excluded
        deny: {conditions: {any: [{key: "{{ filters.data.team }}", operator: Equals, value: shop}]}}
    - name: fallback
      match: {any: [{resources: {kinds: [Pod]}}]}
      context: [{name: filters, configMap: {name: filters, namespace: default}}]
      validate:
        message: excluded
        deny: {conditions: {any: [{key: "{{ filters.data.team || 'shop' }}", operator: Equals, value: shop}]}}
`;

test("apply with a ConfigMap entry nothing holds: a plain read is Kyverno's unknown-key error, the fallback applies, one warning", async () => {
  const dir = tempTree({ "p.yaml": configMapPolicy, "r.yaml": pods });
  const { code, io, stderr } = await applyCapturingStderr([join(dir, "p.yaml"), "-r", join(dir, "r.yaml"), "-t"]);
  assert.equal(code, 1);
  const table = io.stdout.join("\n");
  assert.match(table, /│ plain +│ shop\/Pod\/web +│ Error/);
  assert.match(table, /│ fallback +│ shop\/Pod\/web +│ Fail/);
  const warnings = stderr.split("\n").filter((l) => l.includes('context entry "filters"'));
  assert.equal(warnings.length, 1, stderr);
  assert.match(
    warnings[0] ?? "",
    /reads a ConfigMap, and this run reads no cluster .*the entry is skipped, as Kyverno's CLI skips it/,
  );
});

test("apply with a value for the ConfigMap entry's name in a values file: both rules read it, nothing is skipped", async () => {
  const values = "apiVersion: cli.kyverno.io/v1alpha1\nkind: Values\nglobalValues:\n  filters: {data: {team: web}}\n";
  const dir = tempTree({ "p.yaml": configMapPolicy, "r.yaml": pods, "v.yaml": values });
  const { code, io, stderr } = await applyCapturingStderr([
    join(dir, "p.yaml"),
    "-r",
    join(dir, "r.yaml"),
    "-f",
    join(dir, "v.yaml"),
    "-t",
  ]);
  assert.equal(code, 0, io.stdout.join("\n"));
  assert.doesNotMatch(io.stdout.join("\n"), /Error|Fail/);
  assert.doesNotMatch(stderr, /context entry "filters"/);
});
