/**
 * Issue 32 §6: the documents of the tenant-stall cluster test. Each attack is a small tenant Policy
 * (or NamespacedValidatingPolicy) in tenant-a that makes every review of a ConfigMap labelled
 * `stall: <name>` heavy: a foreach over the elements of `data.items` with a configMap or apiCall
 * context entry per element, a JMESPath per element that splits the whole list again, and CEL
 * comprehensions that spend the whole cost budget. A ConfigMap labelled `probe: <name>` is denied
 * at once by the same policy, which tells the test the policy is in force.
 */

export interface StallAttack {
  readonly name: string;
  readonly policy: string;
  /** Elements in the attack ConfigMap's `data.items`. */
  readonly elements: number;
}

/** A Policy whose heavy rule is a foreach over `data.items` with `perElement` (context and deny). */
function foreachPolicy(name: string, perElement: string): string {
  return `apiVersion: kyverno.io/v1
kind: Policy
metadata: {name: ${name}, namespace: tenant-a}
spec:
  validationFailureAction: Enforce
  rules:
    - name: probe
      match: {any: [{resources: {kinds: [ConfigMap], selector: {matchLabels: {probe: ${name}}}}}]}
      validate:
        message: "${name} probe"
        deny: {}
    - name: per-element
      match: {any: [{resources: {kinds: [ConfigMap], selector: {matchLabels: {stall: ${name}}}}}]}
      validate:
        message: "${name} is refused"
        foreach:
          - list: "split(request.object.data.items, ',')"
${perElement}
`;
}

const neverDeny = (key: string): string => `            deny:
              conditions:
                any:
                  - key: "${key}"
                    operator: Equals
                    value: "never-${"x".repeat(8)}"`;

export const STALL_ATTACKS: readonly StallAttack[] = [
  {
    name: "foreach-configmap",
    elements: 100_000,
    policy: foreachPolicy(
      "foreach-configmap",
      `            context:
              - name: cfg
                configMap: {name: stall-cfg, namespace: tenant-a}
              - name: again
                configMap: {name: stall-cfg, namespace: tenant-a}
              - name: more
                configMap: {name: stall-cfg, namespace: tenant-a}
${neverDeny("{{ cfg.data.value }}-{{ again.data.value }}-{{ more.data.value }}-{{ element }}")}`,
    ),
  },
  {
    name: "foreach-apicall",
    elements: 100_000,
    policy: foreachPolicy(
      "foreach-apicall",
      `            context:
              - name: cfg
                apiCall:
                  urlPath: "/api/v1/namespaces/tenant-a/configmaps/stall-cfg"
                  jmesPath: "data.value"
              - name: list
                apiCall:
                  urlPath: "/api/v1/namespaces/tenant-a/configmaps"
                  jmesPath: "length(items)"
${neverDeny("{{ cfg }}-{{ list }}-{{ element }}")}`,
    ),
  },
  {
    name: "deep-jmespath",
    elements: 20_000,
    policy: foreachPolicy(
      "deep-jmespath",
      neverDeny("{{ length(split(request.object.data.items, ',')[?starts_with(@, 'e1')]) }}-{{ element }}"),
    ),
  },
  {
    name: "cel-heavy",
    elements: 10,
    // Four policies, each with its own cost budget, all applying to the same ConfigMaps.
    policy: [1, 2, 3, 4].map((i) => celPolicy("cel-heavy", i)).join("---\n"),
  },
];

/** Variables doubling a ten-element list to 320 elements, and validations that each spend most of a cost limit. */
function celPolicy(name: string, copy: number): string {
  const doubling = Array.from(
    { length: 5 },
    (_, i) => `    - name: l${i + 1}\n      expression: "variables.l${i} + variables.l${i}"`,
  ).join("\n");
  const heavy = Array.from(
    { length: 20 },
    (_, i) =>
      `    - expression: "variables.l5.all(a, variables.l5.all(b, a + b + ${i} >= 0))"\n      message: "${name} is refused"`,
  ).join("\n");
  return `apiVersion: policies.kyverno.io/v1beta1
kind: NamespacedValidatingPolicy
metadata: {name: ${name}-${copy}, namespace: tenant-a}
spec:
  validationActions: [Deny]
  failurePolicy: Fail
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  matchConditions:
    - name: attacked
      expression: "object.metadata.?labels.?stall.orValue('') == '${name}' || object.metadata.?labels.?probe.orValue('') == '${name}'"
  variables:
    - name: l0
      expression: "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]"
${doubling}
  validations:
    - expression: "object.metadata.?labels.?probe.orValue('') != '${name}'"
      message: "${name} probe"
${heavy}
`;
}

/** The ConfigMap the context entries read (the tenant's own). */
export const STALL_CONFIG = JSON.stringify({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "stall-cfg", namespace: "tenant-a" },
  data: { value: "v" },
});

/** A ConfigMap in tenant-a labelled for `attack` (`stall`, or `probe`), with `elements` items. */
export function attackConfigMap(attack: StallAttack, label: "stall" | "probe", n: number): string {
  const items = Array.from({ length: label === "stall" ? attack.elements : 1 }, (_, i) => `e${i}`).join(",");
  return JSON.stringify({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: `${attack.name}-${label}-${n}`, namespace: "tenant-a", labels: { [label]: attack.name } },
    data: { items },
  });
}
