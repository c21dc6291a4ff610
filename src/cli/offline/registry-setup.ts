/**
 * `--registry` for `bylaw apply` and `bylaw test` (Kyverno's flag): registry access with the local
 * docker config's credentials. Without the flag there is none, and an imageRegistry entry is an
 * error naming the flag.
 */
import { err, ok, type Result } from "../../engine/index.js";
import { httpTransport, localKeychain, RegistryAccess, RegistryClient } from "../../platform/registry/index.js";

export async function cliRegistryAccess(enabled: boolean): Promise<Result<RegistryAccess | undefined>> {
  if (!enabled) return ok(undefined);
  const keychain = await localKeychain();
  if (!keychain.ok) return err(keychain.error.kind, `--registry: ${keychain.error.message}`);
  return ok(new RegistryAccess(new RegistryClient({ transport: httpTransport() }), keychain.value));
}
