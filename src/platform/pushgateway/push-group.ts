/**
 * Replacing one group of a Prometheus Pushgateway (its README's API): PUT the exposition text to
 * /metrics/job/<job>{/<label>/<value>}; everything the group held before is replaced, other groups
 * are untouched. A value the path cannot carry as is (empty, or with a "/") is sent base64url
 * encoded as <label>@base64/<value>.
 */
import { readCapped, sendOutbound } from "../http/index.js";

interface PushgatewayGroup {
  /** The Pushgateway's base URL, e.g. http://pushgateway.monitoring:9091. */
  readonly url: string;
  readonly job: string;
  /** The rest of the grouping key, e.g. { instance: "node-1" }. */
  readonly grouping: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
}

function segment(name: string, value: string): string {
  if (value === "" || value.includes("/")) return `${name}@base64/${Buffer.from(value).toString("base64url") || "="}`;
  return `${name}/${encodeURIComponent(value)}`;
}

/** The group's URL: <url>/metrics/job/<job>/<label>/<value>... */
export function groupUrl(group: PushgatewayGroup): URL {
  const base = group.url.replace(/\/+$/, "");
  const path = [["job", group.job] as const, ...Object.entries(group.grouping)].map(([n, v]) => segment(n, v));
  return new URL(`${base}/metrics/${path.join("/")}`);
}

/** PUTs `text` (exposition format 0.0.4) as the group's whole content; the reason when it was not taken. */
export function replaceGroup(group: PushgatewayGroup, text: string): Promise<string | undefined> {
  const url = groupUrl(group);
  return sendOutbound<string | undefined>(
    {
      url,
      method: "PUT",
      headers: { "Content-Type": "text/plain; version=0.0.4; charset=utf-8" },
      body: text,
      timeoutMs: group.timeoutMs,
    },
    {
      answer: async (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) return undefined;
        const body = await readCapped(res, 4096);
        return `the Pushgateway answered ${status} to PUT ${url.pathname}: ${typeof body === "string" ? body.trim() : "(no body)"}`;
      },
      timedOut: () => `no answer from the Pushgateway at ${url.host} in ${group.timeoutMs} ms`,
      abandoned: () => "the push was cancelled",
      failed: (e) => `pushing to the Pushgateway at ${url.host} failed: ${e.message}`,
    },
  );
}
