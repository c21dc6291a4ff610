/**
 * The API client budgets, as Kyverno's `--clientRateLimitQPS`/`--clientRateLimitBurst` and
 * `--eventsRateLimitQPS`/`--eventsRateLimitBurst` (cmd/internal/flag.go): requests a second and burst
 * of the client that reads for admission and writes for the generate and mutate-existing controller
 * (Kyverno's controllers: 100 and 200), of the reports controller's (Kyverno's reports controller
 * sets its own --clientRateLimitQPS default: 300 and 300; Bylaw runs it in the same process, so it
 * has a flag of its own), and of Events (1000 and 2000). Zero means client-go's default (5 and 10),
 * as in Kyverno.
 */
import type { RateLimit } from "../../../kube/kube-client.js";
import type { startServe } from "../../../server/app/app.js";

export const RATE_LIMIT_FLAG_OPTIONS = {
  "client-rate-limit-qps": { type: "string", default: "100" },
  "client-rate-limit-burst": { type: "string", default: "200" },
  "reports-rate-limit-qps": { type: "string", default: "300" },
  "reports-rate-limit-burst": { type: "string", default: "300" },
  "events-rate-limit-qps": { type: "string", default: "1000" },
  "events-rate-limit-burst": { type: "string", default: "2000" },
} as const;

/** The budget of each client of `bylaw serve` (the server's `rateLimits` option). */
type RateLimits = Parameters<typeof startServe>[0]["rateLimits"];

/** client-go's budget when a flag is 0 (rest.DefaultQPS, rest.DefaultBurst). */
const CLIENT_GO_DEFAULT: RateLimit = { qps: 5, burst: 10 };

type Name = "client" | "reports" | "events";
type Values = Partial<Record<keyof typeof RATE_LIMIT_FLAG_OPTIONS, string>>;

function one(values: Values, name: Name): { ok: true; value: RateLimit } | { ok: false; error: string } {
  const qpsFlag = `${name}-rate-limit-qps` as const;
  const burstFlag = `${name}-rate-limit-burst` as const;
  const qpsText = values[qpsFlag] ?? RATE_LIMIT_FLAG_OPTIONS[qpsFlag].default;
  const burstText = values[burstFlag] ?? RATE_LIMIT_FLAG_OPTIONS[burstFlag].default;
  const qps = Number(qpsText);
  if (qpsText.trim() === "" || !Number.isFinite(qps) || qps < 0 || qps > 100_000)
    return {
      ok: false,
      error: `--${qpsFlag} must be a number of requests a second from 0 to 100000 (got ${JSON.stringify(qpsText)})`,
    };
  const burst = Number(burstText);
  if (burstText.trim() === "" || !Number.isInteger(burst) || burst < 0 || burst > 100_000)
    return {
      ok: false,
      error: `--${burstFlag} must be a whole number of requests from 0 to 100000 (got ${JSON.stringify(burstText)})`,
    };
  return {
    ok: true,
    value: { qps: qps === 0 ? CLIENT_GO_DEFAULT.qps : qps, burst: burst === 0 ? CLIENT_GO_DEFAULT.burst : burst },
  };
}

/** The three budgets from the flags, or what is wrong with one of them. */
export function rateLimitsFrom(values: Values): { ok: true; value: RateLimits } | { ok: false; error: string } {
  const client = one(values, "client");
  if (!client.ok) return client;
  const reports = one(values, "reports");
  if (!reports.ok) return reports;
  const events = one(values, "events");
  if (!events.ok) return events;
  return { ok: true, value: { client: client.value, reports: reports.value, events: events.value } };
}
