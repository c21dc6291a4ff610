/**
 * The few Go standard-library parsers the condition operators lean on, with Go's exact grammar:
 * `strconv.ParseFloat(s, 64)`, `json.Valid` and `json.Unmarshal` into a `[]string`.
 */

const DECIMAL_FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const HEX_FLOAT = /^([+-]?)0[xX]((?:[0-9a-fA-F]|_(?=[0-9a-fA-F]))*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?\d+)$/;

/**
 * `strconv.ParseFloat(s, 64)`: decimal or hexadecimal (`0x1p-2`) notation, `inf`/`infinity`/`nan`
 * in any case. `undefined` when Go reports an error, including values too large for a float64.
 */
export function parseGoFloat(s: string): number | undefined {
  const special = parseSpecial(s);
  if (special !== undefined) return special;
  if (DECIMAL_FLOAT.test(s)) return finite(Number(s));
  const hex = HEX_FLOAT.exec(s);
  if (hex !== null) return parseHexFloat(hex);
  return undefined;
}

function parseSpecial(s: string): number | undefined {
  const lower = s.toLowerCase();
  if (lower === "nan") return NaN;
  const body = lower.startsWith("+") || lower.startsWith("-") ? lower.slice(1) : lower;
  if (body === "inf" || body === "infinity") return lower.startsWith("-") ? -Infinity : Infinity;
  return undefined;
}

function parseHexFloat(m: RegExpExecArray): number | undefined {
  const [, sign = "", whole = "", frac = "", expText = "0"] = m;
  const digits = `${whole.replace(/_/g, "")}${frac}`;
  if (digits === "") return undefined;
  const mantissa = BigInt(`0x${digits}`);
  const exp = Number(expText) - 4 * frac.length;
  const value = Number(mantissa) * 2 ** exp;
  const out = finite(value);
  return out === undefined ? undefined : sign === "-" ? -out : out;
}

function finite(n: number): number | undefined {
  return Number.isFinite(n) ? n : undefined;
}

/** `json.Valid`: whether the text is one well-formed JSON value. */
export function isValidJson(s: string): boolean {
  return parseJson(s) !== NOT_JSON;
}

const NOT_JSON = Symbol("not-json");

function parseJson(s: string): unknown {
  try {
    return JSON.parse(s) as unknown;
  } catch {
    return NOT_JSON;
  }
}

/**
 * `json.Unmarshal(text, &[]string{})`: a JSON array of strings. `null` (top level) gives an empty
 * list and `null` elements give "" (Go leaves the zero value); anything else is an error
 * (`undefined`).
 */
export function unmarshalStringArray(s: string): string[] | undefined {
  const parsed = parseJson(s);
  if (parsed === null) return [];
  if (!Array.isArray(parsed)) return undefined;
  const out: string[] = [];
  for (const item of parsed as unknown[]) {
    if (typeof item === "string") out.push(item);
    else if (item === null) out.push("");
    else return undefined;
  }
  return out;
}
