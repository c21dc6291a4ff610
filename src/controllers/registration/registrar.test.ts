/** The registrar writes each configuration when it changes, only as leader, retries failures and never deletes. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Registrar, type RegistrarOptions } from "./registrar.js";
import type { Configurations, WebhookConfiguration } from "./types.js";

const config = (name: string, webhooks: string[]): WebhookConfiguration => ({
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingWebhookConfiguration",
  metadata: { name, labels: {} },
  webhooks: webhooks.map((n) => ({
    name: n,
    admissionReviewVersions: ["v1"],
    clientConfig: { caBundle: "" },
    failurePolicy: "Fail",
    matchPolicy: "Equivalent",
    sideEffects: "None",
    timeoutSeconds: 10,
    rules: [],
  })),
});
const set = (hooks: string[]): Configurations => ({
  validating: config("v", hooks),
  mutating: config("m", []),
  policyValidating: config("p", ["policy"]),
  notes: [],
  owners: new Map(),
  policies: [],
});

function harness(overrides: Partial<RegistrarOptions> = {}) {
  const writes: string[] = [];
  const logs: string[] = [];
  let current: Configurations | undefined = set(["a"]);
  let leader = true;
  let failNext = 0;
  const registrar = new Registrar({
    build: () => current,
    apply: (c) => {
      if (failNext > 0) {
        failNext--;
        return Promise.reject(new Error("forbidden"));
      }
      writes.push(`${c.metadata.name}:${c.webhooks.map((w) => w.name).join(",")}`);
      return Promise.resolve();
    },
    isLeader: () => leader,
    onLog: (level, message) => logs.push(`${level} ${message}`),
    retryDelayMs: () => 5,
    resyncMs: 0,
    ...overrides,
  });
  return {
    registrar,
    writes,
    logs,
    setCurrent: (c: Configurations | undefined) => (current = c),
    setLeader: (l: boolean) => (leader = l),
    failNext: (n: number) => (failNext = n),
  };
}

describe("registrar", () => {
  test("writes the policy webhook first, then the resource configurations; an unchanged set is not written again", async () => {
    const h = harness();
    await h.registrar.request();
    assert.deepEqual(h.writes, ["p:policy", "v:a", "m:"]);
    await h.registrar.request();
    assert.equal(h.writes.length, 3);
    h.setCurrent(set(["a", "b"]));
    await h.registrar.request();
    assert.deepEqual(h.writes.slice(3), ["v:a,b"], "only the configuration that changed is written");
    h.registrar.close();
  });

  test("only the leader writes; becoming leader and asking again writes", async () => {
    const h = harness();
    h.setLeader(false);
    await h.registrar.request();
    assert.deepEqual(h.writes, []);
    h.setLeader(true);
    await h.registrar.request();
    assert.equal(h.writes.length, 3);
    h.registrar.close();
  });

  test("before a set has loaded nothing is written (the configurations in the cluster stay)", async () => {
    const h = harness();
    h.setCurrent(undefined);
    await h.registrar.request();
    assert.deepEqual(h.writes, []);
    h.registrar.close();
  });

  test("a failed write is logged with the reason, keeps the old configuration and is retried", async () => {
    const h = harness();
    h.failNext(1);
    await h.registrar.request();
    assert.deepEqual(h.writes, ["v:a", "m:"]);
    assert.equal(h.registrar.healthy, false);
    assert.match(
      h.logs.join("\n"),
      /error .*could not register ValidatingWebhookConfiguration p; the configuration in the cluster stays as it was: forbidden/,
    );
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(h.writes, ["v:a", "m:", "p:policy"]);
    assert.equal(h.registrar.healthy, true);
    h.registrar.close();
  });

  test("requests during a sync coalesce into one more sync with the newest set", async () => {
    const h = harness();
    const first = h.registrar.request();
    h.setCurrent(set(["x"]));
    void h.registrar.request();
    h.setCurrent(set(["y"]));
    await h.registrar.request();
    await first;
    assert.deepEqual(
      h.writes.filter((w) => w.startsWith("v:")),
      ["v:a", "v:y"],
    );
    h.registrar.close();
  });

  test("resync applies again even when nothing changed (undoing edits by hand)", async () => {
    const h = harness({ resyncMs: 20 });
    await h.registrar.request();
    await new Promise((r) => setTimeout(r, 70));
    assert.ok(h.writes.length >= 6, `written again: ${h.writes.join(" ")}`);
    h.registrar.close();
  });

  test("becoming leader applies everything at once, changed or not, without waiting for the resync", async () => {
    const h = harness();
    let notify: (leader: boolean) => void = () => undefined;
    let following = false;
    h.registrar.followLeadership((listener) => {
      notify = listener;
      following = true;
      return () => (following = false);
    });
    await h.registrar.request();
    assert.equal(h.writes.length, 3);
    // Lost the Lease (someone may have edited or deleted a configuration since), then won it back.
    h.setLeader(false);
    notify(false);
    h.setLeader(true);
    notify(true);
    await h.registrar.request();
    assert.deepEqual(h.writes.slice(3), ["p:policy", "v:a", "m:"]);
    h.registrar.close();
    assert.equal(following, false, "close() stops following");
  });
});
