/**
 * With `--kyverno-webhook-names` Bylaw writes the webhook configurations Kyverno writes, by the same
 * names (webhook-names.ts). Kyverno and Bylaw cannot both own them: each would overwrite the other's
 * webhooks on every sync. So before it starts, Bylaw reads each configuration it would write and
 * refuses to start when one exists and is not Bylaw's.
 *
 * Bylaw's own carry the label `app.kubernetes.io/name: bylaw` (deploy/ and the chart ship them so
 * labelled, and every write of Bylaw's sets it, build-configurations.ts) and not Kyverno's
 * `webhook.kyverno.io/managed-by`, which Kyverno sets on every configuration it writes. A
 * configuration that does not exist is not foreign (Bylaw's write then fails, and says so); one that
 * cannot be read is a reason not to start: Bylaw cannot tell whose it is.
 */
import { isObject } from "../../engine/index.js";
import type { WebhookConfiguration } from "../../controllers/registration/types.js";

const OWN_LABEL = { key: "app.kubernetes.io/name", value: "bylaw" } as const;
const KYVERNO_LABEL = "webhook.kyverno.io/managed-by";

/** What the API server holds of a configuration: the object, or undefined when it does not exist; throws when it cannot be read. */
type ReadStored = (kind: WebhookConfiguration["kind"], name: string) => Promise<unknown>;

interface Wanted {
  readonly kind: WebhookConfiguration["kind"];
  readonly name: string;
}

/** The labels of a stored configuration, `key=value` each. */
function labelsOf(stored: unknown): Record<string, string> {
  const meta = isObject(stored) && isObject(stored["metadata"]) ? stored["metadata"] : {};
  const labels = isObject(meta["labels"]) ? meta["labels"] : {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels)) if (typeof v === "string") out[k] = v;
  return out;
}

/** Whether a stored configuration is Bylaw's own. */
export function isBylawOwn(stored: unknown): boolean {
  const labels = labelsOf(stored);
  return labels[OWN_LABEL.key] === OWN_LABEL.value && labels[KYVERNO_LABEL] === undefined;
}

const WHAT_TO_DO =
  "Kyverno and Bylaw cannot both run with Kyverno's webhook names: uninstall Kyverno first (or delete that configuration if nothing owns it any more), " +
  "apply the empty configurations deploy/components/kyverno-webhook-names (or the chart's admissionController.registration.kyvernoWebhookNames) ships, and start Bylaw again; " +
  "or run Bylaw without --kyverno-webhook-names";

/** Why Bylaw must not start with Kyverno's names (a configuration it would write is someone else's, or unreadable); undefined when it may. */
export async function foreignConfigurationProblem(
  wanted: readonly Wanted[],
  read: ReadStored,
): Promise<string | undefined> {
  for (const { kind, name } of wanted) {
    let stored: unknown;
    try {
      stored = await read(kind, name);
    } catch (e) {
      return `--kyverno-webhook-names: could not read ${kind} ${name} to check that it is Bylaw's, not Kyverno's: ${(e as Error).message}. Bylaw needs get on it (deploy/components/kyverno-webhook-names grants it)`;
    }
    if (stored === undefined || isBylawOwn(stored)) continue;
    const labels = Object.entries(labelsOf(stored)).map(([k, v]) => `${k}=${v}`);
    return (
      `--kyverno-webhook-names: ${kind} ${name} exists and is not Bylaw's ` +
      `(labels: ${labels.length > 0 ? labels.join(", ") : "none"}; Bylaw's carry ${OWN_LABEL.key}=${OWN_LABEL.value} and not ${KYVERNO_LABEL}). ${WHAT_TO_DO}`
    );
  }
  return undefined;
}
