import { kyvernoCompiledRules } from "../../engine/index.js";
import assert from "node:assert/strict";
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { tempTree } from "../../../test/support/temp-dir.js";
import { names, open, policyYaml } from "../../../test/support/policy-source-dir.js";

/** Lay out files the way the kubelet mounts a ConfigMap volume, and update them the same way. */
function configMapVolume(root: string) {
  let n = 0;
  const publish = (files: Record<string, string>, previous?: Record<string, string>): void => {
    const stamp = `..2026_01_15_12_00_00.${++n}`;
    mkdirSync(join(root, stamp));
    for (const [key, text] of Object.entries(files)) writeFileSync(join(root, stamp, key), text);
    symlinkSync(stamp, join(root, "..data_tmp"));
    renameSync(join(root, "..data_tmp"), join(root, "..data"));
    for (const key of Object.keys(files))
      if (previous === undefined || !(key in previous)) symlinkSync(join("..data", key), join(root, key));
    for (const key of Object.keys(previous ?? {})) if (!(key in files)) rmSync(join(root, key));
    if (n > 1) rmSync(join(root, `..2026_01_15_12_00_00.${n - 1}`), { recursive: true });
  };
  return { publish };
}

describe("directoryPolicySource: Kubernetes ConfigMap volumes", () => {
  test("loads each key once, and picks up an atomic ..data swap that changes, adds and removes keys", async () => {
    const root = tempTree({});
    const volume = configMapVolume(root);
    const v1 = { "a.yaml": policyYaml("alpha"), "b.yaml": policyYaml("beta") };
    volume.publish(v1);
    const { source, next } = await open({ dir: root });
    try {
      assert.deepEqual(names(source), ["alpha", "beta"], "the timestamped directory is not read a second time");
      const v2 = { "a.yaml": policyYaml("alpha", "owner"), "c.yaml": policyYaml("gamma") };
      volume.publish(v2, v1);
      let e = await next("loaded");
      while (names(source).join() !== "alpha,gamma") e = await next("loaded");
      assert.equal(e.kind === "loaded" && e.snapshot.generation > 1, true);
      assert.equal(
        kyvernoCompiledRules(source.current().policies[0] ?? assert.fail("no policy"))[0]?.name,
        "require-owner",
      );
      assert.equal(source.lastError(), undefined);
    } finally {
      await source.close();
    }
  });

  test("cluster facts mounted from a ConfigMap reload on a ..data swap", async () => {
    const root = tempTree({ "policies/a.yaml": policyYaml("alpha") });
    const config = join(root, "config");
    mkdirSync(config);
    const volume = configMapVolume(config);
    const facts = (team: string): string =>
      `apiVersion: bylaw.dev/v1alpha1\nkind: ClusterFacts\nnamespaces:\n  prod:\n    labels: {team: ${team}}\n`;
    volume.publish({ "cluster-facts.yaml": facts("a") });
    const { source, next } = await open({
      dir: join(root, "policies"),
      clusterFile: join(config, "cluster-facts.yaml"),
    });
    try {
      assert.equal(source.cluster().namespaceLabels("prod")?.["team"], "a");
      volume.publish({ "cluster-facts.yaml": facts("b") }, { "cluster-facts.yaml": "" });
      await next("loaded");
      assert.equal(source.cluster().namespaceLabels("prod")?.["team"], "b");
    } finally {
      await source.close();
    }
  });
});

describe("directoryPolicySource: polling", () => {
  test("poll mode notices a changed file", async () => {
    const dir = tempTree({ "a.yaml": policyYaml("alpha") });
    const { source, next } = await open({ dir, mode: "poll" });
    try {
      writeFileSync(join(dir, "b.yaml"), policyYaml("beta"));
      await next("loaded");
      assert.deepEqual(names(source), ["alpha", "beta"]);
    } finally {
      await source.close();
    }
  });

  test("a directory that does not exist yet is reported, polled for, and loaded once it appears", async () => {
    const parent = tempTree({});
    const dir = join(parent, "policies");
    const { source, next, logs } = await open({ dir });
    try {
      assert.equal(source.current().generation, 0);
      assert.match(source.lastError()?.message ?? "", /no policies loaded: no such directory: .*policies/);
      assert.ok(logs.some((l) => /^polling policies/.test(l.msg)));
      mkdirSync(dir);
      writeFileSync(join(dir, "a.yaml"), policyYaml("alpha"));
      await next("loaded");
      while (names(source).length === 0) await next("loaded");
      assert.deepEqual(names(source), ["alpha"]);
      assert.equal(source.lastError(), undefined);
    } finally {
      await source.close();
    }
  });
});
