/** Helpers for the pod-security tests: compact pods, compiled rules and evaluation summaries. */
import assert from "node:assert/strict";
import type { JsonObject } from "../../src/engine/api/json.js";
import { compilePodSecurity } from "../../src/engine/pod-security/compile.js";
import { evaluatePodSecurity } from "../../src/engine/pod-security/evaluate-pod-security.js";
import { pod } from "./builders.js";
import { formatFieldError } from "../../src/engine/pod-security/message.js";
import type {
  CompiledPodSecurity,
  PodSecurityExclude,
  PodSecurityOutcome,
} from "../../src/engine/pod-security/types.js";

/** A compliant restricted container named `app`, merged with `extra`. */
export function container(extra: JsonObject = {}, securityContext: JsonObject = {}): JsonObject {
  return {
    name: "app",
    image: "nginx:1.27",
    ...extra,
    securityContext: {
      allowPrivilegeEscalation: false,
      runAsNonRoot: true,
      seccompProfile: { type: "RuntimeDefault" },
      capabilities: { drop: ["ALL"] },
      ...securityContext,
    },
  };
}

/** A Pod named `p` with `spec` (one compliant container unless `spec.containers` is given). */
export function restrictedPod(spec: JsonObject = {}, metadata: JsonObject = {}): JsonObject {
  return pod({ name: "p", containers: [container()], spec, metadata });
}

export function rule(level: string, version = "latest", exclude?: readonly PodSecurityExclude[]): CompiledPodSecurity {
  const spec: JsonObject = { level, version };
  if (exclude !== undefined) spec["exclude"] = exclude.map((e) => ({ ...e }) as unknown as JsonObject);
  const r = compilePodSecurity(spec, "spec.rules[0].validate.podSecurity");
  assert.ok(r.ok, r.ok ? "" : r.problems.map((p) => `${p.path}: ${p.message}`).join("\n"));
  return r.value;
}

/** `id` of each failing check, in order. */
export function failing(
  ps: CompiledPodSecurity,
  resource: JsonObject,
  extra?: readonly PodSecurityExclude[],
): string[] {
  return evaluatePodSecurity(ps, resource, extra !== undefined ? { extraExcludes: extra } : {}).checks.map((c) => c.id);
}

/** `id: reason | detail | errors` of each failing check. */
export function describeOutcome(outcome: PodSecurityOutcome): string[] {
  return outcome.checks.map((c) => `${c.id}: ${c.reason} | ${c.detail} | ${c.errors.map(formatFieldError).join(", ")}`);
}
