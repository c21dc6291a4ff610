/** Internal shapes of the Pod Security Standards checks (modelled on pod-security-admission's policy package). */
import type { PssBadValue, PssFieldError, PodView } from "./types.js";

/** What a failing check reports: upstream's ForbiddenReason, ForbiddenDetail and field error list. */
export interface CheckFailure {
  readonly reason: string;
  readonly detail: string;
  readonly errors: PssFieldError[];
}

export type CheckFn = (pod: PodView) => CheckFailure | undefined;

/** One version of a check: applies from Kubernetes `v1.<minor>` on. */
export interface VersionedCheck {
  readonly minor: number;
  readonly run: CheckFn;
}

export interface CheckDefinition {
  readonly id: string;
  readonly level: "baseline" | "restricted";
  /** Oldest first. */
  readonly versions: readonly VersionedCheck[];
}

/** A failing check during evaluation; `errors` shrinks as exclusions remove field errors. */
export interface CheckRun {
  readonly id: string;
  readonly reason: string;
  readonly detail: string;
  errors: PssFieldError[];
}

export function forbidden(field: string, badValue: PssBadValue = { kind: "string", value: "" }): PssFieldError {
  return { type: "Forbidden", field, badValue };
}

export function required(field: string): PssFieldError {
  return { type: "Required", field, badValue: { kind: "string", value: "" } };
}

export const str = (value: string): PssBadValue => ({ kind: "string", value });
export const TRUE: PssBadValue = { kind: "bool", value: true };
export const FALSE: PssBadValue = { kind: "bool", value: false };
export const strings = (value: readonly string[]): PssBadValue => ({ kind: "strings", value });
