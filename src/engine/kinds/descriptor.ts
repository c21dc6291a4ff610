/** Builds a kind's descriptor with the defaults most kinds share. */
import type { PolicyKindDescriptor } from "./types.js";

type Given = Pick<PolicyKindDescriptor, "kind" | "group" | "scope" | "language" | "phases"> &
  Partial<Omit<PolicyKindDescriptor, "kind" | "group" | "scope" | "language" | "phases">>;

export function descriptor(given: Given): PolicyKindDescriptor {
  return {
    admission: given.language === "unsupported" ? "none" : "evaluated",
    notServed: undefined,
    status: "none",
    shortName: "",
    boundBy: undefined,
    reportSource: "",
    resource: pluralOf(given.kind),
    ...given,
  };
}

/** The plural the kind's CRD declares: every policy kind's name ends in Policy (`…policies`). */
function pluralOf(kind: string): string {
  const lower = kind.toLowerCase();
  return lower.endsWith("y") ? `${lower.slice(0, -1)}ies` : `${lower}s`;
}

/** The policies.kyverno.io API group of the CEL policy kinds. */
export const CEL_POLICY_GROUP = "policies.kyverno.io";
