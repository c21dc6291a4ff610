/**
 * One page of a LIST (`limit` + `continue`, as client-go's pager) read under a byte cap: the body
 * is never read past the cap (kube-client.ts stops reading there). The cap is what the caller has
 * left and at most PAGE_BYTES, whatever its budget: reading a page takes a few times its size at
 * once (the chunks read, their text, the parsed objects), so a page of large objects is read in
 * small pages rather than held whole. A page over the cap is asked again smaller, down to one
 * object, and the rest of the list is asked no larger than what fitted; one object may be read up
 * to the largest object the API server stores, so that its namespace can be charged for it.
 * `onTooLarge` lets the caller make room first (an informer drops the old copy of its store) and
 * ask again at the same size.
 */
import type { KubeObject } from "./types.js";
import { KubeError, type ReadOptions } from "./kube-client.js";

/** What a page read needs of the API client (KubeClient). */
export interface PageClient {
  getJson(path: string, read?: ReadOptions): Promise<unknown>;
}

interface PageRequest {
  readonly path: string;
  /** Objects asked for; the page shrinks from here when it is over the cap, and grows back to `maxLimit`. */
  readonly limit: number;
  /** The most objects a page is asked for (the Page's `maxLimit` for the pages after it). */
  readonly maxLimit: number;
  /** The largest page read (default PAGE_BYTES). */
  readonly pageBytes?: number;
  readonly continueToken: string;
  readonly fieldSelector?: string;
  readonly labelSelector?: string;
  /** The items' metadata only (PartialObjectMetadataList). */
  readonly metadataOnly?: boolean;
  /** Bytes the page may take now (read again after `onTooLarge`). */
  readonly capBytes: () => number;
  /** A page was over the cap: true when the caller made room and the same page should be asked again. */
  readonly onTooLarge: () => boolean;
}

interface Page {
  readonly kind?: unknown;
  readonly apiVersion?: unknown;
  readonly items: readonly KubeObject[];
  readonly continueToken: string;
  readonly resourceVersion?: string;
  /** The `limit` to ask the next page with. */
  readonly limit: number;
  /** The `maxLimit` for the next page: below a limit that was over the cap in this list. */
  readonly maxLimit: number;
}

/** The largest body read for a page of one object: above what the API server stores for one object (about 3 MiB). */
const ONE_OBJECT_BYTES = 4 * 1024 * 1024;

/** The largest page read: as large as one object may be. */
const PAGE_BYTES = ONE_OBJECT_BYTES;

/** The page, or "too-large" when one object is over both the cap and ONE_OBJECT_BYTES. Throws the client's other errors. */
export async function readPage(client: PageClient, req: PageRequest): Promise<Page | "too-large"> {
  let limit = Math.max(1, req.limit);
  let maxLimit = req.maxLimit;
  const pageBytes = req.pageBytes ?? PAGE_BYTES;
  for (;;) {
    const q = new URLSearchParams({ limit: String(limit) });
    if (req.continueToken !== "") q.set("continue", req.continueToken);
    if (req.fieldSelector !== undefined) q.set("fieldSelector", req.fieldSelector);
    if (req.labelSelector !== undefined) q.set("labelSelector", req.labelSelector);
    const cap = limit === 1 ? Math.max(req.capBytes(), ONE_OBJECT_BYTES) : Math.min(req.capBytes(), pageBytes);
    try {
      const page = (await client.getJson(`${req.path}?${q.toString()}`, {
        maxBodyBytes: Math.max(1, cap),
        ...(req.metadataOnly === true ? { metadataOnly: true } : {}),
      })) as {
        kind?: unknown;
        apiVersion?: unknown;
        metadata?: { resourceVersion?: unknown; continue?: unknown };
        items?: unknown;
      };
      const rv = page.metadata?.resourceVersion;
      return {
        kind: page.kind,
        apiVersion: page.apiVersion,
        items: Array.isArray(page.items) ? (page.items as KubeObject[]) : [],
        continueToken: typeof page.metadata?.continue === "string" ? page.metadata.continue : "",
        ...(typeof rv === "string" ? { resourceVersion: rv } : {}),
        limit: Math.min(maxLimit, limit * 2),
        maxLimit,
      };
    } catch (e) {
      if (!(e instanceof KubeError && e.reason === "TooLarge")) throw e;
      if (req.onTooLarge()) continue;
      if (limit === 1) return "too-large";
      // Pages this large do not fit: the rest of the list is asked for fewer objects.
      maxLimit = Math.min(maxLimit, limit - 1);
      limit = Math.max(1, Math.floor(limit / 2));
    }
  }
}
