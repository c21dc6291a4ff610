/**
 * What a kyverno.io policy's generate rules write, read from the rule as written: the target
 * (`apiVersion`/`kind` in `namespace`) or each `cloneList` kind. A `foreach` generate names its
 * targets per element and is left out, as Kyverno's policy webhook leaves it out.
 */
import { isObject, kyvernoRulesOf, type CompiledPolicy, type JsonObject, type JsonValue } from "../../engine/index.js";

export interface GenerateTarget {
  /** `spec.rules[i].generate`. */
  readonly path: string;
  readonly generate: JsonObject;
  /** The kinds written: `apiVersion/kind` for a target, each `cloneList.kinds` entry for a cloneList. */
  readonly kinds: readonly string[];
  readonly fromCloneList: boolean;
  /** `generate.namespace` as written ("" when absent). */
  readonly namespace: string;
}

export function generateTargets(policy: CompiledPolicy): GenerateTarget[] {
  const out: GenerateTarget[] = [];
  kyvernoRulesOf(policy).forEach((rule, i) => {
    const generate = rule.generate;
    if (!isObject(generate) || generate["foreach"] !== undefined) return;
    const cloneList = isObject(generate["cloneList"]) ? generate["cloneList"] : {};
    const listed = Array.isArray(cloneList["kinds"]) ? strings(cloneList["kinds"]) : [];
    const kind = text(generate["kind"]);
    const kinds = listed.length > 0 ? listed : kind === "" ? [] : [`${text(generate["apiVersion"])}/${kind}`];
    out.push({
      path: `spec.rules[${i}].generate`,
      generate,
      kinds,
      fromCloneList: listed.length > 0,
      namespace: text(generate["namespace"]),
    });
  });
  return out;
}

function text(v: JsonValue | undefined): string {
  return typeof v === "string" ? v : "";
}

function strings(list: readonly JsonValue[]): string[] {
  return list.filter((k): k is string => typeof k === "string" && k !== "");
}
