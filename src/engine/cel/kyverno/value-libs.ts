/**
 * Kyverno's CEL libraries that compute from their arguments (kyverno/sdk libs): `json.unmarshal`
 * / `json.marshal`, `yaml.parse`, `parseServiceAccount` (also `user.parseServiceAccount`),
 * `math.round(double, int)` and `listObjToMap` (also `transform.listObjToMap`). JSON and YAML
 * decode as Go's `json.Unmarshal` into `any` does: every number is a double.
 */
import type { JsonValue } from "../../api/json.js";
import { goJsonUnmarshal } from "../../go/json-decode.js";
import { goJsonMarshal } from "../../go/json-encode.js";
import { parseGoYaml } from "../../jmespath/functions/kyverno/go-yaml.js";
import { CelFunctionError, namespace, type CelLibrary } from "../library.js";
import { fromCel } from "../values.js";

/** JSON as Go's `any` reaches CEL: numbers are doubles (float64). */
export function goAny(v: JsonValue): unknown {
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) return v.map(goAny);
  const out: Record<string, unknown> = {};
  for (const [k, item] of Object.entries(v)) if (item !== undefined) out[k] = goAny(item);
  return out;
}

function unmarshal(text: unknown): unknown {
  if (typeof text !== "string")
    throw new CelFunctionError(`json.unmarshal: the argument must be a string, got ${typeof text}`);
  try {
    return goAny(goJsonUnmarshal(text));
  } catch (e) {
    throw new CelFunctionError(e instanceof Error ? e.message : String(e));
  }
}

function marshal(v: unknown): string {
  try {
    return goJsonMarshal(fromCel(v));
  } catch (e) {
    throw new CelFunctionError(e instanceof Error ? e.message : String(e));
  }
}

function parseYaml(text: string): unknown {
  const r = parseGoYaml(text);
  if (!r.ok) throw new CelFunctionError(r.error);
  return goAny(r.value);
}

/** A ServiceAccount user name's parts (`system:serviceaccount:<ns>:<name>`); empty for another user. */
class ServiceAccount {
  constructor(
    readonly Name: string,
    readonly Namespace: string,
  ) {}
}

const SA_PREFIX = "system:serviceaccount:";

function parseServiceAccount(user: string): ServiceAccount {
  if (!user.startsWith(SA_PREFIX)) return new ServiceAccount("", "");
  const rest = user.slice(SA_PREFIX.length);
  const sep = rest.indexOf(":");
  return sep < 0 ? new ServiceAccount("", "") : new ServiceAccount(rest.slice(sep + 1), rest.slice(0, sep));
}

function entries(v: unknown): [string, unknown][] | undefined {
  if (v instanceof Map) return [...v].map(([k, x]) => [String(k), x]);
  if (v !== null && typeof v === "object" && !Array.isArray(v)) return Object.entries(v);
  return undefined;
}

function listObjToMap(keys: unknown[], values: unknown[], keyName: string, valueName: string): Record<string, unknown> {
  if (keys.length !== values.length)
    throw new CelFunctionError(
      `listObjToMap must take lists of equal length. list1: ${keys.length}, list2: ${values.length}`,
    );
  const out: Record<string, unknown> = {};
  keys.forEach((entry, i) => {
    const k = entries(entry)?.find(([n]) => n === keyName)?.[1];
    if (typeof k !== "string")
      throw new CelFunctionError("the passed key name cannot be handled as a string in the key object list");
    const valueEntries = entries(values[i]);
    if (valueEntries === undefined)
      throw new CelFunctionError("object cannot be handled as a map string to any in the value object list");
    out[k] = valueEntries.find(([n]) => n === valueName)?.[1] ?? null;
  });
  return out;
}

/** Go's math.Round: half away from zero. */
function roundTo(v: number, precision: bigint): number {
  const shift = Math.pow(10, Number(precision));
  const x = v * shift;
  const r = x < 0 ? -Math.round(-x) : Math.round(x);
  return r / shift;
}

export function valueLibraries(): CelLibrary[] {
  const json = namespace("json", "kyverno.JsonNamespace");
  const yaml = namespace("yaml", "kyverno.YamlNamespace");
  const user = namespace("user", "kyverno.UserNamespace");
  const transform = namespace("transform", "kyverno.TransformNamespace");
  return [
    {
      name: "kyverno.json",
      ...json,
      functions: [
        { signature: "kyverno.JsonNamespace.unmarshal(dyn): dyn", handler: (_: unknown, s: unknown) => unmarshal(s) },
        { signature: "kyverno.JsonNamespace.marshal(dyn): string", handler: (_: unknown, v: unknown) => marshal(v) },
      ],
    },
    {
      name: "kyverno.yaml",
      ...yaml,
      functions: [
        { signature: "kyverno.YamlNamespace.parse(string): dyn", handler: (_: unknown, s: string) => parseYaml(s) },
      ],
    },
    {
      name: "kyverno.user",
      types: [
        ...(user.types ?? []),
        { name: "user.ServiceAccount", ctor: ServiceAccount, fields: { Name: "string", Namespace: "string" } },
      ],
      constants: user.constants ?? [],
      functions: [
        { signature: "parseServiceAccount(string): user.ServiceAccount", handler: parseServiceAccount },
        {
          signature: "kyverno.UserNamespace.parseServiceAccount(string): user.ServiceAccount",
          handler: (_: unknown, s: string) => parseServiceAccount(s),
        },
      ],
    },
    {
      name: "kyverno.math",
      functions: [
        {
          signature: "bylaw.MathNamespace.round(double, int): double",
          handler: (_: unknown, v: number, p: bigint) => roundTo(v, p),
        },
      ],
    },
    {
      name: "kyverno.transform",
      ...transform,
      functions: [
        { signature: "listObjToMap(list, list, string, string): map<string, dyn>", handler: listObjToMap },
        {
          signature: "kyverno.TransformNamespace.listObjToMap(list, list, string, string): map<string, dyn>",
          handler: (_: unknown, a: unknown[], b: unknown[], k: string, v: string) => listObjToMap(a, b, k, v),
        },
      ],
    },
  ];
}
