/**
 * `--ui-port N`: the report UI (docs/adr/0022-report-ui.md) on its own HTTPS port. Its reads go to
 * the API server with each viewer's bearer token only, so it needs the API server's address and CA
 * (--cluster, --kubeconfig, or in a pod) but none of Bylaw's rights.
 */
import { resolveConnection } from "../../../kube/kubeconfig.js";
import { createViewerReads } from "../../../kube/viewer-reads.js";
import type { UiSettings } from "../../../server/app/types.js";

export const UI_FLAG_OPTIONS = {
  "ui-port": { type: "string" },
} as const;

interface Values {
  readonly "ui-port"?: string | undefined;
  readonly kubeconfig?: string | undefined;
}

/** The UI `--ui-port` asks for (undefined: off); or what is wrong with the flags. */
export function uiFrom(
  values: Values,
  env: NodeJS.ProcessEnv = process.env,
): { ok: true; value: UiSettings | undefined } | { ok: false; error: string } {
  const flag = values["ui-port"];
  if (flag === undefined) return { ok: true, value: undefined };
  const port = Number(flag);
  if (flag.trim() === "" || !Number.isInteger(port) || port < 0 || port > 65535)
    return { ok: false, error: `--ui-port must be a port number, 0-65535 (got ${JSON.stringify(flag)})` };
  const conn = resolveConnection({
    ...(values.kubeconfig !== undefined ? { kubeconfigFlag: values.kubeconfig } : {}),
    env,
    now: () => Date.now(),
  });
  if (!conn.ok) return { ok: false, error: `--ui-port needs the API server: ${conn.error.message}` };
  return { ok: true, value: { port, reads: createViewerReads(conn.value) } };
}
