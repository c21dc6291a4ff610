/**
 * The `cleanup.kyverno.io/ttl` label (Kyverno's TTL controller, `pkg/controllers/ttl`): when the
 * labelled object is due for deletion. The value is read as Kyverno reads it: a duration after the
 * object's creation (a Go duration such as `5s` or `1h30m`, or go-openapi's longer forms such as
 * `2d`, `1w`, `3 days`), else an absolute UTC time in Kyverno's layouts `2006-01-02T150405Z` or
 * `2006-01-02`. Anything else is an error naming the value: such an object is never deleted.
 */
import { err, ok, type Result } from "../api/result.js";
import { parseDurationMillis } from "../values/duration.js";

export const TTL_LABEL = "cleanup.kyverno.io/ttl";
/** The annotation naming the propagation policy of a TTL deletion. */
export const TTL_PROPAGATION_ANNOTATION = "cleanup.kyverno.io/propagation-policy";

const MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};
/** Each unit's short and long spelling; a long one may be written without its last letter ("day", "hour"). */
const UNITS: readonly (readonly [string, string])[] = [
  ["ns", "nanoseconds"],
  ["us", "microseconds"],
  ["ms", "milliseconds"],
  ["s", "seconds"],
  ["m", "minutes"],
  ["h", "hours"],
  ["d", "days"],
  ["w", "weeks"],
];

/** The time (ms since the epoch) the object is due, from the label's value and its creationTimestamp. */
export function ttlDeadline(value: string, creationTimestamp: string | undefined): Result<number> {
  const after = ttlDurationMillis(value);
  if (after !== undefined) {
    const created = creationTimestamp === undefined ? NaN : Date.parse(creationTimestamp);
    if (Number.isNaN(created)) return err("ttl", `the object has no creationTimestamp to count ${value} from`);
    return ok(created + after);
  }
  const at = ttlTime(value);
  if (at !== undefined) return ok(at);
  return err(
    "ttl",
    `the ${TTL_LABEL} label ${JSON.stringify(value)} is neither a duration (e.g. 5s, 1h, 2d) nor a time in the layout 2006-01-02T150405Z or 2006-01-02`,
  );
}

function ttlDurationMillis(value: string): number | undefined {
  const go = parseDurationMillis(value);
  if (go !== undefined) return go;
  let total = 0;
  let found = false;
  for (const m of value.matchAll(/(\d+)\s*([A-Za-zµ]+)/g)) {
    const unit = (m[2] ?? "").trim().toLowerCase();
    for (const [short, long] of UNITS)
      if (unit === short || unit === long || unit.startsWith(long.slice(0, -1))) {
        found = true;
        total += Number(m[1]) * (MS[short] ?? 0);
      }
  }
  return found ? total : undefined;
}

function ttlTime(value: string): number | undefined {
  const m =
    /^(\d{4})-(\d{2})-(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value) ?? /^(\d{4})-(\d{2})-(\d{2})()()()$/.exec(value);
  if (m === null) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map((x): number => (x === "" ? 0 : Number(x)));
  const at = Date.UTC(y ?? 0, (mo ?? 1) - 1, d ?? 1, h ?? 0, mi ?? 0, s ?? 0);
  const back = new Date(at);
  // Go's time.Parse refuses out-of-range fields (month 13, February 30, hour 24).
  if (back.getUTCMonth() !== (mo ?? 1) - 1 || back.getUTCDate() !== d || back.getUTCHours() !== h) return undefined;
  if ((mi ?? 0) > 59 || (s ?? 0) > 59) return undefined;
  return at;
}
