/** `bylaw apply --generate-exceptions [--generated-exception-ttl D]`: kyverno apply's PolicyException per failure. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { runInTree } from "../../../../test/support/cli-run.js";
import { parse } from "yaml";

const requireTeam = (kind: string, name: string, action = "Enforce", extra = "") => `apiVersion: kyverno.io/v1
kind: ${kind}
metadata: {name: ${name}${kind === "Policy" ? ", namespace: shop" : ""}}
spec:
  validationFailureAction: ${action}
  rules:
    - name: check-team
      match: {any: [{resources: {kinds: [${extra || "Pod"}]}}]}
      validate:
        message: team label required
        pattern: {metadata: {labels: {team: "?*"}}}
`;
const pod = (name: string, labels: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: shop, labels: ${labels}}
spec: {containers: [{name: c, image: nginx:1}]}
`;
const deployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx:1}]}
`;
const baseline = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: psa}
spec:
  validationFailureAction: Enforce
  rules:
    - name: baseline
      match: {any: [{resources: {kinds: [Pod]}}]}
      validate: {podSecurity: {level: baseline, version: latest}}
`;
const privileged = `apiVersion: v1
kind: Pod
metadata: {name: priv, namespace: shop}
spec: {containers: [{name: c, image: "ghcr.io/acme/tool:1.2@sha256:abc", securityContext: {privileged: true}}]}
`;

const apply = (args: string[], files: Record<string, string>) => runInTree("apply", args, files);

const docs = (out: string): unknown[] =>
  out
    .split(/^---$/m)
    .filter((d) => d.trim() !== "")
    .map((d) => parse(d) as unknown);

describe("bylaw apply --generate-exceptions", () => {
  // Bylaw's YAML writer indents sequences under their key (as the -p reports); the documents are Kyverno's.
  test("prints one kyverno.io/v2beta1 PolicyException per failing resource, in Kyverno's form, instead of the results", async () => {
    const files = {
      "p.yaml": requireTeam("ClusterPolicy", "require-team"),
      "r.yaml": `${pod("good", "{team: a}")}---\n${pod("bad", "{}")}`,
    };
    const { code, out } = await apply(["$DIR/p.yaml", "-r", "$DIR/r.yaml", "--generate-exceptions"], files);
    assert.equal(code, 1, "the failure still fails the run");
    assert.equal(
      out,
      `---
apiVersion: kyverno.io/v2beta1
kind: PolicyException
metadata:
  creationTimestamp: null
  labels:
    cleanup.kyverno.io/ttl: 720h0m0s
  name: require-team-check-team-shop-bad
spec:
  exceptions:
    - policyName: require-team
      ruleNames:
        - check-team
  match:
    all:
      - resources:
          kinds:
            - Pod
          names:
            - bad
          namespaces:
            - shop`,
    );
    assert.doesNotMatch(out, /pass: /);
  });

  test("--generated-exception-ttl sets the cleanup.kyverno.io/ttl label as Go writes the duration; 0 leaves it out", async () => {
    const files = { "p.yaml": requireTeam("ClusterPolicy", "require-team"), "r.yaml": pod("bad", "{}") };
    const day = await apply(
      ["$DIR/p.yaml", "-r", "$DIR/r.yaml", "--generate-exceptions", "--generated-exception-ttl", "36h30m"],
      files,
    );
    assert.match(day.out, /cleanup\.kyverno\.io\/ttl: 36h30m0s/);
    const none = await apply(
      ["$DIR/p.yaml", "-r", "$DIR/r.yaml", "--generate-exceptions", "--generated-exception-ttl", "0"],
      files,
    );
    assert.doesNotMatch(none.out, /labels|ttl/);
    assert.match(none.out, /name: require-team-check-team-shop-bad/);
  });

  test("a --generated-exception-ttl that is not a duration is a usage error naming it (exit 2)", async () => {
    const files = { "p.yaml": requireTeam("ClusterPolicy", "require-team"), "r.yaml": pod("bad", "{}") };
    const { code, out, err } = await apply(
      ["$DIR/p.yaml", "-r", "$DIR/r.yaml", "--generate-exceptions", "--generated-exception-ttl", "30 days"],
      files,
    );
    assert.equal(code, 2);
    assert.equal(out, "");
    assert.match(
      err,
      /invalid argument "30 days" for "--generated-exception-ttl" flag: time: unknown unit " days" in duration "30 days"/,
    );
  });

  test("an autogen rule's exception also covers the Pods it was generated for (kinds, names <name>-*, rule names)", async () => {
    const files = { "p.yaml": requireTeam("ClusterPolicy", "require-team"), "r.yaml": deployment };
    const { out } = await apply(["$DIR/p.yaml", "-r", "$DIR/r.yaml", "--generate-exceptions"], files);
    const [e] = docs(out) as { metadata: { name: string }; spec: { match: unknown; exceptions: unknown } }[];
    assert.equal(e?.metadata.name, "require-team-autogen-check-team-shop-web");
    assert.deepEqual(e?.spec.match, {
      all: [{ resources: { kinds: ["Deployment", "Pod"], names: ["web", "web-*"], namespaces: ["shop"] } }],
    });
    assert.deepEqual(e?.spec.exceptions, [
      { policyName: "require-team", ruleNames: ["autogen-check-team", "check-team"] },
    ]);
  });

  test("a failing podSecurity rule's exception lists the failed controls, with images as <name>*", async () => {
    const { out } = await apply(["$DIR/p.yaml", "-r", "$DIR/r.yaml", "--generate-exceptions"], {
      "p.yaml": baseline,
      "r.yaml": privileged,
    });
    const [e] = docs(out) as { spec: { podSecurity?: unknown } }[];
    assert.deepEqual(e?.spec.podSecurity, [{ controlName: "Privileged Containers", images: ["ghcr.io/acme/tool*"] }]);
  });

  test("--output-format json prints each exception as one JSON object in the Go struct's field order", async () => {
    const files = { "p.yaml": requireTeam("ClusterPolicy", "require-team"), "r.yaml": pod("bad", "{}") };
    const { out } = await apply(
      ["$DIR/p.yaml", "-r", "$DIR/r.yaml", "--generate-exceptions", "--output-format", "json"],
      files,
    );
    assert.equal(
      out,
      `---\n{"kind":"PolicyException","apiVersion":"kyverno.io/v2beta1","metadata":{"name":"require-team-check-team-shop-bad","creationTimestamp":null,"labels":{"cleanup.kyverno.io/ttl":"720h0m0s"}},"spec":{"match":{"all":[{"resources":{"kinds":["Pod"],"names":["bad"],"namespaces":["shop"]}}]},"exceptions":[{"policyName":"require-team","ruleNames":["check-team"]}]}}`,
    );
  });

  test("no exception for a namespaced Policy, for an Audit failure with --audit-warn, or when nothing failed", async () => {
    const namespaced = await apply(["$DIR/p.yaml", "-r", "$DIR/r.yaml", "--generate-exceptions"], {
      "p.yaml": requireTeam("Policy", "require-team"),
      "r.yaml": pod("bad", "{}"),
    });
    assert.equal(namespaced.code, 1);
    assert.equal(namespaced.out, "");
    const audit = await apply(["$DIR/p.yaml", "-r", "$DIR/r.yaml", "--generate-exceptions", "--audit-warn"], {
      "p.yaml": requireTeam("ClusterPolicy", "require-team", "Audit"),
      "r.yaml": pod("bad", "{}"),
    });
    assert.equal(audit.code, 0);
    assert.equal(audit.out, "");
    const clean = await apply(["$DIR/p.yaml", "-r", "$DIR/r.yaml", "--generate-exceptions"], {
      "p.yaml": requireTeam("ClusterPolicy", "require-team"),
      "r.yaml": pod("good", "{team: a}"),
    });
    assert.equal(clean.code, 0);
    assert.equal(clean.out, "");
  });

  test("-p wins over --generate-exceptions, as in kyverno apply", async () => {
    const files = { "p.yaml": requireTeam("ClusterPolicy", "require-team"), "r.yaml": pod("bad", "{}") };
    const { out } = await apply(["$DIR/p.yaml", "-r", "$DIR/r.yaml", "--generate-exceptions", "-p"], files);
    assert.match(out, /kind: ClusterReport/);
    assert.doesNotMatch(out, /PolicyException/);
  });
});
