/**
 * The policy webhook's checks against the API server (`vetPolicy`): the cluster checks fail closed
 * (no answer within the deadline, or a failed check, refuses the policy with the reason), while the
 * registration dry-run admits a policy it could not ask about (registration reports it later).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  cleanupDeletes,
  compileCleanupPolicy,
  createEngine,
  type CompiledPolicy,
  type JsonObject,
} from "../../engine/index.js";
import type { KindSelector } from "../../kube/discovered-kinds.js";
import type { ResourceAccess } from "../../kube/access-review.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { clusterPolicy } from "../../../test/support/builders.js";
import type { ClusterPolicyChecks } from "./cluster-policy-checks.js";
import { vetCleanup, vetPolicy } from "./registration-check.js";

const engine = createEngine(fakePorts());

function compiled(doc: JsonObject): CompiledPolicy {
  const out = engine.compile(doc);
  assert.ok(out.ok, out.ok ? "" : JSON.stringify(out.problems));
  return out.policy;
}

/** A generate rule: its permission check asks the API server (canI). */
const generating = compiled(
  clusterPolicy("gen", [
    {
      name: "gen",
      match: { any: [{ resources: { kinds: ["Namespace"] } }] },
      generate: {
        synchronize: false,
        apiVersion: "v1",
        kind: "ConfigMap",
        name: "c",
        namespace: "{{request.object.metadata.name}}",
        data: {},
      },
    },
  ]),
);

function checks(canI: (a: ResourceAccess) => Promise<boolean>): ClusterPolicyChecks {
  return {
    user: "system:serviceaccount:bylaw:bylaw-background-controller",
    refresh: () => Promise.resolve(),
    resolve: (s: KindSelector) =>
      s.kind === "Namespace"
        ? [{ group: "", resource: "namespaces", namespaced: false }]
        : s.kind === "ConfigMap"
          ? [{ group: "", resource: "configmaps", namespaced: true }]
          : [],
    canI,
  };
}

const never = new Promise<never>(() => undefined);
const texts = (problems: readonly { path: string; message: string }[]): string[] =>
  problems.map((p) => `${p.path}: ${p.message}`);

describe("vetPolicy against a slow or failing API server", () => {
  test("the cluster checks unanswered within the deadline: refused, saying so, not admitted unchecked", async () => {
    const vet = vetPolicy({ check: () => [], cluster: checks(() => never), deadlineMs: 30 });
    const problems = texts(await vet(generating));
    assert.equal(problems.length, 1);
    assert.match(
      problems[0] ?? "",
      /^spec: Bylaw could not check this policy against the API server within 0 s \(the kinds it names, its generate targets and the permissions its rules and its author need\): the API server did not answer in time; nothing was stored, apply it again$/,
    );
  });

  test("a cluster check that fails: refused with its reason", async () => {
    const vet = vetPolicy({
      check: () => [],
      cluster: checks(() => Promise.reject(new Error("subjectaccessreviews is forbidden"))),
      deadlineMs: 5000,
    });
    assert.deepEqual(texts(await vet(generating)), [
      "spec: Bylaw could not check this policy against the API server (the kinds it names, its generate targets and the permissions its rules and its author need): subjectaccessreviews is forbidden; nothing was stored",
    ]);
  });

  test("answered in time: the checks decide (allowed: no problem; denied: the permission problem)", async () => {
    const yes = vetPolicy({ check: () => [], cluster: checks(() => Promise.resolve(true)), deadlineMs: 5000 });
    assert.deepEqual(await yes(generating), []);
    const no = vetPolicy({ check: () => [], cluster: checks(() => Promise.resolve(false)), deadlineMs: 5000 });
    const problems = await no(generating);
    assert.ok(problems.length > 0 && problems.every((p) => p.severity === "error"), JSON.stringify(problems));
    assert.doesNotMatch(texts(problems).join("\n"), /could not check/);
  });

  test("the registration dry-run unanswered: admitted (registration leaves it out and its status says so); a refusal denies", async () => {
    const silent = vetPolicy({
      check: () => [],
      cluster: checks(() => Promise.resolve(true)),
      registrar: { check: () => never },
      deadlineMs: 30,
    });
    assert.deepEqual(await silent(generating), []);
    const refusing = vetPolicy({
      check: () => [],
      registrar: { check: () => Promise.resolve("matchConditions[0].expression: compilation failed") },
      deadlineMs: 5000,
    });
    assert.deepEqual(texts(await refusing(generating)), [
      "spec.webhookConfiguration.matchConditions: the API server refuses the webhook Bylaw would register for this policy (and would refuse it for every other policy with it): matchConditions[0].expression: compilation failed",
    ]);
  });

  test("the author is asked after Kyverno's checks pass, as themself; when those refuse, the author is not asked", async () => {
    const author = { username: "carol", groups: ["system:authenticated"] };
    const asked: string[] = [];
    const vet = vetPolicy({
      check: () => [],
      cluster: checks((a) => {
        asked.push(`${a.user} ${a.verb}`);
        return Promise.resolve(a.user !== "carol" || a.verb !== "delete");
      }),
      deadlineMs: 5000,
    });
    const problems = texts(await vet(generating, author));
    assert.equal(problems.length, 1);
    assert.match(
      problems[0] ?? "",
      /^spec\.rules\[0\]\.generate: the policy's author carol may not delete configmaps in every namespace/,
    );
    assert.ok(asked.includes("carol create") && asked.some((a) => a.startsWith("system:serviceaccount:")));
    assert.deepEqual(texts(await vet(generating)), [], "no author (only its metadata changed): not asked");
    asked.length = 0;
    const controllerRefused = vetPolicy({
      check: () => [],
      cluster: checks((a) => (asked.push(a.user), Promise.resolve(a.user === "carol"))),
      deadlineMs: 5000,
    });
    assert.match(
      texts(await controllerRefused(generating, author))[0] ?? "",
      /Grant proper permissions to the background controller/,
    );
    assert.ok(!asked.includes("carol"), "Kyverno's own check answers first");
  });

  test("a problem found without the API server is answered without asking it", async () => {
    let asked = 0;
    const vet = vetPolicy({
      check: () => [{ path: "spec.rules[0]", message: "bad", severity: "error" }],
      cluster: checks(() => (asked++, Promise.resolve(true))),
      deadlineMs: 5000,
    });
    assert.deepEqual(texts(await vet(generating)), ["spec.rules[0]: bad"]);
    assert.equal(asked, 0);
  });
});

describe("vetCleanup: a cleanup policy's author must be allowed to list and delete what it matches", () => {
  const engine = createEngine(fakePorts());
  const sweep = compileCleanupPolicy(
    {
      apiVersion: "kyverno.io/v2",
      kind: "CleanupPolicy",
      metadata: { name: "sweep", namespace: "tenant-a" },
      spec: { schedule: "*/5 * * * *", match: { any: [{ resources: { kinds: ["ConfigMap"] } }] } },
    },
    engine.env,
  );
  assert.ok(sweep.ok);
  const deletes = cleanupDeletes(sweep.value);
  const author = { username: "dana", groups: ["system:authenticated"] };

  test("allowed: no problem; refused delete: the field and the verb, naming the cleanup controller", async () => {
    const asked: string[] = [];
    const allowList = (a: ResourceAccess): Promise<boolean> => (
      asked.push(`${a.user} ${a.verb} ${a.resource} ${a.namespace ?? ""}`),
      Promise.resolve(a.verb === "list")
    );
    const refused = await vetCleanup({ cluster: checks(allowList), deadlineMs: 5000 })(deletes, author);
    assert.deepEqual(asked.sort(), ["dana delete configmaps tenant-a", "dana list configmaps tenant-a"]);
    assert.equal(refused.length, 1);
    assert.match(
      texts(refused)[0] ?? "",
      /^spec\.match: the policy's author dana may not delete configmaps in namespace tenant-a; Bylaw's cleanup controller acts for the author/,
    );
    const allowed = await vetCleanup({ cluster: checks(() => Promise.resolve(true)), deadlineMs: 5000 })(
      deletes,
      author,
    );
    assert.deepEqual(allowed, []);
  });

  test("an API server that does not answer in time refuses the policy; no author (a metadata update) asks nothing", async () => {
    const late = await vetCleanup({ cluster: checks(() => never), deadlineMs: 30 })(deletes, author);
    assert.match(
      texts(late)[0] ?? "",
      /could not check this policy against the API server within 0 s \(whether its author may list and delete what it matches\)/,
    );
    let asked = 0;
    const none = await vetCleanup({ cluster: checks(() => (asked++, Promise.resolve(false))), deadlineMs: 5000 })(
      deletes,
    );
    assert.deepEqual(none, []);
    assert.equal(asked, 0);
  });
});
