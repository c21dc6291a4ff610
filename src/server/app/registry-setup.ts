/** `bylaw serve --cluster`: registry access for image data, over the egress filter (docs/adr/0015). */
import type { EgressPolicy } from "../../kube/egress/egress-policy.js";
import type { KubeClient } from "../../kube/kube-client.js";
import { egressTransport } from "../../kube/registry/egress-transport.js";
import type { LiveRegistry } from "../../kube/registry/live-image-data.js";
import { PullSecrets } from "../../kube/registry/pull-secrets.js";
import type { CallScopes } from "../../kube/review-calls.js";
import { RegistryClient } from "../../platform/registry/index.js";

export function liveRegistry(
  client: KubeClient,
  scopes: CallScopes,
  egress: EgressPolicy,
  options: { readonly imagePullSecrets?: readonly string[]; readonly ownNamespace?: string },
): LiveRegistry {
  return {
    client: new RegistryClient({ transport: egressTransport(egress) }),
    scopes,
    secrets: new PullSecrets((path) => client.getJson(path)),
    ownNamespace: options.ownNamespace ?? process.env["POD_NAMESPACE"] ?? "bylaw",
    pullSecrets: options.imagePullSecrets ?? [],
  };
}
