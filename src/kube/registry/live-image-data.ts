/**
 * Image data in `serve --cluster` (docs/adr/0015): an `imageRegistry` entry or CEL
 * `image.GetMetadata` is a network call, made once per review through the review's record (ADR
 * 0012: "pending" until the server has made it), by the registry client over the egress filter.
 * Credentials: the secrets of `--image-pull-secret` (Bylaw's namespace) and the entry's
 * `imageRegistryCredentials.secrets`: `name` in Bylaw's namespace, `namespace/name` elsewhere, for a
 * ClusterPolicy. A namespaced Policy may name only secrets of its own namespace (`ns/name`): it never
 * borrows Bylaw's. Cloud `providers` and `allowInsecureRegistry` are not run: an error says so.
 * verifyImages reads the same way: a reference's digest, and its cosign signatures.
 */
import { err, ok, type ImageDataRequest, type JsonValue, type Result } from "../../engine/index.js";
import { fetchFailed, imageDataOf, type RegistryClient } from "../../platform/registry/index.js";
import type { CallScopes } from "../review-calls.js";
import type { PullSecrets, SecretRef } from "./pull-secrets.js";

export interface LiveRegistry {
  readonly client: RegistryClient;
  readonly scopes: CallScopes;
  readonly secrets: PullSecrets;
  /** Bylaw's namespace: where a bare secret name is read. */
  readonly ownNamespace: string;
  /** `--image-pull-secret` names (Kyverno's `--imagePullSecrets`), in Bylaw's namespace. */
  readonly pullSecrets: readonly string[];
}

export function liveImageData(
  registry: LiveRegistry | undefined,
  reference: string,
  request: ImageDataRequest,
): Result<JsonValue> {
  const what = `failed to fetch image descriptor: ${reference}`;
  if (registry === undefined) return err("unavailable", "image registries are read only by bylaw serve --cluster");
  const refs = secretRefs(registry, request);
  if (!refs.ok) return err(refs.error.kind, fetchFailed(reference, refs.error.message));
  const record = registry.scopes.current();
  if (record === undefined)
    return err("unsupported", `${what}: image data is read only while Bylaw serves an admission review`);
  const key = JSON.stringify(["IMAGE", request.form, reference, refs.value, request.repository ?? ""]);
  return record.answer(key, what, async (signal) => {
    const keychain = await registry.secrets.keychain(refs.value);
    if (!keychain.ok) return err("context", fetchFailed(reference, keychain.error.message));
    if (request.form === "signatures" || request.form === "attestations") {
      const found = await registry.client.fetchSignatures(
        reference,
        request.repository,
        keychain.value,
        signal,
        request.form === "attestations" ? "att" : "sig",
      );
      if (!found.ok)
        return err(
          found.error.kind === "refused" ? "refused" : "context",
          `failed to fetch the ${request.form} of ${reference}: ${found.error.message}`,
        );
      return ok(found.value as unknown as JsonValue);
    }
    const fetched = await registry.client.fetchImage(reference, keychain.value, signal);
    if (!fetched.ok)
      return err(
        fetched.error.kind === "refused" ? "refused" : "context",
        fetchFailed(reference, fetched.error.message),
      );
    return ok(imageDataOf(fetched.value, request.form));
  });
}

/** The secrets to read for this entry, or why the entry may not use them. */
function secretRefs(registry: LiveRegistry, request: ImageDataRequest): Result<SecretRef[]> {
  const own = registry.ownNamespace;
  const refs: SecretRef[] = registry.pullSecrets.map((name) => ({ namespace: own, name }));
  const creds = request.credentials;
  if (creds === undefined) return ok(refs);
  const policyNamespace = request.caller?.policyNamespace ?? "";
  if (creds["allowInsecureRegistry"] === true)
    return err(
      "unsupported",
      "imageRegistryCredentials.allowInsecureRegistry (TLS verification off) is not supported by Bylaw",
    );
  const providers = Array.isArray(creds["providers"]) ? creds["providers"] : [];
  const cloud = providers.filter((p) => p !== "default");
  if (cloud.length > 0)
    return err(
      "unsupported",
      `imageRegistryCredentials.providers ${cloud.map(String).join(", ")} (cloud keychains) are not supported by Bylaw; use secrets`,
    );
  for (const s of Array.isArray(creds["secrets"]) ? creds["secrets"] : []) {
    if (typeof s !== "string" || s === "") continue;
    const [ns, name] = s.includes("/") ? [s.slice(0, s.indexOf("/")), s.slice(s.indexOf("/") + 1)] : [own, s];
    if (policyNamespace !== "" && ns !== policyNamespace) {
      return err(
        "refused",
        `a namespaced Policy (namespace "${policyNamespace}") may use only pull secrets of its own namespace, as "${policyNamespace}/<name>" (got ${JSON.stringify(s)})`,
      );
    }
    if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(ns) || !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(name))
      return err("refused", `${JSON.stringify(s)} is not a secret name (name or namespace/name)`);
    refs.push({ namespace: ns, name });
  }
  return ok(refs);
}
