/** Durations of serve's flags: Go's form (`500ms`, `15s`, `1h30m`) plus `d` for days; milliseconds, or undefined when malformed or not positive. */
const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDuration(text: string): number | undefined {
  const s = text.trim();
  if (!/^(\d+(\.\d+)?(ms|s|m|h|d))+$/.test(s)) return undefined;
  let total = 0;
  for (const [, n, , unit] of s.matchAll(/(\d+(\.\d+)?)(ms|s|m|h|d)/g))
    total += Number(n) * (UNIT_MS[unit ?? ""] ?? NaN);
  return Number.isFinite(total) && total > 0 ? Math.round(total) : undefined;
}
