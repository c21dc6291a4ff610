import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../engine/index.js";
import { builtDigest, contentDigest } from "./report-content.js";

const ts = { seconds: 1765000000, nanos: 0 };

function row(policy: string, rule: string, result: string, extra: JsonObject = {}): JsonObject {
  return {
    source: "kyverno",
    policy,
    rule,
    result,
    message: `validation rule '${rule}' ${result === "pass" ? "passed" : "failed"}.`,
    scored: true,
    severity: "medium",
    category: "Pod Security Standards (Baseline)",
    properties: { process: "background scan" },
    ...extra,
    timestamp: ts,
  };
}

/** A report as Bylaw builds it: every row's timestamp last; a value that looks like a timestamp's JSON. */
const BUILT: JsonObject = {
  apiVersion: "wgpolicyk8s.io/v1alpha2",
  kind: "PolicyReport",
  metadata: {
    name: "u-1",
    namespace: "shop",
    labels: { "app.kubernetes.io/managed-by": "kyverno" },
    ownerReferences: [{ apiVersion: "v1", kind: "Pod", name: "web", uid: "u-1" }],
  },
  scope: { apiVersion: "v1", kind: "Pod", name: "web", namespace: "shop", uid: "u-1" },
  summary: { pass: 1, fail: 1, warn: 0, error: 0, skip: 0 },
  results: [
    row("pss-a", "r1", "pass"),
    row("pss-b", "r2", "fail", {
      properties: { process: "background scan", note: 'a "quoted", \\ value, "timestamp":{}}' },
    }),
  ],
};

/** Rows as the API server gives them back (keys sorted), and odd ones: timestamp first, none, alone, nested. */
const ODD: JsonObject = {
  ...BUILT,
  results: [
    {
      category: "c",
      message: "m",
      policy: "p",
      result: "pass",
      rule: "r",
      scored: true,
      source: "kyverno",
      timestamp: ts,
    },
    { timestamp: ts, policy: "p", rule: "r2", result: "fail" },
    { policy: "p", rule: "r3", result: "skip" },
    { timestamp: ts },
    { policy: "p", rule: "r4", result: "warn", properties: { timestamp: ts }, timestamp: { seconds: 5, nanos: 1 } },
  ],
};

const BARE: JsonObject = {
  apiVersion: "wgpolicyk8s.io/v1alpha2",
  kind: "ClusterPolicyReport",
  metadata: { name: "x" },
  results: [],
};

test("the digest written with a report is the one earlier Bylaw versions wrote, so an upgrade rewrites no report", () => {
  // Pinned: reports carry this digest (report-annotations.ts); if its bytes changed, every report an
  // earlier Bylaw wrote would look changed, and the first scan after an upgrade would rewrite them all.
  assert.equal(builtDigest(BUILT), "wWFct2LlAgOaThzZ9iiG/8ajLacx/P8HWoKUeItdy5o=");
  assert.equal(builtDigest(ODD), "QR4vkxVBjVWVhuduxBaMhNMbt0C5qlWCuoJiPde267c=");
  assert.equal(builtDigest(BARE), "ye/QinzdzVyTzCwUr11p11np9htarPCOmj3l23ltOXg=");
});

test("the digest ignores the rows' timestamps and nothing else", () => {
  const later = {
    ...BUILT,
    results: (BUILT["results"] as JsonObject[]).map((r) => ({ ...r, timestamp: { seconds: 9, nanos: 9 } })),
  };
  assert.equal(builtDigest(later), builtDigest(BUILT));
  const changed = {
    ...BUILT,
    results: (BUILT["results"] as JsonObject[]).map((r, i) => (i === 1 ? { ...r, result: "pass" } : r)),
  };
  assert.notEqual(builtDigest(changed), builtDigest(BUILT));
  // A nested timestamp is content: only the row's own is left out.
  const nested = {
    ...ODD,
    results: (ODD["results"] as JsonObject[]).map((r, i) =>
      i === 4 ? { ...r, properties: { timestamp: { seconds: 1, nanos: 0 } } } : r,
    ),
  };
  assert.notEqual(builtDigest(nested), builtDigest(ODD));
  // Key order is not ignored by this digest (contentDigest's is): it only compares reports built alike.
  const reordered = {
    ...BUILT,
    results: (BUILT["results"] as JsonObject[]).map((r) => Object.fromEntries(Object.entries(r).reverse())),
  };
  assert.notEqual(builtDigest(reordered), builtDigest(BUILT));
  assert.equal(contentDigest(reordered), contentDigest(BUILT));
});
