/**
 * The policy webhook for PolicyExceptions of both groups (Kyverno 1.19 `pkg/webhooks/exception/validate.go`
 * for kyverno.io/v2 and v2beta1, `pkg/webhooks/celexception/validate.go` for policies.kyverno.io,
 * `pkg/validation/exception/validate.go` for the warnings). The exception is compiled as `serve`
 * loads it (`engine.compileException`, the same checks `bylaw apply -e` runs): one that does not
 * compile is denied, `PolicyException <name>: <field>: <message>; …`, and so is one whose condition
 * does not compile or is not bool exactly (which `apply -e` loads, failing the policies it names). Either way the answer carries
 * Kyverno's warnings for an exception that will not be honoured, so that `kubectl apply` prints them:
 * - exceptions from the cluster are off (`--enable-policy-exception` not given): "PolicyException
 *   resources would not be processed until it is enabled.";
 * - its namespace is not one `--exception-namespace` names: "PolicyException resource namespace must
 *   match the defined namespace." (Kyverno 1.19 says this for the kyverno.io kind only; Bylaw honours
 *   the policies.kyverno.io kind from the same namespaces, so it says it for both);
 * - `serve --policies DIR`: exceptions are read from the folder, never from the cluster; Bylaw's own
 *   warning says so.
 * Then the kyverno.io kind's deprecation notice (kyverno.io PolicyException → policies.kyverno.io),
 * then Bylaw's own compile warnings (fields the API server prunes, filters that select nothing).
 */
import { type Engine, isObject, type JsonObject } from "../../engine/index.js";
import { celGlobalContextProblems } from "../tenancy/tenant-cel-reads.js";
import type { ExceptionScope } from "../policy-source/exception-scope.js";
import { allowed, denied } from "./response.js";
import type { AdmissionRequestJson, AdmissionReviewJson } from "./types.js";
import { problemText } from "../../platform/policy-documents/index.js";
import { exceptionRefusalProblem } from "../policy-source/served-exception.js";

export const DISABLED_POLEX = "PolicyException resources would not be processed until it is enabled.";
export const NAMESPACE_NOT_LISTED = "PolicyException resource namespace must match the defined namespace.";
export const FOLDER_MODE =
  "PolicyException resources are not read from the cluster: bylaw serve reads policies and PolicyExceptions from its --policies folder, so this one is never honoured";

/** Which PolicyExceptions created in the cluster `serve` honours: its flags' scope, or none because it serves a folder. */
export type ClusterExceptions = ExceptionScope | "folder";

/** Kyverno's warnings for an exception in `namespace` that the scope will not honour; none when it will. */
function exceptionScopeWarnings(scope: ClusterExceptions | undefined, namespace: string): string[] {
  if (scope === undefined) return [];
  if (scope === "folder") return [FOLDER_MODE];
  if (!scope.enabled) return [DISABLED_POLEX];
  return scope.namespaces === "all" || scope.namespaces.includes(namespace) ? [] : [NAMESPACE_NOT_LISTED];
}

interface ExceptionCheck {
  readonly engine: Engine;
  readonly scope: ClusterExceptions | undefined;
  /** The kind's deprecation notice (the kyverno.io kind), if any. */
  readonly deprecation: string | undefined;
}

export function checkException(
  request: AdmissionRequestJson,
  object: JsonObject,
  check: ExceptionCheck,
): AdmissionReviewJson {
  const metadata = isObject(object["metadata"]) ? object["metadata"] : {};
  // Namespaced: the API server fills in the namespace before admission; a copy keeps the key as served.
  const namespace = typeof metadata["namespace"] === "string" ? metadata["namespace"] : (request.namespace ?? "");
  const doc: JsonObject =
    typeof metadata["namespace"] !== "string" && namespace !== ""
      ? { ...object, metadata: { ...metadata, namespace } }
      : object;
  const name = typeof metadata["name"] === "string" ? metadata["name"] : "";
  const kyverno = [
    ...exceptionScopeWarnings(check.scope, namespace),
    ...(check.deprecation !== undefined ? [check.deprecation] : []),
  ];
  const compiled = check.engine.compileException(doc, `PolicyException ${namespace}/${name}`);
  // Its matchConditions run beside the policy's expressions: a namespaced one may not read the
  // cluster-wide GlobalContextEntries (tenant-isolation.md rule 3).
  const tenant = celGlobalContextProblems(doc, namespace);
  // A condition that does not compile, or is not bool exactly, is refused here (served-exception.ts).
  const refusal = compiled.ok ? exceptionRefusalProblem(compiled.exception) : undefined;
  if (!compiled.ok || tenant.length > 0 || refusal !== undefined) {
    const errors = [
      ...(compiled.ok ? [] : compiled.problems.filter((p) => p.severity === "error")),
      ...(refusal !== undefined ? [refusal] : []),
      ...tenant,
    ].map(problemText);
    const warnings = (compiled.ok ? compiled.exception.warnings : compiled.problems)
      .filter((p) => p.severity === "warning")
      .map(problemText);
    return denied(request.uid, `PolicyException ${name}: ${errors.join("; ") || "the PolicyException is not valid"}`, [
      ...kyverno,
      ...warnings,
    ]);
  }
  return allowed(request.uid, [...kyverno, ...compiled.exception.warnings.map(problemText)]);
}
