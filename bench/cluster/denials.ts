/**
 * Who denied a create, read from the API server's answer: the webhook that refused it (`admission
 * webhook "<name>" denied the request`) and the policies Kyverno's denial text lists (each policy
 * a top-level `name:` line after "blocked due to the following policies"), or the API server's own
 * admission (any other refusal, such as a Pod naming a RuntimeClass that does not exist); and the
 * one refusal worth retrying (a namespace whose default ServiceAccount is not there yet).
 */

/** One key per denying party: `webhook <name>: <policy>` for each policy named, else the reason's head. */
export function denialKeys(status: number, body: string): string[] {
  let message = body;
  try {
    const parsed = JSON.parse(body) as { message?: unknown };
    if (typeof parsed.message === "string") message = parsed.message;
  } catch {
    // not a Status object: keep the raw body
  }
  const webhook = /admission webhook "([^"]+)" denied the request/.exec(message)?.[1];
  // The API server names the object (`pods "p-12" is forbidden: …`): without it, equal refusals count as one.
  if (webhook === undefined)
    return [
      `HTTP ${status} from the API server: ${message
        .replace(/^(\S+) "[^"]*"/, '$1 "…"')
        .replace(/\s+/g, " ")
        .slice(0, 160)}`,
    ];
  const listed = message.split("blocked due to the following policies")[1];
  const policies =
    listed === undefined ? [] : [...listed.matchAll(/^([A-Za-z0-9][A-Za-z0-9.-]*):\s*$/gm)].map((m) => m[1] ?? "");
  if (policies.length === 0) return [`webhook ${webhook}: ${message.replace(/\s+/g, " ").slice(0, 160)}`];
  return policies.map((p) => `webhook ${webhook}: policy ${p}`);
}

/** Counts of each denying party over a run's answers, most frequent first. */
export function tallyDenials(answers: readonly { status: number; body: string }[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const a of answers)
    if (a.status !== 201) for (const k of denialKeys(a.status, a.body)) counts.set(k, (counts.get(k) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

/**
 * A create the ServiceAccount admission refused because the namespace's `default` ServiceAccount
 * does not exist yet (the controller-manager makes it a moment after the namespace): worth retrying.
 */
export function missingDefaultServiceAccount(status: number, body: string): boolean {
  if (status !== 403) return false;
  let message = body;
  try {
    const parsed = JSON.parse(body) as { message?: unknown };
    if (typeof parsed.message === "string") message = parsed.message;
  } catch {
    // not a Status object: match the raw body
  }
  return /error looking up service account [^ ]+\/default: serviceaccount "default" not found/.test(message);
}
