/**
 * The tenant suite's policies (tenant.cluster-test.ts): what a namespace admin of `tenant-a` writes
 * to make Bylaw's ServiceAccount read another tenant's canaries or create a webhook configuration.
 */

/** A namespaced Policy in tenant-a (Enforce, Fail) on ConfigMaps, with one context entry and a deny that would echo what it read. */
export function tenantPolicy(name: string, entry: string, spec = ""): string {
  return `apiVersion: kyverno.io/v1
kind: Policy
metadata:
  name: ${name}
  namespace: tenant-a
spec:
  validationFailureAction: Enforce
  failurePolicy: Fail
  background: false
${spec}  rules:
    - name: r
      match:
        any:
          - resources:
              kinds: [ConfigMap]
              selector: {matchLabels: {attack: ${name}}}
      context:
        - name: stolen
${entry}
      validate:
        message: "read: {{ stolen.data }}"
        # The condition reads what the message shows: an entry that failed to load is the rule's error (Kyverno loads an entry when a query reads it).
        deny: {conditions: {any: [{key: "read: {{ stolen.data }}", operator: NotEquals, value: ""}]}}
`;
}

const apiCall = (urlPath: string): string => `          apiCall:\n            urlPath: ${JSON.stringify(urlPath)}\n`;

export interface StaticAttempt {
  readonly what: string;
  readonly policy: string;
  /** The reason the policy-validating webhook gives. */
  readonly reason: RegExp;
}

/** Attempts the policy-validating webhook must refuse at `kubectl apply`, each with its reason. */
export function staticAttempts(listenerPort: number): StaticAttempt[] {
  const notOwn = /may not read namespace|reads namespace|names namespace/;
  const paths: [string, string, RegExp][] = [
    ["cross-namespace ConfigMap", "/api/v1/namespaces/tenant-b/configmaps/canary", /tenant-b/],
    ["kube-system Secret", "/api/v1/namespaces/kube-system/secrets/canary", /kube-system/],
    ["cluster-scoped Namespace", "/api/v1/namespaces/tenant-b", /not namespaced|not a path in a namespace/],
    [
      "cluster-scoped webhook configurations",
      "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
      /not namespaced|not a path in a namespace/,
    ],
    ["dot-segments", "/api/v1/namespaces/tenant-a/../tenant-b/configmaps/canary", /dot-segments/],
    ["encoded /", "/api/v1/namespaces/tenant-a%2F..%2Ftenant-b/configmaps/canary", /encoded byte %2F/],
    ["encoded .", "/api/v1/namespaces/tenant-a/%2E%2E/tenant-b/configmaps/canary", /encoded byte %2E/],
    ["encoded %", "/api/v1/namespaces/tenant-a/configmaps/%252E%252E%252Ftenant-b", /encoded byte %25/],
    ["malformed escape", "/api/v1/namespaces/tenant-a/configmaps/%zz/../../tenant-b", /malformed percent-escape/],
    ["truncated escape", "/api/v1/namespaces/tenant-a/configmaps/canary%2", /malformed percent-escape/],
    ["query string", "/api/v1/namespaces/tenant-a/configmaps?x=/../../../tenant-b/configmaps/canary", /query strings/],
    ["fragment", "/api/v1/namespaces/tenant-b/configmaps/canary#/api/v1/namespaces/tenant-a", /fragments|tenant-b/],
    [
      "fixed namespace beside a variable",
      "/api/v1/namespaces/kube-system/secrets/{{ request.object.metadata.name }}",
      notOwn,
    ],
  ];
  const out: StaticAttempt[] = paths.map(([what, path, reason], i) => ({
    what: `apiCall ${what}`,
    policy: tenantPolicy(`path-${i}`, apiCall(path)),
    reason,
  }));
  out.push(
    {
      what: "configMap in tenant-b",
      policy: tenantPolicy("cm-b", "          configMap: {name: canary, namespace: tenant-b}\n"),
      reason: /configMap\.namespace: .*tenant-b/,
    },
    {
      what: "configMap in kube-system",
      policy: tenantPolicy("cm-ks", "          configMap: {name: canary, namespace: kube-system}\n"),
      reason: /configMap\.namespace: .*kube-system/,
    },
    {
      what: "globalReference",
      policy: tenantPolicy("global", "          globalReference: {name: all-secrets}\n"),
      reason: /globalReference is not allowed/,
    },
    ...[
      ["recording listener", `http://127.0.0.1:${listenerPort}/steal`],
      ["loopback API", "https://127.0.0.1:443/api/v1/namespaces/kube-system/secrets"],
      ["metadata address", "http://169.254.169.254/latest/meta-data/iam/security-credentials/"],
    ].map(([what, url], i) => ({
      what: `apiCall.service to the ${what}`,
      policy: tenantPolicy(
        `service-${i}`,
        `          apiCall:\n            method: GET\n            service: {url: ${JSON.stringify(url)}}\n`,
      ),
      reason: /may not call a service/,
    })),
    {
      what: "POST apiCall creating a webhook configuration",
      policy: tenantPolicy(
        "post-webhook",
        `          apiCall:
            method: POST
            urlPath: /apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations
            data:
              - {key: apiVersion, value: admissionregistration.k8s.io/v1}
              - {key: kind, value: ValidatingWebhookConfiguration}
              - {key: metadata, value: {name: tenant-a-stolen}}
              - {key: webhooks, value: []}
`,
      ),
      reason: /may only GET through apiCall/,
    },
    {
      what: "POST apiCall in its own namespace",
      policy: tenantPolicy(
        "post-own",
        `          apiCall:\n            method: POST\n            urlPath: /api/v1/namespaces/tenant-a/configmaps\n            data: [{key: metadata, value: {name: x}}]\n`,
      ),
      reason: /may only GET through apiCall/,
    },
    {
      what: "generate clone from tenant-b",
      policy: generatePolicy("clone-b", "ConfigMap", "tenant-a", "      clone: {namespace: tenant-b, name: canary}\n"),
      reason: /clone.*tenant-b|tenant-b.*clone|names namespace "tenant-b"/,
    },
    {
      what: "generate into kube-system",
      policy: generatePolicy("gen-ks", "ConfigMap", "kube-system", "      data: {data: {a: b}}\n"),
      reason: /names namespace "kube-system"/,
    },
    {
      what: "generate a webhook configuration",
      policy: generatePolicy(
        "gen-webhook",
        "ValidatingWebhookConfiguration",
        undefined,
        "      data: {webhooks: []}\n",
      ),
      reason: /cluster-scoped kind ValidatingWebhookConfiguration/,
    },
  );
  return out;
}

function generatePolicy(name: string, kind: string, namespace: string | undefined, body: string): string {
  const apiVersion = kind === "ValidatingWebhookConfiguration" ? "admissionregistration.k8s.io/v1" : "v1";
  return `apiVersion: kyverno.io/v1
kind: Policy
metadata:
  name: ${name}
  namespace: tenant-a
spec:
  rules:
    - name: g
      match:
        any:
          - resources:
              kinds: [ConfigMap]
      generate:
        apiVersion: ${apiVersion}
        kind: ${kind}
        name: tenant-a-${name}
${namespace !== undefined ? `        namespace: ${namespace}\n` : ""}        synchronize: false
  ${body}`;
}

/**
 * Policies the static check must accept (the namespace or path comes from the request) and that
 * must be rule errors at review time. Each rule matches ConfigMaps labelled attack=<rule>.
 */
export const RUNTIME_POLICY = `apiVersion: kyverno.io/v1
kind: Policy
metadata:
  name: by-variables
  namespace: tenant-a
spec:
  validationFailureAction: Enforce
  failurePolicy: Fail
  background: false
  rules:
${[
  ["ns", 'apiCall: {urlPath: "/api/v1/namespaces/{{ request.object.metadata.labels.target }}/configmaps/canary"}'],
  ["secret", 'apiCall: {urlPath: "/api/v1/namespaces/{{ request.object.metadata.labels.target }}/secrets/canary"}'],
  [
    "tail",
    'apiCall: {urlPath: "/api/v1/namespaces/tenant-a/configmaps/{{ request.object.metadata.annotations.tail }}"}',
  ],
  ["path", 'apiCall: {urlPath: "{{ request.object.metadata.annotations.path }}"}'],
  ["cm", 'configMap: {name: canary, namespace: "{{ request.object.metadata.labels.target }}"}'],
]
  .map(
    ([rule, entry]) => `    - name: ${rule}
      match:
        any:
          - resources:
              kinds: [ConfigMap]
              selector: {matchLabels: {attack: ${rule}}}
      context:
        - name: stolen
          ${entry}
      validate:
        message: "read: {{ stolen.data }}"
        # The condition reads what the message shows: an entry that failed to load is the rule's error (Kyverno loads an entry when a query reads it).
        deny: {conditions: {any: [{key: "read: {{ stolen.data }}", operator: NotEquals, value: ""}]}}
`,
  )
  .join("")}`;

/** A Policy whose context doubles a string 30 times, by substitution and by join(). */
export const COST_POLICY = `apiVersion: kyverno.io/v1
kind: Policy
metadata:
  name: doubling
  namespace: tenant-a
spec:
  validationFailureAction: Enforce
  failurePolicy: Fail
  background: false
  rules:
${["subst", "join"]
  .map(
    (rule) => `    - name: ${rule}
      match:
        any:
          - resources:
              kinds: [ConfigMap]
              selector: {matchLabels: {attack: cost-${rule}}}
      context:
        - name: p0
          variable: {value: "0123456789abcdef"}
${Array.from({ length: 30 }, (_, i) =>
  rule === "subst"
    ? `        - name: p${i + 1}\n          variable: {value: "{{ p${i} }}{{ p${i} }}"}\n`
    : `        - name: p${i + 1}\n          variable: {jmesPath: "join('', [p${i}, p${i}])"}\n`,
).join("")}      validate:
        message: "length {{ length(p30) }}"
        deny: {}
`,
  )
  .join("")}`;

/** A ClusterPolicy on another namespace's ConfigMaps: the reviews that must keep being answered. */
export const BYSTANDER_POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: bystander-team
spec:
  validationFailureAction: Enforce
  failurePolicy: Fail
  background: false
  rules:
    - name: team
      match:
        any:
          - resources:
              kinds: [ConfigMap]
              namespaces: [bystander]
      validate:
        message: "label team is required"
        pattern: {metadata: {labels: {team: "?*"}}}
`;
