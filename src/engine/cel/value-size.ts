/**
 * The size bound on the values CEL builds (tenant isolation rule 11): every list, map, string and
 * bytes value an expression makes is charged by its size to the evaluation's meter (cost.ts), and
 * one policy evaluation may build at most MAX_BUILT_BYTES in all. A doubling expression or a
 * comprehension that builds a list per element stops at the bound with SIZE_LIMIT_MESSAGE, a rule
 * error, instead of taking the process's heap. Kubernetes has no such figure (cel-go bounds only
 * the cost); the number is its largest request (3 MiB) several times over.
 */

/** What the values one policy evaluation builds may weigh in all, in the estimate of `builtBytes`. */
export const MAX_BUILT_BYTES = 16 * 1024 * 1024;

/** The error when an evaluation's values pass MAX_BUILT_BYTES: cel-go's cost text, then the bound. */
export const SIZE_LIMIT_MESSAGE = `operation cancelled: actual cost limit exceeded: the values built exceed the size limit of ${MAX_BUILT_BYTES} bytes`;

/** A list element or a map entry, as the references V8 keeps for it. */
const BYTES_PER_ELEMENT = 8;
const BYTES_PER_ENTRY = 64;
/**
 * What any built object weighs before its contents (header, hash table, wrapper), and a string's
 * header: so that a comprehension building many small values is bounded by their number too.
 */
const OBJECT_OVERHEAD = 128;
const STRING_OVERHEAD = 32;

/**
 * The estimated bytes of a value as built: characters of a string, bytes of bytes, references of
 * a list or a map, plus a header. Shallow and O(1): the elements were charged when they were
 * built (a map literal's entries are bounded when it is parsed; a plain object counts its header).
 */
export function builtBytes(v: unknown): number {
  if (typeof v === "string") return STRING_OVERHEAD + v.length;
  if (typeof v !== "object" || v === null) return 0;
  if (Array.isArray(v)) return OBJECT_OVERHEAD + v.length * BYTES_PER_ELEMENT;
  if (v instanceof Uint8Array) return OBJECT_OVERHEAD + v.byteLength;
  if (v instanceof Map) return OBJECT_OVERHEAD + v.size * BYTES_PER_ENTRY;
  return OBJECT_OVERHEAD;
}

/**
 * V8's backing store for the integer keys of a plain object can hold a gap of about 1024 slots
 * before it turns sparse: `{999: x}` takes some 8 KiB. What a map literal with such a key is charged.
 */
const INDEX_KEYS_BYTES = 8 * 1024;

/** A map literal's value (a plain object, its entries bounded by the parser): its keys are read. */
export function literalMapBytes(v: unknown): number {
  if (typeof v !== "object" || v === null || v instanceof Map) return builtBytes(v);
  const keys = Object.keys(v);
  const indexed = keys.some((k) => /^\d+$/.test(k));
  return OBJECT_OVERHEAD + keys.length * BYTES_PER_ENTRY + (indexed ? INDEX_KEYS_BYTES : 0);
}

/**
 * For a library function about to build a value of `bytes` (when that can be known before it
 * allocates): throws SIZE_LIMIT_MESSAGE past the bound, so the allocation never happens.
 */
export function checkBuildable(bytes: number): void {
  if (bytes > MAX_BUILT_BYTES) throw new ValueTooLarge();
}

/** A library function's refusal to build a value past MAX_BUILT_BYTES. */
export class ValueTooLarge extends Error {
  constructor() {
    super(SIZE_LIMIT_MESSAGE);
  }
}
