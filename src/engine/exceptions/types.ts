/** Shapes of Kyverno PolicyExceptions (`kyverno.io/v2`, deprecated `kyverno.io/v2beta1`) once compiled. */
import type { JsonObject } from "../api/json.js";
import type { AnyAllConditions } from "../api/policy.js";
import type { GroupVersionKind, Operation, RequestUserInfo, Resource } from "../api/resource.js";
import type { CompiledConditions, Substitute } from "../conditions/index.js";
import type { PolicyProblem } from "../api/problem.js";

export const EXCEPTION_API_VERSIONS = ["kyverno.io/v2", "kyverno.io/v2beta1"] as const;
export type ExceptionApiVersion = (typeof EXCEPTION_API_VERSIONS)[number];

/** One `spec.exceptions[]` entry: the policy (exact name) and its rules (wildcards allowed). */
export interface ExceptionEntry {
  /** `<namespace>/<name>` for a namespaced Policy, the bare name for a ClusterPolicy. */
  readonly policyName: string;
  readonly ruleNames: readonly string[];
}

/** One `spec.podSecurity[]` entry: a Pod Security Standards control the exception exempts. */
export interface PodSecurityExclusion {
  readonly controlName: string;
  readonly images?: readonly string[];
  readonly restrictedField?: string;
  readonly values?: readonly string[];
}

/** What `spec.match` selects, compiled once. */
export interface ExceptionMatcher {
  /** True when `match.any` has a filter selecting the request, or every `match.all` filter does. */
  matches(input: ExceptionMatchInput): boolean;
}

export interface CompiledException {
  readonly name: string;
  /** metadata.namespace, "" when the document has none. */
  readonly namespace: string;
  /** Kyverno's key for messages: `namespace/name`, or `name` when there is no namespace. */
  readonly key: string;
  readonly apiVersion: ExceptionApiVersion;
  readonly entries: readonly ExceptionEntry[];
  /** spec.background, default true. Background scans only honour exceptions where it is true. */
  readonly background: boolean;
  /** spec.conditions, checked like preconditions against the request context. */
  readonly conditions?: AnyAllConditions;
  /** spec.conditions compiled once when the exception loads. */
  readonly compiledConditions?: CompiledConditions;
  readonly podSecurity: readonly PodSecurityExclusion[];
  readonly matcher: ExceptionMatcher;
  /** Where the document came from (file and document), when the caller said. */
  readonly source?: string;
  /** Problems that do not stop the exception from loading. */
  readonly warnings: readonly PolicyProblem[];
  readonly document: JsonObject;
}

export type CompileExceptionOutcome =
  | { readonly ok: true; readonly exception: CompiledException }
  | { readonly ok: false; readonly problems: readonly PolicyProblem[] };

/**
 * One rule about to run, as the rule loop sees it. Build it from the EngineRequest and the
 * request's base context (see `matchExceptions`).
 */
export interface ExceptionMatchInput {
  /** The policy's key: `namespace/name` for a Policy, the name for a ClusterPolicy (`exceptionPolicyKey`). */
  readonly policy: string;
  /** The rule being evaluated, by its own name (`autogen-…` for generated rules). */
  readonly rule: string;
  /** The object of the request; the old object for DELETE (what the rule matched). */
  readonly resource: Resource;
  readonly operation: Operation;
  /** The request's subresource, "" or absent when none. */
  readonly subresource?: string;
  /** The kind the request is matched as when not the object's own (EngineRequest.matchKind). */
  readonly matchKind?: GroupVersionKind;
  /** Who made the request; absent in background scans (user criteria then never match). */
  readonly userInfo?: RequestUserInfo;
  readonly namespaceLabels: Readonly<Record<string, string>>;
  /**
   * Resolves `{{ }}` in condition keys and values against the request context (before the rule's
   * own context entries load), e.g. `(v) => substituteAll(v, scope)`. Only called for exceptions
   * that have conditions and whose match selected the request.
   */
  readonly substitute: Substitute;
  /** A background scan: exceptions with `background: false` are ignored. */
  readonly background?: boolean;
}

export interface MatchExceptionsOptions {
  /**
   * Kyverno's `--exceptionNamespace`: only exceptions in these namespaces are honoured (exact
   * names, no wildcards). Absent or empty: exceptions from every namespace count.
   */
  readonly allowedNamespaces?: readonly string[];
}
