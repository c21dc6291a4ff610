/** `bylaw test` with mutate and generate suites: patched, generated and clone-source resources, targets. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";
import { policyFixture } from "../../../../test/support/policy-fixtures.js";

const addTeam = policyFixture("add-team");
const pods = `apiVersion: v1
kind: Pod
metadata: {name: bare}
spec: {containers: [{name: c, image: nginx:1}]}
---
apiVersion: v1
kind: Pod
metadata: {name: labelled, labels: {team: alpha}}
spec: {containers: [{name: c, image: nginx:1}]}
`;
const patched = (team: string) => `apiVersion: v1
kind: Pod
metadata: {name: bare, namespace: default, labels: {team: ${team}}}
spec: {containers: [{name: c, image: nginx:1}]}
`;
const suite = (results: string, extra = "") => `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: s}
policies: [policy.yaml]
resources: [resources.yaml]
${extra}results:
${results}`;

interface Row {
  resource: string;
  ok: boolean;
  reason: string;
  actual: string | null;
  message: string;
}

async function run(files: Record<string, string>): Promise<{ code: number; rows: Row[]; error: string | null }> {
  const dir = tempTree(files);
  const io = recordingIo();
  const code = await main(["test", dir, "-o", "bylaw-json"], io);
  const out = JSON.parse(io.stdout.join("\n")) as { suites: { error: string | null; results: Row[] }[] };
  return { code, rows: out.suites[0]?.results ?? [], error: out.suites[0]?.error ?? null };
}

describe("bylaw test: patchedResources", () => {
  test("the patched resource must equal the file's object (an unset namespace counts as default)", async () => {
    const { code, rows } = await run({
      "policy.yaml": addTeam,
      "resources.yaml": pods,
      "patched.yaml": patched("bravo"),
      "labelled.yaml": pods.split("---\n")[1] ?? "",
      "kyverno-test.yaml":
        suite(`- {policy: add-team, rule: team, resources: [bare], kind: Pod, result: pass, patchedResources: patched.yaml}
- {policy: add-team, rule: team, resources: [labelled], kind: Pod, result: skip, patchedResources: labelled.yaml}
`),
    });
    assert.deepEqual(
      rows.map((r) => [r.resource, r.ok, r.reason]),
      [
        ["bare", true, "Ok"],
        ["labelled", true, "Ok"],
      ],
    );
    assert.equal(code, 0);
  });

  test("a different patched resource makes the actual result fail, with the differing path", async () => {
    const { code, rows } = await run({
      "policy.yaml": addTeam,
      "resources.yaml": pods,
      "patched.yaml": patched("charlie"),
      "kyverno-test.yaml": suite(
        "- {policy: add-team, rule: team, resources: [bare], kind: Pod, result: pass, patchedResources: patched.yaml}\n",
      ),
    });
    assert.equal(code, 1);
    assert.equal(rows[0]?.reason, "Resource diff");
    assert.equal(rows[0]?.actual, "fail");
    assert.match(rows[0]?.message ?? "", /\.metadata\.labels\.team: want "charlie", got "bravo"/);
  });

  test("a patched resource the file does not hold leaves the row unchecked with a warning, as kyverno test; failOnMissingResources fails it", async () => {
    const files = (flag: string) => ({
      "policy.yaml": addTeam,
      "resources.yaml": pods,
      "other.yaml": patched("bravo").replace("name: bare", "name: other"),
      "kyverno-test.yaml": suite(
        `- {policy: add-team, rule: team, resources: [bare], kind: Pod, result: fail, patchedResources: other.yaml${flag}}\n`,
      ),
    });
    const dir = tempTree(files(""));
    const io = recordingIo();
    assert.equal(await main(["test", dir], io), 0, "nothing checked, nothing failed");
    assert.doesNotMatch(io.stdout.join("\n"), /│ 1 /, "no row");
    assert.match(io.stdout.join("\n"), /Test Summary: 0 tests passed and 0 tests failed/);
    assert.match(
      io.stderr.join("\n"),
      /results\[0\] \(add-team, bare\): other\.yaml: no Pod default\/bare in the file: the row is not checked, as kyverno test leaves it \(failOnMissingResources: true fails it\)/,
    );
    const strict = await run(files(", failOnMissingResources: true"));
    assert.equal(strict.code, 1);
    assert.deepEqual(
      strict.rows.map((r) => [r.ok, r.reason]),
      [[false, "Resource error"]],
      "even a row expecting fail: the resource it names is not there",
    );
  });

  test("an unreadable patchedResources file is a Resource error", async () => {
    const { rows } = await run({
      "policy.yaml": addTeam,
      "resources.yaml": pods,
      "kyverno-test.yaml": suite(
        "- {policy: add-team, rule: team, resources: [bare], kind: Pod, result: pass, patchedResources: missing.yaml}\n",
      ),
    });
    assert.deepEqual(
      rows.map((r) => [r.ok, r.reason]),
      [[false, "Resource error"]],
    );
  });

  test("validate policies see the resource the mutate policies patched", async () => {
    const requireTeam = `---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: require-team}
spec:
  rules:
    - name: check
      match: {any: [{resources: {kinds: [Pod]}}]}
      validate: {pattern: {metadata: {labels: {team: "?*"}}}}
`;
    const { rows } = await run({
      "policy.yaml": addTeam + requireTeam,
      "resources.yaml": pods,
      "kyverno-test.yaml": suite("- {policy: require-team, rule: check, resources: [bare], kind: Pod, result: pass}\n"),
    });
    assert.deepEqual(
      rows.map((r) => [r.ok, r.actual]),
      [[true, "pass"]],
    );
  });
});

const syncSecret = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: sync-regcred}
spec:
  rules:
    - name: clone
      match: {any: [{resources: {kinds: [Namespace]}}]}
      generate:
        apiVersion: v1
        kind: Secret
        name: regcred
        namespace: "{{ request.object.metadata.name }}"
        synchronize: true
        clone: {namespace: default, name: regcred}
`;
const namespace = "apiVersion: v1\nkind: Namespace\nmetadata: {name: team-a}\n";
const source =
  "apiVersion: v1\nkind: Secret\nmetadata: {name: regcred, namespace: default, uid: abc, resourceVersion: '7'}\ntype: kubernetes.io/dockerconfigjson\ndata: {.dockerconfigjson: e30=}\n";
const copy =
  "apiVersion: v1\nkind: Secret\nmetadata: {name: regcred, namespace: team-a}\ntype: kubernetes.io/dockerconfigjson\ndata: {.dockerconfigjson: e30=}\n";

describe("bylaw test: generate", () => {
  test("clone from cloneSourceResource, compared with generatedResource (no Kyverno labels, no server fields)", async () => {
    const { code, rows } = await run({
      "policy.yaml": syncSecret,
      "resources.yaml": namespace,
      "source.yaml": source,
      "copy.yaml": copy,
      "kyverno-test.yaml": suite(
        "- {policy: sync-regcred, rule: clone, resources: [team-a], kind: Namespace, result: pass, cloneSourceResource: source.yaml, generatedResource: copy.yaml}\n",
      ),
    });
    assert.deepEqual(
      rows.map((r) => [r.ok, r.reason]),
      [[true, "Ok"]],
    );
    assert.equal(code, 0);
  });

  test("Kyverno's -o json names a generate row's RESOURCE by what the rule generated (/NAME), not the trigger", async () => {
    const dir = tempTree({
      "policy.yaml": syncSecret,
      "resources.yaml": namespace,
      "source.yaml": source,
      "kyverno-test.yaml": suite(
        "- {policy: sync-regcred, rule: clone, resources: [team-a], kind: Namespace, result: pass, cloneSourceResource: source.yaml}\n",
      ),
    });
    const io = recordingIo();
    assert.equal(await main(["test", dir, "-o", "json"], io), 0, io.stderr.join("\n"));
    const out = io.stdout.join("\n");
    const [row] = JSON.parse(out.slice(out.indexOf("\n[") + 1, out.indexOf("\nTest Summary"))) as Record<
      string,
      unknown
    >[];
    assert.deepEqual([row?.["RULE"], row?.["RESOURCE"], row?.["REASON"]], ["clone", "/regcred", "Ok"]);
  });

  test("without the clone source the rule errors and says where to supply it", async () => {
    const { rows } = await run({
      "policy.yaml": syncSecret,
      "resources.yaml": namespace,
      "copy.yaml": copy,
      "kyverno-test.yaml": suite(
        "- {policy: sync-regcred, rule: clone, resources: [team-a], kind: Namespace, result: pass, generatedResource: copy.yaml}\n",
      ),
    });
    assert.equal(rows[0]?.ok, false);
    assert.match(rows[0]?.message ?? "", /source Secret default\/regcred not found/);
  });
});

describe("bylaw test: mutate existing (targetResources)", () => {
  test("the patched target is compared with patchedResources; rows may name the target", async () => {
    const policy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: restart-on-secret}
spec:
  rules:
    - name: stamp
      match: {any: [{resources: {kinds: [Secret]}}]}
      mutate:
        targets:
          - {apiVersion: apps/v1, kind: Deployment, namespace: "{{ request.object.metadata.namespace }}"}
        patchStrategicMerge:
          spec: {template: {metadata: {annotations: {secret-version: "{{ request.object.metadata.resourceVersion }}"}}}}
`;
    const secret = "apiVersion: v1\nkind: Secret\nmetadata: {name: creds, namespace: apps, resourceVersion: '9'}\n";
    const deploy =
      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api, namespace: apps}\nspec: {template: {spec: {containers: [{name: c, image: i}]}}}\n";
    const after =
      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api, namespace: apps}\nspec: {template: {metadata: {annotations: {secret-version: '9'}}, spec: {containers: [{name: c, image: i}]}}}\n";
    const { rows } = await run({
      "policy.yaml": policy,
      "resources.yaml": secret,
      "targets.yaml": deploy,
      "after.yaml": after,
      "kyverno-test.yaml": suite(
        "- {policy: restart-on-secret, rule: stamp, resources: [api], kind: Deployment, result: pass, patchedResources: after.yaml}\n",
        "targetResources: [targets.yaml]\n",
      ),
    });
    assert.deepEqual(
      rows.map((r) => [r.ok, r.reason]),
      [[true, "Ok"]],
    );
  });
});
