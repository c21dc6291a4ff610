/** The admissionregistration.k8s.io/v1 shapes registration writes (only the fields Bylaw sets). */
export type Operation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";
export type Scope = "*" | "Namespaced" | "Cluster";

export const ALL_OPERATIONS: readonly Operation[] = ["CREATE", "UPDATE", "DELETE", "CONNECT"];

export interface RuleWithOperations {
  readonly apiGroups: readonly string[];
  readonly apiVersions: readonly string[];
  readonly resources: readonly string[];
  readonly operations: readonly Operation[];
  readonly scope: Scope;
}

export interface ClientConfig {
  readonly service?: {
    readonly name: string;
    readonly namespace: string;
    readonly path: string;
    readonly port: number;
  };
  readonly url?: string;
  readonly caBundle: string;
}

export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly {
    readonly key: string;
    readonly operator: string;
    readonly values?: readonly string[];
  }[];
}

export interface Webhook {
  readonly name: string;
  readonly admissionReviewVersions: readonly string[];
  readonly clientConfig: ClientConfig;
  readonly failurePolicy: "Fail" | "Ignore";
  readonly matchPolicy: "Equivalent" | "Exact";
  readonly sideEffects: "None" | "NoneOnDryRun";
  readonly timeoutSeconds: number;
  readonly reinvocationPolicy?: "IfNeeded";
  readonly namespaceSelector?: LabelSelector;
  readonly objectSelector?: LabelSelector;
  readonly matchConditions?: readonly { readonly name: string; readonly expression: string }[];
  readonly rules: readonly RuleWithOperations[];
}

export interface WebhookConfiguration {
  readonly apiVersion: "admissionregistration.k8s.io/v1";
  readonly kind: "ValidatingWebhookConfiguration" | "MutatingWebhookConfiguration";
  readonly metadata: { readonly name: string; readonly labels: Readonly<Record<string, string>> };
  readonly webhooks: readonly Webhook[];
}

/** Where the API server reaches Bylaw: its Service in the cluster, or a URL (Kyverno's `--serverIP`). */
export type Endpoint =
  | { readonly kind: "service"; readonly name: string; readonly namespace: string; readonly port: number }
  | { readonly kind: "url"; readonly base: string };

export interface RegistrationTarget {
  readonly endpoint: Endpoint;
  /** The PEM CA that signed the serving certificate (clientConfig.caBundle is its base64). */
  readonly caPem: string;
  /** Bylaw's own namespace: the resource webhooks never see its objects. */
  readonly ownNamespace: string;
  /** Whose names the configurations and webhooks carry (webhook-names.ts); default Bylaw's own. */
  readonly names?: NameScheme;
}

/** `bylaw`: Bylaw's own names; `kyverno`: Kyverno v1.19's (`--kyverno-webhook-names`). */
export type NameScheme = "bylaw" | "kyverno";

/** The three configurations registration writes for one policy set (server/registration/build-configurations.ts builds them). */
export interface Configurations {
  readonly validating: WebhookConfiguration;
  readonly mutating: WebhookConfiguration;
  readonly policyValidating: WebhookConfiguration;
  /** Where registration is wider than the policies ask (a kind Bylaw does not know, a rule without kinds). */
  readonly notes: readonly string[];
  /** Which policies (`policyIdOf`) each resource webhook carries, by configuration name and webhook name. */
  readonly owners: ReadonlyMap<string, ReadonlyMap<string, readonly string[]>>;
  /** Every policy the configurations were built for (`policyIdOf`). */
  readonly policies: readonly string[];
}
