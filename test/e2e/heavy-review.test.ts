/**
 * A 100k-container Pod (about 3 MB) against the shipped pss-restricted set, over real HTTPS: it is
 * answered within the webhook timeout, a clean Pod sent at the same time is allowed within 1 s, and
 * liveness answers within 1 s throughout. The heavy review leaves its batch after its slice and
 * finishes in the evaluation worker, off the main thread. Bounds are generous (the machine is shared)
 * but real; speed itself is measured by `npm run bench` (bench/heavy-review.ts).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { podReview, serveAroundTests } from "./serve-harness.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const WEBHOOK_TIMEOUT_SECONDS = 10;
type Review = { response: { uid: string; allowed: boolean; status?: { message: string }; warnings?: string[] } };

function heavyPodBody(containers: number): string {
  const list = Array.from({ length: containers }, (_, i) => ({ name: `c${i}`, image: "nginx:1.27" }));
  const object = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "heavy", namespace: "shop" },
    spec: { containers: list },
  };
  return podReview({
    uid: "heavy",
    namespace: "shop",
    name: "heavy",
    object,
  });
}

const cleanPod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "clean", namespace: "shop" },
  spec: {
    securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
    containers: [
      {
        name: "app",
        image: "nginx:1.27",
        securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
      },
    ],
  },
};

describe("a 100k-container Pod against pss-restricted", () => {
  const server = serveAroundTests([
    "--policies",
    join(repoRoot, "policies", "pss-restricted"),
    "--timeout-seconds",
    String(WEBHOOK_TIMEOUT_SECONDS),
  ]);

  test(
    "is answered within the webhook timeout while a clean Pod and liveness are answered within 1 s",
    { timeout: 30_000 },
    async () => {
      const body = heavyPodBody(100_000);
      assert.ok(body.length > 3_000_000 && body.length < 7 * 1024 * 1024, `body of ${body.length} bytes`);
      const t0 = performance.now();
      let heavyDone = false;
      const heavy = server()
        .post("/validate/fail", body)
        .then((r) => {
          heavyDone = true;
          return { ...r, seconds: (performance.now() - t0) / 1000 };
        });
      // Liveness every 100 ms while the heavy review runs.
      const probes: number[] = [];
      const probing = (async () => {
        while (!heavyDone) {
          const p0 = performance.now();
          const r = await server().get("/health/liveness");
          assert.equal(r.status, 200);
          probes.push((performance.now() - p0) / 1000);
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      // A clean Pod once the heavy body is on its way, and again a little later.
      const cleanLatencies: number[] = [];
      for (const wait of [150, 600]) {
        await new Promise((r) => setTimeout(r, wait));
        const c0 = performance.now();
        const clean = await server().post(
          "/validate/fail",
          podReview({
            uid: `clean-${wait}`,
            namespace: "shop",
            name: "clean",
            object: cleanPod,
          }),
        );
        cleanLatencies.push((performance.now() - c0) / 1000);
        assert.equal(clean.status, 200);
        assert.equal((clean.json as Review).response.allowed, true);
      }
      const answered = await heavy;
      await probing;
      assert.equal(answered.status, 200);
      assert.equal((answered.json as Review).response.uid, "heavy");
      // The shipped set is Audit: the Pod is allowed (its failures go to the metrics and reports).
      assert.equal((answered.json as Review).response.allowed, true);
      assert.ok(answered.seconds < WEBHOOK_TIMEOUT_SECONDS, `the heavy review took ${answered.seconds.toFixed(2)} s`);
      assert.ok(
        cleanLatencies.every((s) => s < 1),
        `clean Pod latencies ${cleanLatencies.map((s) => s.toFixed(3)).join(", ")} s`,
      );
      assert.ok(
        probes.length >= 1 && probes.every((s) => s < 1),
        `liveness latencies ${probes.map((s) => s.toFixed(3)).join(", ")} s`,
      );
    },
  );
});
