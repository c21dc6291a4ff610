/**
 * `bylaw test` reads a test file's inputs as Kyverno's CLI does (cmd/cli/kubectl-kyverno: store,
 * variables, test loading): foreachValues per element, rule values for autogen rules, quoted
 * values keys, UPDATE's old object under the values, results naming no resource, every document
 * a test, any Test apiVersion, apiCallResponses and globalContextEntries for the CEL libraries, and
 * ValidatingPolicies whatever their evaluation.admission/background switches.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { offlineEngine } from "../offline/offline-engine.js";
import { tempTree } from "../../../test/support/temp-dir.js";
import { runSuites } from "./run-suite.js";

const header = (name: string, apiVersion = "cli.kyverno.io/v1alpha1") => `apiVersion: ${apiVersion}
kind: Test
metadata: {name: ${name}}
policies: [policy.yaml]
resources: [resources.yaml]
`;

async function run(files: Record<string, string>) {
  const dir = tempTree(files);
  return runSuites(join(dir, "kyverno-test.yaml"), offlineEngine);
}

function rows(suites: Awaited<ReturnType<typeof run>>) {
  return suites.flatMap((s) => {
    assert.equal(s.error, undefined, s.error);
    return s.results.map((r) => [r.resource, r.actual, r.ok]);
  });
}

const foreachPolicy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: images}
spec:
  rules:
    - name: allowed-image
      match: {any: [{resources: {kinds: [Pod]}}]}
      # The values give it (a variable no entry defines makes the policy invalid, as in Kyverno).
      context: [{name: allowed, apiCall: {urlPath: /api/v1/namespaces/default/configmaps/images, jmesPath: data.allowed}}]
      validate:
        foreach:
          - list: request.object.spec.containers
            deny:
              conditions:
                any:
                  - {key: "{{ element.image }}", operator: NotEquals, value: "{{ allowed }}"}
`;
const pods = `apiVersion: v1
kind: Pod
metadata: {name: good}
spec: {containers: [{name: a, image: one}, {name: b, image: two}]}
---
apiVersion: v1
kind: Pod
metadata: {name: bad}
spec: {containers: [{name: a, image: one}, {name: b, image: three}]}
`;

describe("bylaw test: test-file inputs", () => {
  test("foreachValues: each foreach element sees the list's value at its own index", async () => {
    const suites = await run({
      "policy.yaml": foreachPolicy,
      "resources.yaml": pods,
      "kyverno-test.yaml": `${header("foreach-values")}values:
  policies:
    - name: images
      rules:
        - name: allowed-image
          foreachValues:
            allowed: [one, two]
results:
  - {policy: images, rule: allowed-image, kind: Pod, resources: [good], result: pass}
  - {policy: images, rule: allowed-image, kind: Pod, resources: [bad], result: fail}
`,
    });
    assert.deepEqual(rows(suites), [
      ["good", "pass", true],
      ["bad", "fail", true],
    ]);
  });

  test("a foreachValues entry that is not a list is a suite error naming it", async () => {
    const suites = await run({
      "policy.yaml": foreachPolicy,
      "resources.yaml": pods,
      "kyverno-test.yaml": `${header("bad-foreach-values")}values:
  policies: [{name: images, rules: [{name: allowed-image, foreachValues: {allowed: one}}]}]
results:
  - {policy: images, rule: allowed-image, kind: Pod, resources: [good], result: pass}
`,
    });
    assert.match(suites[0]?.error ?? "", /foreachValues\.allowed: must be a list/);
    assert.equal(suites[0]?.results[0]?.ok, false);
  });

  test("a rule's values also apply to its autogen- and autogen-cronjob- rules", async () => {
    const suites = await run({
      "policy.yaml": `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: team}
spec:
  rules:
    - name: team-label
      match: {any: [{resources: {kinds: [Pod]}}]}
      context: [{name: team, apiCall: {urlPath: /api/v1/namespaces/default/configmaps/team, jmesPath: data.team}}]
      validate:
        deny:
          conditions:
            any: [{key: "{{ request.object.metadata.labels.team || '' }}", operator: NotEquals, value: "{{ team }}"}]
`,
      "resources.yaml": `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {team: blue}}
spec: {selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b, team: blue}}, spec: {containers: [{name: c, image: i}]}}}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, labels: {team: blue}}
spec: {schedule: "* * * * *", jobTemplate: {spec: {template: {metadata: {labels: {team: blue}}, spec: {containers: [{name: c, image: i}], restartPolicy: Never}}}}}
`,
      "kyverno-test.yaml": `${header("autogen-values")}values:
  policies: [{name: team, rules: [{name: team-label, values: {team: blue}}]}]
results:
  - {policy: team, rule: team-label, kind: Deployment, resources: [web], result: pass}
  - {policy: team, rule: team-label, kind: CronJob, resources: [nightly], result: pass}
`,
    });
    assert.deepEqual(rows(suites), [
      ["web", "pass", true],
      ["nightly", "pass", true],
    ]);
  });

  test('a values key with a quoted segment ("a.b/c") is one segment', async () => {
    const suites = await run({
      "policy.yaml": `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: quoted}
spec:
  rules:
    - name: annotation
      match: {any: [{resources: {kinds: [ConfigMap]}}]}
      context: [{name: config, apiCall: {urlPath: /api/v1/namespaces/default/configmaps/config, jmesPath: data}}]
      validate:
        deny:
          conditions:
            any: [{key: "{{ config.\\"a.b/c\\" }}", operator: NotEquals, value: "yes"}]
`,
      "resources.yaml": `apiVersion: v1
kind: ConfigMap
metadata: {name: cm, namespace: default}
`,
      "kyverno-test.yaml": `${header("quoted-key")}values:
  globalValues:
    'config."a.b/c"': "yes"
results:
  - {policy: quoted, rule: annotation, kind: ConfigMap, resources: [cm], result: pass}
`,
    });
    assert.deepEqual(rows(suites), [["cm", "pass", true]]);
  });

  test("a values key Kyverno cannot split is a suite error naming the key", async () => {
    const suites = await run({
      "policy.yaml": foreachPolicy,
      "resources.yaml": pods,
      "kyverno-test.yaml": `${header("bad-key")}values:
  globalValues:
    'config.a"b': "yes"
results:
  - {policy: images, rule: allowed-image, kind: Pod, resources: [good], result: pass}
`,
    });
    assert.match(suites[0]?.error ?? "", /globalValues: key "config\.a\\"b"/);
  });

  test("request.operation UPDATE: the old object is set first, values for request.oldObject.* are layered on it", async () => {
    const suites = await run({
      "policy.yaml": `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: keep-team}
spec:
  rules:
    - name: unchanged
      match: {any: [{resources: {kinds: [ConfigMap]}}]}
      validate:
        deny:
          conditions:
            all:
              - {key: "{{ request.operation }}", operator: Equals, value: UPDATE}
              - {key: "{{ request.oldObject.metadata.labels.team }}", operator: NotEquals, value: red}
`,
      "resources.yaml": `apiVersion: v1
kind: ConfigMap
metadata: {name: cm, namespace: default, labels: {team: blue}}
`,
      "kyverno-test.yaml": `${header("old-object")}values:
  policies:
    - name: keep-team
      resources:
        - name: cm
          values:
            request.operation: UPDATE
            request.oldObject.metadata.labels.team: red
results:
  - {policy: keep-team, rule: unchanged, kind: ConfigMap, resources: [cm], result: pass}
`,
    });
    assert.deepEqual(rows(suites), [["cm", "pass", true]]);
  });

  test("a results entry with no resources checks every resource the rule matched", async () => {
    const suites = await run({
      "policy.yaml": foreachPolicy,
      "resources.yaml": pods,
      "kyverno-test.yaml": `${header("all-resources")}values:
  policies: [{name: images, rules: [{name: allowed-image, foreachValues: {allowed: [one, two]}}]}]
results:
  - {policy: images, rule: allowed-image, kind: Pod, result: fail}
`,
    });
    assert.deepEqual(rows(suites), [
      ["good", "pass", false],
      ["bad", "fail", true],
    ]);
  });

  test("a results entry with no resources and nothing matched fails as Not found", async () => {
    const suites = await run({
      "policy.yaml": foreachPolicy,
      "resources.yaml": `apiVersion: v1
kind: ConfigMap
metadata: {name: cm}
`,
      "kyverno-test.yaml": `${header("nothing-matched")}results:
  - {policy: images, rule: allowed-image, kind: Pod, result: pass}
`,
    });
    const [row] = suites[0]?.results ?? [];
    assert.equal(row?.ok, false);
    assert.equal(row?.reason, "Not found");
  });

  test("every document of a test file is a test, and any Test apiVersion is read", async () => {
    const suites = await run({
      "policy.yaml": foreachPolicy,
      "resources.yaml": pods,
      "kyverno-test.yaml": `${header("first")}values:
  policies: [{name: images, rules: [{name: allowed-image, foreachValues: {allowed: [one, two]}}]}]
results:
  - {policy: images, rule: allowed-image, kind: Pod, resources: [good], result: pass}
---
${header("second", "cli.kyverno.io/v1beta1")}values:
  policies: [{name: images, rules: [{name: allowed-image, foreachValues: {allowed: [one, two]}}]}]
results:
  - {policy: images, rule: allowed-image, kind: Pod, resources: [bad], result: fail}
`,
    });
    assert.deepEqual(
      suites.map((s) => s.name),
      ["first", "second"],
    );
    assert.deepEqual(rows(suites), [
      ["good", "pass", true],
      ["bad", "fail", true],
    ]);
    assert.notEqual(suites[0]?.results[0]?.id, suites[1]?.results[0]?.id);
  });
  test("namespaceObject is the values file's Namespace whole (annotations too); namespaces: wins over namespaceSelector:", async () => {
    const suites = await run({
      "policy.yaml": `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: registries}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  validations:
    - expression: >-
        object.spec.containers.all(c, c.image.startsWith(namespaceObject.metadata.?annotations["corp/registry"].orValue("none/")))
        && namespaceObject.metadata.labels.team == "a"
`,
      "resources.yaml": `apiVersion: v1
kind: Pod
metadata: {name: good, namespace: ns1}
spec: {containers: [{name: a, image: corp.io/x}]}
---
apiVersion: v1
kind: Pod
metadata: {name: bad, namespace: ns1}
spec: {containers: [{name: a, image: docker.io/x}]}
---
apiVersion: v1
kind: Pod
metadata: {name: labels-only, namespace: ns2}
spec: {containers: [{name: a, image: corp.io/x}]}
`,
      "kyverno-test.yaml": `${header("namespace-object")}values:
  namespaceSelector:
    - {name: ns1, labels: {team: b}}
    - {name: ns2, labels: {team: a}}
  namespaces:
    - apiVersion: v1
      kind: Namespace
      metadata: {name: ns1, labels: {team: a}, annotations: {corp/registry: corp.io/}}
results:
  - {policy: registries, kind: Pod, resources: [ns1/good], result: pass, isValidatingPolicy: true}
  - {policy: registries, kind: Pod, resources: [ns1/bad, ns2/labels-only], result: fail, isValidatingPolicy: true}
`,
    });
    assert.deepEqual(rows(suites), [
      ["ns1/good", "pass", true],
      ["ns1/bad", "fail", true],
      ["ns2/labels-only", "fail", true],
    ]);
  });

  const cel = (name: string, expression: string, evaluation = "") => `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: ${name}}
spec:
${evaluation}  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  validations: [{expression: ${JSON.stringify(expression)}, message: "no"}]
`;
  const onePod =
    "apiVersion: v1\nkind: Pod\nmetadata: {name: good, namespace: default}\nspec: {containers: [{name: a, image: one}]}\n";

  // Kyverno's Test v1alpha1: apiCallResponses [{url | urlPath, method, response: {statusCode, body}}], globalContextEntries [{name, data}].
  test("apiCallResponses answer CEL http.Get/Post by URL and method; globalContextEntries answer globalContext.Get", async () => {
    const suites = await run({
      "policy.yaml": [
        cel(
          "http",
          "http.Get('https://svc.example/allow').body.allowed == true && http.Post('https://svc.example/decide', {'n': 1}).body.verdict == 'yes'",
        ),
        cel("global", "globalContext.Get('registries', 'allowed').exists(r, r == 'one')"),
      ].join("---\n"),
      "resources.yaml": onePod,
      "kyverno-test.yaml": `${header("mocks")}apiCallResponses:
  - {url: "https://svc.example/allow", method: GET, response: {body: {allowed: true}}}
  - {url: "https://svc.example/decide", method: POST, response: {statusCode: 200, body: {verdict: "yes"}}}
globalContextEntries:
  - {name: registries, data: {allowed: [one, two]}}
results:
  - {policy: http, resources: [good], result: pass, isValidatingPolicy: true}
  - {policy: global, resources: [good], result: pass, isValidatingPolicy: true}
`,
    });
    assert.deepEqual(rows(suites), [
      ["good", "pass", true],
      ["good", "pass", true],
    ]);
  });

  // Kyverno's CLI mock (pkg/cel/libs/http_mock.go): a mocked URL answers with the entry's response as written,
  // whatever its status: the body under .body, statusCode only where the entry gives it; an entry with no method
  // answers every method.
  test("a mocked http answer is the entry's response as written: .body and .statusCode", async () => {
    const suites = await run({
      "policy.yaml": cel(
        "http",
        [
          "http.Get('https://svc.example/registries').body == ['one', 'two']",
          "!has(http.Get('https://svc.example/registries').statusCode)",
          "http.Get('https://svc.example/allow').body.allowed == true",
          "http.Get('https://svc.example/allow').statusCode == 201",
          "!has(http.Get('https://svc.example/allow').allowed)",
          "http.Post('https://svc.example/any-method', {'n': 1}).body.verdict == 'yes'",
          "http.Get('https://svc.example/missing').statusCode == 404",
          "http.Get('https://svc.example/missing').body.reason == 'gone'",
          "http.Get('https://svc.example/text').body == 'plain'",
        ].join(" && "),
      ),
      "resources.yaml": onePod,
      "kyverno-test.yaml": `${header("answers")}apiCallResponses:
  - {url: "https://svc.example/registries", method: GET, response: {body: [one, two]}}
  - {url: "https://svc.example/allow", response: {statusCode: 201, body: {allowed: true}}}
  - {url: "https://svc.example/any-method", response: {body: {verdict: "yes"}}}
  - {url: "https://svc.example/missing", response: {statusCode: 404, body: {reason: gone}}}
  - {url: "https://svc.example/text", response: {body: plain}}
results:
  - {policy: http, resources: [good], result: pass, isValidatingPolicy: true}
`,
    });
    assert.deepEqual(rows(suites), [["good", "pass", true]]);
  });

  test("an entry naming the method answers before one naming none", async () => {
    const suites = await run({
      "policy.yaml": cel(
        "http",
        "http.Get('https://svc.example/x').body.from == 'get' && http.Post('https://svc.example/x', {}).body.from == 'any'",
      ),
      "resources.yaml": onePod,
      "kyverno-test.yaml": `${header("methods")}apiCallResponses:
  - {url: "https://svc.example/x", response: {body: {from: any}}}
  - {url: "https://svc.example/x", method: GET, response: {body: {from: get}}}
results:
  - {policy: http, resources: [good], result: pass, isValidatingPolicy: true}
`,
    });
    assert.deepEqual(rows(suites), [["good", "pass", true]]);
  });

  test("a call no apiCallResponses entry answers is an error, never a pass", async () => {
    const suites = await run({
      "policy.yaml": cel("http", "http.Get('https://svc.example/other').allowed == true"),
      "resources.yaml": onePod,
      "kyverno-test.yaml": `${header("unmocked")}apiCallResponses:
  - {url: "https://svc.example/allow", response: {body: {allowed: true}}}
results:
  - {policy: http, resources: [good], result: pass, isValidatingPolicy: true}
`,
    });
    assert.deepEqual(rows(suites), [["good", "error", false]]);
    const message = suites[0]?.results[0]?.message ?? "";
    assert.match(message, /https:\/\/svc\.example\/other/);
    assert.match(message, /no apiCallResponses entry answers GET/);
  });

  test("a globalContextEntries entry's fieldPath shapes what CEL globalContext.Get reads too", async () => {
    const suites = await run({
      "policy.yaml": cel("global", "globalContext.Get('registries', 'allowed').size() > 0"),
      "resources.yaml": onePod,
      "kyverno-test.yaml": `${header("shaped")}globalContextEntries:
  - {name: registries, data: {a: {allowed: [one]}}, fieldPath: a}
results:
  - {policy: global, resources: [good], result: pass, isValidatingPolicy: true}
`,
    });
    assert.equal(suites[0]?.error, undefined);
    assert.deepEqual(rows(suites), [["good", "pass", true]]);
  });

  // Kyverno's CLI evaluates a ValidatingPolicy whatever its evaluation switches (pkg/cel/policies/vpol/engine reads neither; they steer the webhook and background scans).
  test("evaluation.admission.enabled and evaluation.background.enabled false do not keep a ValidatingPolicy out of bylaw test", async () => {
    const suites = await run({
      "policy.yaml": cel(
        "switched-off",
        "object.metadata.name == 'other'",
        "  evaluation: {admission: {enabled: false}, background: {enabled: false}}\n",
      ),
      "resources.yaml": onePod,
      "kyverno-test.yaml": `${header("switches")}results:
  - {policy: switched-off, resources: [good], result: fail, isValidatingPolicy: true}
`,
    });
    assert.deepEqual(rows(suites), [["good", "fail", true]]);
  });
});
