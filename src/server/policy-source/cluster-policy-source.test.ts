/** Policies from the cluster (cluster-policy-source.ts) over an in-memory object store: no API server. */
import { kyvernoCompiledRules } from "../../engine/index.js";
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createEngine, problem, type JsonObject } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { podRule } from "../../../test/support/builders.js";
import type { PolicyObjectStore } from "../../kube/policy-informers.js";
import type { KubeObject } from "../../kube/types.js";
import type { PolicySourceEvent } from "../types.js";
import { clusterPolicySource, type ClusterPolicySourceOptions } from "./cluster-policy-source.js";

const engine = createEngine(fakePorts());

/** The objects of each kind, as list items come (no kind/apiVersion), and a change signal. */
class MemoryStore implements PolicyObjectStore {
  cpol = new Map<string, KubeObject>();
  pol = new Map<string, KubeObject>();
  polex = new Map<string, KubeObject>();
  ready = true;
  private listeners = new Set<() => void>();
  clusterPolicies = (): KubeObject[] => [...this.cpol.values()];
  policies = (): KubeObject[] => [...this.pol.values()];
  exceptions = (): KubeObject[] => [...this.polex.values()];
  celPolex = new Map<string, KubeObject>();
  celExceptions = (): KubeObject[] => [...this.celPolex.values()];
  cel = new Map<string, Map<string, KubeObject>>();
  celPolicies = (kind: string): KubeObject[] => [...(this.cel.get(kind)?.values() ?? [])];
  readiness = () =>
    this.ready ? { ok: true } : { ok: false, reason: "the clusterpolicies.v1.kyverno.io cache has not synced yet" };
  onChange(l: () => void) {
    this.listeners.add(l);
    return () => void this.listeners.delete(l);
  }
  changed(): void {
    for (const l of this.listeners) l();
  }
  close(): void {}
}

let uids = 0;
function object(name: string, spec: JsonObject, md: JsonObject = {}, generation = 1): KubeObject {
  return {
    metadata: { name, uid: `uid-${name}-${++uids}`, resourceVersion: String(uids), generation, ...md },
    spec,
  } as KubeObject;
}
const labelsRule = podRule("check-labels", {
  message: "label app required",
  pattern: { metadata: { labels: { app: "?*" } } },
});
const good = (name: string, generation = 1) => object(name, { rules: [labelsRule] }, {}, generation);
const badJmes = (name: string) =>
  object(name, {
    rules: [
      podRule("bad", {
        deny: { conditions: { any: [{ key: "{{ request.object.metadata.[ }}", operator: "Equals", value: "x" }] } },
      }),
    ],
  });
const exception = (name: string, namespace: string) =>
  object(
    name,
    {
      exceptions: [{ policyName: "require-labels", ruleNames: ["check-labels"] }],
      match: { any: [{ resources: { kinds: ["Pod"] } }] },
    },
    { namespace },
  );

function source(store: MemoryStore, over: Partial<ClusterPolicySourceOptions> = {}) {
  const logs: { level: string; msg: string; fields: Record<string, unknown> }[] = [];
  const events: PolicySourceEvent[] = [];
  const s = clusterPolicySource({
    store,
    engine,
    exceptions: { enabled: false },
    debounceMs: 1,
    onLog: (level, msg, fields) => logs.push({ level, msg, fields }),
    ...over,
  });
  s.onChange((e) => events.push(e));
  return { s, logs, events };
}

describe("clusterPolicySource", () => {
  test("serves nothing (generation 0, not ready) until the watches have listed; then an empty cluster is a valid set", () => {
    const store = new MemoryStore();
    store.ready = false;
    const { s } = source(store);
    s.rebuild();
    assert.equal(s.current().generation, 0);
    assert.equal(s.readiness().ok, false);
    assert.match(s.readiness().reason ?? "", /has not synced/);
    store.ready = true;
    s.rebuild();
    assert.equal(s.current().generation, 1);
    assert.deepEqual(s.readiness(), { ok: true });
    void s.close();
  });

  test("an invalid policy is not served, the others are; its problem is recorded in outcomes, lastError and readiness", () => {
    const store = new MemoryStore();
    store.cpol.set("a", good("require-labels"));
    store.cpol.set("b", badJmes("broken"));
    const { s, logs } = source(store);
    s.rebuild();
    assert.deepEqual(
      s.current().policies.map((p) => p.name),
      ["require-labels"],
    );
    const broken = s.outcomes().find((o) => o.name === "broken");
    assert.ok(broken !== undefined && broken.compiled === undefined && broken.problems.length > 0);
    assert.match(s.lastError()?.message ?? "", /ClusterPolicy broken: /);
    assert.equal(s.readiness().ok, true);
    assert.match(s.readiness().reason ?? "", /ClusterPolicy broken/);
    assert.equal(logs.filter((l) => l.msg === "policy not served").length, 1);
    s.rebuild();
    assert.equal(logs.filter((l) => l.msg === "policy not served").length, 1, "logged once");
    void s.close();
  });

  test("a stored ClusterPolicy with a generate rule (stored before Bylaw could refuse it) serves its validate rule and is not Ready with the reason, logged once", () => {
    const store = new MemoryStore();
    const generate = {
      name: "gen",
      match: { any: [{ resources: { kinds: ["Namespace"] } }] },
      generate: { apiVersion: "v1", kind: "ConfigMap", name: "c", namespace: "default", data: { data: {} } },
    };
    store.cpol.set("a", object("half", { rules: [labelsRule, generate] }));
    const { s, logs } = source(store);
    s.rebuild();
    assert.deepEqual(
      s.current().policies.map((p) => p.name),
      ["half"],
    );
    const half = s.outcomes().find((o) => o.name === "half");
    assert.ok(half?.compiled !== undefined);
    assert.match(half.notEvaluated ?? "", /^spec\.rules\[1\]\.generate: rule gen: Bylaw does not run generate rules/);
    s.rebuild();
    assert.equal(logs.filter((l) => l.msg === "policy served in part: not Ready").length, 1);
    void s.close();
  });

  test("a ClusterPolicy with the deprecated spec.generateExistingOnPolicyUpdate (past the webhook) is not served; its problem names generateExisting and bylaw fix", () => {
    const store = new MemoryStore();
    const old = good("gen");
    store.cpol.set("a", { ...old, spec: { ...(old["spec"] as JsonObject), generateExistingOnPolicyUpdate: true } });
    const { s } = source(store);
    s.rebuild();
    assert.deepEqual(s.current().policies, []);
    assert.deepEqual(s.outcomes().find((o) => o.name === "gen")?.problems, [
      "spec.generateExistingOnPolicyUpdate: remove the deprecated field spec.generateExistingOnPolicyUpdate; use generateExisting in each generate rule (spec.rules[*].generate.generateExisting) (`bylaw fix policy PATH` rewrites it)",
    ]);
    void s.close();
  });

  test("policies.kyverno.io kinds: a ValidatingPolicy is served; an invalid one is not; a MutatingPolicy and an ImageValidatingPolicy are served and evaluated; a GeneratingPolicy is served, not Ready while no background component runs, and an invalid one is not served", () => {
    const store = new MemoryStore();
    const rules = {
      resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }],
    };
    const put = (kind: string, obj: KubeObject) => {
      const m = store.cel.get(kind) ?? new Map<string, KubeObject>();
      m.set(String(obj.metadata?.name), obj);
      store.cel.set(kind, m);
    };
    put(
      "ValidatingPolicy",
      object("vp", { matchConstraints: rules, validations: [{ expression: "has(object.metadata.labels)" }] }),
    );
    put(
      "ValidatingPolicy",
      object("vp-bad", { matchConstraints: rules, validations: [{ expression: "object.metadata.labels +" }] }),
    );
    put(
      "NamespacedValidatingPolicy",
      object("nvp", { matchConstraints: rules, validations: [{ expression: "true" }] }, { namespace: "team-a" }),
    );
    put("MutatingPolicy", object("mp", { matchConstraints: rules, mutations: [] }));
    put(
      "ImageValidatingPolicy",
      object("iv", { matchConstraints: rules, validationActions: ["Deny"], attestors: [], validations: [] }),
    );
    put("GeneratingPolicy", object("gp", { matchConstraints: rules, generate: [] }));
    put(
      "GeneratingPolicy",
      object("gp-ok", { matchConstraints: rules, generate: [{ expression: 'generator.Apply("a", [])' }] }),
    );
    const { s, logs } = source(store);
    s.rebuild();
    assert.deepEqual(
      s
        .current()
        .policies.map((p) => `${p.namespace}/${p.name}`)
        .sort(),
      ["/gp-ok", "/iv", "/mp", "/vp", "team-a/nvp"],
    );
    const by = (name: string) => s.outcomes().find((o) => o.name === name);
    assert.equal(by("vp")?.kind, "ValidatingPolicy");
    assert.equal(by("nvp")?.namespace, "team-a");
    assert.match(by("vp-bad")?.problems.join() ?? "", /spec\.validations\[0\]\.expression/);
    assert.equal(by("mp")?.notEvaluated, undefined);
    assert.equal(by("iv")?.notEvaluated, undefined);
    assert.match(
      by("gp")?.problems.join() ?? "",
      /spec\.generate: Invalid value: 0: spec\.generate in body should have at least 1 items/,
    );
    assert.match(by("gp-ok")?.notEvaluated ?? "", /GeneratingPolicy gp-ok: Bylaw does not run GeneratingPolicies here/);
    assert.match(s.lastError()?.message ?? "", /ValidatingPolicy vp-bad: /);
    s.rebuild();
    assert.equal(
      logs.filter((l) => l.msg.startsWith("policy not evaluated")).length,
      1,
      "each unevaluated policy (gp-ok, with nothing to run it) is logged once",
    );
    void s.close();
  });

  test("a change makes generation + 1 and compiles only what changed; a status-only change makes no new generation", () => {
    const store = new MemoryStore();
    const a = good("a");
    store.cpol.set("a", a);
    store.cpol.set("b", good("b"));
    const { s } = source(store);
    s.rebuild();
    const first = s.current();
    assert.equal(first.generation, 1);
    // A status write: new resourceVersion, same generation.
    store.cpol.set("a", {
      ...a,
      metadata: { ...a.metadata, resourceVersion: "999" },
      status: { conditions: [] },
    });
    s.rebuild();
    assert.equal(s.current(), first);
    // A spec change: generation 2 of a; b is the same compiled object.
    store.cpol.set("a", {
      ...a,
      metadata: { ...a.metadata, generation: 2 },
      spec: { rules: [labelsRule, { ...labelsRule, name: "second" }] },
    } as KubeObject);
    s.rebuild();
    const second = s.current();
    assert.equal(second.generation, 2);
    assert.equal(
      second.policies.find((p) => p.name === "b"),
      first.policies.find((p) => p.name === "b"),
    );
    assert.notEqual(
      second.policies.find((p) => p.name === "a"),
      first.policies.find((p) => p.name === "a"),
    );
    // A deletion.
    store.cpol.delete("b");
    s.rebuild();
    assert.deepEqual(
      s.current().policies.map((p) => p.name),
      ["a"],
    );
    assert.equal(s.current().generation, 3);
    void s.close();
  });

  test("an annotation change (no new generation: CRDs bump it for spec changes only) compiles the policy again", () => {
    const store = new MemoryStore();
    const a = good("a");
    store.cpol.set("a", a);
    const { s } = source(store);
    s.rebuild();
    assert.ok(
      kyvernoCompiledRules(s.current().policies[0] ?? assert.fail("no policy")).some((r) =>
        r.name.startsWith("autogen-"),
      ),
    );
    store.cpol.set("a", {
      ...a,
      metadata: { ...a.metadata, annotations: { "pod-policies.kyverno.io/autogen-controllers": "none" } },
    } as KubeObject);
    s.rebuild();
    assert.equal(s.current().generation, 2);
    assert.deepEqual(
      kyvernoCompiledRules(s.current().policies[0] ?? assert.fail("no policy")).map((r) => r.name),
      ["check-labels"],
    );
    void s.close();
  });

  test("changes are debounced and followed without a call to rebuild", async () => {
    const store = new MemoryStore();
    const { s } = source(store);
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(s.current().generation, 1);
    store.pol.set("p", {
      ...good("ns-policy"),
      metadata: { ...good("ns-policy").metadata, namespace: "team-a" },
    });
    store.changed();
    store.changed();
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(
      s.current().policies.map((p) => `${p.kind}/${p.namespace}/${p.name}`),
      ["Policy/team-a/ns-policy"],
    );
    assert.equal(s.current().generation, 2);
    void s.close();
  });

  test("checkPolicy refuses a policy as folder mode does", () => {
    const store = new MemoryStore();
    store.cpol.set("a", good("a"));
    const { s } = source(store, {
      checkPolicy: () => [problem("spec.webhookTimeoutSeconds", "no webhook is registered with a timeout of 7 s")],
    });
    s.rebuild();
    assert.equal(s.current().policies.length, 0);
    assert.deepEqual(s.outcomes()[0]?.problems, [
      "spec.webhookTimeoutSeconds: no webhook is registered with a timeout of 7 s",
    ]);
    void s.close();
  });

  test("PolicyExceptions: off unless enabled, then only from the namespaces named; each ignored one logged once", () => {
    const store = new MemoryStore();
    store.cpol.set("a", good("require-labels"));
    store.polex.set("x", exception("in-listed", "policy-exceptions"));
    store.polex.set("y", exception("in-other", "team-a"));
    const off = source(store);
    off.s.rebuild();
    off.s.rebuild();
    assert.equal(off.s.current().exceptions, undefined);
    assert.equal(off.logs.filter((l) => l.msg === "PolicyException ignored").length, 2);
    assert.match(
      String(off.logs.find((l) => l.msg === "PolicyException ignored")?.fields["reason"]),
      /--enable-policy-exception/,
    );

    const on = source(store, { exceptions: { enabled: true, namespaces: ["policy-exceptions"] } });
    on.s.rebuild();
    assert.deepEqual(
      on.s.current().exceptions?.map((e) => e.key),
      ["policy-exceptions/in-listed"],
    );
    const ignored = on.logs.filter((l) => l.msg === "PolicyException ignored");
    assert.equal(ignored.length, 1);
    assert.equal(ignored[0]?.fields["exception"], "PolicyException team-a/in-other");

    const all = source(store, { exceptions: { enabled: true, namespaces: "all" } });
    all.s.rebuild();
    assert.equal(all.s.current().exceptions?.length, 2);
    for (const x of [off, on, all]) void x.s.close();
  });

  test("tenant-isolation rule 3: a namespaced policies.kyverno.io PolicyException that names globalContext is not honoured, with the field", () => {
    const store = new MemoryStore();
    store.cpol.set("a", good("require-labels"));
    const refs = [{ kind: "ValidatingPolicy", name: "vp" }];
    store.celPolex.set(
      "g",
      object(
        "peek",
        { policyRefs: refs, matchConditions: [{ name: "peek", expression: "globalContext.Get('admin', 'x') == 1" }] },
        { namespace: "policy-exceptions" },
      ),
    );
    const on = source(store, { exceptions: { enabled: true, namespaces: ["policy-exceptions"] } });
    on.s.rebuild();
    assert.deepEqual(on.s.current().exceptions ?? [], []);
    assert.match(
      on.s.lastError()?.message ?? "",
      /policy-exceptions\/peek: spec\.matchConditions\[0\]\.expression: .*globalContext is not allowed/,
    );
    void on.s.close();
  });

  test("policies.kyverno.io PolicyExceptions: compiled as v1beta1 beside the v2 ones, under the same scope; an invalid one is not honoured and reported", () => {
    const store = new MemoryStore();
    store.cpol.set("a", good("require-labels"));
    const refs = [{ kind: "ValidatingPolicy", name: "vp" }];
    store.polex.set("x", exception("legacy", "policy-exceptions"));
    store.celPolex.set(
      "c",
      object(
        "cel-ok",
        {
          policyRefs: refs,
          matchConditions: [{ name: "batch", expression: "object.metadata.name.startsWith('batch-')" }],
        },
        { namespace: "policy-exceptions" },
      ),
    );
    store.celPolex.set(
      "d",
      object(
        "cel-bad",
        { policyRefs: refs, matchConditions: [{ name: "bad", expression: "object.metadata.name ==" }] },
        { namespace: "policy-exceptions" },
      ),
    );
    store.celPolex.set("e", object("cel-elsewhere", { policyRefs: refs }, { namespace: "team-a" }));

    const off = source(store);
    off.s.rebuild();
    assert.equal(off.s.current().exceptions, undefined);
    assert.equal(off.s.lastError(), undefined, "an ignored exception is not compiled, so not reported as invalid");
    assert.equal(off.logs.filter((l) => l.msg === "PolicyException ignored").length, 4);

    const on = source(store, { exceptions: { enabled: true, namespaces: ["policy-exceptions"] } });
    on.s.rebuild();
    on.s.rebuild();
    const served = on.s.current().exceptions ?? [];
    assert.deepEqual(
      served.map((e) => [e.key, "policyRefs" in e]),
      [
        ["policy-exceptions/legacy", false],
        ["policy-exceptions/cel-ok", true],
      ],
    );
    assert.deepEqual(
      on.logs.filter((l) => l.msg === "PolicyException ignored").map((l) => l.fields["exception"]),
      ["PolicyException (policies.kyverno.io) team-a/cel-elsewhere"],
    );
    const invalid = on.logs.filter((l) => l.msg === "PolicyException not honoured: it is invalid");
    assert.equal(invalid.length, 1, "logged once across rebuilds");
    assert.equal(invalid[0]?.fields["exception"], "PolicyException (policies.kyverno.io) policy-exceptions/cel-bad");
    assert.match(
      on.s.lastError()?.message ?? "",
      /PolicyException \(policies\.kyverno\.io\) policy-exceptions\/cel-bad: spec\.matchConditions\[0\]\.expression: Invalid value/,
    );
    assert.equal(on.s.readiness().ok, true);

    // Fixed: honoured in a new generation, and the problem is gone.
    const generation = on.s.current().generation;
    store.celPolex.set(
      "d",
      object(
        "cel-bad",
        { policyRefs: refs, matchConditions: [{ name: "ok", expression: "true" }] },
        { namespace: "policy-exceptions" },
        2,
      ),
    );
    on.s.rebuild();
    assert.equal(on.s.current().generation, generation + 1);
    assert.equal(on.s.current().exceptions?.length, 3);
    assert.equal(on.s.lastError(), undefined);
    for (const x of [off, on]) void x.s.close();
  });

  test("listeners hear loaded, and rejected while a policy is invalid; healthy again once it is fixed", () => {
    const store = new MemoryStore();
    store.cpol.set("a", good("a"));
    store.cpol.set("b", badJmes("b"));
    const { s, events } = source(store);
    s.rebuild();
    assert.deepEqual(
      events.map((e) => e.kind),
      ["loaded", "rejected"],
    );
    store.cpol.delete("b");
    s.rebuild();
    assert.equal(s.lastError(), undefined);
    assert.deepEqual(
      events.map((e) => e.kind),
      ["loaded", "rejected", "loaded"],
    );
    void s.close();
  });

  test("a namespace over its budget: its first policies are served, the later ones are not (Ready False, the reason), and the cluster's are all served", () => {
    const store = new MemoryStore();
    const at = (i: number): string => `2026-11-29T07:${String(i).padStart(2, "0")}:00Z`;
    // Created in the order 0..5; inserted in another order, so that the store's order does not decide.
    for (const i of [5, 3, 0, 4, 1, 2])
      store.pol.set(
        `t${i}`,
        object(`t${i}`, { rules: [labelsRule] }, { namespace: "tenant-a", creationTimestamp: at(i) }),
      );
    store.pol.set("b0", object("b0", { rules: [labelsRule] }, { namespace: "tenant-b", creationTimestamp: at(9) }));
    store.cpol.set("admin", object("admin", { rules: [labelsRule] }, { creationTimestamp: at(59) }));
    const { s, logs } = source(store, { namespaceBudget: { maxPolicies: 3, maxBytes: 1024 * 1024 } });
    s.rebuild();
    const served = s.current().policies.map((p) => `${p.namespace ?? ""}/${p.name}`);
    assert.deepEqual(served.sort(), ["/admin", "tenant-a/t0", "tenant-a/t1", "tenant-a/t2", "tenant-b/b0"]);
    for (const name of ["t3", "t4", "t5"]) {
      const o = s.outcomes().find((x) => x.name === name);
      assert.ok(o !== undefined && o.compiled === undefined);
      assert.match(
        o.problems.join(" "),
        /namespace tenant-a holds more than 3 policies, its budget \(--max-policies-per-namespace\)/,
      );
    }
    assert.equal(logs.filter((l) => /over its budget/.test(l.msg)).length, 3);
    s.rebuild();
    assert.equal(logs.filter((l) => /over its budget/.test(l.msg)).length, 3, "logged once each");
    // The bytes budget: one large policy past it is not served; the small ones before it are.
    const big = object(
      "big",
      { rules: [labelsRule], x: "y".repeat(5000) },
      {
        namespace: "tenant-b",
        creationTimestamp: at(10),
      },
    );
    store.pol.set("big", big);
    const bytes = source(store, { namespaceBudget: { maxPolicies: 100, maxBytes: 2000 } });
    bytes.s.rebuild();
    const bigOutcome = bytes.s.outcomes().find((x) => x.name === "big");
    assert.match(
      bigOutcome?.problems.join(" ") ?? "",
      /more than 2000 bytes, its budget \(--max-policy-bytes-per-namespace\)/,
    );
    assert.ok(bytes.s.current().policies.some((p) => p.name === "b0"));
    for (const x of [s, bytes.s]) void x.close();
  });
});
