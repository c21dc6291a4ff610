/**
 * The AdmissionReview (admission.k8s.io/v1) as JSON, in and out, and what a handler answers.
 * Field names are Kubernetes', verbatim.
 */
import type { JsonObject, Operation, PolicyResponse } from "../../engine/index.js";

export const ADMISSION_API_VERSION = "admission.k8s.io/v1";
export const OPERATIONS: readonly Operation[] = ["CREATE", "UPDATE", "DELETE", "CONNECT"];

export interface GroupVersionKindJson {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export interface GroupVersionResourceJson {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

export interface UserInfoJson {
  readonly username: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** `request` of an AdmissionReview, checked: every field present has the type Kubernetes gives it. */
export interface AdmissionRequestJson {
  readonly uid: string;
  readonly kind: GroupVersionKindJson;
  readonly resource?: GroupVersionResourceJson;
  readonly subResource?: string;
  readonly requestKind?: GroupVersionKindJson;
  readonly requestResource?: GroupVersionResourceJson;
  readonly requestSubResource?: string;
  readonly name?: string;
  readonly namespace?: string;
  readonly operation: Operation;
  /** Absent in the review: an empty user (no name, no groups). */
  readonly userInfo: UserInfoJson;
  /** `null` or absent for DELETE (and for CONNECT without options). */
  readonly object?: JsonObject | null;
  readonly oldObject?: JsonObject | null;
  readonly dryRun?: boolean;
  readonly options?: JsonObject | null;
}

/** Kubernetes' metav1.Status as a webhook denial carries it (Kyverno sets status and message, no code). */
interface DenialStatusJson {
  readonly status: "Failure";
  readonly message: string;
}

export interface AdmissionResponseJson {
  readonly uid: string;
  readonly allowed: boolean;
  readonly status?: DenialStatusJson;
  readonly patchType?: "JSONPatch";
  /** base64 of the JSON-encoded RFC 6902 patch. */
  readonly patch?: string;
  readonly warnings?: readonly string[];
}

export interface AdmissionReviewJson {
  readonly apiVersion: typeof ADMISSION_API_VERSION;
  readonly kind: "AdmissionReview";
  readonly response: AdmissionResponseJson;
}

/**
 * What a handler answers: 200 with an AdmissionReview, or 400 when the body is not a valid review.
 * `auditResults` (validate only) are the policy responses evaluated for an allowed request, kept for
 * reports; Kyverno writes none for a blocked request, and none here either.
 */
export type HandlerResult =
  | { readonly status: 200; readonly body: AdmissionReviewJson; readonly auditResults?: readonly PolicyResponse[] }
  | { readonly status: 400; readonly body: { readonly error: string } };

type WebhookMode = "fail" | "ignore";

/** The policies one webhook path serves: one failurePolicy (mode) and one timeout (webhook-groups.ts). */
export interface WebhookGroup {
  readonly mode: WebhookMode;
  readonly timeoutSeconds: number;
  /** The default group also serves the policies that set no timeout. */
  readonly isDefault: boolean;
  /**
   * A fine-grained webhook's one policy (`<namespace>/<name>`, or `<name>` for a ClusterPolicy): the
   * path serves that policy alone (webhook-groups.ts `fineGrainedPath`).
   */
  readonly policy?: string;
  /** With `policy`: the policies.kyverno.io kind's short name (`vpol`, `nvpol`, `mpol`, …) when the policy is one of those. */
  readonly prefix?: string;
  /**
   * Set on the shared groups when Bylaw registers a fine-grained webhook for each policy with
   * `webhookConfiguration.matchConditions` (`--register`): the shared paths then leave them out.
   */
  readonly fineGrained?: boolean;
  /**
   * With `fineGrained`: the one namespace whose namespaced policies (Policy, the Namespaced CEL kinds)
   * this group's path serves (`…/ns/<namespace>`); the shared paths then leave namespaced policies out.
   */
  readonly namespace?: string;
}

/** What a handler serves: a group, a failurePolicy of any timeout (a bare mode), or everything (undefined). */
export type WebhookSelector = WebhookMode | WebhookGroup;

export function modeOf(webhook: WebhookSelector | undefined): WebhookMode | undefined {
  return typeof webhook === "object" ? webhook.mode : webhook;
}
