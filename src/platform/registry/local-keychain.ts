/**
 * The CLI's registry credentials with `--registry`: the local docker config, as Kyverno's CLI reads
 * it (`$DOCKER_CONFIG/config.json`, else `~/.docker/config.json`). A missing file means no credentials.
 */
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { ok, type Result } from "../../engine/index.js";
import { Keychain } from "./keychain.js";

export async function localKeychain(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<Result<Keychain>> {
  const dir =
    env["DOCKER_CONFIG"] !== undefined && env["DOCKER_CONFIG"] !== ""
      ? env["DOCKER_CONFIG"]
      : join(homedir(), ".docker");
  const file = join(dir, "config.json");
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return ok(Keychain.empty);
  }
  return Keychain.fromDockerConfigs([{ text, source: file }]);
}
