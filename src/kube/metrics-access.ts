/**
 * Who may read `/metrics`, decided by the API server as kube-rbac-proxy and controller-runtime's
 * `WithAuthenticationAndAuthorization` decide it: the bearer token goes to a TokenReview, and the
 * user it names to a SubjectAccessReview for `get` on the non-resource URL `/metrics`. Answers are
 * kept for a short time by a hash of the token (never the token), in a bounded map, so a scrape
 * every 30 s costs the API server two requests a minute and a flood of made-up tokens cannot grow
 * memory or go past this reviewer's own request rate (its client is not the policy watches').
 */
import { createHash } from "node:crypto";
import type { KubeClient } from "./kube-client.js";
import { subjectAccessAllowed } from "./access-review.js";

export type MetricsAccess = { ok: true } | { ok: false; status: 401 | 403 | 503; message: string };

interface MetricsAccessOptions {
  readonly client: Pick<KubeClient, "sendJson">;
  /** How long an answer is kept (default 60 s for allowed, 10 s for refused or failed). */
  readonly allowedTtlMs?: number;
  readonly refusedTtlMs?: number;
  /** Answers kept at once (default 1,000); past it the oldest is dropped. */
  readonly maxEntries?: number;
  readonly now?: () => number;
}

const BEARER = /^Bearer +(\S+)\s*$/i;

interface UserInfo {
  readonly username?: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
  readonly extra?: Record<string, readonly string[]>;
}

export class MetricsAccessReviewer {
  private readonly answers = new Map<string, { access: Promise<MetricsAccess>; until: number }>();
  private readonly now: () => number;

  constructor(private readonly options: MetricsAccessOptions) {
    this.now = options.now ?? (() => Date.now());
  }

  /** Whether the request's `Authorization` header carries a token allowed to `get /metrics`. */
  check(authorization: string | undefined): Promise<MetricsAccess> {
    const token = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
    if (token === undefined)
      return Promise.resolve({
        ok: false,
        status: 401,
        message: "/metrics needs a bearer token (Authorization: Bearer …) of a user allowed to get /metrics",
      });
    const key = createHash("sha256").update(token).digest("hex");
    const now = this.now();
    const kept = this.answers.get(key);
    if (kept !== undefined && kept.until > now) return kept.access;
    this.answers.delete(key);
    const access = this.review(token);
    this.keep(key, access, now);
    return access;
  }

  private keep(key: string, access: Promise<MetricsAccess>, now: number): void {
    const max = this.options.maxEntries ?? 1_000;
    while (this.answers.size >= max) {
      const oldest = this.answers.keys().next().value;
      if (oldest === undefined) break;
      this.answers.delete(oldest);
    }
    const entry = { access, until: now + (this.options.allowedTtlMs ?? 60_000) };
    this.answers.set(key, entry);
    void access.then((a) => {
      if (!a.ok) entry.until = now + (this.options.refusedTtlMs ?? 10_000);
    });
  }

  private async review(token: string): Promise<MetricsAccess> {
    let user: UserInfo;
    try {
      const review = (await this.options.client.sendJson("POST", "/apis/authentication.k8s.io/v1/tokenreviews", {
        apiVersion: "authentication.k8s.io/v1",
        kind: "TokenReview",
        spec: { token },
      })) as { status?: { authenticated?: boolean; user?: UserInfo; error?: string } };
      if (review.status?.authenticated !== true || review.status.user === undefined)
        return { ok: false, status: 401, message: "the bearer token was not accepted by the API server (TokenReview)" };
      user = review.status.user;
    } catch (e) {
      return { ok: false, status: 503, message: `the token could not be reviewed: ${messageOf(e)}` };
    }
    try {
      const allowed = await subjectAccessAllowed(this.options.client, {
        user: user.username,
        ...(user.uid !== undefined ? { uid: user.uid } : {}),
        groups: user.groups ?? [],
        ...(user.extra !== undefined ? { extra: user.extra } : {}),
        nonResourceAttributes: { path: "/metrics", verb: "get" },
      });
      if (!allowed)
        return {
          ok: false,
          status: 403,
          message: `${user.username ?? "the user"} may not get /metrics (grant get on the nonResourceURL /metrics, e.g. the bylaw-metrics-reader ClusterRole)`,
        };
      return { ok: true };
    } catch (e) {
      return { ok: false, status: 503, message: `the token's access could not be reviewed: ${messageOf(e)}` };
    }
  }
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
