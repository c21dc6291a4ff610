import { before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { parseBundle, planRotation, type Plan, type RotationSettings, type TlsSecretData } from "./cert-rotation.js";

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 5, 1);
const settings: RotationSettings = {
  dnsNames: ["bylaw-svc.bylaw.svc", "localhost"],
  ips: ["127.0.0.1"],
  caOverlapMs: 60_000,
};

function written(plan: Plan): Required<TlsSecretData> {
  assert.equal(plan.kind, "write", JSON.stringify(plan));
  if (plan.kind !== "write") throw new Error("unreachable");
  return plan.data;
}

const signedBy = (data: TlsSecretData, ca: X509Certificate): boolean => {
  const leaf = new X509Certificate(data["tls.crt"] ?? "");
  return leaf.checkIssued(ca) && leaf.verify(ca.publicKey);
};

describe("planRotation", () => {
  let data: Required<TlsSecretData> = { "tls.crt": "", "tls.key": "", "ca.crt": "", "ca.key": "" };
  before(async () => {
    data = written(await planRotation({ data: {}, rotateRequested: false }, settings, T0));
  });

  test("an empty Secret gets a CA (a year) and a serving certificate it signed (150 days) for the names and IPs", () => {
    const [ca, ...rest] = parseBundle(data["ca.crt"]);
    assert.ok(ca !== undefined && rest.length === 0);
    assert.equal(ca.ca, true);
    assert.ok(signedBy(data, ca));
    const leaf = new X509Certificate(data["tls.crt"]);
    assert.equal(leaf.subjectAltName, "DNS:bylaw-svc.bylaw.svc, DNS:localhost, IP Address:127.0.0.1");
    assert.equal(Date.parse(leaf.validTo), T0 + 150 * DAY);
    assert.equal(Date.parse(ca.validTo), T0 + 365 * DAY);
  });

  test("a fresh Secret is kept, and rechecked within 12 h", async () => {
    const plan = await planRotation({ data, rotateRequested: false, caRotatedAt: T0 }, settings, T0 + DAY);
    assert.deepEqual(plan, { kind: "keep", recheckInMs: 12 * 3_600_000 });
  });

  test("the serving certificate is reissued by the same CA 15 days before it expires", async () => {
    const plan = await planRotation({ data, rotateRequested: false, caRotatedAt: T0 }, settings, T0 + 135 * DAY);
    const next = written(plan);
    assert.equal(next["ca.crt"], data["ca.crt"]);
    assert.notEqual(next["tls.crt"], data["tls.crt"]);
    assert.ok(signedBy(next, parseBundle(data["ca.crt"])[0] as X509Certificate));
    assert.equal(
      (await planRotation({ data, rotateRequested: false, caRotatedAt: T0 }, settings, T0 + 134 * DAY)).kind,
      "keep",
    );
  });

  test("other names, or a key that is not the certificate's, reissue the serving certificate", async () => {
    assert.notEqual(
      written(
        await planRotation({ data, rotateRequested: false }, { ...settings, dnsNames: ["other.bylaw.svc"] }, T0 + DAY),
      )["tls.crt"],
      data["tls.crt"],
    );
    const swapped = written(await planRotation({ data: {}, rotateRequested: false }, settings, T0));
    const mixed = { ...data, "tls.key": swapped["tls.key"] };
    assert.notEqual(
      written(await planRotation({ data: mixed, rotateRequested: false }, settings, T0 + DAY))["tls.crt"],
      data["tls.crt"],
    );
  });

  test("a CA rotation: the new CA joins the bundle first; the serving certificate follows after the overlap", async () => {
    const t = T0 + 10 * DAY;
    const phase1 = await planRotation({ data, rotateRequested: true, caRotatedAt: T0 }, settings, t);
    const one = written(phase1);
    assert.equal(phase1.kind === "write" && phase1.caRotatedAt, t);
    const [fresh, old] = parseBundle(one["ca.crt"]);
    assert.ok(fresh !== undefined && old !== undefined);
    assert.equal(old.toString(), parseBundle(data["ca.crt"])[0]?.toString(), "the old CA stays trusted");
    assert.equal(one["tls.crt"], data["tls.crt"], "replicas keep presenting the old CA's certificate meanwhile");
    const waiting = await planRotation({ data: one, rotateRequested: false, caRotatedAt: t }, settings, t + 30_000);
    assert.deepEqual(waiting, { kind: "keep", recheckInMs: 30_000 });
    const two = written(
      await planRotation({ data: one, rotateRequested: false, caRotatedAt: t }, settings, t + 60_000),
    );
    assert.equal(two["ca.crt"], one["ca.crt"], "both CAs stay in the bundle");
    assert.ok(signedBy(two, fresh));
    assert.equal(
      (await planRotation({ data: two, rotateRequested: false, caRotatedAt: t }, settings, t + 61_000)).kind,
      "keep",
    );
  });

  test("the CA is renewed 15 days before it expires; an expired CA leaves the bundle; no CA key starts over", async () => {
    const due = written(
      await planRotation({ data, rotateRequested: false, caRotatedAt: T0 }, settings, T0 + 351 * DAY),
    );
    assert.equal(parseBundle(due["ca.crt"]).length, 2);
    const after = written(
      await planRotation({ data: due, rotateRequested: false, caRotatedAt: T0 + 351 * DAY }, settings, T0 + 366 * DAY),
    );
    assert.equal(parseBundle(after["ca.crt"]).length, 1, "the expired CA is dropped");
    const lost = written(
      await planRotation({ data: { ...data, "ca.key": "" }, rotateRequested: false }, settings, T0 + DAY),
    );
    assert.notEqual(lost["ca.crt"], data["ca.crt"]);
  });
});
