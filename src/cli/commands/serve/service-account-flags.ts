/**
 * `--reports-service-account-name` and `--background-service-account-name` (Kyverno's
 * `--reportsServiceAccountName` and `--backgroundServiceAccountName`): who the reports and the
 * background components run as, for the SubjectAccessReviews made about them (RBACPermissionsGranted,
 * the policy webhook's generate and mutate-existing permission checks, the background grants behind
 * a policy's Ready). Written as Kyverno's flags take them, `system:serviceaccount:NS:NAME`, or as a
 * ServiceAccount NAME of Bylaw's namespace. Default: deploy/'s names, bylaw-reports-controller and
 * bylaw-background-controller, in Bylaw's namespace.
 */
export const SERVICE_ACCOUNT_FLAG_OPTIONS = {
  "reports-service-account-name": { type: "string" },
  "background-service-account-name": { type: "string" },
} as const;

const PREFIX = "system:serviceaccount:";
/** A DNS-1123 subdomain (a ServiceAccount's name) or label (a namespace). */
const NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/** The components' user names (`system:serviceaccount:NS:NAME`) as given; undefined: the default. */
interface ServiceAccountUsers {
  readonly reports?: string;
  readonly background?: string;
}

export function serviceAccountUsers(
  values: {
    readonly "reports-service-account-name"?: string | undefined;
    readonly "background-service-account-name"?: string | undefined;
  },
  ownNamespace: string | undefined,
): { ok: true; value: ServiceAccountUsers } | { ok: false; error: string } {
  const out: { reports?: string; background?: string } = {};
  for (const [flag, key] of [
    ["reports-service-account-name", "reports"],
    ["background-service-account-name", "background"],
  ] as const) {
    const text = values[flag];
    if (text === undefined) continue;
    const user = userOf(text, ownNamespace);
    if (user === undefined)
      return {
        ok: false,
        error: `--${flag} must be system:serviceaccount:NAMESPACE:NAME or a ServiceAccount name of Bylaw's namespace (got ${JSON.stringify(text)})`,
      };
    out[key] = user;
  }
  return { ok: true, value: out };
}

function userOf(text: string, ownNamespace: string | undefined): string | undefined {
  if (!text.startsWith(PREFIX)) {
    if (!NAME.test(text) || ownNamespace === undefined) return undefined;
    return `${PREFIX}${ownNamespace}:${text}`;
  }
  const [namespace, name, ...rest] = text.slice(PREFIX.length).split(":");
  if (namespace === undefined || name === undefined || rest.length > 0) return undefined;
  return NAME.test(namespace) && NAME.test(name) ? text : undefined;
}
