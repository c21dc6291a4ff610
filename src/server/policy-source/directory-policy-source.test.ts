import { kyvernoCompiledRules } from "../../engine/index.js";
import assert from "node:assert/strict";
import { mkdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { tempTree } from "../../../test/support/temp-dir.js";
import type { PolicyProblem } from "../../engine/index.js";
import { liveHandles, names, open, policyYaml, sleep } from "../../../test/support/policy-source-dir.js";

describe("directoryPolicySource: loading", () => {
  test("loads every policy document recursively, skipping non-policies and hidden entries", async () => {
    const dir = tempTree({
      "a.yaml": policyYaml("alpha"),
      "nested/deeper/b.yml": `${policyYaml("beta")}---\n${policyYaml("gamma", "team")}`,
      "kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [a.yaml]\n",
      ".hidden/c.yaml": policyYaml("hidden"),
      "notes.txt": "not yaml",
    });
    const { source, logs } = await open({ dir, now: () => 1234 });
    try {
      assert.deepEqual(names(source), ["alpha", "beta", "gamma"]);
      assert.equal(source.current().generation, 1);
      assert.equal(source.current().loadedAt, 1234);
      assert.equal(source.lastError(), undefined);
      assert.ok(
        logs.some((l) => l.level === "warn" && /kustomization\.yaml: document 1.*skipped/.test(l.msg)),
        JSON.stringify(logs),
      );
    } finally {
      await source.close();
    }
  });

  test("adding, modifying and deleting a file each make a new generation", async () => {
    const dir = tempTree({ "a.yaml": policyYaml("alpha") });
    const { source, next } = await open({ dir });
    try {
      writeFileSync(join(dir, "b.yaml"), policyYaml("beta"));
      const added = await next("loaded");
      assert.equal(added.kind === "loaded" && added.snapshot.generation, 2);
      assert.equal(added.kind === "loaded" && added.previous?.generation, 1);
      assert.deepEqual(names(source), ["alpha", "beta"]);

      mkdirSync(join(dir, "sub"));
      writeFileSync(join(dir, "sub", "c.yaml"), policyYaml("gamma"));
      await next("loaded");
      assert.deepEqual(names(source), ["alpha", "beta", "gamma"]);

      writeFileSync(join(dir, "sub", "c.yaml"), policyYaml("gamma", "owner"));
      await next("loaded");
      const gamma = source.current().policies.find((p) => p.name === "gamma");
      assert.equal(kyvernoCompiledRules(gamma ?? assert.fail("no gamma"))[0]?.name, "require-owner");

      rmSync(join(dir, "b.yaml"));
      const removed = await next("loaded");
      assert.deepEqual(names(source), ["alpha", "gamma"]);
      assert.equal(removed.kind === "loaded" && removed.snapshot, source.current());
    } finally {
      await source.close();
    }
  });

  test("an invalid edit keeps the last good set and names the file, document, line and field; a fix recovers", async () => {
    const dir = tempTree({ "a.yaml": policyYaml("alpha"), "b.yaml": policyYaml("beta") });
    const { source, next } = await open({ dir });
    try {
      const good = source.current();
      writeFileSync(
        join(dir, "b.yaml"),
        `${policyYaml("beta")}---\n${policyYaml("broken", "app", "  validationFailureAction: Bogus\n")}`,
      );
      const rejected = await next("rejected");
      assert.equal(source.current(), good, "the last good snapshot stays in use");
      const error = source.lastError();
      assert.ok(error !== undefined && rejected.kind === "rejected");
      assert.equal(rejected.error, error);
      const [first] = error.problems;
      assert.equal(first?.file, join(dir, "b.yaml"));
      const p = first as { document?: number; line?: number; policy?: string; problem: PolicyProblem };
      assert.equal(p.document, 2);
      assert.equal(p.line, 19);
      assert.equal(p.policy, "broken");
      assert.equal(p.problem.path, "spec.validationFailureAction");
      assert.match(error.message, /keeping generation 1 \(2 policies\)/);
      assert.match(
        error.message,
        /b\.yaml: document 2 \(line 19\): policy broken: spec\.validationFailureAction: Unsupported value: "Bogus"/,
      );

      writeFileSync(join(dir, "a.yaml"), "apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata: {name: alpha\n");
      await next("rejected");
      assert.equal(source.current(), good);
      assert.equal(source.lastError()?.problems.length, 2, "both broken files are reported");
      assert.ok(
        source.lastError()?.problems.some((x) => x.file === join(dir, "a.yaml") && typeof x.problem === "string"),
      );

      writeFileSync(join(dir, "a.yaml"), policyYaml("alpha"));
      writeFileSync(join(dir, "b.yaml"), policyYaml("beta", "tier"));
      const loaded = await next("loaded");
      assert.equal(source.lastError(), undefined);
      assert.equal(loaded.kind === "loaded" && loaded.previous, good);
      assert.equal(source.current().generation, 2);
    } finally {
      await source.close();
    }
  });

  test("two policies with the same name are rejected as a set", async () => {
    const dir = tempTree({ "a.yaml": policyYaml("alpha"), "z/again.yaml": policyYaml("alpha", "team") });
    const { source } = await open({ dir });
    try {
      assert.equal(source.current().generation, 0);
      const problem = source.lastError()?.problems[0];
      assert.equal(problem?.file, join(dir, "z", "again.yaml"));
      assert.match(
        source.lastError()?.message ?? "",
        /duplicate ClusterPolicy alpha: already defined in .*a\.yaml: document 1/,
      );
    } finally {
      await source.close();
    }
  });

  test("a failing first load resolves with an empty generation 0 and the reason; fixing it loads", async () => {
    const dir = tempTree({ "a.yaml": "kind: ClusterPolicy\napiVersion: kyverno.io/v1\nmetadata: [\n" });
    const { source, next } = await open({ dir });
    try {
      assert.equal(source.current().generation, 0);
      assert.deepEqual(source.current().policies, []);
      assert.match(source.lastError()?.message ?? "", /^no policies loaded: .*a\.yaml: document 1/);
      writeFileSync(join(dir, "a.yaml"), policyYaml("alpha"));
      const loaded = await next("loaded");
      assert.equal(loaded.kind === "loaded" && loaded.previous, undefined, "nothing was loaded before");
      assert.deepEqual(names(source), ["alpha"]);
      assert.equal(source.lastError(), undefined);
    } finally {
      await source.close();
    }
  });

  test("an empty directory is a valid, empty set only with allowEmpty", async () => {
    const { source } = await open({ dir: tempTree({}), allowEmpty: true });
    try {
      assert.equal(source.current().generation, 1);
      assert.equal(source.lastError(), undefined);
    } finally {
      await source.close();
    }
  });

  test("unchanged content does not make a new generation", async () => {
    const dir = tempTree({ "a.yaml": policyYaml("alpha") });
    const { source, events } = await open({ dir });
    try {
      writeFileSync(join(dir, "a.yaml"), policyYaml("alpha"));
      utimesSync(join(dir, "a.yaml"), new Date(), new Date(Date.now() + 5000));
      await sleep(200);
      assert.deepEqual(events, []);
      assert.equal(source.current().generation, 1);
    } finally {
      await source.close();
    }
  });
});

describe("directoryPolicySource: close", () => {
  test("close() removes every watch and timer, and later changes are ignored", async () => {
    const before = await liveHandles();
    const dir = tempTree({ "a.yaml": policyYaml("alpha"), "sub/b.yaml": policyYaml("beta") });
    const facts = tempTree({ "cluster.yaml": "apiVersion: bylaw.dev/v1alpha1\nkind: ClusterFacts\n" });
    const { source, events } = await open({ dir, clusterFile: join(facts, "cluster.yaml") });
    try {
      assert.equal(
        (await liveHandles()).watchers - before.watchers,
        3,
        "the root, sub/ and the facts folder are watched while open",
      );
      writeFileSync(join(dir, "c.yaml"), policyYaml("gamma")); // a reload may be pending when closing
    } finally {
      await source.close();
    }
    assert.deepEqual(await liveHandles(), before);
    writeFileSync(join(dir, "d.yaml"), policyYaml("delta"));
    await sleep(100);
    assert.deepEqual(events, []);
    assert.deepEqual(await liveHandles(), before);
  });
});

describe("directoryPolicySource: PolicyExceptions", () => {
  const exceptionYaml = (name: string, rule = "require-team") => `apiVersion: kyverno.io/v2
kind: PolicyException
metadata: {name: ${name}, namespace: ops}
spec:
  exceptions: [{policyName: alpha, ruleNames: [${rule}]}]
  match: {any: [{resources: {kinds: [Pod]}}]}
`;

  test("exceptions in the folder load with the policies, and an invalid one keeps the last good set", async () => {
    const dir = tempTree({ "a.yaml": policyYaml("alpha"), "exceptions/allow.yaml": exceptionYaml("allow") });
    const { source, next } = await open({ dir });
    try {
      assert.deepEqual(
        source.current().exceptions?.map((e) => e.key),
        ["ops/allow"],
      );
      writeFileSync(
        join(dir, "exceptions", "broken.yaml"),
        "apiVersion: kyverno.io/v2\nkind: PolicyException\nmetadata: {name: broken, namespace: ops}\nspec: {match: {any: [{resources: {kinds: [Pod]}}]}}\n",
      );
      const rejected = await next("rejected");
      assert.ok(
        rejected.kind === "rejected" && rejected.error.problems.some((p) => p.file.endsWith("broken.yaml")),
        JSON.stringify(rejected),
      );
      assert.deepEqual(
        source.current().exceptions?.map((e) => e.key),
        ["ops/allow"],
        "the last good set stays",
      );
    } finally {
      await source.close();
    }
  });
});
