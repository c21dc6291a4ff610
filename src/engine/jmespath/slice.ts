/**
 * Python-style `[start:stop:step]` slicing of arrays, as go-jmespath computes it. A step of 0 is
 * an error at evaluation time (only when the value is an array).
 */
import { JmesPathError } from "./types.js";

function capSlice(length: number, actual: number, step: number): number {
  if (actual < 0) {
    const v = actual + length;
    return v < 0 ? (step < 0 ? -1 : 0) : v;
  }
  if (actual >= length) return step < 0 ? length - 1 : length;
  return actual;
}

export function sliceArray<T>(
  items: readonly T[],
  start: number | null,
  stop: number | null,
  step: number | null,
): T[] {
  const by = step ?? 1;
  if (by === 0) throw new JmesPathError("function", "Invalid slice, step cannot be 0");
  const n = items.length;
  const from = start === null ? (by < 0 ? n - 1 : 0) : capSlice(n, start, by);
  const to = stop === null ? (by < 0 ? -1 : n) : capSlice(n, stop, by);
  const out: T[] = [];
  if (by > 0) {
    for (let i = from; i < to; i += by) out.push(items[i] as T);
  } else {
    for (let i = from; i > to; i += by) out.push(items[i] as T);
  }
  return out;
}
