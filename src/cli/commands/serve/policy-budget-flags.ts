/** `--max-policies-per-namespace`, `--max-policy-bytes-per-namespace`: what one namespace's policies may take (policies from the cluster). */
import { DEFAULT_NAMESPACE_BUDGET, type NamespaceBudget } from "../../../server/policy-source/namespace-budget.js";
import { parseByteSize } from "./memory-limit.js";

export const POLICY_BUDGET_FLAG_OPTIONS = {
  "max-policies-per-namespace": { type: "string", default: String(DEFAULT_NAMESPACE_BUDGET.maxPolicies) },
  "max-policy-bytes-per-namespace": { type: "string", default: "1Mi" },
} as const;

type Values = { readonly [K in keyof typeof POLICY_BUDGET_FLAG_OPTIONS]?: string | undefined };

export function namespaceBudgetFrom(
  values: Values,
): { ok: true; value: NamespaceBudget } | { ok: false; error: string } {
  const countText = values["max-policies-per-namespace"];
  const maxPolicies = countText === undefined ? DEFAULT_NAMESPACE_BUDGET.maxPolicies : Number(countText);
  if (!Number.isSafeInteger(maxPolicies) || maxPolicies <= 0 || countText?.trim() === "")
    return {
      ok: false,
      error: `--max-policies-per-namespace must be a positive whole number (got ${JSON.stringify(countText)})`,
    };
  const bytesText = values["max-policy-bytes-per-namespace"];
  const maxBytes = bytesText === undefined ? DEFAULT_NAMESPACE_BUDGET.maxBytes : parseByteSize(bytesText);
  if (maxBytes === undefined || maxBytes <= 0)
    return {
      ok: false,
      error: `--max-policy-bytes-per-namespace must be a size in bytes, e.g. 1048576 or 1Mi (got ${JSON.stringify(bytesText)})`,
    };
  return { ok: true, value: { maxPolicies, maxBytes } };
}
