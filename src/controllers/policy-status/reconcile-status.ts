/**
 * What to do about one policy's `status`, decided without I/O: from the policy as the cache shows it
 * (`outcome`), registration's word on its webhook, what this replica last wrote for it, and the wall
 * clock, either nothing (`pending`: registration has not synced the served policy yet; `unchanged`:
 * the stored status is already the desired one, or our own last write is not in the cache yet) or
 * one merge patch to its status subresource. policy-status-writer.ts is the loop that applies it.
 */
import { jsonEqual, type JsonObject, type JsonValue } from "../../engine/index.js";
import { desiredStatus, type PolicyOutcome, statusPatch, statusPath } from "./policy-status.js";
import type { WebhookState } from "./policy-status-writer.js";

/** What this replica last wrote for a policy. */
export interface Written {
  /** resourceVersion of the object the patch was made against. */
  readonly before: string;
  /** The status the patch asked for, and what the server answered it stored. */
  readonly desired: JsonObject;
  readonly stored: JsonValue | undefined;
}

interface StatusInput {
  readonly outcome: PolicyOutcome;
  /** With `--register`: whether the policy's webhook is registered (undefined: not known yet). */
  readonly registration?: { readonly state: WebhookState | undefined };
  readonly last: Written | undefined;
  readonly nowMs: number;
  /** A policies.kyverno.io policy's refusals for background reporting (RBACPermissionsGranted); undefined: not checked. */
  readonly reporting?: readonly string[];
  /**
   * What the background controller may not do of what a served policy asks of it now (a grant
   * removed after the policy was admitted: its existing triggers cannot be listed), each
   * `field: message`; the policy is not Ready while any is left. Undefined or empty: nothing missing.
   */
  readonly background?: readonly string[];
}

type StatusAction =
  | { readonly kind: "pending" }
  | { readonly kind: "unchanged" }
  | { readonly kind: "patch"; readonly path: string; readonly patch: JsonObject; readonly desired: JsonObject };

export function reconcileStatus(input: StatusInput): StatusAction {
  const { last } = input;
  const outcome = withBackground(input.outcome, input.background);
  const webhook = outcome.compiled !== undefined ? input.registration?.state : undefined;
  // Served but not yet confirmed registered (or refused): written once registration has synced.
  if (outcome.compiled !== undefined && input.registration !== undefined && webhook === undefined)
    return { kind: "pending" };
  const desired = desiredStatus(outcome, input.nowMs, webhook, input.reporting);
  if (
    last !== undefined &&
    jsonEqual(last.desired, desired) &&
    (outcome.resourceVersion === last.before || jsonEqual(outcome.status, last.stored))
  )
    return { kind: "unchanged" };
  if (jsonEqual(outcome.status, desired)) return { kind: "unchanged" };
  return { kind: "patch", path: statusPath(outcome), patch: statusPatch(outcome, desired), desired };
}

/** A served policy the background controller cannot run in full: not Ready, each missing grant named. */
function withBackground(outcome: PolicyOutcome, background: readonly string[] | undefined): PolicyOutcome {
  if (outcome.compiled === undefined || background === undefined || background.length === 0) return outcome;
  const notEvaluated = [...(outcome.notEvaluated !== undefined ? [outcome.notEvaluated] : []), ...background];
  return { ...outcome, notEvaluated: notEvaluated.join("; ") };
}
