/**
 * Whether a cleanup policy's `schedule` is a standard cron spec, as the cron library Kyverno uses
 * parses it (`cron.ParseStandard`): five fields (minute, hour, day of month, month, day of week),
 * each a comma list of `*`, `?`, `N` or `N-M` with an optional `/step`, months and weekdays also by
 * their three-letter names; or a descriptor (`@hourly`, `@daily`, …, `@every <duration>`); with an
 * optional `TZ=<zone>` or `CRON_TZ=<zone>` prefix. Only the verdict matters: Kyverno's message for
 * an invalid schedule does not include the parser's reason.
 */
import { parseDurationMillis } from "../../values/duration.js";

interface FieldBounds {
  readonly min: number;
  readonly max: number;
  readonly names?: readonly string[];
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const WEEKDAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];
const FIELDS: readonly FieldBounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTHS },
  { min: 0, max: 6, names: WEEKDAYS },
];
const DESCRIPTORS = new Set(["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"]);
const NUMBER = /^\d+$/;

export function isCronSchedule(spec: string): boolean {
  let rest = spec.trim();
  const zone = /^(CRON_TZ|TZ)=(\S*)\s*/.exec(rest);
  if (zone !== null) {
    if (zone[2] === "") return false;
    rest = rest.slice(zone[0].length);
  }
  if (rest === "") return false;
  if (rest.startsWith("@")) return isDescriptor(rest);
  const fields = rest.split(/\s+/);
  return fields.length === FIELDS.length && fields.every((f, i) => isField(f, FIELDS[i] as FieldBounds));
}

function isDescriptor(spec: string): boolean {
  if (DESCRIPTORS.has(spec)) return true;
  if (!spec.startsWith("@every ")) return false;
  const ms = parseDurationMillis(spec.slice("@every ".length).trim());
  return ms !== undefined && ms >= 0;
}

function isField(field: string, bounds: FieldBounds): boolean {
  return field.split(",").every((range) => isRange(range, bounds));
}

function isRange(range: string, bounds: FieldBounds): boolean {
  const parts = range.split("/");
  if (parts.length > 2) return false;
  const [span = "", step] = parts;
  if (step !== undefined && (!NUMBER.test(step) || Number(step) === 0)) return false;
  if (span === "*" || span === "?") return true;
  const ends = span.split("-");
  if (ends.length > 2) return false;
  const values = ends.map((e) => valueOf(e, bounds));
  if (values.some((v) => v === undefined)) return false;
  const [start = 0, end = start] = values as number[];
  return start >= bounds.min && end <= bounds.max && start <= end;
}

function valueOf(text: string, bounds: FieldBounds): number | undefined {
  const named = bounds.names?.indexOf(text.toLowerCase()) ?? -1;
  if (named >= 0) return named + bounds.min;
  return NUMBER.test(text) ? Number(text) : undefined;
}
