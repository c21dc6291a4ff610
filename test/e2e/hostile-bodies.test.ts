/**
 * 10,000 generated malformed or hostile request bodies against `bylaw serve` over HTTPS: every answer
 * is a 4xx or a well-formed AdmissionReview, and the server stays up. Deterministic (seeded).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { tempTree } from "../support/temp-dir.js";
import { podReview, serveAroundTests } from "./serve-harness.js";
import { seededRandom } from "../support/seeded-random.js";

const policy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: require-team}
spec:
  validationFailureAction: Enforce
  rules:
    - name: check-team
      match: {any: [{resources: {kinds: [Pod]}}]}
      validate:
        message: "team {{ request.object.metadata.labels.team || 'none' }} must be set"
        pattern: {metadata: {labels: {team: "?*"}}}
    - name: images
      match: {any: [{resources: {kinds: [Pod]}}]}
      validate:
        foreach:
          - list: request.object.spec.containers
            deny: {conditions: {any: [{key: "{{ regex_match('^.*:latest$', element.image) }}", operator: Equals, value: true}]}}
`;

const validPod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "shop", labels: { team: "a" } },
  spec: { containers: [{ name: "c", image: "nginx:1" }] },
};
const base = JSON.parse(
  podReview({
    namespace: "shop",
    name: "p",
    object: validPod,
  }),
) as Record<string, unknown>;
const ODD: unknown[] = [
  null,
  true,
  0,
  -1,
  1e308,
  "",
  "x".repeat(5000),
  [],
  {},
  [[[]]],
  { __proto__: { polluted: true } },
  "\u0000\ud800",
  { constructor: { prototype: { x: 1 } } },
];

function deep(n: number, leaf: unknown): unknown {
  let v = leaf;
  for (let i = 0; i < n; i++) v = { a: v };
  return v;
}

function mutate(value: unknown, pick: () => number): unknown {
  if (Array.isArray(value)) return (value as unknown[]).map((v) => (pick() < 0.3 ? mutate(v, pick) : v));
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const r = pick();
      if (r < 0.08) continue;
      out[r < 0.12 ? `${k}\u202e` : k] = r < 0.35 ? ODD[Math.floor(pick() * ODD.length)] : mutate(v, pick);
    }
    if (pick() < 0.05) out["__proto__"] = { admin: true };
    return out;
  }
  return pick() < 0.3 ? ODD[Math.floor(pick() * ODD.length)] : value;
}

function body(i: number): string | Buffer {
  const pick = seededRandom(i + 1);
  const kind = i % 10;
  const json = JSON.stringify(mutate(base, pick));
  switch (kind) {
    case 0:
      return json.slice(0, Math.floor(pick() * json.length));
    case 1:
      return Buffer.from(Array.from({ length: 64 + Math.floor(pick() * 512) }, () => Math.floor(pick() * 256)));
    case 2:
      return JSON.stringify({
        ...base,
        request: { ...(base["request"] as object), object: deep(200 + Math.floor(pick() * 3000), "x") },
      });
    case 3:
      return JSON.stringify({
        ...base,
        request: {
          ...(base["request"] as object),
          object: { ...validPod, metadata: { name: "p", labels: { team: "{{ " + "a.".repeat(200) + "b }}" } } },
        },
      });
    case 4:
      return "[".repeat(1000 + Math.floor(pick() * 100000));
    default:
      return json;
  }
}

const server = serveAroundTests(["--policies", tempTree({ "p.yaml": policy })]);

test(
  "10,000 hostile bodies: every answer is a 4xx or a valid AdmissionReview, and the server stays up",
  { timeout: 300_000 },
  async () => {
    const counts: Record<string, number> = {};
    const paths = ["/validate/fail", "/mutate/fail", "/policyvalidate", "/validate/ignore"];
    const total = 10_000;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < total) {
        const i = next++;
        const r = await server().post(paths[i % paths.length] ?? "/validate/fail", body(i));
        let verdict: string;
        if (r.status >= 400 && r.status < 500) verdict = `${r.status}`;
        else if (r.status === 200) {
          const res = r.json as
            { apiVersion?: string; kind?: string; response?: { allowed?: unknown; uid?: unknown } } | undefined;
          assert.equal(res?.apiVersion, "admission.k8s.io/v1", `body ${i}: ${r.text.slice(0, 200)}`);
          assert.equal(res?.kind, "AdmissionReview");
          assert.equal(typeof res?.response?.allowed, "boolean", `body ${i}: ${r.text.slice(0, 200)}`);
          verdict = "200";
        } else {
          assert.fail(`body ${i} on ${paths[i % paths.length]}: HTTP ${r.status}: ${r.text.slice(0, 300)}`);
        }
        counts[verdict] = (counts[verdict] ?? 0) + 1;
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    assert.equal(
      Object.values(counts).reduce((a, b) => a + b, 0),
      total,
    );
    assert.ok((counts["200"] ?? 0) > 1000 && (counts["400"] ?? 0) > 1000, JSON.stringify(counts));
    assert.equal((await server().get("/health/liveness")).status, 200);
  },
);
