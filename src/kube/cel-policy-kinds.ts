/**
 * The policies.kyverno.io policy kinds `bylaw serve` watches in cluster mode, each at its CRD's
 * storage version (v1beta1 for every one in Kyverno 1.19's CRDs, deploy/crds), read from the engine's
 * kind registry (its descriptors' group, scope and plural), and what Bylaw does with it (from the
 * descriptor's phases and admission):
 * - `evaluated`: ValidatingPolicy, MutatingPolicy and ImageValidatingPolicy (and their Namespaced
 *   forms) are compiled and served as folder mode serves them;
 * - `generate`: GeneratingPolicy (and Namespaced) decides no request: it is compiled and served so
 *   that an allowed review it matches becomes generate work (an UpdateRequest) for the background
 *   component;
 * - `not-evaluated`: a kind not served, its status saying so (none today);
 * - `cleanup`: DeletingPolicy (and Namespaced) decides no request: the cleanup controller watches,
 *   runs and writes the status of it (controllers/cleanup); the policy source leaves it alone.
 * The policies.kyverno.io PolicyException is not in this table: it is watched beside the
 * kyverno.io/v2 one (CEL_POLICY_EXCEPTIONS in policy-informers.ts).
 */
import { POLICY_KINDS, type PolicyKindDescriptor, type PolicyKindName } from "../engine/index.js";
import type { Gvr } from "./types.js";

/** A policies.kyverno.io policy kind (the engine's registry names them). */
export type CelPolicyKind = PolicyKindName;

type CelKindHandling = "evaluated" | "generate" | "not-evaluated" | "cleanup";

interface CelKindInfo {
  readonly kind: CelPolicyKind;
  readonly gvr: Gvr;
  readonly namespaced: boolean;
  readonly handling: CelKindHandling;
  /** Whether its watch must have listed before Bylaw is ready even when its CRD is missing (a missing CRD of the others is only logged). */
  readonly required: boolean;
}

export const CEL_GROUP = "policies.kyverno.io";
export const CEL_STORAGE_VERSION = "v1beta1";

/** What the server does with a kind, from what its descriptor says it does. */
function handlingOf(d: PolicyKindDescriptor): CelKindHandling {
  if (d.phases.includes("delete")) return "cleanup";
  if (d.phases.includes("generate")) return "generate";
  return d.admission === "evaluated" ? "evaluated" : "not-evaluated";
}

function infoOf(d: PolicyKindDescriptor): CelKindInfo {
  const handling = handlingOf(d);
  return {
    kind: d.kind,
    gvr: { group: CEL_GROUP, version: CEL_STORAGE_VERSION, resource: d.resource },
    namespaced: d.scope === "namespaced",
    handling,
    required: handling === "evaluated",
  };
}

/** The engine's registry's policies.kyverno.io kinds, in its order. */
export const CEL_POLICY_KINDS: readonly CelKindInfo[] = POLICY_KINDS.filter((d) => d.group === CEL_GROUP).map(infoOf);

const BY_KIND = new Map(CEL_POLICY_KINDS.map((k) => [k.kind as string, k]));

/** The table entry of a policies.kyverno.io policy kind; undefined for any other kind (PolicyException included). */
export function celKindInfo(kind: string): CelKindInfo | undefined {
  return BY_KIND.get(kind);
}
