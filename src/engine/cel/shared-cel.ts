/**
 * The CEL environments an engine uses (Kubernetes' alone, for validate.cel rules; Kyverno's
 * for cluster-wide and for namespaced policies.kyverno.io policies; admission matchConditions'), each built once per process,
 * on first use, and shared by every engine. Building one costs 4–7 ms (cel-js registers and parses
 * some 400 function signatures), and `bylaw test` makes an engine per suite: over the policy
 * library's 492 suites that was ~0.3 s of CPU.
 *
 * Sharing is safe because an environment is only read once built: its declarations are fixed
 * (cel-js's overload lookups are memoised, the same for every caller), each program keeps its own
 * cost meter, and what Kyverno's libraries read at evaluation time (an engine's ports, the policy's
 * namespace) is handed to each `evaluate` call and set in the environment's service slot only for
 * that one synchronous call (services.ts), then restored.
 */
import { createCel } from "./create-cel.js";
import type { CelEngine } from "./types.js";

type SharedCelKind =
  | "kubernetes"
  | "cluster"
  | "namespaced"
  | "match-conditions"
  | "generating"
  | "namespaced-generating"
  | "http-authz"
  | "envoy-authz";

/**
 * An HTTP- or Envoy-mode ValidatingPolicy's variables (kyverno-authz's compiler): `object`, the
 * request checked, and the policy's `variables`; no oldObject, request, namespaceObject or exceptions.
 */
const authzVariables = (request: string) =>
  [
    { name: "object", type: request },
    { name: "variables", type: "map<string, dyn>" },
  ] as const;

/**
 * Kubernetes' admission matchConditions environment (a webhook's, and a kyverno.io policy's
 * `spec.webhookConfiguration.matchConditions`): `object`, `oldObject` and `request`, no params, no
 * namespaceObject, no variables. (`authorizer` is left out: policy/webhook-match-conditions.ts.)
 */
const MATCH_CONDITION_VARIABLES = [
  { name: "object", type: "dyn" },
  { name: "oldObject", type: "dyn" },
  { name: "request", type: "map<string, dyn>" },
] as const;

const built: Partial<Record<SharedCelKind, CelEngine>> = {};

export function sharedCel(kind: SharedCelKind): CelEngine {
  return (built[kind] ??=
    kind === "kubernetes"
      ? createCel()
      : kind === "match-conditions"
        ? createCel({ variables: MATCH_CONDITION_VARIABLES })
        : kind === "http-authz"
          ? createCel({ kyverno: "cluster", httpAuthz: true, variables: authzVariables("http.CheckRequest") })
          : kind === "envoy-authz"
            ? createCel({
                kyverno: "cluster",
                envoyAuthz: true,
                variables: authzVariables("envoy.service.auth.v3.CheckRequest"),
              })
            : kind === "generating" || kind === "namespaced-generating"
              ? createCel({ kyverno: kind === "generating" ? "cluster" : "namespaced", generator: true })
              : createCel({ kyverno: kind }));
}
