/**
 * A values key (`request.object.metadata.annotations."a.b/c"`) split into its path segments the way
 * Kyverno's `AddVariable` reads it: as one CSV record with `.` as the separator. A segment that starts
 * with `"` is quoted: it runs to the next lone `"` (a doubled `""` stands for one quote) and may hold
 * dots; a quote inside an unquoted segment, or text after a closing quote, is an error.
 */
import type { JsonObject, JsonValue } from "../api/json.js";

export type SplitKey =
  { readonly ok: true; readonly segments: readonly string[] } | { readonly ok: false; readonly error: string };

export function splitVariableKey(key: string): SplitKey {
  if (key === "") return { ok: false, error: "the key is empty" };
  const segments: string[] = [];
  let i = 0;
  for (;;) {
    if (key[i] === '"') {
      let seg = "";
      i++;
      for (;;) {
        if (i >= key.length) return { ok: false, error: `unterminated quoted segment in ${JSON.stringify(key)}` };
        if (key[i] === '"') {
          if (key[i + 1] === '"') {
            seg += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        seg += key[i];
        i++;
      }
      segments.push(seg);
      if (i < key.length && key[i] !== ".")
        return {
          ok: false,
          error: `unexpected ${JSON.stringify(key[i])} after a closing quote in ${JSON.stringify(key)}`,
        };
    } else {
      const end = key.indexOf(".", i);
      const seg = end < 0 ? key.slice(i) : key.slice(i, end);
      if (seg.includes('"'))
        return {
          ok: false,
          error: `a quote inside an unquoted segment in ${JSON.stringify(key)} (quote the whole segment: "a.b/c")`,
        };
      segments.push(seg);
      i = end < 0 ? key.length : end;
    }
    if (i >= key.length) return { ok: true, segments };
    i++; // the "." separator
    if (i >= key.length) {
      segments.push("");
      return { ok: true, segments };
    }
  }
}

/** `root` with `value` set at the path a values key names; a key Kyverno cannot split is taken as plain dotted text. */
export function setVariable(root: JsonObject, key: string, value: JsonValue): JsonObject {
  const split = splitVariableKey(key);
  return setPath(root, split.ok ? split.segments : key.split("."), value);
}

/** A copy of `root` with `value` at the path `keys`, creating maps on the way (the maps on the path are copied, the rest shared). */
export function setPath(root: JsonObject, keys: readonly string[], value: JsonValue): JsonObject {
  // Object.assign rather than a spread: V8 makes spread copies slow to add keys to.
  const out: JsonObject = Object.assign({}, root);
  let cur = out;
  keys.forEach((k, i) => {
    if (i === keys.length - 1) {
      cur[k] = value;
      return;
    }
    const next = cur[k];
    const copy: JsonObject =
      typeof next === "object" && next !== null && !Array.isArray(next) ? Object.assign({}, next) : {};
    cur[k] = copy;
    cur = copy;
  });
  return out;
}
