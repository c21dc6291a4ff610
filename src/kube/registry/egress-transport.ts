/**
 * The registry client's transport in `serve`: an image reference is tenant input, so every URL the
 * client requests (registry, token realm, each redirect hop) passes the egress filter
 * (egress/egress-policy.ts, `--egress-allow`): IP literals and refused names before connecting,
 * every resolved address at connect time.
 */
import { err, ok } from "../../engine/index.js";
import { httpTransport, type Transport } from "../../platform/registry/index.js";
import { checkedLookup, checkServiceUrl, type ResolveAll } from "../egress/egress-client.js";
import type { EgressPolicy } from "../egress/egress-policy.js";

export function egressTransport(
  policy: EgressPolicy,
  options: { readonly timeoutMs?: number; readonly resolve?: ResolveAll } = {},
): Transport {
  return httpTransport({
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    checkUrl: (url) => {
      const checked = checkServiceUrl(url.toString(), policy);
      return checked.ok ? ok(true) : err("refused", checked.error.message.replace(/^service URL/, "registry URL"));
    },
    lookup: checkedLookup(policy, options.resolve) as never,
  });
}
