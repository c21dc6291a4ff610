/**
 * Registry credentials from Kubernetes pull secrets (`kubernetes.io/dockerconfigjson` with
 * `.dockerconfigjson`, or `kubernetes.io/dockercfg` with `.dockercfg`), read with Bylaw's
 * ServiceAccount and kept PULL_SECRET_TTL_MS. A secret's content never reaches a message.
 */
import { err, isObject, ok, type JsonValue, type Result } from "../../engine/index.js";
import { Keychain } from "../../platform/registry/index.js";
import { KubeError } from "../kube-client.js";

const PULL_SECRET_TTL_MS = 60_000;

export interface SecretRef {
  readonly namespace: string;
  readonly name: string;
}

export class PullSecrets {
  private readonly kept = new Map<string, { readonly until: number; readonly keychain: Result<Keychain> }>();

  constructor(
    private readonly get: (path: string) => Promise<unknown>,
    private readonly now: () => number = Date.now,
  ) {}

  /** The credentials of these secrets, in order (the first secret naming a host wins). */
  async keychain(refs: readonly SecretRef[]): Promise<Result<Keychain>> {
    let out = Keychain.empty;
    for (const ref of refs) {
      const one = await this.read(ref);
      if (!one.ok) return one;
      out = out.with(one.value);
    }
    return ok(out);
  }

  private async read(ref: SecretRef): Promise<Result<Keychain>> {
    const key = `${ref.namespace}/${ref.name}`;
    const kept = this.kept.get(key);
    if (kept !== undefined && kept.until > this.now()) return kept.keychain;
    const keychain = await this.fetch(ref);
    this.kept.set(key, { until: this.now() + PULL_SECRET_TTL_MS, keychain });
    return keychain;
  }

  private async fetch(ref: SecretRef): Promise<Result<Keychain>> {
    const what = `pull secret ${ref.namespace}/${ref.name}`;
    let secret: unknown;
    try {
      secret = await this.get(
        `/api/v1/namespaces/${encodeURIComponent(ref.namespace)}/secrets/${encodeURIComponent(ref.name)}`,
      );
    } catch (e) {
      const status = e instanceof KubeError ? e.status : 0;
      if (status === 404) return err("context", `${what} not found`);
      if (status === 403)
        return err(
          "context",
          `${what}: Bylaw's ServiceAccount may not get it (grant get on this secret to Bylaw's ServiceAccount)`,
        );
      return err("context", `${what}: ${e instanceof Error ? e.message : String(e)}`);
    }
    const data =
      isObject(secret) && isObject((secret as Record<string, JsonValue>)["data"])
        ? ((secret as Record<string, JsonValue>)["data"] as Record<string, JsonValue>)
        : {};
    const encoded = data[".dockerconfigjson"] ?? data[".dockercfg"];
    if (typeof encoded !== "string") return err("context", `${what} holds no .dockerconfigjson or .dockercfg`);
    return Keychain.fromDockerConfigs([{ text: Buffer.from(encoded, "base64").toString("utf8"), source: what }]);
  }
}
