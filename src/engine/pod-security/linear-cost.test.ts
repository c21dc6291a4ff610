/**
 * The restricted and baseline checks cost a fixed amount of work per container: a pod with twice
 * the containers is read about twice as often, failing or passing. Counted, not timed: every
 * property read of a container object goes through a counting proxy.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { evaluatePodSecurity } from "./evaluate-pod-security.js";
import { rule } from "../../../test/support/pod-security.js";

/** A pod of `n` containers (none compliant, so every check names every container) and its read counter. */
function countedPod(n: number, compliant: boolean): { pod: JsonObject; reads: () => number } {
  let reads = 0;
  const containers = Array.from({ length: n }, (_, i) => {
    const c: JsonObject = { name: `c${i}`, image: `registry.example.com/app:${i}` };
    if (compliant)
      c["securityContext"] = {
        allowPrivilegeEscalation: false,
        runAsNonRoot: true,
        seccompProfile: { type: "RuntimeDefault" },
        capabilities: { drop: ["ALL"] },
      };
    return new Proxy(c, {
      get(target, key, receiver) {
        reads++;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
  });
  return {
    pod: { apiVersion: "v1", kind: "Pod", metadata: { name: "big", namespace: "default" }, spec: { containers } },
    reads: () => reads,
  };
}

for (const level of ["restricted", "baseline"] as const) {
  for (const compliant of [false, true]) {
    test(`${level}, ${compliant ? "compliant" : "failing"} containers: reads grow linearly with the number of containers`, () => {
      const ps = rule(level);
      const counts = [500, 1000, 2000].map((n) => {
        const { pod, reads } = countedPod(n, compliant);
        const outcome = evaluatePodSecurity(ps, pod);
        if (!compliant && level === "restricted") {
          assert.equal(outcome.allowed, false);
          // Every failing check that names containers names all of them, each with its image.
          const images = outcome.checks.find((c) => c.id === "allowPrivilegeEscalation")?.images ?? [];
          assert.equal(images.length, n);
          assert.equal(images[n - 1], `registry.example.com/app:${n - 1}`);
        }
        return reads() / n;
      });
      // Reads per container stay flat (a quadratic lookup doubles them with each doubling of n).
      const [a, , c] = counts as [number, number, number];
      assert.ok(c <= a * 1.2 + 1, `reads per container: ${counts.map((x) => x.toFixed(1)).join(", ")}`);
    });
  }
}
