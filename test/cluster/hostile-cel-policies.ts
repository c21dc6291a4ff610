/**
 * Issue 32 §4: the documents of the hostile-CEL cluster test. Each attack is a tenant's policy that
 * makes CEL build ever larger values (lists, maps, strings, bytes, comprehensions, nested
 * variables); it applies to the tenant's ConfigMaps labelled `attack: <name>`. The control is the
 * admin's ClusterPolicy on tenant-b.
 */

/** Variables `<prefix>1..<prefix>n`, each the previous one twice (`<prefix>0` is given). */
function doubling(prefix: string, n: number): string {
  const lines: string[] = [];
  for (let i = 1; i <= n; i++)
    lines.push(
      `    - name: ${prefix}${i}\n      expression: "variables.${prefix}${i - 1} + variables.${prefix}${i - 1}"`,
    );
  return lines.join("\n");
}

function namespacedPolicy(name: string, variables: string, expression: string): string {
  return `apiVersion: policies.kyverno.io/v1beta1
kind: NamespacedValidatingPolicy
metadata: {name: ${name}, namespace: tenant-a}
spec:
  validationActions: [Deny]
  failurePolicy: Fail
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  matchConditions:
    - name: attacked
      expression: "object.metadata.?labels.?attack.orValue('') == '${name}'"
  variables:
${variables}
  validations:
    - expression: '${expression}'
      message: "${name} is refused"
`;
}

export interface CelAttack {
  readonly name: string;
  readonly policy: string;
}

const ten = "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]";

export const CEL_ATTACKS: readonly CelAttack[] = [
  {
    name: "list-doubling",
    policy: namespacedPolicy(
      "list-doubling",
      `    - name: l0\n      expression: "${ten}"\n${doubling("l", 24)}`,
      "variables.l24.size() > 0",
    ),
  },
  {
    name: "map-building",
    policy: namespacedPolicy(
      "map-building",
      `    - name: l0\n      expression: "${ten}"\n${doubling("l", 14)}\n    - name: maps\n      expression: "variables.l14.map(x, {x: [x, x, x, x]})"`,
      "variables.maps.size() > 0",
    ),
  },
  {
    name: "string-join",
    policy: namespacedPolicy(
      "string-join",
      `    - name: s0\n      expression: "'0123456789abcdef0123456789abcdef'"\n${doubling("s", 10)}\n    - name: wide\n      expression: "variables.s10.replace('', variables.s10)"\n    - name: joined\n      expression: "[variables.wide, variables.wide, variables.wide, variables.wide].join(variables.wide)"`,
      "variables.joined.size() > 0",
    ),
  },
  {
    name: "bytes-doubling",
    policy: namespacedPolicy(
      "bytes-doubling",
      `    - name: b0\n      expression: "b'0123456789abcdef0123456789abcdef'"\n${doubling("b", 30)}`,
      "variables.b30.size() > 0",
    ),
  },
  {
    name: "comprehension",
    policy: namespacedPolicy(
      "comprehension",
      `    - name: l0\n      expression: "${ten}"\n${doubling("l", 7)}`,
      "variables.l7.map(a, variables.l7.map(b, variables.l7.map(c, {c: [a, b]}))).size() > 0",
    ),
  },
  {
    name: "validate-cel",
    policy: `apiVersion: kyverno.io/v1
kind: Policy
metadata: {name: validate-cel, namespace: tenant-a}
spec:
  validationFailureAction: Enforce
  rules:
    - name: grow
      match: {any: [{resources: {kinds: [ConfigMap], selector: {matchLabels: {attack: validate-cel}}}}]}
      validate:
        cel:
          variables:
            - name: b0
              expression: "b'0123456789abcdef0123456789abcdef'"
${doubling("b", 30).replaceAll(/^ {4}/gm, "            ")}
          expressions:
            - expression: "variables.b30.size() > 0"
              message: "validate-cel is refused"
`,
  },
];

/** The admin's control: ConfigMaps labelled `control: forbidden` in tenant-b are denied. */
export const CONTROL_POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: control}
spec:
  validationFailureAction: Enforce
  rules:
    - name: no-forbidden
      match: {any: [{resources: {kinds: [ConfigMap], namespaces: [tenant-b]}}]}
      validate:
        cel:
          expressions:
            - expression: "object.metadata.?labels.?control.orValue('') != 'forbidden'"
              message: "the control denies forbidden ConfigMaps"
`;

export function configMap(name: string, namespace: string, labels: Record<string, string>): string {
  return JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace, labels } });
}
