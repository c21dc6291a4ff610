/**
 * `kyverno apply --generate-exceptions` (v1.19, commands/apply printExceptions): instead of the
 * results, one kyverno.io/v2beta1 PolicyException per failing result of a cluster-wide policy (a
 * namespaced Policy's failures get none, as Kyverno takes them from the merged ClusterReport only),
 * each printed after a `---` line:
 * - named `<policy>-<rule>-<namespace>-<name>` and matching that one resource (kinds, names,
 *   namespaces); an autogen rule's exception also covers what it was generated from: the Pod (and
 *   for a CronJob the Job) and the names `<name>-*`, with the rule names those kinds carry;
 * - labelled `cleanup.kyverno.io/ttl: <--generated-exception-ttl>` (Go's duration text, default
 *   720h0m0s; a TTL of 0 leaves the label out);
 * - for a failing podSecurity rule, `podSecurity` lists the failed controls, with the images
 *   (tag or digest replaced by `*`) where the control names some.
 * A result that --audit-warn or `scored: "false"` turns into a warn is not a failure and gets none.
 * YAML with sorted keys (sigs.k8s.io/yaml), or with --output-format json one JSON object each in
 * the Go struct's field order.
 */
import {
  formatDuration,
  type JsonObject,
  type PolicyResponse,
  resourceKind,
  resourceName,
  resourceNamespace,
  resultAction,
} from "../../../engine/index.js";
import { writeYaml } from "../../../platform/yaml/index.js";
import { sortedKeys } from "./sorted-keys.js";

interface ExceptionOptions {
  readonly auditWarn: boolean;
  /** --generated-exception-ttl in nanoseconds. */
  readonly ttl: bigint;
  readonly format: "yaml" | "json";
  readonly namespaceLabels: ReadonlyMap<string, Readonly<Record<string, string>>>;
}

/** The text --generate-exceptions prints: each exception after a `---` line, or "" when nothing failed. */
export function renderGeneratedExceptions(responses: readonly PolicyResponse[], options: ExceptionOptions): string {
  return generatedExceptions(responses, options)
    .map((e) => `---\n${options.format === "json" ? JSON.stringify(e) : writeYaml(sortedKeys(e))}\n`)
    .join("");
}

function generatedExceptions(responses: readonly PolicyResponse[], options: ExceptionOptions): JsonObject[] {
  const out: JsonObject[] = [];
  for (const response of responses) {
    const policy = response.policy;
    if (policy.namespace) continue;
    const namespace = resourceNamespace(response.resource);
    for (const rule of response.rules) {
      if (rule.status !== "fail" || !policy.scored) continue;
      if (options.auditWarn) {
        const labels = options.namespaceLabels.get(namespace) ?? {};
        if (resultAction(policy, rule, namespace, labels) === "Audit") continue;
      }
      out.push(
        exception({
          policy: policy.name,
          rule: rule.rule,
          kind: resourceKind(rule.patchedTarget ?? response.resource),
          name: resourceName(rule.patchedTarget ?? response.resource),
          namespace: resourceNamespace(rule.patchedTarget ?? response.resource),
          ttl: options.ttl,
          controls: rule.properties?.["controlsJSON"],
        }),
      );
    }
  }
  return out;
}

interface Failure {
  readonly policy: string;
  readonly rule: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace: string;
  readonly ttl: bigint;
  readonly controls: string | undefined;
}

function exception(f: Failure): JsonObject {
  const kinds = [f.kind];
  const names = [f.name];
  const rules = [f.rule];
  if (f.rule.startsWith("autogen-")) {
    if (f.kind === "CronJob") {
      kinds.push("Job", "Pod");
      rules.push(f.rule.replaceAll("autogen-cronjob-", "autogen-"), f.rule.slice("autogen-cronjob-".length));
    } else {
      kinds.push("Pod");
      rules.push(f.rule.slice("autogen-".length));
    }
    names.push(`${f.name}-*`);
  }
  const podSecurity = podSecurityControls(f.controls);
  return {
    kind: "PolicyException",
    apiVersion: "kyverno.io/v2beta1",
    metadata: {
      name: [f.policy, f.rule, f.namespace, f.name].join("-"),
      creationTimestamp: null,
      ...(f.ttl > 0n ? { labels: { "cleanup.kyverno.io/ttl": formatDuration(f.ttl) } } : {}),
    },
    spec: {
      match: { all: [{ resources: { kinds, names, namespaces: [f.namespace] } }] },
      exceptions: [{ policyName: f.policy, ruleNames: rules }],
      ...(podSecurity.length > 0 ? { podSecurity } : {}),
    },
  };
}

/** The failed controls of a podSecurity result (its `controlsJSON` property), images with tag or digest as `*`. */
function podSecurityControls(controlsJson: string | undefined): JsonObject[] {
  if (controlsJson === undefined) return [];
  let controls: unknown;
  try {
    controls = JSON.parse(controlsJson);
  } catch {
    return [];
  }
  if (!Array.isArray(controls)) return [];
  return controls.flatMap((c: unknown) => {
    if (c === null || typeof c !== "object") return [];
    const { Name, Images } = c as { Name?: unknown; Images?: unknown };
    const images = Array.isArray(Images) ? Images.filter((i): i is string => typeof i === "string") : undefined;
    return [{ controlName: typeof Name === "string" ? Name : "", ...(images ? { images: images.map(anyTag) } : {}) }];
  });
}

/** `nginx:1.25` → `nginx*`, `repo@sha256:…` → `repo*`: everything from the first `:` or `@` becomes `*`. */
function anyTag(image: string): string {
  const at = image.search(/[:@]/);
  return at < 0 ? image : `${image.slice(0, at)}*`;
}
