/**
 * What one JSON body may cost once parsed, checked on its text before `JSON.parse` runs. Parsed
 * JSON costs far more than its text where the text is dense: 7 MiB of `[{},{},…]` is 2.4 million
 * objects, about 160 MB of heap and 600 ms of parsing, and 7 MiB of `[[[…]]]` is 3.6 million levels
 * (210 MB); a 60,000-container Pod is one 60,000-item array. One linear pass over the text counts
 * nesting depth, the entries of each array and object, and the values in all, and stops at the
 * first limit passed; strings are skipped whole. It does not validate: text that is not JSON passes
 * here and `JSON.parse` then says where it is broken.
 */

export interface JsonLimits {
  /** Arrays and objects open at once (default 1,000). */
  readonly maxDepth: number;
  /** Items of one array or members of one object (default 150,000). */
  readonly maxEntries: number;
  /** Values in the whole body: every object, array, string, number, true, false and null (default 1,000,000). */
  readonly maxValues: number;
}

/**
 * The defaults cover what the API server sends. Its request limit is 3 MiB per object and a review
 * carries at most `object` and `oldObject`. Typical Kubernetes JSON spends 15-30 bytes per value, so
 * a review of two 3 MiB objects holds 200,000-400,000 values. A list of objects of two short fields
 * each (`{"name":"c1","image":"i"}`) fits about 120,000 times in 3 MiB: a 100,000-container, 3 MB
 * Pod passes, a 180,000-container one (which the API server would refuse) does not. Go's decoder,
 * the API server's, stops at 10,000 levels; deeper than 1,000 levels V8's `JSON.stringify` and
 * `structuredClone` already run out of stack, so Bylaw could not answer such a review anyway.
 */
export const DEFAULT_JSON_LIMITS: JsonLimits = { maxDepth: 1_000, maxEntries: 150_000, maxValues: 1_000_000 };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;

/** The first limit `text` passes, as a sentence a client can act on; undefined when it is within all. */
export function jsonOverLimits(text: string, limits: JsonLimits = DEFAULT_JSON_LIMITS): string | undefined {
  return scanJson(text, limits).over;
}

/** Heap bytes V8 spends per parsed array or object (measured: 2.4M empty objects took 164 MB), and per other value. */
const CONTAINER_BYTES = 80;
const VALUE_BYTES = 16;

/**
 * The scan: the first limit passed (if any), and, for a body within them, an estimate of the heap
 * its parsed value takes beside its text, for the in-flight budget.
 */
export function scanJson(
  text: string,
  limits: JsonLimits = DEFAULT_JSON_LIMITS,
): { readonly over: string | undefined; readonly parsedBytes: number } {
  let containers = 0;
  const over = (message: string): { over: string; parsedBytes: number } => ({ over: message, parsedBytes: 0 });
  // At depth d (0: the top level): the entries counted so far in the array or object open there, and whether it is an object.
  // Grown as the text nests (most bodies nest a few dozen levels), not allocated at maxDepth.
  const entries: number[] = [0];
  const inObject: boolean[] = [false];
  let depth = 0;
  // A token has started since the last comma, colon or opening bracket (the rest of a number or literal is skipped).
  let started = false;
  // The token that starts next follows a colon: a member's value, not its key.
  let afterColon = false;
  let values = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === SPACE || c === LF || c === CR || c === TAB) continue;
    if (c === COMMA || c === COLON) {
      started = false;
      afterColon = c === COLON;
      continue;
    }
    if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      if (depth > 0) depth--;
      started = true;
      continue;
    }
    if (!started) {
      started = true;
      // An object's key is an entry and not a value; its value is a value and not another entry.
      const key = inObject[depth] === true && !afterColon;
      if (!key && ++values > limits.maxValues)
        return over(`the request body holds more than ${limits.maxValues} JSON values (--max-json-values)`);
      if (!(inObject[depth] === true && afterColon) && ++entries[depth]! > limits.maxEntries)
        return over(
          `an array or object in the request body has more than ${limits.maxEntries} entries (--max-json-entries)`,
        );
      afterColon = false;
    }
    if (c === QUOTE) {
      i = stringEnd(text, i);
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      containers++;
      if (++depth > limits.maxDepth)
        return over(
          `the request body nests arrays and objects more than ${limits.maxDepth} levels deep (--max-json-depth)`,
        );
      entries[depth] = 0;
      inObject[depth] = c === OPEN_OBJECT;
      started = false;
    }
  }
  return { over: undefined, parsedBytes: containers * CONTAINER_BYTES + values * VALUE_BYTES };
}

/** The index of the quote that closes the string opened at `open` (or the text's end). */
function stringEnd(text: string, open: number): number {
  let i = open;
  for (;;) {
    const close = text.indexOf('"', i + 1);
    if (close === -1) return text.length;
    let slashes = 0;
    for (let j = close - 1; j > open && text.charCodeAt(j) === BACKSLASH; j--) slashes++;
    if (slashes % 2 === 0) return close;
    i = close;
  }
}
