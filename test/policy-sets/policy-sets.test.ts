/**
 * The policy sets Bylaw ships (policies/<set>/set.yaml), the suite of each policy, and the
 * kustomize components that install a set in a cluster (deploy/components/policy-set-<set>/).
 * The suites themselves run with `bylaw test policies/`.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { after, describe, test } from "node:test";
import { parse, parseAllDocuments } from "yaml";
import { createEngine, type JsonValue, textOf } from "../../src/engine/index.js";
import { at, kubectlMissing, list, render, repoRoot } from "../deploy/render.js";
import { fakePorts } from "../support/fake-ports.js";

const root = repoRoot();
const policiesDir = join(root, "policies");
const ACTION_LINE = /^(\s*(?:validationFailureAction|failureAction):\s*)(Audit|Enforce)\s*$/;

interface PolicySet {
  readonly name: string;
  readonly doc: unknown;
  /** Absolute paths of the policy files set.yaml lists. */
  readonly files: readonly string[];
}

const readYaml = (path: string): unknown => parse(readFileSync(path, "utf8"));

function loadSets(): PolicySet[] {
  return readdirSync(policiesDir)
    .filter((d) => existsSync(join(policiesDir, d, "set.yaml")))
    .sort()
    .map((name) => {
      const file = join(policiesDir, name, "set.yaml");
      const doc = readYaml(file);
      return { name, doc, files: list(at(doc, "policies")).map((p) => resolve(dirname(file), String(p))) };
    });
}

/** Every YAML file under a folder, hidden folders included. */
function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return entry.endsWith(".yaml") ? [path] : [];
  });
}

const isPolicy = (doc: unknown): boolean =>
  String(at(doc, "apiVersion")).startsWith("kyverno.io/") &&
  ["ClusterPolicy", "Policy"].includes(String(at(doc, "kind")));
const rulesOf = (policy: unknown): unknown[] => list(at(policy, "spec", "rules"));
const validateRules = (policy: unknown): unknown[] => rulesOf(policy).filter((r) => at(r, "validate") !== undefined);
const rel = (path: string): string => relative(root, path);

const sets = loadSets();
const setFiles = [...new Set(sets.flatMap((s) => s.files))].sort();

describe("policies/: the sets", () => {
  test("there are the pss-baseline, pss-restricted and best-practices sets", () => {
    for (const name of ["pss-baseline", "pss-restricted", "best-practices"])
      assert.ok(
        sets.some((s) => s.name === name),
        `policies/${name}/set.yaml`,
      );
  });

  test("every set.yaml is a bylaw.dev/v1alpha1 PolicySet named for its folder, listing existing policy files", () => {
    for (const set of sets) {
      assert.equal(at(set.doc, "apiVersion"), "bylaw.dev/v1alpha1", set.name);
      assert.equal(at(set.doc, "kind"), "PolicySet", set.name);
      assert.equal(at(set.doc, "metadata", "name"), set.name);
      assert.ok(textOf(at(set.doc, "description") ?? "").length > 40, `${set.name}: a description`);
      assert.ok(set.files.length > 0, `${set.name}: policies`);
      assert.equal(
        new Set(set.files.map((f) => basename(f))).size,
        set.files.length,
        `${set.name}: file names are ConfigMap keys and must be unique`,
      );
      for (const file of set.files) {
        assert.ok(existsSync(file), `${set.name}: ${rel(file)} exists`);
        assert.ok(isPolicy(readYaml(file)), `${rel(file)} is a kyverno.io policy`);
      }
    }
  });

  test("every policy under policies/ is in a set, named for its file and folder, with a unique name", () => {
    const onDisk = yamlFiles(policiesDir).filter((f) =>
      parseAllDocuments(readFileSync(f, "utf8")).some((d) => isPolicy(d.toJS())),
    );
    assert.deepEqual(onDisk.filter((f) => !setFiles.includes(f)).map(rel), [], "policies no set lists");
    const names = setFiles.map((f) => String(at(readYaml(f), "metadata", "name")));
    assert.equal(new Set(names).size, names.length, "policy names are unique");
    for (const file of setFiles) {
      const name = String(at(readYaml(file), "metadata", "name"));
      assert.equal(basename(file), `${name}.yaml`, rel(file));
      assert.equal(basename(dirname(file)), name, `${rel(file)}: one folder per policy`);
    }
  });

  test("pss-restricted includes every baseline control, as the Pod Security Standards do", () => {
    const baseline = sets.find((s) => s.name === "pss-baseline");
    const restricted = sets.find((s) => s.name === "pss-restricted");
    assert.ok(baseline !== undefined && restricted !== undefined);
    const perControl = baseline.files.filter((f) => at(readYaml(f), "metadata", "name") !== "pss-baseline");
    assert.ok(perControl.length >= 11);
    for (const file of perControl) assert.ok(restricted.files.includes(file), `pss-restricted lists ${rel(file)}`);
    const podSecurity = (set: PolicySet): unknown[] =>
      set.files
        .flatMap((f) => validateRules(readYaml(f)).map((r) => at(r, "validate", "podSecurity")))
        .filter((p) => p !== undefined);
    assert.deepEqual(podSecurity(baseline), [{ level: "baseline", version: "latest" }]);
    assert.deepEqual(podSecurity(restricted), [{ level: "restricted", version: "latest" }]);
  });
});

describe("policies/: every policy", () => {
  const engine = createEngine(fakePorts());
  for (const file of setFiles) {
    const policy = readYaml(file);
    const name = String(at(policy, "metadata", "name"));

    test(`${name}: Audit by default, background scans, documented, compiles`, () => {
      const compiled = engine.compile(policy as JsonValue);
      assert.ok(compiled.ok, `${rel(file)}: ${compiled.ok ? "" : JSON.stringify(compiled.problems)}`);
      assert.equal(at(policy, "spec", "background"), true);
      assert.ok(["Audit", undefined].includes(at(policy, "spec", "validationFailureAction") as string | undefined));
      assert.equal(at(policy, "spec", "validationFailureActionOverrides"), undefined);
      assert.ok(validateRules(policy).length > 0);
      for (const rule of validateRules(policy)) {
        const ruleName = String(at(rule, "name"));
        assert.equal(at(rule, "validate", "failureAction"), "Audit", `${ruleName}: failureAction Audit, written out`);
        assert.equal(at(rule, "validate", "failureActionOverrides"), undefined, ruleName);
        if (at(rule, "validate", "podSecurity") === undefined)
          assert.ok(
            textOf(at(rule, "validate", "message") ?? "").length > 40,
            `${ruleName}: a message that says how to fix`,
          );
      }
      for (const key of ["title", "category", "severity", "subject", "description"]) {
        assert.ok(
          textOf(at(policy, "metadata", "annotations", `policies.kyverno.io/${key}`) ?? "") !== "",
          `annotation policies.kyverno.io/${key}`,
        );
      }
      assert.ok(
        ["low", "medium", "high"].includes(
          String(at(policy, "metadata", "annotations", "policies.kyverno.io/severity")),
        ),
      );
    });

    test(`${name}: has a suite with passing and failing resources for every rule`, () => {
      const dir = dirname(file);
      const suites = [join(dir, ".kyverno-test", "kyverno-test.yaml"), join(dir, "kyverno-test.yaml")].filter((f) =>
        existsSync(f),
      );
      assert.equal(suites.length, 1, `${rel(dir)}: one of .kyverno-test/kyverno-test.yaml or kyverno-test.yaml`);
      const suitePath = suites[0] ?? "";
      const suite = readYaml(suitePath);
      assert.equal(at(suite, "apiVersion"), "cli.kyverno.io/v1alpha1");
      assert.equal(at(suite, "kind"), "Test");
      const from = (p: unknown): string => resolve(dirname(suitePath), String(p));
      assert.ok(list(at(suite, "policies")).map(from).includes(file), `${rel(suitePath)} loads ${rel(file)}`);
      for (const r of list(at(suite, "resources")).map(from)) assert.ok(existsSync(r), rel(r));
      const rows = list(at(suite, "results")).filter((r) => at(r, "policy") === name);
      const results = new Set(rows.map((r) => at(r, "result")));
      assert.ok(results.has("pass") && results.has("fail"), `${rel(suitePath)}: expects both pass and fail`);
      for (const rule of rulesOf(policy)) {
        assert.ok(
          rows.some((r) => at(r, "rule") === at(rule, "name")),
          `rule ${String(at(rule, "name"))} has expected results`,
        );
      }
      const autogen = at(policy, "metadata", "annotations", "pod-policies.kyverno.io/autogen-controllers") !== "none";
      const podRules = rulesOf(policy).some((r) =>
        list(at(r, "match", "any")).some((f) => list(at(f, "resources", "kinds")).includes("Pod")),
      );
      if (autogen && podRules)
        assert.ok(
          rows.some((r) => at(r, "kind") !== "Pod"),
          "a Pod controller row exercises the autogen rules",
        );
    });
  }
});

const componentDir = (set: string): string => join(root, "deploy", "components", `policy-set-${set}`);

/** A policy text with each Audit action line switched to Enforce (what an Enforce component must amount to). */
const toEnforce = (text: string): string =>
  text
    .split("\n")
    .map((l) =>
      l.replace(ACTION_LINE, (all, head: string, action: string) => (action === "Audit" ? `${head}Enforce` : all)),
    )
    .join("\n");

describe("deploy/components/policy-set-*: copies of policies/", () => {
  test("tools/sync-policy-sets.mjs --check finds nothing to update", () => {
    try {
      execFileSync(process.execPath, [join(root, "tools", "sync-policy-sets.mjs"), "--check"], {
        stdio: ["ignore", "pipe", "pipe"],
        encoding: "utf8",
      });
    } catch (e) {
      assert.fail(
        `the components drifted from policies/ (run node tools/sync-policy-sets.mjs):\n${String((e as { stderr?: unknown }).stderr ?? e)}`,
      );
    }
  });

  for (const set of sets) {
    test(`${set.name}: policies/ holds exactly the set's files, byte for byte`, () => {
      const dir = join(componentDir(set.name), "policies");
      assert.deepEqual(
        readdirSync(dir)
          .filter((f) => f !== "kustomization.yaml")
          .sort(),
        set.files.map((f) => basename(f)).sort(),
      );
      for (const file of set.files)
        assert.equal(
          readFileSync(join(dir, basename(file)), "utf8"),
          readFileSync(file, "utf8"),
          `${rel(file)} was changed: run node tools/sync-policy-sets.mjs`,
        );
    });

    test(`${set.name}: enforce/ has one component per policy`, () => {
      const dir = join(componentDir(set.name), "enforce");
      assert.deepEqual(
        readdirSync(dir)
          .filter((e) => e !== "kustomization.yaml")
          .sort(),
        set.files.map((f) => basename(f, ".yaml")).sort(),
      );
    });
  }
});

const SKIP = kubectlMissing();

describe("deploy/components/policy-set-*: rendered with kubectl kustomize", { skip: SKIP ?? false }, () => {
  const work = mkdtempSync(join(tmpdir(), "bylaw-policy-sets-"));
  after(() => rmSync(work, { recursive: true, force: true }));
  if (SKIP === undefined) cpSync(join(root, "deploy"), join(work, "deploy"), { recursive: true });
  let overlays = 0;

  /** The policies of an overlay of the base with these components (paths under deploy/components), by name. */
  function policiesWith(components: readonly string[]): Map<string, unknown> {
    const dir = join(work, "deploy", "overlays", `test-${++overlays}`);
    mkdirSync(dir, { recursive: true });
    const lines = [
      "apiVersion: kustomize.config.k8s.io/v1beta1",
      "kind: Kustomization",
      "resources:",
      "  - ../../base",
      "components:",
      ...components.map((c) => `  - ../../components/${c}`),
    ];
    writeFileSync(join(dir, "kustomization.yaml"), `${lines.join("\n")}\n`);
    const manifests = render(dir);
    assert.deepEqual(
      manifests.filter((m) => isPolicy(m) && m["kind"] !== "ClusterPolicy"),
      [],
      "ClusterPolicies only",
    );
    for (const m of manifests.filter(isPolicy))
      assert.equal(at(m, "metadata", "namespace"), undefined, "cluster-scoped: no namespace");
    return new Map(manifests.filter(isPolicy).map((m) => [String(at(m, "metadata", "name")), m]));
  }

  /** The policy files of a set as objects, by name, as written or with toEnforce's change. */
  const expected = (set: PolicySet, enforce: (name: string) => boolean): Map<string, unknown> =>
    new Map(
      set.files.map((f) => {
        const text = readFileSync(f, "utf8");
        const name = String(at(parse(text), "metadata", "name"));
        return [name, parse(enforce(name) ? toEnforce(text) : text) as unknown];
      }),
    );

  for (const set of sets) {
    test(`policy-set-${set.name} installs the set's files, as written, as ClusterPolicy objects`, () => {
      assert.deepEqual(
        policiesWith([`policy-set-${set.name}`]),
        expected(set, () => false),
      );
    });

    test(`policy-set-${set.name}/enforce installs the whole set in Enforce mode: the Audit lines switched, nothing else`, () => {
      const got = policiesWith([`policy-set-${set.name}/enforce`]);
      assert.deepEqual(
        got,
        expected(set, () => true),
      );
      for (const [name, policy] of got)
        for (const rule of validateRules(policy))
          assert.equal(
            at(rule, "validate", "failureAction") ?? at(policy, "spec", "validationFailureAction"),
            "Enforce",
            name,
          );
    });
  }

  test("policy-set-<set>/enforce/<policy>, listed after the set, switches that one policy", () => {
    const set = sets.find((s) => s.name === "pss-baseline");
    assert.ok(set !== undefined);
    assert.deepEqual(
      policiesWith(["policy-set-pss-baseline", "policy-set-pss-baseline/enforce/pss-host-namespaces"]),
      expected(set, (name) => name === "pss-host-namespaces"),
    );
  });

  test("best-practices installs beside either PSS set; pss-baseline and pss-restricted, which share policies, are refused together", () => {
    for (const pss of ["pss-baseline", "pss-restricted"]) {
      const names = [pss, "best-practices"]
        .flatMap((n) => sets.find((s) => s.name === n)?.files ?? [])
        .map((f) => String(at(readYaml(f), "metadata", "name")));
      assert.deepEqual(
        [...policiesWith([`policy-set-${pss}`, "policy-set-best-practices"]).keys()].sort(),
        [...names].sort(),
      );
    }
    assert.throws(
      () => policiesWith(["policy-set-pss-baseline", "policy-set-pss-restricted"]),
      /already registered id: ClusterPolicy\.v1\.kyverno\.io\/pss-/,
    );
  });
});
