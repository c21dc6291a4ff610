/**
 * Safe own-property writes for objects built from data. A plain `obj[key] = v` with the key
 * `__proto__` would replace the prototype instead of adding a key, as JSON allows.
 */
export function setOwn<T>(obj: Record<string, T>, key: string, value: T): void {
  if (key === "__proto__") {
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Replaces lone surrogates (what invalid UTF-8 decodes to in Go) with U+FFFD. */
export function wellFormed(s: string): string {
  return s.replace(LONE_SURROGATE, "\ufffd");
}
