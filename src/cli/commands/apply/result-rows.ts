/** Engine responses → one row per rule result, with the outcome the CLI reports (Kyverno `cmd/cli/kubectl-kyverno/commands/apply/*`). */
import {
  kyvernoCompiledRules,
  type CompiledPolicy,
  type PolicyResponse,
  resultAction,
  type Resource,
  resourceKind,
  resourceName,
  resourceNamespace,
} from "../../../engine/index.js";
import { policyInfo } from "../../output/policy-info.js";
import type { PolicyInfo, ResourceOrigin, ResultRow } from "../../output/types.js";
import type { ValuesSpec } from "../../../platform/offline-values/values-file.js";
import { resourceLabel } from "../../../platform/resource-label.js";

/** The responses for one input resource. */
export interface ResourceResponses {
  readonly index: number;
  readonly origin?: ResourceOrigin;
  readonly responses: readonly PolicyResponse[];
}

export function resultRows(batches: readonly ResourceResponses[], values: ValuesSpec, auditWarn: boolean): ResultRow[] {
  const infos = new Map<CompiledPolicy, PolicyInfo>();
  const rows: ResultRow[] = [];
  for (const batch of batches) {
    for (const response of batch.responses) {
      const policy = response.policy;
      let info = infos.get(policy);
      if (info === undefined) infos.set(policy, (info = policyInfo(policy.document)));
      const ns = resourceNamespace(response.resource);
      for (const rule of response.rules) {
        const action =
          rule.type === "Validation" || rule.type === "ImageVerify"
            ? resultAction(policy, rule, ns, values.namespaceLabels.get(ns) ?? {})
            : "-";
        let result = rule.status;
        if (result === "fail" && (!policy.scored || (auditWarn && action === "Audit"))) result = "warn";
        const ruleMessage = kyvernoCompiledRules(policy).find((r) => r.name === rule.rule)?.rule.validate?.message;
        rows.push({
          policy: policy.name,
          policyKey: policy.namespace ? `${policy.namespace}/${policy.name}` : policy.name,
          rule: rule.rule,
          ...(policy.language !== "kyverno" ? { ruleless: true as const } : {}),
          resource:
            rule.patchedTarget === undefined && isPayload(response.resource)
              ? payloadName(response.resource, batch.origin)
              : resourceLabel(rule.patchedTarget ?? response.resource),
          result,
          action,
          message: rule.message,
          resourceIndex: batch.index,
          ...(batch.origin !== undefined ? { origin: batch.origin } : {}),
          info,
          ...(rule.properties !== undefined ? { properties: rule.properties } : {}),
          ...(rule.exceptions !== undefined && rule.exceptions.length > 0 ? { exceptions: rule.exceptions } : {}),
          ...(typeof ruleMessage === "string" && ruleMessage !== "" ? { ruleMessage } : {}),
        });
      }
    }
  }
  return rows;
}

/** A JSON payload (`--json`) has no kind: it is named by its file (and line), as it has no other name. */
function isPayload(r: Resource): boolean {
  return resourceKind(r) === "";
}

function payloadName(r: Resource, origin: ResourceOrigin | undefined): string {
  const name = resourceName(r);
  if (name !== "") return `JSON/${name}`;
  return origin === undefined
    ? "JSON payload"
    : `${origin.payload ?? "JSON"} ${origin.source}${origin.line !== undefined ? `:${origin.line}` : ""}`;
}
