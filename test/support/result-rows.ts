/** Result rows for the output tests. */
import type { ResultRow } from "../../src/cli/output/types.js";

export function row(over: Partial<ResultRow> & Pick<ResultRow, "result">): ResultRow {
  return {
    policy: "require-team",
    policyKey: over.policy ?? "require-team",
    rule: "check-team",
    resource: "Pod/shop/web",
    action: "Enforce",
    message: over.result === "pass" ? "validation rule 'check-team' passed." : "validation error: team label required.",
    resourceIndex: 0,
    origin: { source: "/repo/manifests/pods.yaml", line: 1 },
    info: {},
    ...over,
  };
}

export const PSS_MESSAGE = `Validation rule 'restricted' failed. It violates PodSecurity "restricted:latest": (Forbidden reason: allowPrivilegeEscalation != false, field error list: [spec.containers[0].securityContext.allowPrivilegeEscalation is forbidden, forbidden values found: nil])(Forbidden reason: runAsNonRoot != true, field error list: [spec.securityContext.runAsNonRoot: Required value])`;
