import type { GeneratedResource } from "./generated-resource.js";
import type { Resource } from "./resource.js";

/** What one rule did to one resource. Every non-pass result carries a message a user can act on. */
export type RuleStatus = "pass" | "fail" | "warn" | "error" | "skip";

export type RuleType = "Validation" | "Mutation" | "Generation" | "ImageVerify" | "Deletion";

export interface RuleResult {
  readonly rule: string;
  readonly type: RuleType;
  readonly status: RuleStatus;
  readonly message: string;
  /** For pattern failures, the JSON path where the mismatch was found, e.g. `/spec/containers/0/image/`. */
  readonly path?: string;
  /** Mutate-existing: the target resource after this rule's patches. */
  readonly patchedTarget?: Resource;
  /**
   * A mutate-existing MutatingPolicy's result on one of its targets, not on the trigger: Kyverno's
   * CLI keeps these apart from the trigger's response (kyverno apply neither counts nor prints them).
   */
  readonly target?: true;
  /** Generate: the resources this rule generates (or would, offline). */
  readonly generated?: readonly GeneratedResource[];
  /** The PolicyExceptions (`namespace/name`) that made this rule skip, or excluded podSecurity checks. */
  readonly exceptions?: readonly string[];
  /**
   * The failure action of this result when the rule's name does not decide it: a Kubernetes
   * ValidatingAdmissionPolicy's results all carry the policy's name, and each binding has its own
   * validationActions (see pipeline/failure-action.ts `resultAction`).
   */
  readonly action?: "Audit" | "Enforce";
  /** Report properties Kyverno adds to this result (podSecurity: standard, version, controls, controlsJSON). */
  readonly properties?: Readonly<Record<string, string>>;
}

/** A result with no extras; `path` only where a pattern failed at one. */
export function ruleResult(
  rule: string,
  type: RuleType,
  status: RuleStatus,
  message: string,
  path?: string,
): RuleResult {
  return path === undefined ? { rule, type, status, message } : { rule, type, status, message, path };
}
