/**
 * Registry credentials from docker config JSON, as a Kubernetes pull secret carries it
 * (`.dockerconfigjson`: `{auths: {host: {...}}}`; the older `.dockercfg`: `{host: {...}}`) and as
 * `~/.docker/config.json` holds it. An entry is `auth` (base64 `user:password`), or `username` and
 * `password`, or an `identitytoken` / `registrytoken`. Credentials are found by the registry host
 * alone (the key's scheme and path are dropped; Docker Hub's spellings are one host), so a
 * registry's credentials go to that registry (and the token service it names) and nowhere else.
 * Credential helpers (`credsStore`, `credHelpers`) run programs: Bylaw does not run them.
 */
import { err, isObject, ok, type JsonValue, type Result } from "../../engine/index.js";
import { DOCKER_HUB } from "./reference.js";

export interface RegistryCredential {
  readonly username?: string;
  readonly password?: string;
  /** An OAuth2 refresh token for the token endpoint (`identitytoken`). */
  readonly identityToken?: string;
  /** A bearer token sent as is (`registrytoken`). */
  readonly registryToken?: string;
}

const HUB_NAMES = new Set(["index.docker.io", "docker.io", "registry-1.docker.io", "registry.hub.docker.com"]);

/** The host a docker config key names: `https://index.docker.io/v1/` → `index.docker.io`. */
function registryKey(key: string): string {
  const host =
    key
      .trim()
      .replace(/^[a-z]+:\/\//i, "")
      .split("/")[0]
      ?.toLowerCase() ?? "";
  return HUB_NAMES.has(host) ? DOCKER_HUB : host;
}

export class Keychain {
  private constructor(private readonly byHost: ReadonlyMap<string, RegistryCredential>) {}

  static readonly empty = new Keychain(new Map());

  /** Reads docker config texts in order; for a host given twice the first wins. `source` names each in errors. */
  static fromDockerConfigs(configs: readonly { readonly text: string; readonly source: string }[]): Result<Keychain> {
    const byHost = new Map<string, RegistryCredential>();
    for (const { text, source } of configs) {
      let parsed: JsonValue;
      try {
        parsed = JSON.parse(text) as JsonValue;
      } catch {
        // The parser's message quotes the text: a secret's content never goes into a message.
        return err("registry-credentials", `${source}: not docker config JSON`);
      }
      if (!isObject(parsed)) return err("registry-credentials", `${source}: docker config JSON is an object`);
      const auths = isObject(parsed["auths"])
        ? parsed["auths"]
        : parsed["auths"] === undefined && !("credsStore" in parsed) && !("credHelpers" in parsed)
          ? parsed
          : {};
      for (const [key, entry] of Object.entries(auths)) {
        if (!isObject(entry)) continue;
        const cred = credentialOf(entry);
        if (!cred.ok) return err("registry-credentials", `${source}: the entry for ${key}: ${cred.error.message}`);
        const host = registryKey(key);
        if (host !== "" && !byHost.has(host) && cred.value !== undefined) byHost.set(host, cred.value);
      }
    }
    return ok(new Keychain(byHost));
  }

  /** This keychain's entries, then `other`'s for the hosts this one lacks. */
  with(other: Keychain): Keychain {
    const merged = new Map(this.byHost);
    for (const [h, c] of other.byHost) if (!merged.has(h)) merged.set(h, c);
    return new Keychain(merged);
  }

  /** The credential for a registry (`ghcr.io`, `127.0.0.1:5000`), if any. */
  for(registry: string): RegistryCredential | undefined {
    return this.byHost.get(registryKey(registry));
  }

  get size(): number {
    return this.byHost.size;
  }
}

function credentialOf(entry: Readonly<Record<string, JsonValue>>): Result<RegistryCredential | undefined> {
  const str = (k: string): string | undefined =>
    typeof entry[k] === "string" && entry[k] !== "" ? entry[k] : undefined;
  const auth = str("auth");
  let username = str("username");
  let password = str("password");
  if (auth !== undefined) {
    const decoded = Buffer.from(auth, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon < 0) return err("registry-credentials", "`auth` is not base64 of user:password");
    username = decoded.slice(0, colon);
    password = decoded.slice(colon + 1);
  }
  const identityToken = str("identitytoken");
  const registryToken = str("registrytoken");
  if (username === undefined && password === undefined && identityToken === undefined && registryToken === undefined)
    return ok(undefined);
  return ok({
    ...(username !== undefined ? { username } : {}),
    ...(password !== undefined ? { password } : {}),
    ...(identityToken !== undefined ? { identityToken } : {}),
    ...(registryToken !== undefined ? { registryToken } : {}),
  });
}
