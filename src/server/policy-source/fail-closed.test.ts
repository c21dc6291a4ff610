/**
 * The policy source never turns enforcement off by accident: no valid cluster facts means not
 * ready (and no review evaluated), an empty folder is refused, and a half-written file is not read.
 */
import assert from "node:assert/strict";
import { appendFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { tempTree } from "../../../test/support/temp-dir.js";
import { names, open, policyYaml, sleep } from "../../../test/support/policy-source-dir.js";

const FACTS =
  "apiVersion: bylaw.dev/v1alpha1\nkind: ClusterFacts\nnamespaces:\n  prod:\n    labels: {env: production}\n";

describe("cluster facts fail closed", () => {
  test("invalid facts at startup: not ready, no claim of last good facts, every question throws; ready once fixed", async () => {
    const policies = tempTree({ "a.yaml": policyYaml("alpha") });
    const config = tempTree({ "facts.yaml": "apiVersion: bylaw.dev/v1alpha1\nkind: ClusterFacts\nnamespace: {}\n" });
    const file = join(config, "facts.yaml");
    const { source, logs, next } = await open({ dir: policies, clusterFile: file });
    try {
      const ready = source.readiness();
      assert.equal(ready.ok, false, "without a valid first load of the facts the server is not ready");
      assert.match(ready.reason ?? "", /no cluster facts loaded yet from .*facts\.yaml: .*namespace: unknown field/);
      assert.ok(
        !logs.some((l) => /keeping the last good/.test(l.msg)),
        `no last good facts to keep: ${JSON.stringify(logs)}`,
      );
      assert.throws(() => source.cluster().namespaceLabels("prod"), /cluster facts \(.*facts\.yaml\) have not loaded/);
      assert.throws(() => source.cluster().roles({ username: "alice", groups: [] }), /have not loaded/);
      writeFileSync(file, FACTS);
      await next("loaded");
      assert.deepEqual(source.readiness(), { ok: true });
      assert.equal(source.cluster().namespaceLabels("prod")?.["env"], "production");
    } finally {
      await source.close();
    }
  });

  test("a missing facts file at startup is not ready either", async () => {
    const { source } = await open({
      dir: tempTree({ "a.yaml": policyYaml("alpha") }),
      clusterFile: join(tempTree({}), "nope.yaml"),
    });
    try {
      assert.equal(source.readiness().ok, false);
      assert.match(source.readiness().reason ?? "", /no cluster facts loaded yet/);
    } finally {
      await source.close();
    }
  });

  test("a bad reload after a good load keeps the last good facts and stays ready, saying so", async () => {
    const config = tempTree({ "facts.yaml": FACTS });
    const file = join(config, "facts.yaml");
    const { source, next } = await open({ dir: tempTree({ "a.yaml": policyYaml("alpha") }), clusterFile: file });
    try {
      writeFileSync(file, "kind: [\n");
      await next("rejected");
      assert.match(source.lastError()?.message ?? "", /^cluster facts not reloaded, keeping the last good ones/);
      assert.equal(source.readiness().ok, true);
      assert.match(source.readiness().reason ?? "", /serving the last good cluster facts/);
      assert.equal(source.cluster().namespaceLabels("prod")?.["env"], "production");
    } finally {
      await source.close();
    }
  });
});

describe("no policies is not a policy set", () => {
  test("an empty folder at startup: nothing loaded, not ready, and the reason names --allow-empty-policies", async () => {
    const { source } = await open({ dir: tempTree({}) });
    try {
      assert.equal(source.current().generation, 0);
      assert.match(source.lastError()?.message ?? "", /no policies loaded: no policies in .*--allow-empty-policies/);
      assert.equal(source.readiness().ok, false);
    } finally {
      await source.close();
    }
  });

  test("a folder of documents that are no policies is refused too", async () => {
    const { source } = await open({
      dir: tempTree({ "kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n" }),
    });
    try {
      assert.equal(source.current().generation, 0);
      assert.match(source.lastError()?.message ?? "", /no policies in/);
    } finally {
      await source.close();
    }
  });

  test("deleting every policy file is rejected like an invalid reload: the last good set stays", async () => {
    const dir = tempTree({ "a.yaml": policyYaml("alpha"), "b.yaml": policyYaml("beta") });
    const { source, next } = await open({ dir });
    try {
      rmSync(join(dir, "a.yaml"));
      rmSync(join(dir, "b.yaml"));
      // The two deletions may land in one reload or two (the first then loads beta alone).
      let e = await next();
      while (e.kind === "loaded") e = await next();
      assert.equal(e.kind, "rejected", `a reload to no policies is rejected, not loaded (${names(source).join()})`);
      assert.ok(names(source).length > 0, "some policies are still enforced");
      assert.match(source.lastError()?.message ?? "", /policies not reloaded, keeping generation \d+ .*no policies in/);
      assert.equal(source.readiness().ok, true);
      assert.match(source.readiness().reason ?? "", /last reload was rejected/);
    } finally {
      await source.close();
    }
  });

  test("with allowEmpty, going to no policies loads the empty set", async () => {
    const dir = tempTree({ "a.yaml": policyYaml("alpha") });
    const { source, next } = await open({ dir, allowEmpty: true });
    try {
      rmSync(join(dir, "a.yaml"));
      await next("loaded");
      assert.deepEqual(names(source), []);
      assert.equal(source.lastError(), undefined);
    } finally {
      await source.close();
    }
  });
});

describe("half-written files are not loaded", () => {
  test("a multi-document file written in slow chunks is loaded only whole", async () => {
    const dir = tempTree({ "a.yaml": policyYaml("alpha") });
    const { source, events } = await open({ dir, settleMs: 400 });
    try {
      const file = join(dir, "set.yaml");
      const docs = [policyYaml("one"), policyYaml("two"), policyYaml("three")];
      writeFileSync(file, docs[0] ?? "");
      for (const doc of docs.slice(1)) {
        await sleep(150);
        appendFileSync(file, `---\n${doc}`);
      }
      for (let i = 0; i < 60 && names(source).length < 4; i++) await sleep(50);
      assert.deepEqual(names(source), ["alpha", "one", "two", "three"]);
      const loaded = events.flatMap((e) =>
        e.kind === "loaded" ? [e.snapshot.policies.map((p) => p.name).join()] : [],
      );
      assert.deepEqual(loaded, ["alpha,one,two,three"], "no set with only part of set.yaml was ever served");
    } finally {
      await source.close();
    }
  });
});
