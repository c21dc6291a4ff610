/**
 * The routes of the fine-grained webhooks (`/validate/fail/finegrained/<ns>/<name>`, …;
 * `/vpol/fail/finegrained/<name>`, …; server/admission/webhook-groups.ts): one per policy with its
 * own webhook (kyverno.io `webhookConfiguration.matchConditions`; a policies.kyverno.io policy's
 * matchConditions, `matchPolicy: Exact` or timeout), so they follow the loaded policy set instead of being fixed at start. A path is resolved when a
 * review arrives: it serves its one policy, under the deadline of that policy's timeout. A path
 * whose policy is no longer loaded (its webhook not yet removed) serves no policy. A namespace's path
 * (`/validate/fail/ns/<ns>`, webhook-groups.ts) serves that namespace's policies of its group.
 */
import type { RouteHandler } from "../http/index.js";
import type { AdmissionDeps } from "../admission/deps.js";
import { celPrefixOf } from "../admission/cel-webhook-traits.js";
import { policyKey } from "../admission/policy-traits.js";
import type { WebhookGroup } from "../admission/types.js";
import {
  DEADLINE_SHARE,
  parseFineGrainedPath,
  parseNamespacePath,
  timeoutOf,
  type TimeoutGroups,
  type WebhookKind,
} from "../admission/webhook-groups.js";

type FineGrainedHandlers = (kind: WebhookKind, deps: AdmissionDeps, group: WebhookGroup) => RouteHandler;

/** Exact routes first; any other path that names a fine-grained webhook gets its handler, made for it. */
export class AdmissionRouteMap extends Map<string, RouteHandler> {
  constructor(
    private readonly deps: AdmissionDeps,
    private readonly groups: TimeoutGroups,
    private readonly handlers: FineGrainedHandlers,
  ) {
    super();
  }

  override get(path: string): RouteHandler | undefined {
    return super.get(path) ?? this.fineGrained(path) ?? this.namespaced(path);
  }

  override has(path: string): boolean {
    return (
      super.has(path) || parseFineGrainedPath(path) !== undefined || parseNamespacePath(path, this.groups) !== undefined
    );
  }

  /** A namespace's path (`/validate/fail/ns/<ns>`): that namespace's policies of the group, under its deadline. */
  private namespaced(path: string): RouteHandler | undefined {
    const parsed = parseNamespacePath(path, this.groups);
    if (parsed === undefined) return undefined;
    const deps = { ...this.deps, deadlineSeconds: parsed.group.timeoutSeconds * DEADLINE_SHARE };
    return this.handlers(parsed.kind, deps, parsed.group);
  }

  private fineGrained(path: string): RouteHandler | undefined {
    const parsed = parseFineGrainedPath(path);
    if (parsed === undefined) return undefined;
    return (body) => {
      const policy = this.deps
        .policies()
        .policies.find((p) => policyKey(p, "/") === parsed.policy && celPrefixOf(p) === parsed.prefix);
      const timeoutSeconds = policy === undefined ? this.groups.defaultSeconds : timeoutOf(policy, this.groups);
      const group: WebhookGroup = {
        mode: parsed.mode,
        timeoutSeconds,
        isDefault: false,
        policy: parsed.policy,
        ...(parsed.prefix !== undefined ? { prefix: parsed.prefix } : {}),
      };
      return this.handlers(
        parsed.kind,
        { ...this.deps, deadlineSeconds: timeoutSeconds * DEADLINE_SHARE },
        group,
      )(body);
    };
  }
}
