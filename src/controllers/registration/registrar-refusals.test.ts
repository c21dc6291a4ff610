/**
 * One policy cannot block another's registration (issue 32 §8): when the API server refuses a
 * configuration, the policies at fault are found (by the webhook the refusal names, else by halving
 * with dry runs), left out, and every other policy is written; `states` then says, from what the API
 * server stored, which policies it sends to Bylaw and why the others are not.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { CompiledPolicy } from "../../engine/index.js";
import { policyIdOf } from "../../server/registration/build-configurations.js";
import { Registrar, type BuildRequest } from "./registrar.js";
import { RegistrationStates } from "./registration-states.js";
import type { Configurations, Webhook, WebhookConfiguration } from "./types.js";

/** A fake policy set: each policy is `{id, bad}`; a bad one's webhook has a condition the fake API server refuses. */
interface Fake {
  readonly id: string;
  readonly bad?: boolean;
  /** Policies sharing one webhook (the shared group webhook) name it here. */
  readonly shared?: string;
}

const hook = (name: string, bad: boolean): Webhook => ({
  name,
  admissionReviewVersions: ["v1"],
  clientConfig: { url: `https://x/${name}`, caBundle: "" },
  failurePolicy: "Fail",
  matchPolicy: "Equivalent",
  sideEffects: "None",
  timeoutSeconds: 10,
  matchConditions: [{ name: "c", expression: bad ? "BAD" : "true" }],
  rules: [],
});

function build(all: readonly Fake[], request: BuildRequest = {}): Configurations {
  const chosen = all.filter((p) => !(request.without?.has(p.id) ?? false));
  const groups = new Map<string, Fake[]>();
  for (const p of chosen) groups.set(p.shared ?? `own-${p.id}`, [...(groups.get(p.shared ?? `own-${p.id}`) ?? []), p]);
  const webhooks = [...groups].map(([name, ps]) =>
    hook(
      name,
      ps.some((p) => p.bad === true),
    ),
  );
  const config = (name: string, hooks: Webhook[]): WebhookConfiguration => ({
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name, labels: {} },
    webhooks: hooks,
  });
  return {
    validating: config("v", webhooks),
    mutating: config("m", []),
    policyValidating: config("p", []),
    notes: [],
    owners: new Map([["v", new Map([...groups].map(([name, ps]) => [name, ps.map((p) => p.id)]))]]),
    policies: chosen.map((p) => p.id),
  };
}

class Refused extends Error {
  readonly status = 422;
}

function fakeServer(options: { readonly namesIndex: boolean }) {
  const stored = new Map<string, WebhookConfiguration>();
  let dryRuns = 0;
  const apply = (c: WebhookConfiguration, o?: { readonly dryRun?: boolean }): Promise<unknown> => {
    const at = c.webhooks.findIndex((w) => w.matchConditions?.some((m) => m.expression === "BAD"));
    if (o?.dryRun === true) dryRuns++;
    if (at >= 0)
      return Promise.reject(
        new Refused(
          `ValidatingWebhookConfiguration "${c.metadata.name}" is invalid: ${options.namesIndex ? `webhooks[${at}].` : ""}matchConditions[0].expression: Invalid value: "BAD": compilation failed`,
        ),
      );
    if (o?.dryRun !== true) stored.set(c.metadata.name, c);
    return Promise.resolve(JSON.parse(JSON.stringify(c)));
  };
  return { apply, stored, dryRuns: () => dryRuns };
}

function setUp(policies: Fake[], namesIndex: boolean) {
  const server = fakeServer({ namesIndex });
  const states = new RegistrationStates();
  const logs: string[] = [];
  const registrar = new Registrar({
    build: (r) => build(policies, r),
    apply: server.apply,
    states,
    isLeader: () => true,
    onLog: (level, message, fields) => logs.push(`${level} ${message} ${JSON.stringify(fields)}`),
    retryDelayMs: () => 60_000,
    resyncMs: 0,
  });
  const state = (id: string) => {
    const [kind = "", namespace = "", name = ""] = id.split("/");
    return states.stateOf({ kind, namespace, name });
  };
  return { server, registrar, state, logs };
}

describe("registrar: a refused policy is left out, the others registered", () => {
  test("the refusal names the webhook: its one policy is left out at once, with the API server's message", async () => {
    const policies: Fake[] = [
      { id: "Policy/a/good" },
      { id: "Policy/a/bad", bad: true },
      { id: "ClusterPolicy//admin" },
    ];
    const h = setUp(policies, true);
    assert.equal(h.state("Policy/a/good"), undefined, "pending before the first sync");
    await h.registrar.request();
    assert.deepEqual(
      h.server.stored.get("v")?.webhooks.map((w) => w.name),
      ["own-Policy/a/good", "own-ClusterPolicy//admin"],
    );
    assert.equal(h.server.dryRuns(), 0);
    assert.deepEqual(h.state("Policy/a/good"), { registered: true });
    assert.deepEqual(h.state("ClusterPolicy//admin"), { registered: true });
    const bad = h.state("Policy/a/bad");
    assert.equal(bad?.registered, false);
    assert.match(bad?.registered === false ? bad.message : "", /refuses the webhook .*compilation failed/);
    assert.equal(h.registrar.healthy, true, "what could be written was written");
    h.registrar.close();
  });

  test("a refusal that names no webhook, and a shared webhook: found by halving with dry runs", async () => {
    const policies: Fake[] = [
      ...Array.from({ length: 6 }, (_, i) => ({ id: `ClusterPolicy//c${i}`, shared: "shared" })),
      { id: "ClusterPolicy//bad", bad: true, shared: "shared" },
      { id: "Policy/b/other", bad: true },
    ];
    const h = setUp(policies, false);
    await h.registrar.request();
    assert.deepEqual(
      h.server.stored.get("v")?.webhooks.map((w) => w.name),
      ["shared"],
    );
    for (let i = 0; i < 6; i++) assert.deepEqual(h.state(`ClusterPolicy//c${i}`), { registered: true });
    assert.equal(h.state("ClusterPolicy//bad")?.registered, false);
    assert.equal(h.state("Policy/b/other")?.registered, false);
    assert.ok(h.server.dryRuns() <= 12, `dry runs: ${h.server.dryRuns()}`);
    h.registrar.close();
  });

  test("a webhook missing from what the API server stored makes its policies not Ready, naming it", async () => {
    const h = setUp([{ id: "Policy/a/x" }], true);
    const states = new RegistrationStates();
    const registrar = new Registrar({
      build: (r) => build([{ id: "Policy/a/x" }], r),
      // The API server answers with a configuration without the webhook (e.g. another writer won).
      apply: (c) => Promise.resolve({ ...c, webhooks: [] }),
      states,
      isLeader: () => true,
      onLog: () => undefined,
      retryDelayMs: () => 60_000,
      resyncMs: 0,
    });
    await registrar.request();
    const s = states.stateOf({ kind: "Policy", namespace: "a", name: "x" });
    assert.equal(s?.registered, false);
    assert.match(s?.registered === false ? s.message : "", /own-Policy\/a\/x is not in the v the API server holds/);
    registrar.close();
    h.registrar.close();
  });

  test("check: a dry run of the configuration with the candidate in it says whether the API server would refuse it", async () => {
    const policies: Fake[] = [{ id: "Policy/a/good" }];
    const server = fakeServer({ namesIndex: true });
    let candidateBad = false;
    const registrar = new Registrar({
      build: (r) => {
        const c = r?.candidate;
        return build(c === undefined ? policies : [...policies, { id: `Policy/a/${c.name}`, bad: candidateBad }], r);
      },
      apply: server.apply,
      isLeader: () => true,
      onLog: () => undefined,
      retryDelayMs: () => 60_000,
      resyncMs: 0,
    });
    const candidate = { kind: "Policy", namespace: "a", name: "new", document: { spec: {} }, rules: [] };
    assert.equal(
      await registrar.check(candidate as unknown as CompiledPolicy, policyIdOf(candidate as unknown as CompiledPolicy)),
      undefined,
    );
    candidateBad = true;
    assert.match(
      (await registrar.check(
        candidate as unknown as CompiledPolicy,
        policyIdOf(candidate as unknown as CompiledPolicy),
      )) ?? "",
      /compilation failed/,
    );
    assert.equal(server.stored.size, 0, "a check never writes");
    registrar.close();
  });
});
