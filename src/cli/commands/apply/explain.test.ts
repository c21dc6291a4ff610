/** `bylaw apply --explain`: what a user reads after the results, as text and in the JSON output. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";

const policies = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: require-team}
spec:
  rules:
    - name: check-team
      match: {any: [{resources: {kinds: [Pod], namespaces: [shop]}}]}
      exclude: {any: [{resources: {names: [system-*]}}]}
      validate:
        message: "Add metadata.labels.team."
        pattern: {metadata: {labels: {team: "?*"}}}
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: no-latest}
spec:
  rules:
    - name: tag
      match: {any: [{resources: {kinds: [Pod]}}]}
      preconditions:
        all: [{key: "{{ request.operation }}", operator: AnyIn, value: [CREATE, UPDATE]}]
      validate:
        message: "Pin the image tag."
        deny:
          conditions:
            any: [{key: "{{ request.object.spec.containers[0].image }}", operator: Equals, value: "*:latest"}]
`;
const pods = `apiVersion: v1
kind: Pod
metadata: {name: bad, namespace: shop}
spec: {containers: [{name: c, image: "nginx:latest"}]}
---
apiVersion: v1
kind: Pod
metadata: {name: system-agent, namespace: shop}
spec: {containers: [{name: c, image: "agent:1"}]}
`;

async function apply(...flags: string[]) {
  const dir = tempTree({ "p.yaml": policies, "pods.yaml": pods });
  const io = recordingIo();
  const code = await main(["apply", join(dir, "p.yaml"), "-r", join(dir, "pods.yaml"), ...flags], io);
  return { code, out: io.stdout.join("\n"), err: io.stderr.join("\n") };
}

describe("bylaw apply --explain", () => {
  test("text: after the results, each matching policy's rules with the clause, conditions and failing path", async () => {
    const { code, out } = await apply("--explain");
    assert.equal(code, 1);
    const explained = out.slice(out.indexOf("explain: "));
    assert.match(
      explained,
      /explain: ClusterPolicy require-team on Pod shop\/bad \(CREATE\)\n {2}rule check-team: fail\n {4}match: match\.any\[0\] selected it; no exclude filter excluded it\n {4}failed at \/metadata\/labels\/: found \(absent\), the pattern wants \{"team":"\?\*"\}\n {4}message: validation error: Add metadata\.labels\.team\./,
    );
    assert.match(
      explained,
      /explain: ClusterPolicy no-latest on Pod shop\/bad \(CREATE\)\n {2}rule tag: fail\n {4}match: match\.any\[0\] selected it; no exclude\n {4}preconditions: met\n {6}all\[0\] "CREATE" AnyIn \["CREATE","UPDATE"\] → true\n {4}deny conditions: denied\n {6}any\[0\] "nginx:latest" Equals "\*:latest" → true/,
    );
    // The excluded Pod: the exclude filter that decided, on one line with the rule.
    assert.match(
      explained,
      /explain: ClusterPolicy require-team on Pod shop\/system-agent[^\n]*\n(?: {2}.*\n)*? {2}rule check-team: not matched: match\.any\[0\] selected it, but exclude\.any\[0\] excluded it/,
    );
  });

  test("without --explain the output has no explanation", async () => {
    const { out } = await apply();
    assert.doesNotMatch(out, /explain:/);
  });

  test("json: the explanations list beside the results", async () => {
    const { out } = await apply("--explain", "--output-format", "json");
    const doc = JSON.parse(out) as {
      results: unknown[];
      explanations: { policy: string; resource: string; rules: { rule: string; match: { matched: boolean } }[] }[];
    };
    assert.ok(doc.results.length > 0);
    const bad = doc.explanations.find((e) => e.policy === "require-team" && e.resource === "Pod shop/bad");
    assert.deepEqual(
      bad?.rules.find((r) => r.rule === "check-team"),
      {
        rule: "check-team",
        match: { matched: true, reason: "match.any[0] selected it; no exclude filter excluded it" },
        results: [
          {
            rule: "check-team",
            type: "Validation",
            status: "fail",
            message: "validation error: Add metadata.labels.team. rule check-team failed at path /metadata/labels/",
            path: "/metadata/labels/",
          },
        ],
        failedAt: { path: "/metadata/labels/", value: "(absent)", expected: '{"team":"?*"}' },
      },
    );
  });

  test("each mutate policy's patch is what it changed on the resource the policies before it left", async () => {
    const mutators = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: add-team}
spec:
  rules:
    - name: team
      match: {any: [{resources: {kinds: [Pod]}}]}
      mutate: {patchStrategicMerge: {metadata: {labels: {team: platform}}}}
---
apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: add-tier}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: "Object{metadata: Object.metadata{labels: {'tier': object.metadata.labels.team + '-web'}}}"
`;
    const dir = tempTree({ "m.yaml": mutators, "pods.yaml": pods });
    const io = recordingIo();
    await main(["apply", join(dir, "m.yaml"), "-r", join(dir, "pods.yaml"), "--explain", "-o", "json"], io);
    const doc = JSON.parse(io.stdout.join("\n")) as {
      explanations: { policy: string; resource: string; rules: { rule: string; patch?: unknown; cel?: unknown[] }[] }[];
    };
    const on = (policy: string) => doc.explanations.find((e) => e.policy === policy && e.resource === "Pod shop/bad");
    assert.deepEqual(on("add-team")?.rules[0]?.patch, [
      { op: "add", path: "/metadata/labels", value: { team: "platform" } },
    ]);
    const tier = on("add-tier")?.rules.find((r) => r.patch !== undefined);
    assert.deepEqual(tier?.patch, [{ op: "add", path: "/metadata/labels/tier", value: "platform-web" }]);
    assert.equal(tier?.cel?.length, 1);
  });

  test("a kyverno.io validate rule is explained on what it saw: before a MutatingPolicy's patch, as Kyverno's CLI runs them", async () => {
    const both = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: require-tier}
spec:
  rules:
    - name: tier
      match: {any: [{resources: {kinds: [Pod]}}]}
      validate:
        message: "Add metadata.labels.tier."
        pattern: {metadata: {labels: {tier: "?*"}}}
---
apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: add-tier}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: "Object{metadata: Object.metadata{labels: {'tier': 'web'}}}"
`;
    const dir = tempTree({ "b.yaml": both, "pods.yaml": pods });
    const io = recordingIo();
    await main(["apply", join(dir, "b.yaml"), "-r", join(dir, "pods.yaml"), "--explain", "-o", "json"], io);
    const doc = JSON.parse(io.stdout.join("\n")) as {
      explanations: {
        policy: string;
        resource: string;
        rules: { rule: string; results?: { status: string }[]; failedAt?: { path: string; value: string } }[];
      }[];
    };
    const tier = doc.explanations
      .find((e) => e.policy === "require-tier" && e.resource === "Pod shop/bad")
      ?.rules.find((r) => r.rule === "tier");
    // The rule failed (it ran before the MutatingPolicy added the label), and its explanation says
    // why on that same resource: no labels, not the final resource where the label is present.
    assert.equal(tier?.results?.[0]?.status, "fail");
    assert.deepEqual(tier?.failedAt, { path: "/metadata/labels/", value: "(absent)", expected: '{"tier":"?*"}' });
  });

  test("outputs read by tools refuse it, naming the combination (exit 2)", async () => {
    for (const flags of [["--output-format", "junit"], ["--output-format", "sarif"], ["-p"], ["-t"]]) {
      const { code, err } = await apply("--explain", ...flags);
      assert.equal(code, 2, flags.join(" "));
      assert.match(
        err,
        /--explain (cannot be combined with|prints with the text, summary or json output)/,
        flags.join(" "),
      );
    }
  });
});
