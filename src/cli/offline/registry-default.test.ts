/**
 * bylaw apply without --registry, a policy whose imageRegistry entry a later variable's default stands
 * in for: as Kyverno's CLI, the entry is skipped and the default decides; stderr says so, once.
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

test("apply without --registry and no default: the rule is an error (the entry that reads it evaluates to nil), and the warning names --registry", async () => {
  const dir = tempTree({ "p.yaml": policy(false), "r.yaml": pods });
  const { io, stderr } = await applyCapturingStderr([join(dir, "p.yaml"), "-r", join(dir, "r.yaml")]);
  assert.match(io.stdout.join("\n"), /ERROR[\s\S]*failed to load context entry user/);
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
