/**
 * Scalar resolution as Kubernetes does it: sigs.k8s.io/yaml decodes with go-yaml v2, whose rules
 * are YAML 1.1-flavoured. Only plain (unquoted) scalars are resolved; quoted and block scalars are
 * strings. Timestamps stay strings: go-yaml v2 hands a timestamp-looking scalar to an
 * `interface{}` target as its original text, and JSON has no time type anyway.
 */

/** A decoded scalar with the Go kind go-yaml v2 gives it (the kind matters for map keys). */
export type GoScalar =
  | { readonly kind: "str"; readonly value: string }
  | { readonly kind: "null"; readonly value: null }
  | { readonly kind: "bool"; readonly value: boolean }
  | { readonly kind: "int"; readonly value: number; readonly text: string }
  | { readonly kind: "uint"; readonly value: number }
  | { readonly kind: "float"; readonly value: number };

const TAG_PREFIX = "tag:yaml.org,2002:";

const WORDS: ReadonlyMap<string, GoScalar> = new Map<string, GoScalar>([
  ...["y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"].map(
    (w) => [w, { kind: "bool", value: true }] as const,
  ),
  ...["n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"].map(
    (w) => [w, { kind: "bool", value: false }] as const,
  ),
  ...["", "~", "null", "Null", "NULL"].map((w) => [w, { kind: "null", value: null }] as const),
  ...[".nan", ".NaN", ".NAN"].map((w) => [w, { kind: "float", value: Number.NaN }] as const),
  ...[".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"].map(
    (w) => [w, { kind: "float", value: Number.POSITIVE_INFINITY }] as const,
  ),
  ...["-.inf", "-.Inf", "-.INF"].map((w) => [w, { kind: "float", value: Number.NEGATIVE_INFINITY }] as const),
]);

/** First characters for which go-yaml v2 tries anything other than "string". */
const HINT_WORD = "yYnNtTfFoO~";
const INT_RE = /^[-+]?(?:0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/;
const FLOAT_RE = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const SIGNED_BINARY_RE = /^0b[-+][01]+$/;
const DOT_FLOAT_RE = /^\.[0-9]+(?:[eE][-+]?[0-9]+)?$/;
const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;
const UINT64_MAX = 18446744073709551615n;

/** Resolve a plain scalar the way go-yaml v2 does for an untagged node. */
export function resolvePlain(text: string): GoScalar {
  if (text.length === 0) return { kind: "null", value: null };
  const c = text.charCodeAt(0);
  const isDigit = c >= 48 && c <= 57;
  const isSign = c === 43 || c === 45;
  if (!isDigit && !isSign && c !== 46 && HINT_WORD.indexOf(text[0] as string) < 0) {
    return { kind: "str", value: text };
  }
  const word = WORDS.get(text);
  if (word !== undefined) return word;
  if (c === 46) {
    if (DOT_FLOAT_RE.test(text)) return finiteFloat(text) ?? { kind: "str", value: text };
    return { kind: "str", value: text };
  }
  if (isDigit || isSign) return resolveNumber(text) ?? { kind: "str", value: text };
  return { kind: "str", value: text };
}

/** Resolve an int/float candidate; `undefined` means "a string". */
function resolveNumber(text: string): GoScalar | undefined {
  const plain = text.indexOf("_") >= 0 ? text.replaceAll("_", "") : text;
  if (INT_RE.test(plain)) {
    const big = parseGoInt(plain);
    if (big >= INT64_MIN && big <= INT64_MAX) return { kind: "int", value: Number(big), text: big.toString() };
    if (big > 0n && big <= UINT64_MAX && plain[0] !== "+") return { kind: "uint", value: Number(big) };
  }
  if (FLOAT_RE.test(plain)) return finiteFloat(plain);
  // go-yaml v2's last try: after "0b" it parses the rest as a base-2 int, which may carry a sign (0b-101 is -5)
  if (SIGNED_BINARY_RE.test(plain)) {
    const magnitude = BigInt(`0b${plain.slice(3)}`);
    const big = plain[2] === "-" ? -magnitude : magnitude;
    if (big >= INT64_MIN && big <= INT64_MAX) return { kind: "int", value: Number(big), text: big.toString() };
  }
  return undefined;
}

/** Go's ParseFloat fails (and go-yaml falls back to a string) when the value overflows. */
function finiteFloat(text: string): GoScalar | undefined {
  const value = Number(text);
  return Number.isFinite(value) ? { kind: "float", value } : undefined;
}

/** Go's strconv.ParseInt with base 0: 0x hex, 0o / leading-0 octal, 0b binary, else decimal. */
function parseGoInt(plain: string): bigint {
  const negative = plain[0] === "-";
  const body = plain[0] === "-" || plain[0] === "+" ? plain.slice(1) : plain;
  let magnitude: bigint;
  if (body.length > 1 && body[0] === "0" && /[0-7]/.test(body[1] as string)) magnitude = BigInt(`0o${body.slice(1)}`);
  else if (body.length > 2 && body[0] === "0") magnitude = BigInt(`0${body[1]?.toLowerCase() ?? ""}${body.slice(2)}`);
  else magnitude = BigInt(body);
  return negative ? -magnitude : magnitude;
}

/** The result of resolving a scalar with its tag, or an error message. */
type TaggedResult = { readonly ok: true; readonly scalar: GoScalar } | { readonly ok: false; readonly message: string };

/**
 * Resolve a scalar that carries an explicit tag (already expanded to its long form).
 * `!!str` gives a string; `!!null`, `!!bool`, `!!int`, `!!float`, `!!timestamp` must resolve to that kind
 * (quoted or not); `!!binary` is base64-decoded; any other tag leaves the text as a string, as
 * go-yaml v2 does for tags it does not resolve.
 */
export function resolveTagged(text: string, tag: string): TaggedResult {
  const short = tag.startsWith(TAG_PREFIX) ? tag.slice(TAG_PREFIX.length) : undefined;
  switch (short) {
    case "null":
    case "bool":
    case "int":
    case "float": {
      const scalar = resolvePlain(text);
      if (scalar.kind === short) return { ok: true, scalar };
      if (short === "float" && (scalar.kind === "int" || scalar.kind === "uint")) {
        return { ok: true, scalar: { kind: "float", value: scalar.value } };
      }
      return { ok: false, message: `cannot decode !!${scalarTagName(scalar)} \`${text}\` as a !!${short}` };
    }
    case "timestamp":
      if (looksLikeTimestamp(text)) return { ok: true, scalar: { kind: "str", value: text } };
      return {
        ok: false,
        message: `cannot decode !!${scalarTagName(resolvePlain(text))} \`${text}\` as a !!timestamp`,
      };
    case "binary":
      return decodeBinary(text);
    default:
      return { ok: true, scalar: { kind: "str", value: text } };
  }
}

function scalarTagName(scalar: GoScalar): string {
  return scalar.kind === "uint" ? "int" : scalar.kind;
}

/** The timestamp layouts go-yaml v2 accepts (date, date + time with zone, date + time). */
const TIMESTAMP_RE =
  /^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:[Tt]\d{1,2}:\d{1,2}:\d{1,2}(?:\.\d+)?(?:Z|[-+]\d{2}:\d{2}))|(?: \d{1,2}:\d{1,2}:\d{1,2}(?:\.\d+)?))?$/;

function looksLikeTimestamp(text: string): boolean {
  const m = TIMESTAMP_RE.exec(text);
  if (m === null) return false;
  const month = Number(m[2]);
  const day = Number(m[3]);
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

function decodeBinary(text: string): TaggedResult {
  const compact = text.replace(/\s+/g, "");
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(compact)) {
    return { ok: false, message: "!!binary value contains invalid base64 data" };
  }
  const bytes = Uint8Array.from(atob(compact), (ch) => ch.charCodeAt(0));
  return { ok: true, scalar: { kind: "str", value: new TextDecoder().decode(bytes) } };
}

/** Expand a tag as written (`!!int`, `!<tag:…>`, `!local`) to the form compared above. */
export function expandTag(written: string): string {
  if (written.startsWith("!!")) return TAG_PREFIX + written.slice(2);
  if (written.startsWith("!<") && written.endsWith(">")) return written.slice(2, -1);
  return written;
}

export const MERGE_TAG = `${TAG_PREFIX}merge`;
