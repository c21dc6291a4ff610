/**
 * YAML → JSON value as Kyverno reads it (sigs.k8s.io/yaml `YAMLToJSON`, on go-yaml v2): YAML 1.1
 * scalars (`yes`/`no`/`on`/`off`/`y`/`n` are booleans, `0x1F` and `017` are integers), non-string
 * keys turned into strings, merge keys, first document only. Syntax is read by the `yaml` package.
 */
import { isAlias, isMap, isPair, isScalar, isSeq, parseAllDocuments, type Document, type Node } from "yaml";
import type { JsonObject, JsonValue } from "../../../api/json.js";
import { float32MapKey } from "../../../go/format-float32.js";
import { setOwn } from "../../../api/set-own.js";
import { textOf } from "../../../api/json.js";

class YamlError extends Error {}

/** A decoded YAML value before JSON conversion: keys may be any scalar. */
type Scalar = null | boolean | number | bigint | string;

const NULLS = new Set(["", "~", "null", "Null", "NULL"]);
const TRUES = new Set(["y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE"]);
const FALSES = new Set(["n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE"]);
const INFS = new Map([
  [".inf", Infinity],
  [".Inf", Infinity],
  [".INF", Infinity],
  ["+.inf", Infinity],
  ["+.Inf", Infinity],
  ["+.INF", Infinity],
  ["-.inf", -Infinity],
  ["-.Inf", -Infinity],
  ["-.INF", -Infinity],
  [".nan", NaN],
  [".NaN", NaN],
  [".NAN", NaN],
]);
const YAML_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const INT64_MAX = (1n << 63n) - 1n;
const UINT64_MAX = (1n << 64n) - 1n;

/** Go `strconv.ParseInt(s, 0, 64)` / `ParseUint` digits with base prefixes; undefined if invalid. */
function parseGoInteger(s: string, signed: boolean): bigint | undefined {
  let t = s;
  let neg = false;
  if (signed && (t.startsWith("+") || t.startsWith("-"))) {
    neg = t.startsWith("-");
    t = t.slice(1);
  }
  let digits: RegExp = /^[0-9]+$/;
  let prefix = "";
  if (/^0[xX]/.test(t)) [digits, prefix, t] = [/^[0-9a-fA-F]+$/, "0x", t.slice(2)];
  else if (/^0[oO]/.test(t)) [digits, prefix, t] = [/^[0-7]+$/, "0o", t.slice(2)];
  else if (/^0[bB]/.test(t)) [digits, prefix, t] = [/^[01]+$/, "0b", t.slice(2)];
  else if (t.length > 1 && t.startsWith("0")) [digits, prefix, t] = [/^[0-7]+$/, "0o", t.slice(1)];
  if (!digits.test(t)) return undefined;
  const v = BigInt(prefix + t);
  const signedV = neg ? -v : v;
  if (signed) return signedV > INT64_MAX || signedV < -INT64_MAX - 1n ? undefined : signedV;
  return v > UINT64_MAX ? undefined : v;
}

/** go-yaml v2 `resolve` for an untagged plain scalar. */
function resolvePlain(s: string): Scalar {
  if (NULLS.has(s)) return null;
  if (TRUES.has(s)) return true;
  if (FALSES.has(s)) return false;
  const special = INFS.get(s);
  if (special !== undefined) return special;
  const first = s[0] ?? "";
  if (first === ".") {
    if (/^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(s)) return Number(s);
    return s;
  }
  if (!/[-+0-9]/.test(first)) return s;
  const plain = s.replaceAll("_", "");
  const i = parseGoInteger(plain, true) ?? parseGoInteger(plain, false);
  if (i !== undefined) return i;
  if (YAML_FLOAT.test(plain)) {
    const f = Number(plain);
    if (Number.isFinite(f)) return f;
  }
  const bin = /^(-?)0b([01]+)$/.exec(plain);
  if (bin) {
    const v = BigInt(`0b${bin[2] ?? ""}`) * (bin[1] === "-" ? -1n : 1n);
    if (v <= INT64_MAX && v >= -INT64_MAX - 1n) return v;
  }
  return s;
}

const STR_TAGS = new Set(["tag:yaml.org,2002:str", "tag:yaml.org,2002:binary"]);
const RESOLVABLE = new Set([
  "tag:yaml.org,2002:bool",
  "tag:yaml.org,2002:int",
  "tag:yaml.org,2002:float",
  "tag:yaml.org,2002:null",
  "tag:yaml.org,2002:timestamp",
]);

class Converter {
  private nodes = 0;
  constructor(
    private readonly doc: Document,
    private readonly charge: (units: number) => void,
  ) {}

  /** Every node visited costs one unit, so alias bombs stop at the evaluation budget. */
  private spend(): void {
    this.charge(1);
    if (++this.nodes > 10_000_000) throw new YamlError("yaml: document contains excessive aliasing");
  }

  scalar(node: Node): Scalar {
    if (!isScalar(node)) throw new YamlError("yaml: invalid map key");
    const text = textOf(node.value ?? "");
    const tag = node.tag;
    if (tag !== undefined && STR_TAGS.has(tag)) return text;
    if (tag !== undefined && !RESOLVABLE.has(tag)) return text;
    if (tag === undefined && node.type !== "PLAIN") return text;
    return resolvePlain(text);
  }

  value(node: unknown): JsonValue {
    this.spend();
    if (node === null || node === undefined) return null;
    if (isAlias(node)) return this.value(node.resolve(this.doc));
    if (isSeq(node)) return node.items.map((item) => this.value(item));
    if (isMap(node)) {
      const out: JsonObject = {};
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const key = pair.key as Node | null;
        if (
          key &&
          isScalar(key) &&
          key.value === "<<" &&
          (key.type === "PLAIN" || key.tag === "tag:yaml.org,2002:merge")
        ) {
          this.merge(pair.value, out);
          continue;
        }
        setOwn(out, this.key(key), this.value(pair.value));
      }
      return out;
    }
    return toJson(this.scalar(node as Node));
  }

  private key(node: Node | null): string {
    if (node === null) return jsonKey(null);
    if (isAlias(node)) return this.key(node.resolve(this.doc) ?? null);
    if (isMap(node) || isSeq(node)) throw new YamlError("yaml: invalid map key: a map or sequence cannot be a key");
    return jsonKey(this.scalar(node));
  }

  /** go-yaml v2 merge: a map, an alias to one, or a sequence of them (earlier ones win). */
  private merge(node: unknown, out: JsonObject): void {
    const target = isAlias(node) ? node.resolve(this.doc) : node;
    const maps = isSeq(target) ? [...target.items].reverse() : [target];
    for (const m of maps) {
      const v = this.value(m);
      if (v === null || typeof v !== "object" || Array.isArray(v)) {
        throw new YamlError("yaml: map merge requires map or sequence of maps as the value");
      }
      for (const [k, val] of Object.entries(v)) setOwn(out, k, val);
    }
  }
}

/** sigs.k8s.io/yaml: how a non-string key becomes a JSON key. */
function jsonKey(k: Scalar): string {
  if (typeof k === "string") return k;
  if (typeof k === "boolean") return k ? "true" : "false";
  if (typeof k === "bigint") {
    if (k > INT64_MAX) throw new YamlError(`unsupported map key of type: uint64, key: 0x${k.toString(16)}`);
    return k.toString();
  }
  if (typeof k === "number") return float32MapKey(k);
  throw new YamlError("unsupported map key of type: %!s(<nil>), key: <nil>");
}

function toJson(v: Scalar): JsonValue {
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "number" && !Number.isFinite(v)) {
    throw new YamlError(`json: unsupported value: ${Number.isNaN(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf"}`);
  }
  return v;
}

/** Parses the first YAML document into a JSON value, or returns an error message. */
export function parseGoYaml(
  text: string,
  charge: (units: number) => void = () => undefined,
): { ok: true; value: JsonValue } | { ok: false; error: string } {
  const r = parseGoYamlDocuments(text, charge, 1);
  return r.ok ? { ok: true, value: r.value[0] ?? null } : r;
}

/**
 * Parses every YAML document of a stream (`---` separated) into JSON values, or returns the first
 * error message. At most `limit` documents are read. Empty documents give `null`.
 */
export function parseGoYamlDocuments(
  text: string,
  charge: (units: number) => void = () => undefined,
  limit = Infinity,
): { ok: true; value: JsonValue[] } | { ok: false; error: string } {
  try {
    const out: JsonValue[] = [];
    for (const doc of parseAllDocuments(text, {
      schema: "failsafe",
      version: "1.1",
      uniqueKeys: false,
      merge: false,
    })) {
      if (out.length >= limit) break;
      if (!("contents" in doc)) continue;
      const [first] = doc.errors;
      if (first !== undefined) {
        const line = first.linePos?.[0]?.line ?? 1;
        const message = (first.message.split("\n")[0] ?? "").replace(/ at line \d+, column \d+:?$/, "");
        return { ok: false, error: `yaml: line ${line}: ${message}` };
      }
      out.push(new Converter(doc, charge).value(doc.contents));
    }
    return { ok: true, value: out };
  } catch (e) {
    if (e instanceof YamlError) return { ok: false, error: e.message };
    return { ok: false, error: `yaml: ${e instanceof Error ? e.message : String(e)}` };
  }
}
