import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import type { PolicyDocument, Rule } from "../api/policy.js";
import { invalidVariableProblems } from "./invalid-variables.js";

const BACKGROUND_RE = "request\\.|element|elementIndex|@|images|images\\.|image\\.|([a-z_0-9]+\\()[^{}]";

const rule = (extra: JsonObject): Rule => ({
  name: "r",
  match: { any: [{ resources: { kinds: ["Pod"] } }] },
  ...extra,
});
const deny = (key: string): JsonObject => ({
  validate: { deny: { conditions: { any: [{ key, operator: Equals, value: "x" }] } } },
});
const Equals = "Equals";
const texts = (r: Rule, background = true): string[] => {
  const policy = {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "p" },
    spec: { background, rules: [r] },
  } as unknown as PolicyDocument;
  return invalidVariableProblems(policy, r, "spec.rules[0]").map((p) => `${p.path}: ${p.message}`);
};

test("a variable no context entry defines and no built-in matches: Kyverno's text, naming the rule", () => {
  assert.deepEqual(texts(rule(deny("{{ missing.value }}"))), [
    `spec.rules[0]: policy contains invalid variables: variable substitution failed for rule r: variable missing.value must match regex "${BACKGROUND_RE}" or patterns []`,
  ]);
});

test("the rule's context entries, its foreach's, and built-ins are allowed; the patterns are listed in the text", () => {
  const context = [
    { name: "cm", configMap: { name: "c", namespace: "n" } },
    { name: "shared", globalReference: { name: "g" } },
    { name: "v", variable: { value: 1 } },
  ];
  const allowed = rule({
    context,
    validate: {
      message: "{{ request.object.metadata.name }} {{ to_upper(v) }} {{ shared.items }} {{ cm.data.team }}",
      foreach: [
        {
          list: "request.object.spec.containers",
          context: [{ name: "each", variable: { jmesPath: "element.name" } }],
          deny: { conditions: { any: [{ key: "{{ each }}", operator: Equals, value: "{{ element.image }}" }] } },
        },
      ],
    },
  });
  assert.deepEqual(texts(allowed), []);
  const refused = texts(rule({ context, ...deny("{{ cm.other }}") }));
  assert.equal(refused.length, 1);
  assert.match(
    refused[0] ?? "",
    /variable cm\.other must match regex .* or patterns \[cm\.data cm\.metadata cm\.data\.\* cm\.metadata\.\* shared\* v\*\]$/,
  );
});

test("with background scans off, the admission built-ins are allowed (serviceAccountName, request anywhere)", () => {
  const r = rule(deny("{{ serviceAccountName }}"));
  assert.equal(texts(r, true).length, 1);
  assert.deepEqual(texts(r, false), []);
});

test("escaped variables are text; quoted names lose their quotes; keys are checked too", () => {
  assert.deepEqual(texts(rule(deny("\\{{ not.a.variable }}"))), []);
  const context = [{ name: "my-map", configMap: { name: "c", namespace: "n" } }];
  assert.deepEqual(texts(rule({ context, ...deny('{{ "my-map".data.key }}') })), []);
  const keyed = rule({
    mutate: { patchStrategicMerge: { metadata: { labels: { "{{ unknown }}": "x" } } } },
  });
  assert.match(texts(keyed)[0] ?? "", /variable unknown must match/);
});

test("a variable built from inner ones is checked once they are replaced", () => {
  const context = [{ name: "v", variable: { value: "a" } }];
  assert.deepEqual(texts(rule({ context, ...deny("{{ v.{{ request.namespace }} }}") })), []);
  assert.match(
    texts(rule({ context, ...deny("{{ other.{{ request.namespace }} }}") }))[0] ?? "",
    /variable other\.null must/,
  );
});

test("verifyImages attestations' conditions are not checked, and attestation names count when images are validated", () => {
  const verifyImages = [
    {
      imageReferences: ["*"],
      attestations: [
        { name: "sbom", type: "x", conditions: [{ all: [{ key: "{{ anything }}", operator: Equals, value: "1" }] }] },
      ],
      validate: { deny: { conditions: { any: [{ key: "{{ sbom.count }}", operator: Equals, value: 0 }] } } },
    },
  ];
  assert.deepEqual(texts(rule({ verifyImages })), []);
});

test("an empty variable is Kyverno's invalid query, naming where it is", () => {
  assert.deepEqual(texts(rule(deny("{{ }}"))), [
    "spec.rules[0]: policy contains invalid variables: variable substitution failed for rule r: failed to resolve  at path /validate/deny/conditions/any/0/key: invalid query (nil)",
  ]);
});
