/** The --register flags: a Service in the cluster, a URL outside it, and the errors a user can act on. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { registrationPlan } from "./registration-flags.js";

describe("registration flags", () => {
  test("without --register nothing is registered; --server-url alone is an error", () => {
    assert.deepEqual(registrationPlan({}, {}), { ok: true, value: undefined });
    assert.deepEqual(registrationPlan({ "server-url": "https://127.0.0.1:9443" }, {}), {
      ok: false,
      error: "--server-url needs --register",
    });
  });

  test("in the cluster: the Service, its namespace from --service-namespace, else POD_NAMESPACE, else bylaw", () => {
    const a = registrationPlan({ register: true }, {});
    assert.deepEqual(a.ok && a.value?.endpoint, { kind: "service", name: "bylaw", namespace: "bylaw", port: 443 });
    const b = registrationPlan({ register: true }, { POD_NAMESPACE: "policy" });
    assert.equal(b.ok && b.value?.ownNamespace, "policy");
    const c = registrationPlan(
      { register: true, "service-namespace": "x", "service-name": "svc", "service-port": "8443" },
      { POD_NAMESPACE: "policy" },
    );
    assert.deepEqual(c.ok && c.value?.endpoint, { kind: "service", name: "svc", namespace: "x", port: 8443 });
  });

  test("outside the cluster: --server-url https://HOST:PORT", () => {
    const a = registrationPlan({ register: true, "server-url": "https://127.0.0.1:9443/" }, {});
    assert.deepEqual(a.ok && a.value?.endpoint, { kind: "url", base: "https://127.0.0.1:9443" });
    for (const bad of [
      "http://127.0.0.1:9443",
      "https://127.0.0.1:9443/x",
      "https://127.0.0.1:9443?a=b",
      "https://u:p@127.0.0.1:9443",
      "127.0.0.1:9443x",
    ]) {
      const r = registrationPlan({ register: true, "server-url": bad }, {});
      assert.equal(r.ok, false, bad);
      assert.match(!r.ok ? r.error : "", /--server-url must be/);
    }
  });

  test("--kyverno-webhook-names: Kyverno's names for what --register writes; an error without --register", () => {
    const a = registrationPlan({ register: true, "kyverno-webhook-names": true }, {});
    assert.equal(a.ok && a.value?.names, "kyverno");
    const b = registrationPlan({ register: true }, {});
    assert.equal(b.ok && b.value?.names, "bylaw");
    assert.deepEqual(registrationPlan({ "kyverno-webhook-names": true }, {}), {
      ok: false,
      error: "--kyverno-webhook-names needs --register (it names the webhooks Bylaw registers)",
    });
  });
});
