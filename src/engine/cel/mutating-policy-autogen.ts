/**
 * Kyverno's autogen for MutatingPolicy (pkg/cel/policies/mpol/autogen): the same pod-controller
 * configs as a ValidatingPolicy's (validating-policy/autogen.ts), but only two kinds of expression
 * are rewritten, and differently: each `matchConditions[].expression` and each
 * `mutations[].applyConfiguration.expression` has `object.spec`, `oldObject.spec` and `Object.spec`
 * moved to the pod template's spec, and `….metadata.labels` / `….metadata.annotations` to the
 * template's metadata; an expression that is an `Object{…}` constructor is wrapped in the
 * controller's own constructors (`Object{spec: Object.spec{template: Object.spec.template{…}}}`),
 * so that the patch lands in the pod template. Bylaw does not evaluate MutatingPolicy yet: this is
 * what its status shows (`status.autogen`), as Kyverno 1.19 writes it.
 */
import { isObject, type JsonObject, type JsonValue } from "../api/json.js";
import {
  type AutogenConfig,
  type AutogenConfigName,
  POD_PATHS,
  podControllerConfigs,
} from "./validating-policy/autogen.js";

const SPEC = /\b(object|oldObject|Object)\.spec/g;
const LABELS = /\b(object|oldObject|Object)\.metadata\.labels/g;
const ANNOTATIONS = /\b(object|oldObject|Object)\.metadata\.annotations/g;

const WRAPPERS: Readonly<Record<AutogenConfigName, { readonly open: string; readonly close: string }>> = {
  defaults: { open: "Object{spec: Object.spec{template: Object.spec.template{", close: "}}}" },
  cronjobs: {
    open: "Object{spec: Object.spec{jobTemplate: Object.spec.jobTemplate{spec: Object.spec.jobTemplate.spec{template: Object.spec.jobTemplate.spec.template{",
    close: "}}}}}",
  },
};

/** Kyverno's convertPodToTemplateExpression. */
export function podToTemplateExpression(expression: string, config: AutogenConfigName): string {
  const paths = POD_PATHS[config];
  const converted = expression
    .replace(SPEC, `$1.${paths.spec}`)
    .replace(LABELS, `$1.${paths.metadata}.labels`)
    .replace(ANNOTATIONS, `$1.${paths.metadata}.annotations`);
  const trimmed = converted.trim();
  if (!trimmed.startsWith("Object")) return converted;
  const afterName = trimmed.slice("Object".length).replace(/^[ \t\r\n]+/, "");
  if (!afterName.startsWith("{")) return converted;
  const content = afterName.slice(1);
  // The brace that closes the root constructor, counting every brace (as Kyverno does, strings included).
  let depth = 1;
  let end = -1;
  for (let i = 0; i < content.length; i++) {
    if (content[i] === "{") depth++;
    else if (content[i] === "}" && --depth === 0) {
      end = i;
      break;
    }
  }
  if (end <= 0) return converted;
  const wrapper = WRAPPERS[config];
  return `${wrapper.open}${content.slice(0, end)}${wrapper.close}${content.slice(end + 1)}`;
}

function convertExpressions(spec: JsonObject, config: AutogenConfigName): JsonObject {
  const copy: JsonObject = { ...spec };
  const conditions = spec["matchConditions"];
  if (Array.isArray(conditions)) copy["matchConditions"] = conditions.map((c) => withExpression(c, config));
  const mutations = spec["mutations"];
  if (Array.isArray(mutations)) {
    copy["mutations"] = mutations.map((m) =>
      isObject(m) && isObject(m["applyConfiguration"])
        ? { ...m, applyConfiguration: withExpression(m["applyConfiguration"], config) }
        : m,
    );
  }
  return copy;
}

function withExpression(value: JsonValue, config: AutogenConfigName): JsonValue {
  if (!isObject(value) || typeof value["expression"] !== "string" || value["expression"] === "") return value;
  return { ...value, expression: podToTemplateExpression(value["expression"], config) };
}

/** The pod-controller configs of a MutatingPolicy spec; none when it cannot autogen. */
export function mutatingAutogenConfigs(spec: JsonObject): AutogenConfig[] {
  return podControllerConfigs(spec, convertExpressions);
}
