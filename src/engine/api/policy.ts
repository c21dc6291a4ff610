/**
 * The shapes of kyverno.io/v1 (and v2beta1) ClusterPolicy and Policy, as written in YAML.
 * Field names are Kyverno's, verbatim. Everything is optional here because documents come from
 * users; the policy checker (engine/policy) reports what is missing or wrong.
 */
import type { JsonObject, JsonValue } from "./json.js";

export type FailureAction = "Audit" | "Enforce" | "audit" | "enforce";

export interface PolicyDocument {
  readonly apiVersion: string;
  readonly kind: "ClusterPolicy" | "Policy";
  readonly metadata: PolicyMetadata;
  readonly spec: PolicySpec;
}

interface PolicyMetadata {
  readonly name: string;
  readonly namespace?: string;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly labels?: Readonly<Record<string, string>>;
}

interface PolicySpec {
  readonly rules?: readonly Rule[];
  readonly applyRules?: "All" | "One";
  readonly background?: boolean;
  readonly admission?: boolean;
  readonly validationFailureAction?: FailureAction;
  readonly validationFailureActionOverrides?: readonly FailureActionOverride[];
  readonly failurePolicy?: "Fail" | "Ignore";
  readonly emitWarning?: boolean;
  readonly useServerSideApply?: boolean;
  readonly webhookConfiguration?: JsonObject;
  readonly [extra: string]: unknown;
}

export interface FailureActionOverride {
  readonly action?: FailureAction;
  readonly namespaces?: readonly string[];
  readonly namespaceSelector?: LabelSelector;
}

export interface Rule {
  readonly name: string;
  readonly match?: MatchResources;
  readonly exclude?: MatchResources;
  readonly context?: readonly ContextEntry[];
  readonly preconditions?: Conditions;
  readonly celPreconditions?: readonly JsonObject[];
  readonly reportProperties?: Readonly<Record<string, string>>;
  readonly skipBackgroundRequests?: boolean;
  readonly validate?: Validation;
  readonly mutate?: JsonObject;
  readonly generate?: JsonObject;
  readonly verifyImages?: readonly JsonObject[];
  readonly imageExtractors?: JsonObject;
}

export interface MatchResources {
  readonly any?: readonly ResourceFilter[];
  readonly all?: readonly ResourceFilter[];
  /** Legacy form: one filter written straight under match/exclude. */
  readonly resources?: ResourceDescription;
  readonly subjects?: readonly Subject[];
  readonly roles?: readonly string[];
  readonly clusterRoles?: readonly string[];
}

export interface ResourceFilter {
  readonly resources?: ResourceDescription;
  readonly subjects?: readonly Subject[];
  readonly roles?: readonly string[];
  readonly clusterRoles?: readonly string[];
}

export interface ResourceDescription {
  readonly kinds?: readonly string[];
  readonly name?: string;
  readonly names?: readonly string[];
  readonly namespaces?: readonly string[];
  readonly annotations?: Readonly<Record<string, string>>;
  readonly selector?: LabelSelector;
  readonly namespaceSelector?: LabelSelector;
  readonly operations?: readonly string[];
}

export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly LabelSelectorRequirement[];
}

export interface LabelSelectorRequirement {
  readonly key: string;
  readonly operator: "In" | "NotIn" | "Exists" | "DoesNotExist";
  readonly values?: readonly string[];
}

export interface Subject {
  readonly kind: "User" | "Group" | "ServiceAccount";
  readonly name: string;
  readonly namespace?: string;
  readonly apiGroup?: string;
}

export interface ContextEntry {
  readonly name: string;
  readonly variable?: { readonly value?: JsonValue; readonly jmesPath?: string; readonly default?: JsonValue };
  readonly configMap?: { readonly name: string; readonly namespace?: string };
  readonly apiCall?: ApiCall;
  readonly imageRegistry?: {
    readonly reference: string;
    readonly jmesPath?: string;
    readonly imageRegistryCredentials?: JsonObject;
  };
  readonly globalReference?: { readonly name: string; readonly jmesPath?: string };
}

interface ApiCall {
  readonly urlPath?: string;
  readonly method?: "GET" | "POST";
  readonly data?: readonly { readonly key: string; readonly value: JsonValue }[];
  readonly service?: {
    readonly url: string;
    readonly caBundle?: string;
    readonly headers?: readonly { key: string; value: string }[];
  };
  readonly jmesPath?: string;
  readonly default?: JsonValue;
}

/** `{any, all}` or the legacy bare list (which means "all"). */
export type Conditions = AnyAllConditions | readonly Condition[];

export interface AnyAllConditions {
  readonly any?: readonly Condition[];
  readonly all?: readonly Condition[];
}

export interface Condition {
  readonly key?: JsonValue;
  readonly operator: string;
  readonly value?: JsonValue;
  readonly message?: string;
}

interface Validation {
  readonly message?: string;
  readonly failureAction?: FailureAction;
  readonly failureActionOverrides?: readonly FailureActionOverride[];
  readonly allowExistingViolations?: boolean;
  readonly pattern?: JsonValue;
  readonly anyPattern?: readonly JsonValue[];
  readonly deny?: { readonly conditions?: Conditions };
  readonly foreach?: readonly ForEachValidation[];
  readonly podSecurity?: JsonObject;
  readonly cel?: JsonObject;
  readonly manifests?: JsonObject;
}

export interface ForEachValidation {
  readonly list: string;
  readonly elementScope?: boolean;
  readonly context?: readonly ContextEntry[];
  readonly preconditions?: Conditions;
  readonly pattern?: JsonValue;
  readonly anyPattern?: readonly JsonValue[];
  readonly deny?: { readonly conditions?: Conditions };
  readonly foreach?: readonly ForEachValidation[];
}
