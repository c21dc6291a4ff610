import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { tempTree } from "../../../test/support/temp-dir.js";
import type { JsonValue, PolicyProblem } from "../../engine/index.js";
import { clusterFactsView, parseClusterFacts } from "./cluster-facts.js";
import { readClusterFactsFile } from "./cluster-facts-file.js";
import { open, policyYaml } from "../../../test/support/policy-source-dir.js";
import { textOf } from "../../engine/index.js";

const HEAD = { apiVersion: "bylaw.dev/v1alpha1", kind: "ClusterFacts" };

function parsed(doc: JsonValue): ReturnType<typeof clusterFactsView> {
  const r = parseClusterFacts(doc);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return clusterFactsView(r.facts);
}

describe("ClusterFacts parsing", () => {
  const cases: { name: string; doc: JsonValue; path: string; message: RegExp }[] = [
    {
      name: "wrong apiVersion",
      doc: { ...HEAD, apiVersion: "v1" },
      path: "apiVersion",
      message: /must be bylaw\.dev\/v1alpha1, got "v1"/,
    },
    { name: "wrong kind", doc: { ...HEAD, kind: "ConfigMap" }, path: "kind", message: /must be ClusterFacts/ },
    {
      name: "unknown top-level field",
      doc: { ...HEAD, namespace: {} },
      path: "namespace",
      message: /unknown field; expected one of .*namespaces/,
    },
    {
      name: "namespaces not a mapping",
      doc: { ...HEAD, namespaces: ["a"] },
      path: "namespaces",
      message: /must be a mapping, got a list/,
    },
    {
      name: "unquoted boolean label",
      doc: { ...HEAD, namespaces: { prod: { labels: { critical: true } } } },
      path: "namespaces.prod.labels.critical",
      message: /label value must be a string, got boolean true \(quote it\)/,
    },
    {
      name: "label key with dots",
      doc: { ...HEAD, namespaces: { prod: { labels: { "example.com/tier": 1 } } } },
      path: 'namespaces.prod.labels["example.com/tier"]',
      message: /got number 1/,
    },
    {
      name: "misspelt namespace field",
      doc: { ...HEAD, namespaces: { prod: { label: {} } } },
      path: "namespaces.prod.label",
      message: /unknown field; expected one of labels/,
    },
    {
      name: "role without namespace",
      doc: { ...HEAD, users: { alice: { roles: ["developer"] } } },
      path: "users.alice.roles[0]",
      message: /"namespace:name", got "developer"/,
    },
    {
      name: "roles not a list",
      doc: { ...HEAD, groups: { devs: { roles: "team-a:dev" } } },
      path: "groups.devs.roles",
      message: /must be a list of strings/,
    },
    {
      name: "clusterRole not a string",
      doc: { ...HEAD, users: { "bob@example.com": { clusterRoles: [{ name: "view" }] } } },
      path: 'users["bob@example.com"].clusterRoles[0]',
      message: /must be a string, got a mapping/,
    },
    {
      name: "user entry not a mapping",
      doc: { ...HEAD, users: { alice: ["view"] } },
      path: "users.alice",
      message: /must be a mapping with `roles` and\/or `clusterRoles`/,
    },
  ];
  for (const c of cases) {
    test(`rejects ${c.name}, naming the field`, () => {
      const r = parseClusterFacts(c.doc);
      assert.equal(r.ok, false);
      const problems = r.ok ? [] : r.problems;
      const hit = problems.find((p) => p.path === c.path);
      assert.ok(hit, `no problem at ${c.path}: ${JSON.stringify(problems)}`);
      assert.match(hit.message, c.message);
    });
  }

  test("an empty document with only apiVersion and kind is valid", () => {
    assert.equal(parseClusterFacts(HEAD).ok, true);
  });

  test("a listed namespace's labels include kubernetes.io/metadata.name; an unlisted one's are unknown, not empty", () => {
    const facts = parsed({ ...HEAD, namespaces: { prod: { labels: { team: "a" } }, bare: null } });
    assert.deepEqual(facts.namespaceLabels("prod"), { "kubernetes.io/metadata.name": "prod", team: "a" });
    assert.deepEqual(facts.namespaceLabels("bare"), { "kubernetes.io/metadata.name": "bare" });
    assert.equal(facts.namespaceLabels("other"), undefined);
    assert.deepEqual(facts.namespaceLabels(""), {}, "cluster-scoped resources have no namespace labels");
  });

  test("a user's roles are the union of their own and their groups', without duplicates", () => {
    const facts = parsed({
      ...HEAD,
      users: { alice: { roles: ["team-a:developer"], clusterRoles: ["view"] } },
      groups: {
        "system:authenticated": { clusterRoles: ["system:basic-user", "view"] },
        oncall: { roles: ["prod:operator", "team-a:developer"] },
      },
    });
    assert.deepEqual(facts.roles({ username: "alice", groups: ["oncall", "system:authenticated"] }), {
      roles: ["prod:operator", "team-a:developer"],
      clusterRoles: ["system:basic-user", "view"],
    });
    assert.deepEqual(facts.roles({ username: "nobody", groups: [] }), { roles: [], clusterRoles: [] });
    // No binding of their own: a bound group still counts; unbound groups give nothing.
    assert.deepEqual(facts.roles({ username: "bob", groups: ["other", "oncall"] }), {
      roles: ["prod:operator", "team-a:developer"],
      clusterRoles: [],
    });
    assert.deepEqual(facts.roles({ username: "bob", groups: ["other", "system:masters"] }), {
      roles: [],
      clusterRoles: [],
    });
  });
});

describe("ClusterFacts file", () => {
  test("names the file, document and line of a problem", async () => {
    const dir = tempTree({
      "facts.yaml":
        "# cluster facts\napiVersion: bylaw.dev/v1alpha1\nkind: ClusterFacts\nnamespaces:\n  prod:\n    labels: {critical: yes}\n",
    });
    const r = await readClusterFactsFile(join(dir, "facts.yaml"));
    assert.equal(r.ok, false);
    const [p] = r.ok ? [] : r.problems;
    assert.equal(p?.file, join(dir, "facts.yaml"));
    assert.equal(p?.document, 1);
    assert.equal((p?.problem as PolicyProblem).path, "namespaces.prod.labels.critical");
  });

  test("rejects a missing file, an empty file and two documents", async () => {
    const dir = tempTree({
      "empty.yaml": "# nothing\n",
      "two.yaml":
        "apiVersion: bylaw.dev/v1alpha1\nkind: ClusterFacts\n---\napiVersion: bylaw.dev/v1alpha1\nkind: ClusterFacts\n",
    });
    const messages = async (file: string): Promise<string> => {
      const r = await readClusterFactsFile(join(dir, file));
      return r.ok ? "ok" : r.problems.map((p) => textOf(p.problem)).join();
    };
    assert.match(await messages("missing.yaml"), /no such file or directory: .*missing\.yaml/);
    assert.match(await messages("empty.yaml"), /no ClusterFacts document/);
    assert.match(await messages("two.yaml"), /expected one ClusterFacts document, found 2/);
  });

  test("reloads with the source: a good edit applies, a bad edit keeps the last good facts and is reported", async () => {
    const policies = tempTree({ "a.yaml": policyYaml("alpha") });
    const dir = tempTree({
      "facts.yaml": "apiVersion: bylaw.dev/v1alpha1\nkind: ClusterFacts\nusers:\n  alice:\n    clusterRoles: [view]\n",
    });
    const file = join(dir, "facts.yaml");
    const { source, next } = await open({ dir: policies, clusterFile: file });
    try {
      const alice = { username: "alice", groups: [] };
      assert.deepEqual(source.cluster().roles(alice).clusterRoles, ["view"]);

      writeFileSync(
        file,
        "apiVersion: bylaw.dev/v1alpha1\nkind: ClusterFacts\nusers:\n  alice:\n    clusterRoles: [edit]\n",
      );
      const loaded = await next("loaded");
      assert.ok(
        loaded.kind === "loaded" && loaded.snapshot === loaded.previous && loaded.snapshot === source.current(),
        "policies are unchanged",
      );
      assert.deepEqual(source.cluster().roles(alice).clusterRoles, ["edit"]);

      writeFileSync(
        file,
        "apiVersion: bylaw.dev/v1alpha1\nkind: ClusterFacts\nusers:\n  alice:\n    clusterRole: [admin]\n",
      );
      await next("rejected");
      assert.deepEqual(source.cluster().roles(alice).clusterRoles, ["edit"], "the last good facts stay");
      assert.match(
        source.lastError()?.message ?? "",
        /cluster facts not reloaded.*facts\.yaml: document 1 \(line 1\): users\.alice\.clusterRole: unknown field/,
      );
      assert.equal(source.current().generation, 1);

      writeFileSync(file, "apiVersion: bylaw.dev/v1alpha1\nkind: ClusterFacts\n");
      await next("loaded");
      assert.equal(source.lastError(), undefined);
      assert.deepEqual(source.cluster().roles(alice).clusterRoles, []);
    } finally {
      await source.close();
    }
  });

  test("policy and cluster facts problems are reported together until each is fixed", async () => {
    const policies = tempTree({
      "a.yaml": "apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata: {name: alpha}\nspec: {rules: []}\nbad: [\n",
    });
    const facts = tempTree({ "facts.yaml": "apiVersion: v1\nkind: ClusterFacts\n" });
    const { source, next } = await open({ dir: policies, clusterFile: join(facts, "facts.yaml") });
    try {
      assert.equal(source.lastError()?.problems.length, 2);
      assert.match(
        source.lastError()?.message ?? "",
        /^no policies loaded: .*; no cluster facts loaded: .*apiVersion: must be bylaw\.dev\/v1alpha1/,
      );
      writeFileSync(join(policies, "a.yaml"), policyYaml("alpha"));
      await next("loaded");
      assert.equal(source.lastError()?.problems.length, 1);
      assert.match(source.lastError()?.message ?? "", /^no cluster facts loaded/);
    } finally {
      await source.close();
    }
  });
});
