/** Status writes: only on change, only as leader, never a loop on our own write's event. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createEngine, type JsonObject, type JsonValue } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { clusterPolicy, podRule } from "../../../test/support/builders.js";
import { KubeError } from "../../kube/kube-client.js";
import { desiredStatus, type PolicyOutcome } from "./policy-status.js";
import { PolicyStatusWriter, type WebhookState } from "./policy-status-writer.js";

const engine = createEngine(fakePorts());
const doc = clusterPolicy("p", [podRule("r", { pattern: { metadata: { labels: { app: "?*" } } } })]);
const out = engine.compile(doc);
assert.ok(out.ok);
const compiled = out.policy;

const outcome = (over: Partial<PolicyOutcome> = {}): PolicyOutcome => ({
  kind: "ClusterPolicy",
  namespace: "",
  name: "p",
  uid: "u1",
  resourceVersion: "1",
  generation: 1,
  rules: (doc["spec"] as { rules: JsonValue[] }).rules,
  status: undefined,
  compiled,
  problems: [],
  ...over,
});

/** A recording client: answers each PATCH with the status it was sent (as the API server stores it). */
function recorder(fail?: KubeError) {
  const calls: { method: string; path: string; body: JsonObject; type: string }[] = [];
  return {
    calls,
    client: {
      sendJson: (
        method: "PATCH" | "PUT" | "POST" | "DELETE",
        path: string,
        body: unknown,
        options?: { readonly contentType?: string },
      ): Promise<unknown> => {
        calls.push({ method, path, body: body as JsonObject, type: options?.contentType ?? "" });
        if (fail !== undefined) return Promise.reject(fail);
        return Promise.resolve({ metadata: { resourceVersion: "2" }, status: (body as JsonObject)["status"] });
      },
    },
  };
}

describe("PolicyStatusWriter", () => {
  test("writes a new policy's status once, as a merge patch of the status subresource", async () => {
    const r = recorder();
    const w = new PolicyStatusWriter({ client: r.client, now: () => 0 });
    w.reconcile([outcome()]);
    await w.idle();
    assert.equal(r.calls.length, 1);
    assert.equal(r.calls[0]?.method, "PATCH");
    assert.equal(r.calls[0]?.path, "/apis/kyverno.io/v1/clusterpolicies/p/status");
    assert.equal(r.calls[0]?.type, "application/merge-patch+json");
  });

  test("does not write again while the cache lags, nor on its own write's event", async () => {
    const r = recorder();
    const w = new PolicyStatusWriter({ client: r.client, now: () => 0 });
    w.reconcile([outcome()]);
    await w.idle();
    // The cache still shows resourceVersion 1 (event not in yet): skipped.
    w.reconcile([outcome()]);
    await w.idle();
    // Our write's event: resourceVersion 2 with the status we wrote (perhaps normalised by the server).
    const stored = r.calls[0]?.body["status"];
    w.reconcile([outcome({ resourceVersion: "2", status: stored })]);
    await w.idle();
    assert.equal(r.calls.length, 1);
    assert.equal(w.counts.unchanged, 2);
  });

  test("a status already as desired is never written", async () => {
    const r = recorder();
    const w = new PolicyStatusWriter({ client: r.client, now: () => 0 });
    w.reconcile([outcome({ status: desiredStatus(outcome(), 0) })]);
    await w.idle();
    assert.equal(r.calls.length, 0);
  });

  test("a policy that becomes invalid is written again (Ready False)", async () => {
    const r = recorder();
    const w = new PolicyStatusWriter({ client: r.client, now: () => 0 });
    w.reconcile([outcome()]);
    await w.idle();
    const stored = r.calls[0]?.body["status"];
    const invalid: PolicyOutcome = {
      ...outcome({ resourceVersion: "3", generation: 2, status: stored, problems: ["spec.rules[0]: bad"] }),
    };
    delete (invalid as { compiled?: unknown }).compiled;
    w.reconcile([invalid]);
    await w.idle();
    assert.equal(r.calls.length, 2);
    const conditions = (r.calls[1]?.body["status"] as JsonObject)["conditions"] as JsonObject[];
    assert.equal(conditions[0]?.["status"], "False");
  });

  test("writes nothing unless leader", async () => {
    const r = recorder();
    let leader = false;
    const w = new PolicyStatusWriter({ client: r.client, now: () => 0, isLeader: () => leader });
    w.reconcile([outcome()]);
    await w.idle();
    assert.equal(r.calls.length, 0);
    leader = true;
    w.reconcile([outcome()]);
    await w.idle();
    assert.equal(r.calls.length, 1);
  });

  test("a conflict is left to the next event; a forbidden write is logged once", async () => {
    const conflict = recorder(new KubeError("conflict", 409, "Conflict"));
    const w1 = new PolicyStatusWriter({ client: conflict.client, now: () => 0 });
    w1.reconcile([outcome()]);
    await w1.idle();
    assert.equal(w1.counts.conflicts, 1);
    const forbidden = recorder(new KubeError("forbidden", 403, "Forbidden"));
    const logs: string[] = [];
    const w2 = new PolicyStatusWriter({ client: forbidden.client, now: () => 0, onLog: (_l, m) => logs.push(m) });
    w2.reconcile([outcome(), outcome({ uid: "u2", name: "q" })]);
    await w2.idle();
    assert.equal(forbidden.calls.length, 2);
    assert.equal(logs.filter((m) => m.includes("cannot write policy status")).length, 1);
  });

  test("becoming leader writes at once the statuses skipped while following", async () => {
    const r = recorder();
    let leader = false;
    let notify: (leader: boolean) => void = () => undefined;
    const w = new PolicyStatusWriter({ client: r.client, now: () => 0, isLeader: () => leader });
    const unfollow = w.followLeadership(
      (listener) => {
        notify = listener;
        return () => (notify = () => undefined);
      },
      () => [outcome()],
    );
    w.reconcile([outcome()]);
    await w.idle();
    assert.equal(r.calls.length, 0, "skipped: not the leader");
    leader = true;
    notify(true);
    await w.idle();
    assert.equal(r.calls.length, 1, "written on becoming leader, not at the next resync");
    unfollow();
    notify(true);
    await w.idle();
    assert.equal(r.calls.length, 1);
  });
});

describe("PolicyStatusWriter with registration (--register)", () => {
  test("a served policy's status waits for registration, then is Ready only when registered, else says why", async () => {
    const r = recorder();
    let state: WebhookState | undefined;
    const w = new PolicyStatusWriter({ client: r.client, now: () => 0, registration: { stateOf: () => state } });
    w.reconcile([outcome()]);
    await w.idle();
    assert.equal(r.calls.length, 0, "pending: nothing written");
    assert.equal(w.counts.pending, 1);
    state = { registered: false, message: "the API server refuses the webhook: bad expression" };
    w.reconcile([outcome()]);
    await w.idle();
    const ready = (r.calls[0]?.body["status"] as JsonObject)["conditions"] as JsonObject[];
    assert.equal(ready[0]?.["status"], "False");
    assert.match(
      ready[0]?.["message"] as string,
      /not served by Bylaw: the API server refuses the webhook: bad expression/,
    );
    state = { registered: true };
    w.reconcile([outcome()]);
    await w.idle();
    const again = (r.calls[1]?.body["status"] as JsonObject)["conditions"] as JsonObject[];
    assert.equal(again[0]?.["status"], "True");
  });
});
