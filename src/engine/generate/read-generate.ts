/**
 * Reads a generate block (plain JSON from the policy) into a GenerateSpec, reporting fields of
 * the wrong type with their path. Presence follows Kyverno's Go types: `data: null` and
 * `clone: {}` count as not written.
 */
import { isObject, type JsonObject, type JsonValue } from "../api/json.js";
import type { LabelSelector, LabelSelectorRequirement } from "../api/policy.js";
import { setOwn } from "../api/set-own.js";
import type { CloneFrom, CloneListSpec, GenerateSpec } from "./types.js";

export interface FieldProblem {
  readonly path: string;
  readonly message: string;
}

interface ReadGenerate {
  readonly spec: GenerateSpec;
  readonly problems: readonly FieldProblem[];
}

export function readGenerate(g: JsonObject, path: string): ReadGenerate {
  const problems: FieldProblem[] = [];
  const str = (o: JsonObject, key: string, at: string): string => readString(o[key], `${at}.${key}`, problems);
  const data = g["data"];
  const clone = readClone(g["clone"], `${path}.clone`, problems);
  const cloneList = readCloneList(g["cloneList"], `${path}.cloneList`, problems);
  const spec: GenerateSpec = {
    apiVersion: str(g, "apiVersion", path),
    kind: str(g, "kind", path),
    name: str(g, "name", path),
    namespace: str(g, "namespace", path),
    ...(data !== undefined && data !== null ? { data } : {}),
    ...(clone !== undefined ? { clone } : {}),
    ...(cloneList !== undefined ? { cloneList } : {}),
    hasForeach: g["foreach"] !== undefined && g["foreach"] !== null,
    synchronize: readBool(g["synchronize"], `${path}.synchronize`, problems),
    orphanDownstreamOnPolicyDelete: readBool(
      g["orphanDownstreamOnPolicyDelete"],
      `${path}.orphanDownstreamOnPolicyDelete`,
      problems,
    ),
  };
  return { spec, problems };
}

function readString(v: JsonValue | undefined, path: string, problems: FieldProblem[]): string {
  if (v === undefined || v === null) return "";
  if (typeof v === "string") return v;
  problems.push({ path, message: `must be a string, got ${describe(v)}` });
  return "";
}

function readBool(v: JsonValue | undefined, path: string, problems: FieldProblem[]): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v === "boolean") return v;
  problems.push({ path, message: `must be true or false, got ${describe(v)}` });
  return false;
}

function readClone(v: JsonValue | undefined, path: string, problems: FieldProblem[]): CloneFrom | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) {
    problems.push({ path, message: `must be an object {namespace, name}, got ${describe(v)}` });
    return undefined;
  }
  const namespace = readString(v["namespace"], `${path}.namespace`, problems);
  const name = readString(v["name"], `${path}.name`, problems);
  return namespace === "" && name === "" ? undefined : { namespace, name };
}

function readCloneList(v: JsonValue | undefined, path: string, problems: FieldProblem[]): CloneListSpec | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) {
    problems.push({ path, message: `must be an object {namespace, kinds, selector}, got ${describe(v)}` });
    return undefined;
  }
  const namespace = readString(v["namespace"], `${path}.namespace`, problems);
  const kinds = readStrings(v["kinds"], `${path}.kinds`, problems);
  const selector = readSelector(v["selector"], `${path}.selector`, problems);
  if (namespace === "" && kinds.length === 0 && selector === undefined) return undefined;
  return { namespace, kinds, ...(selector !== undefined ? { selector } : {}) };
}

function readStrings(v: JsonValue | undefined, path: string, problems: FieldProblem[]): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) {
    problems.push({ path, message: `must be a list of strings, got ${describe(v)}` });
    return [];
  }
  const out: string[] = [];
  v.forEach((x, i) => {
    if (typeof x === "string") out.push(x);
    else problems.push({ path: `${path}[${i}]`, message: `must be a string, got ${describe(x)}` });
  });
  return out;
}

/** A Kubernetes LabelSelector written as JSON; malformed parts are reported and left out. */
function readSelector(v: JsonValue | undefined, path: string, problems: FieldProblem[]): LabelSelector | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) {
    problems.push({ path, message: `must be a label selector {matchLabels, matchExpressions}, got ${describe(v)}` });
    return undefined;
  }
  const matchLabels = readStringMap(v["matchLabels"], `${path}.matchLabels`, problems);
  const matchExpressions = readExpressions(v["matchExpressions"], `${path}.matchExpressions`, problems);
  return {
    ...(matchLabels !== undefined ? { matchLabels } : {}),
    ...(matchExpressions !== undefined ? { matchExpressions } : {}),
  };
}

function readStringMap(
  v: JsonValue | undefined,
  path: string,
  problems: FieldProblem[],
): Record<string, string> | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) {
    problems.push({ path, message: `must be a map of strings, got ${describe(v)}` });
    return undefined;
  }
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) {
    if (typeof x === "string") setOwn(out, k, x);
    else problems.push({ path: `${path}.${k}`, message: `must be a string, got ${describe(x)}` });
  }
  return out;
}

function readExpressions(
  v: JsonValue | undefined,
  path: string,
  problems: FieldProblem[],
): LabelSelectorRequirement[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) {
    problems.push({ path, message: `must be a list of {key, operator, values}, got ${describe(v)}` });
    return undefined;
  }
  const out: LabelSelectorRequirement[] = [];
  v.forEach((x, i) => {
    const at = `${path}[${i}]`;
    if (!isObject(x)) {
      problems.push({ path: at, message: `must be an object {key, operator, values}, got ${describe(x)}` });
      return;
    }
    const key = readString(x["key"], `${at}.key`, problems);
    const operator = readString(x["operator"], `${at}.operator`, problems) as LabelSelectorRequirement["operator"];
    const values =
      x["values"] === undefined || x["values"] === null
        ? undefined
        : readStrings(x["values"], `${at}.values`, problems);
    out.push({ key, operator, ...(values !== undefined ? { values } : {}) });
  });
  return out;
}

export function describe(v: JsonValue): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "an object";
  return `${typeof v} ${JSON.stringify(v)}`;
}
