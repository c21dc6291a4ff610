/** What `engine.explain` says about one policy and one resource: per rule, how its result came about. */
import type { RuleResult } from "../api/rule-result.js";
import type { MatchDecision } from "../match/index.js";
import type { JsonPatchOp } from "../mutate/json-patch/index.js";

/** A value as the explanation shows it: JSON text, cut at `VALUE_PREVIEW_CHARS` with the size kept. */
export type ValuePreview = string;

interface ExplainedCondition {
  /** Where it is written: `any[0]`, `all[1]`, `[2]` (a bare list). */
  readonly at: string;
  /** The key and value after substitution. */
  readonly key: ValuePreview;
  readonly operator: string;
  readonly value: ValuePreview;
  /** What the operator said, or the error that stopped the conditions. */
  readonly holds: boolean | { readonly error: string };
}

export interface ExplainedConditions {
  readonly met: boolean | { readonly error: string };
  /** The conditions the evaluation reached, in its order (it stops where Kyverno's does). */
  readonly conditions: readonly ExplainedCondition[];
}

export interface FailedAt {
  readonly path: string;
  readonly value: ValuePreview;
  readonly expected?: ValuePreview;
}

/** One validate.foreach entry walked: its list, the elements reached and passed, and the element that decided. */
export interface ForEachExplanation {
  /** `foreach[0]`. */
  readonly at: string;
  /** The list expression. */
  readonly list: string;
  /** Elements reached (up to the one that decided), and how many of them passed. */
  readonly elements: number;
  readonly passed: number;
  /** What ended the rule before any element decided (the list could not be evaluated, …). */
  readonly error?: string;
  /** The first element that did not pass: its index and value, and its deny conditions or pattern failure. */
  readonly decided?: {
    readonly index: number;
    readonly element: ValuePreview;
    readonly status: string;
    readonly message: string;
    readonly deny?: ExplainedConditions;
    readonly failedAt?: FailedAt;
  };
}

export interface RuleExplanation {
  /** The rule's name; "" for a CEL policy's body (Kyverno names none). */
  readonly rule: string;
  /** The match/exclude (or matchConstraints) decision and the clause that decided it. */
  readonly match: MatchDecision;
  /**
   * The rule's results as the evaluation gave them: none when it did not apply, one mostly, one per
   * target for a mutate-existing rule.
   */
  readonly results: readonly RuleResult[];
  /** The PolicyExceptions naming this policy and rule, and whether each applied. */
  readonly exceptions?: readonly { readonly name: string; readonly applied: boolean }[];
  /** The rule's context entries with their values, or the error that stopped loading them. */
  readonly context?: {
    readonly entries: readonly { readonly name: string; readonly value: ValuePreview }[];
    readonly error?: string;
  };
  readonly preconditions?: ExplainedConditions;
  /** validate.deny: the deny conditions (met means denied). */
  readonly deny?: ExplainedConditions;
  /**
   * A pattern's failure: the path it failed at, the resource's value there (`(absent)`: no such
   * field) and, when validate.pattern has one at that path, what it asks for there.
   */
  readonly failedAt?: FailedAt;
  /** validate.anyPattern: each pattern tried, in order, up to the first that passed. */
  readonly anyPattern?: readonly {
    readonly at: string;
    readonly status: "pass" | "fail" | "skip" | "error";
    readonly message?: string;
    readonly failedAt?: FailedAt;
  }[];
  /** validate.foreach: each entry walked, and the element that decided the rule. */
  readonly foreach?: readonly ForEachExplanation[];
  /**
   * The CEL the evaluation ran for this rule or body, in the order it ran, each with what it gave:
   * matchConditions, variables (when first read), validations, mutations, generate expressions,
   * conditions, a kyverno.io rule's celPreconditions and validate.cel expressions.
   */
  readonly cel?: readonly {
    readonly at: string;
    readonly expression: string;
    readonly value?: ValuePreview;
    readonly error?: string;
  }[];
  /** Evaluations left out of `cel` past its limit (a body run per parameter object or per image). */
  readonly celOmitted?: number;
  /** A mutate rule's (or MutatingPolicy's) own change to the resource it saw, as a JSON Patch. */
  readonly patch?: readonly JsonPatchOp[];
}

export interface PolicyExplanation {
  /** `name`, or `namespace/name` for a namespaced policy. */
  readonly policy: string;
  readonly kind: string;
  /** `Kind namespace/name` (no namespace: `Kind name`). */
  readonly resource: string;
  /** The operation the rules saw (CREATE, UPDATE, DELETE, CONNECT). */
  readonly operation: string;
  readonly rules: readonly RuleExplanation[];
}
