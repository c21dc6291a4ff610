/**
 * The one way Bylaw makes an outbound call a policy controls (`apiCall.service`, GlobalContextEntry
 * `apiCall.service`, CEL `http.Get/Post`): tenant-isolation.md rules 6 and 7.
 * - The URL is parsed once (WHATWG: decimal, hex and octal IPv4 spellings become dotted quads);
 *   only http and https, no `user:password@`; refused host names (metadata.google.internal, …,
 *   localhost) are refused with or without a trailing dot.
 * - An IP literal is checked before connecting; a name is resolved at connect time through the
 *   socket's `lookup` hook, and every address it resolves to is checked there, so the address
 *   connected to is the address checked (a rebinding name cannot swap it). No connection is reused.
 * - Redirects are not followed (an error naming the status). The answer is capped in size and time.
 * - Only the headers the policy states are sent: no ServiceAccount token, ever.
 * - Errors name the status code and the URL (scheme, host and path only); an upstream body is never
 *   copied into a message, a report or a log.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { isIP } from "node:net";
import { err, ok, type JsonValue, type Result } from "../../engine/index.js";
import { type EgressPolicy, REFUSED_NAMES } from "./egress-policy.js";
import { readCapped, sendOutbound, TOO_LARGE } from "../../platform/http/index.js";

interface ServiceCall {
  readonly method: "GET" | "POST";
  readonly url: string;
  readonly headers?: readonly { readonly key: string; readonly value: string }[];
  /** PEM CA bundle to trust instead of the system roots. */
  readonly caBundle?: string;
  /** The JSON body of a POST. */
  readonly body?: string;
}

/** Resolves a name to all its addresses (node:dns lookup with `all: true`; injected in tests). */
export type ResolveAll = (hostname: string) => Promise<readonly LookupAddress[]>;

export interface EgressOptions {
  readonly policy: EgressPolicy;
  /** Longest a call may take, connect to last byte (default 10 s; the review's deadline may cut it shorter). */
  readonly timeoutMs?: number;
  /** Largest answer read (default 10,000,000 bytes, Kyverno's admission default). */
  readonly maxBytes?: number;
  readonly resolve?: ResolveAll;
}

const systemResolve: ResolveAll = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (e, addresses) => (e ? reject(e) : resolve(addresses))),
  );

/** A refusal by the egress filter (as opposed to a network failure). */
class EgressRefused extends Error {
  override name = "EgressRefused";
}

interface CheckedUrl {
  readonly url: URL;
  /** The host to connect to, without brackets. */
  readonly host: string;
  /** `scheme://host/path` for messages: no user info, query or fragment. */
  readonly shown: string;
}

/** Parses and checks a service URL before any connection (IP literals are checked here). */
export function checkServiceUrl(raw: string, policy: EgressPolicy): Result<CheckedUrl> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return err("refused", `service URL ${JSON.stringify(raw.slice(0, 200))} is not a valid URL`);
  }
  const shown = `${url.protocol}//${url.host}${url.pathname}`;
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return err("refused", `service URL ${shown}: only http and https are allowed`);
  if (url.username !== "" || url.password !== "")
    return err(
      "refused",
      `service URL ${shown}: user information (user:password@) is not allowed; state credentials as a header`,
    );
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host) !== 0) {
    const checked = policy.checkAddress(host);
    if (!checked.ok) return err("refused", `service URL ${shown}: ${checked.error.message}`);
  } else {
    const name = host.toLowerCase().replace(/\.$/, "");
    if (REFUSED_NAMES.has(name))
      return err(
        "refused",
        `service URL ${shown}: the host ${name} is a cloud metadata service, refused for policy-controlled calls`,
      );
    if (name === "localhost" || name.endsWith(".localhost"))
      return err(
        "refused",
        `service URL ${shown}: localhost is loopback, refused for policy-controlled calls unless the operator allows it (--egress-allow)`,
      );
  }
  return ok({ url, host, shown });
}

type LookupCallback = (e: Error | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A socket `lookup` that resolves a name and checks every address it resolves to: the socket
 * connects to the first, as checked. A refusal is an error named `EgressRefused`.
 */
export function checkedLookup(
  policy: EgressPolicy,
  resolve: ResolveAll = systemResolve,
): (hostname: string, opts: { all?: boolean }, cb: LookupCallback) => void {
  return (hostname, opts, cb) => {
    resolve(hostname).then(
      (addresses) => {
        if (addresses.length === 0) return cb(new Error(`${hostname} resolves to no address`), "");
        for (const a of addresses) {
          const c = policy.checkAddress(a.address);
          if (!c.ok)
            return cb(
              new EgressRefused(`the host ${hostname} resolves to an address that is refused: ${c.error.message}`),
              "",
            );
        }
        const first = addresses[0] as LookupAddress;
        if (opts.all === true) cb(null, [...addresses]);
        else cb(null, first.address, first.family);
      },
      (e: unknown) => cb(e instanceof Error ? e : new Error(String(e)), ""),
    );
  };
}

/** Makes one service call through the filter (an apiCall entry's): the JSON body of a 2xx answer, or an error value. */
export async function callService(
  call: ServiceCall,
  options: EgressOptions,
  signal?: AbortSignal,
): Promise<Result<JsonValue>> {
  const answer = await requestService(call, options, signal);
  if (!answer.ok) return answer;
  const { status, body, shown } = answer.value;
  if (status < 200 || status > 299) return err("context", `failed to execute HTTP request to ${shown}: HTTP ${status}`);
  if (body === undefined) return err("context", `failed to execute HTTP request to ${shown}: the answer is not JSON`);
  return ok(body);
}

/** What a service answered: its status and JSON body (undefined when the body is not JSON). */
interface ServiceAnswer {
  readonly status: number;
  readonly body: JsonValue | undefined;
  /** The URL as messages show it: scheme, host and path. */
  readonly shown: string;
}

/**
 * Makes one service call through the filter and answers whatever status came back, except a
 * redirect (not followed: an error naming the status). CEL `http.Get/Post` answers this way.
 */
export function requestService(
  call: ServiceCall,
  options: EgressOptions,
  signal?: AbortSignal,
): Promise<Result<ServiceAnswer>> {
  const checked = checkServiceUrl(call.url, options.policy);
  if (!checked.ok) return Promise.resolve(checked);
  const { url, shown } = checked.value;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxBytes = options.maxBytes ?? 10_000_000;
  const resolve = options.resolve ?? systemResolve;
  const failed = (why: string): Result<ServiceAnswer> =>
    err("context", `failed to execute HTTP request to ${shown}: ${why}`);

  const lookup = checkedLookup(options.policy, resolve);

  const headers: Record<string, string> = {};
  for (const h of call.headers ?? []) headers[h.key.toLowerCase()] = h.value;
  if (call.method === "POST" && headers["content-type"] === undefined) headers["content-type"] = "application/json";
  if (call.body !== undefined) headers["content-length"] = String(Buffer.byteLength(call.body));

  return sendOutbound(
    {
      url,
      method: call.method,
      headers,
      timeoutMs,
      signal,
      lookup: lookup as never,
      ...(call.body !== undefined ? { body: call.body } : {}),
      ...(call.caBundle !== undefined ? { ca: call.caBundle } : {}),
    },
    {
      answer: async (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400) return failed(`HTTP ${status}: redirects are not followed`);
        const body = await readCapped(res, maxBytes);
        if (body === TOO_LARGE)
          return err(
            "context",
            `response length must be less than max allowed response length of ${maxBytes} (from ${shown})`,
          );
        if (typeof body !== "string") return failed(`the answer broke off: ${body.message}`);
        return ok({ status, body: parseJson(body), shown });
      },
      timedOut: () => failed(`no answer within ${timeoutMs} ms`),
      abandoned: () => failed("the review's deadline passed"),
      failed: (e) =>
        e instanceof EgressRefused ? err("refused", `service URL ${shown}: ${e.message}`) : failed(e.message),
    },
  );
}

function parseJson(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}
