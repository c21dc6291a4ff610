/**
 * Which policies make the API server refuse a webhook configuration. The API server checks every
 * webhook of a configuration at once, so one policy's webhook it refuses (a matchConditions
 * expression its CEL does not compile, or one over its cost limit; a configuration grown past the
 * size it stores) would leave every other policy's registration stale. Bylaw finds the policies at
 * fault and leaves them out, so the others are registered:
 *
 * - when the refusal names webhooks (`webhooks[3].matchConditions[0].expression: …`) and such a
 *   webhook carries one policy, that policy is at fault;
 * - otherwise the candidates are halved, each half tried with a dry-run write (`dryRun=All`, which
 *   the API server validates as a real write and does not store), down to the single policies whose
 *   configuration it refuses. A dry-run budget bounds the work of one search.
 */
import type { WebhookConfiguration } from "./types.js";

interface RefusalSearch {
  /** The configuration as it would be written without the policies in `without`. */
  readonly build: (without: ReadonlySet<string>) => WebhookConfiguration;
  /** Which policies each webhook of a configuration carries, by webhook name. */
  readonly owners: (configuration: WebhookConfiguration) => ReadonlyMap<string, readonly string[]>;
  /** Resolves when the API server accepts the configuration (dry run), rejects with its refusal. */
  readonly dryRun: (configuration: WebhookConfiguration) => Promise<void>;
  /** How many dry runs one search may make. */
  readonly budget: number;
}

/** The refused policies (id → the API server's message) of `refused` (the written configuration and its error). */
export async function findRefused(
  search: RefusalSearch,
  refused: { readonly configuration: WebhookConfiguration; readonly message: string },
  excluded: ReadonlySet<string>,
): Promise<Map<string, string>> {
  const owners = search.owners(refused.configuration);
  const named = namedCulprits(refused, owners);
  if (named.size > 0) return named;
  const candidates = [...new Set([...owners.values()].flat())].filter((id) => !excluded.has(id));
  const state = { left: search.budget, found: new Map<string, string>() };
  await bisect(search, { candidates, all: candidates, excluded }, state);
  return state.found;
}

/** The policies of single-policy webhooks the refusal names by index. */
function namedCulprits(
  refused: { readonly configuration: WebhookConfiguration; readonly message: string },
  owners: ReadonlyMap<string, readonly string[]>,
): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of refused.message.matchAll(/webhooks\[(\d+)\]/g)) {
    const webhook = refused.configuration.webhooks[Number(m[1])];
    const ids = webhook === undefined ? undefined : owners.get(webhook.name);
    if (ids?.length === 1 && ids[0] !== undefined) out.set(ids[0], refused.message);
  }
  return out;
}

interface Range {
  readonly candidates: readonly string[];
  readonly all: readonly string[];
  readonly excluded: ReadonlySet<string>;
}

async function bisect(
  search: RefusalSearch,
  range: Range,
  state: { left: number; readonly found: Map<string, string> },
): Promise<void> {
  if (range.candidates.length === 0 || state.left <= 0) return;
  const keep = new Set(range.candidates);
  const without = new Set([...range.excluded, ...range.all.filter((id) => !keep.has(id))]);
  state.left--;
  try {
    await search.dryRun(search.build(without));
    return;
  } catch (e) {
    if (range.candidates.length === 1 && range.candidates[0] !== undefined) {
      state.found.set(range.candidates[0], (e as Error).message);
      return;
    }
  }
  const half = Math.ceil(range.candidates.length / 2);
  await bisect(search, { ...range, candidates: range.candidates.slice(0, half) }, state);
  await bisect(search, { ...range, candidates: range.candidates.slice(half) }, state);
}
