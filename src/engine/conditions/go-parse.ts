/**
 * The Go standard-library parsers the condition operators lean on, with Go's exact grammar:
 * `json.Valid` and `json.Unmarshal` into a `[]string`. `strconv.ParseFloat` is `goParseFloat` in ../go.
 */

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
