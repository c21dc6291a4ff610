/** One rule result as the output formats see it: what ran, on what, with what outcome, and where. */
import type { RuleStatus } from "../../engine/index.js";

/** Where a resource came from: its file (or `<stdin>`) and the line its YAML document starts on. */
export interface ResourceOrigin {
  readonly source: string;
  readonly line?: number;
  /**
   * An --http-payload (--envoy-payload) request's file: its results are named "HTTP FILE" ("Envoy
   * FILE"; a --json payload's "JSON FILE").
   */
  readonly payload?: "HTTP" | "Envoy";
}

/** What a policy says about itself in its `policies.kyverno.io/*` annotations. */
export interface PolicyInfo {
  readonly title?: string;
  readonly description?: string;
  readonly severity?: string;
  readonly category?: string;
}

export interface ResultRow {
  /** The policy's name. */
  readonly policy: string;
  /** `name` for a ClusterPolicy, `namespace/name` for a Policy (what a PolicyException's policyName says). */
  readonly policyKey: string;
  readonly rule: string;
  /** The policy has no rules of its own (a policies.kyverno.io kind or an admission policy): Kyverno's apply table leaves RULE empty for it. */
  readonly ruleless?: true;
  /** `Kind/namespace/name` (`Kind/name` when cluster-scoped). */
  readonly resource: string;
  /** After --audit-warn and `scored: "false"`: a fail may read warn here. */
  readonly result: RuleStatus;
  /** Validation rules: the effective failure action; "-" for other rule types. */
  readonly action: "Audit" | "Enforce" | "-";
  readonly message: string;
  /** Index of the input resource the result came from, in input order. */
  readonly resourceIndex: number;
  readonly origin?: ResourceOrigin;
  readonly info: PolicyInfo;
  /** What the engine added for reports (podSecurity: standard, version, controls, controlsJSON). */
  readonly properties?: Readonly<Record<string, string>>;
  /** The PolicyExceptions (`namespace/name`) that applied to this result. */
  readonly exceptions?: readonly string[];
  /** The rule's own validate.message as written (variables unsubstituted), for rule descriptions. */
  readonly ruleMessage?: string;
}

type Counts = { pass: number; fail: number; warn: number; error: number; skip: number };

export function countResults(rows: readonly ResultRow[]): Counts {
  const counts: Counts = { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 };
  for (const r of rows) counts[r.result]++;
  return counts;
}

/** Kyverno's summary line, trailing space included. */
export function summaryLine(c: Counts): string {
  return `pass: ${c.pass}, fail: ${c.fail}, warn: ${c.warn}, error: ${c.error}, skip: ${c.skip} `;
}

/** Code-unit order, the same in every locale. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
