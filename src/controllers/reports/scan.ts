/**
 * A background scan of one resource (Kyverno's reports controller): every policy with
 * `background: true` and validate rules, or a MutatingPolicy's mutations (a fail where they would
 * still change the object), not opted out with the label `reports.kyverno.io/disabled`, evaluated
 * against the resource as it is stored, with user info ignored (`background: true`); the responses
 * of the policies that matched it.
 */
import {
  hasValidateRules,
  mutationScanResponse,
  scansMutation,
  type AnyCompiledException,
  type CompiledPolicy,
  type Engine,
  type JsonObject,
  type PolicyResponse,
} from "../../engine/index.js";
import type { NamespaceFacts } from "../namespace-facts.js";

const DISABLED_LABEL = "reports.kyverno.io/disabled";

/** The policies a background scan evaluates. */
export function backgroundPolicies(policies: readonly CompiledPolicy[]): CompiledPolicy[] {
  return policies.filter(
    (p) => p.background && p.language !== "unsupported" && (hasValidateRules(p) || scansMutation(p)) && reported(p),
  );
}

/** Whether a policy's results go to reports at all: not opted out with `reports.kyverno.io/disabled`. */
export function reported(policy: Pick<CompiledPolicy, "labels">): boolean {
  return !(DISABLED_LABEL in policy.labels);
}

/** The policy as a report row names it: `ns/name` for a namespaced one. */
export function rowPolicyName(policy: Pick<CompiledPolicy, "namespace" | "name">): string {
  return policy.namespace ? `${policy.namespace}/${policy.name}` : policy.name;
}

/**
 * The names (as rows give them) of the policies whose rows only admission writes: reported, and not
 * evaluated by the background scan. A scan keeps these rows; it drops the rows of any other policy.
 */
export function admissionOnlyPolicyNames(
  all: readonly CompiledPolicy[],
  scanned: readonly CompiledPolicy[],
): Set<string> {
  const inScan = new Set(scanned);
  return new Set(all.filter((p) => !inScan.has(p) && reported(p)).map(rowPolicyName));
}

interface ScanInput extends NamespaceFacts {
  readonly engine: Pick<Engine, "validate" | "mutate" | "prepare">;
  readonly policies: readonly CompiledPolicy[];
  readonly resource: JsonObject;
  readonly exceptions?: readonly AnyCompiledException[];
}

/** The responses of the policies that matched the resource; the request is prepared once for all of them. */
export function scanResource(input: ScanInput): PolicyResponse[] {
  const request = input.engine.prepare({
    resource: input.resource,
    operation: "CREATE" as const,
    namespaceLabels: input.namespaceLabels,
    ...(input.namespaceObject !== undefined ? { namespaceObject: input.namespaceObject } : {}),
    background: true,
    ...(input.exceptions !== undefined && input.exceptions.length > 0 ? { exceptions: input.exceptions } : {}),
  });
  return input.policies
    .filter((p) => p.namespace === "" || p.namespace === namespaceOf(input.resource))
    .map((p) =>
      scansMutation(p) ? mutationScanResponse(input.engine.mutate(p, request)) : input.engine.validate(p, request),
    )
    .filter((r) => r.rules.length > 0);
}

function namespaceOf(resource: JsonObject): string {
  const ns = (resource["metadata"] as { namespace?: unknown } | undefined)?.namespace;
  return typeof ns === "string" ? ns : "";
}
