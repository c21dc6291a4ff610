/**
 * An imageRegistry entry with no registry access: Kyverno's CLI skips it, so a later variable entry's
 * default applies. Bylaw follows it there and warns through the port; with no such default the entry
 * stays an error naming --registry.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { createEngine } from "../engine.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { pod } from "../../../test/support/builders.js";
import { defaultReadingEntry } from "./registry-default.js";

function policy(context: JsonObject[], key: string): JsonObject {
  return {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "p" },
    spec: {
      validationFailureAction: "Enforce",
      rules: [
        {
          name: "r",
          match: { any: [{ resources: { kinds: ["Pod"] } }] },
          context,
          validate: {
            message: `runs as ${key}`,
            deny: { conditions: { any: [{ key, operator: "Equals", value: "root" }] } },
          },
        },
      ],
    },
  };
}

const imageData = { name: "imageData", imageRegistry: { reference: "{{ request.object.spec.containers[0].image }}" } };

function run(doc: JsonObject) {
  const warnings: string[] = [];
  const ports = fakePorts();
  const engine = createEngine({ ...ports, context: { ...ports.context, warn: (m) => warnings.push(m) } });
  const compiled = engine.compile(doc);
  if (!compiled.ok) throw new Error(compiled.problems.map((p) => p.message).join("; "));
  const [rule] = engine.validate(compiled.policy, {
    resource: pod({ name: "web" }),
    operation: "CREATE",
    namespaceLabels: {},
  }).rules;
  return { rule, warnings };
}

describe("imageRegistry entry without registry access", () => {
  test("a later variable entry's default applies, with a warning naming both entries", () => {
    const user = { name: "user", variable: { jmesPath: "imageData.configData.config.User", default: "root" } };
    const { rule, warnings } = run(policy([imageData, user], "{{ user }}"));
    assert.deepEqual([rule?.status, rule?.message], ["fail", "runs as root"]);
    assert.equal(warnings.length, 1);
    assert.match(
      warnings[0] ?? "",
      /context entry "imageData" reads an image registry, and this run has no registry access \(--registry\): the entry is skipped, as Kyverno's CLI skips it, and the default of context entry "user" applies/,
    );
  });
  test("a variable's value that reads the entry is an error whatever its default, as in Kyverno's CLI", () => {
    const user = {
      name: "user",
      variable: { value: "{{ imageData.configData.config.User }}", jmesPath: "@", default: "nobody" },
    };
    assert.equal(defaultReadingEntry("imageData", [user]), undefined);
    const { rule, warnings } = run(policy([imageData, user], "{{ user }}"));
    // An error, not the default (kyverno apply v1.19.0 errors too, "Unknown key imageData", checked
    // beside it); here the entry's own error says why it is missing.
    assert.equal(rule?.status, "error");
    assert.match(
      rule?.message ?? "",
      /failed to substitute variables in context entry user \{\{ imageData\.configData\.config\.User \}\}: .*--registry/,
    );
    assert.deepEqual(warnings, []);
  });
  test("without such a default the entry is still an error naming --registry, never a pass", () => {
    const user = { name: "user", variable: { jmesPath: "imageData.configData.config.User" } };
    const { rule, warnings } = run(policy([imageData, user], "{{ user }}"));
    assert.equal(rule?.status, "error");
    assert.match(rule?.message ?? "", /failed to load context entry imageData: .*--registry/);
    assert.deepEqual(warnings, []);
  });
  test("a default of an entry that reads another name does not stand in; a rule that never reads the entry is no error", () => {
    const other = { name: "other", variable: { jmesPath: "imageDataX.user", default: "root" } };
    assert.equal(defaultReadingEntry("imageData", [other]), undefined);
    const { rule, warnings } = run(policy([imageData, other], "{{ other }}"));
    // Kyverno loads an entry when a query names it: imageData is never read, so its failure is not the rule's.
    assert.equal(rule?.status, "fail");
    assert.doesNotMatch(rule?.message ?? "", /registry/);
    assert.deepEqual(warnings, []);
    const { rule: reads } = run(policy([imageData, other], "{{ imageData.configData.config.User }}"));
    assert.equal(reads?.status, "error");
    assert.match(reads?.message ?? "", /failed to load context entry imageData: .*--registry/);
  });
});
