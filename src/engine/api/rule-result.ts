/** What one rule did to one resource. Every non-pass result carries a message a user can act on. */
export type RuleStatus = "pass" | "fail" | "warn" | "error" | "skip";

export type RuleType = "Validation" | "Mutation" | "Generation" | "ImageVerify";

export interface RuleResult {
  readonly rule: string;
  readonly type: RuleType;
  readonly status: RuleStatus;
  readonly message: string;
  /** For pattern failures, the JSON path where the mismatch was found, e.g. `/spec/containers/0/image/`. */
  readonly path?: string;
}
