/**
 * What a policies.kyverno.io policy (ValidatingPolicy, MutatingPolicy, ImageValidatingPolicy and
 * their Namespaced forms) puts on a webhook of its own (Kyverno `pkg/controllers/webhook`
 * `buildWebhookRules`; kyverno-behaviour.md §8.2). Such a policy gets its own ("fine-grained")
 * webhook when it has matchConditions, sets `matchConstraints.matchPolicy: Exact`, or sets
 * `webhookConfiguration.timeoutSeconds`; the webhook then carries:
 *
 * - its matchConditions, so the API server evaluates them. When the policy autogens for pod
 *   controllers, each condition is guarded to the kinds it was written for (`autogen-<name>` for
 *   the Pod's, `autogen-<config>-<name>` for each config's rewritten copy), as Kyverno does
 *   (`pkg/cel/autogen` `CreateMatchConditions`). The guard reads `request.kind`, not Kyverno's
 *   `object.apiVersion`/`object.kind`: a DELETE has no `object`, and an error there would refuse the
 *   request under a Fail webhook. The prefix can take a name that was valid in the policy past what
 *   the API server accepts (a qualified name: name part ≤ 63 characters, e.g. a 62-character
 *   condition name), and Kyverno then writes a name the API server refuses, with the whole
 *   configuration and so every policy's registration. Bylaw keeps `autogen-…` when it is valid and
 *   otherwise writes its first characters and `-<hash>` (12 hex digits of the SHA-256 of the group
 *   and the condition's own name; kube-names.ts), 63 characters at most; and where two prefixed names
 *   read alike (a condition `cronjobs-x` of the Pod's and `x` of the cronjobs config), both get
 *   their hash, so the names stay unique within the webhook;
 * - `matchPolicy: Exact` when the policy asks for it, and its timeout;
 * - its matchConstraints' namespaceSelector and objectSelector, merged with Bylaw's own.
 *
 * The conditions compiled when the policy was loaded (an invalid one makes the policy invalid), so
 * every condition here is one the API server accepts.
 */
import {
  policySpec,
  celAutogenStatus,
  isObject,
  type CompiledPolicy,
  type JsonObject,
  type JsonValue,
  textOf,
} from "../../engine/index.js";
import { celSpecOf } from "../policy-source/cel-policy-compile.js";
import { conditionName, distinctNames, hashedConditionName } from "./kube-names.js";

export interface MatchCondition {
  readonly name: string;
  readonly expression: string;
}

interface CelWebhookTraits {
  /** Kyverno's short name of the kind (`vpol`, `nvpol`, `mpol`, …): the fine-grained webhook's name and path start with it. */
  readonly prefix: string;
  readonly matchConditions: readonly MatchCondition[];
  readonly exact: boolean;
  readonly namespaceSelector: JsonObject | undefined;
  readonly objectSelector: JsonObject | undefined;
}

const PREFIXES: Readonly<Record<string, string>> = {
  ValidatingPolicy: "vpol",
  NamespacedValidatingPolicy: "nvpol",
  MutatingPolicy: "mpol",
  NamespacedMutatingPolicy: "nmpol",
  ImageValidatingPolicy: "ivpol",
  NamespacedImageValidatingPolicy: "nivpol",
};

/** The prefixes of the CEL kinds' fine-grained paths (`/vpol/fail/finegrained/<name>`, …). */
export const CEL_PREFIXES: readonly string[] = Object.values(PREFIXES);

/** The policies.kyverno.io kind a served policy was written as; undefined for the kyverno.io kinds. */
export function celKindOf(policy: CompiledPolicy): string | undefined {
  return celSpecOf(policy) === undefined ? undefined : policy.origin.kind.kind;
}

/** Kyverno's short name of a served CEL policy's kind; undefined for the kyverno.io kinds. */
export function celPrefixOf(policy: CompiledPolicy): string | undefined {
  const kind = celKindOf(policy);
  return kind === undefined ? undefined : PREFIXES[kind];
}

/** The webhook fields of a served CEL policy; undefined for the kyverno.io kinds. */
export function celWebhookTraits(policy: CompiledPolicy): CelWebhookTraits | undefined {
  const spec = celSpecOf(policy);
  const kind = celKindOf(policy);
  const prefix = kind === undefined ? undefined : PREFIXES[kind];
  if (spec === undefined || kind === undefined || prefix === undefined) return undefined;
  const mc = isObject(spec["matchConstraints"]) ? spec["matchConstraints"] : {};
  return {
    prefix,
    matchConditions: webhookConditions(kind, spec),
    exact: mc["matchPolicy"] === "Exact",
    namespaceSelector: selector(mc["namespaceSelector"]),
    objectSelector: selector(mc["objectSelector"]),
  };
}

/** Whether a served CEL policy gets its own webhook (Kyverno's three reasons). */
export function celHasOwnWebhook(policy: CompiledPolicy): boolean {
  const traits = celWebhookTraits(policy);
  if (traits === undefined) return false;
  const configured = policySpec(policy)["webhookConfiguration"];
  const timeout =
    isObject(configured) && configured["timeoutSeconds"] !== undefined && configured["timeoutSeconds"] !== null;
  return traits.matchConditions.length > 0 || traits.exact || timeout;
}

function conditionsOf(spec: JsonValue | undefined): MatchCondition[] {
  const list = isObject(spec) ? spec["matchConditions"] : undefined;
  return Array.isArray(list)
    ? list.filter(isObject).map((c) => ({ name: textOf(c["name"]), expression: textOf(c["expression"]) }))
    : [];
}

interface Target {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

const POD: Target = { group: "", version: "v1", kind: "Pod" };

function webhookConditions(kind: string, spec: JsonObject): MatchCondition[] {
  const own = conditionsOf(spec);
  const status = celAutogenStatus(kind, spec);
  const configs = isObject(status) && isObject(status["configs"]) ? status["configs"] : undefined;
  if (configs === undefined || Object.keys(configs).length === 0) return own;
  const out = guarded("autogen", [POD], own);
  for (const name of Object.keys(configs).sort()) {
    const config = configs[name];
    if (!isObject(config)) continue;
    const targets = Array.isArray(config["targets"])
      ? config["targets"].filter(isObject).map((t) => ({
          group: textOf(t["group"] ?? ""),
          version: textOf(t["version"] ?? ""),
          kind: textOf(t["kind"] ?? ""),
        }))
      : [];
    out.push(...guarded(`autogen-${name}`, targets, conditionsOf(config["spec"])));
  }
  const names = distinctNames(
    out,
    (c) => c.name,
    (c) => hashedConditionName(c.kyvernoName, c.origin),
  );
  return out.map((c, i) => ({ name: names[i] ?? c.name, expression: c.expression }));
}

/** A guarded condition: its valid name, Kyverno's name, and what it stands for (its group and own name). */
interface Guarded extends MatchCondition {
  readonly kyvernoName: string;
  readonly origin: string;
}

/** Each condition applies to `targets` only: `!(<a target>) || (<condition>)`. */
function guarded(prefix: string, targets: readonly Target[], conditions: readonly MatchCondition[]): Guarded[] {
  if (targets.length === 0) return [];
  const precondition = [
    ...new Set(
      targets.map(
        (t) =>
          `(request.kind.group == '${t.group}' && request.kind.version == '${t.version}' && request.kind.kind == '${t.kind}')`,
      ),
    ),
  ]
    .sort()
    .join(" || ");
  return conditions.map((c) => {
    const kyvernoName = `${prefix}-${c.name}`;
    const origin = JSON.stringify([prefix, c.name]);
    return {
      name: conditionName(kyvernoName, origin),
      kyvernoName,
      origin,
      expression: `!(${precondition}) || (${c.expression})`,
    };
  });
}

function selector(value: JsonValue | undefined): JsonObject | undefined {
  if (!isObject(value)) return undefined;
  const labels = value["matchLabels"];
  const exprs = value["matchExpressions"];
  const empty = !(isObject(labels) && Object.keys(labels).length > 0) && !(Array.isArray(exprs) && exprs.length > 0);
  return empty ? undefined : value;
}
