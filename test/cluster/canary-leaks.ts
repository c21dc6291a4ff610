/**
 * The last check of every tenant suite (tenant-isolation.md): no canary value, as written or in
 * base64, appears in what the tenant got back, in Events, in any report object or in Bylaw's log.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { kubectlOk, type Cluster } from "./cluster-harness.js";

/** Report kinds whose rows could carry a message; a kind the cluster does not serve is skipped. */
const REPORT_KINDS = [
  "policyreports.wgpolicyk8s.io",
  "clusterpolicyreports.wgpolicyk8s.io",
  "ephemeralreports.reports.kyverno.io",
];

/** Where to look, each with its text: the tenant's kubectl output first (callers check it is not empty of theirs). */
export async function placesToSearch(cluster: Cluster, responses: readonly string[]): Promise<[string, string][]> {
  const places: [string, string][] = [
    ["the tenant's kubectl output", responses.join("\n")],
    ["Events", await kubectlOk(cluster, ["get", "events", "-A", "-o", "json"])],
    ["Bylaw's log", readFileSync(join(cluster.dir, "logs", "bylaw.log"), "utf8")],
  ];
  for (const kind of REPORT_KINDS) {
    const r = await cluster.kubectl(["get", kind, "-A", "-o", "json"]);
    if (r.code === 0) places.push([kind, r.stdout]);
    else assert.match(r.stderr, /doesn't have a resource type/, `kubectl get ${kind}: ${r.stderr}`);
  }
  return places;
}

/** Each canary (or its base64) found in a place, as `<canary> in <place>`. */
export function canaryLeaks(canaries: Readonly<Record<string, string>>, places: readonly [string, string][]): string[] {
  const leaks: string[] = [];
  for (const value of Object.values(canaries))
    for (const form of [value, Buffer.from(value).toString("base64")])
      for (const [where, text] of places) if (text.includes(form)) leaks.push(`${value} in ${where}`);
  return leaks;
}
