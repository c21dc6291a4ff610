import { test, describe, beforeEach, afterEach } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile, mkdir, symlink, rename } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { EngineError } from "../../engine/index.js";
import { selfSignedCertificate } from "./self-signed.js";
import type { TlsPair } from "./types.js";
import { watchTls } from "./watch-tls.js";
import type { TlsWatch } from "./watch-tls.js";

const a = selfSignedCertificate({ dnsNames: ["a.svc"], now: new Date() });
const b = selfSignedCertificate({ dnsNames: ["b.svc"], now: new Date() });

/** Collects callbacks and lets a test wait for the next one. */
function recorder() {
  const changes: TlsPair[] = [];
  const errors: EngineError[] = [];
  let wake: (() => void) | undefined;
  const poke = () => wake?.();
  return {
    changes,
    errors,
    onChange: (t: TlsPair) => (changes.push(t), poke()),
    onError: (e: EngineError) => (errors.push(e), poke()),
    async until(done: () => boolean, timeoutMs = 4000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!done()) {
        if (Date.now() > deadline)
          throw new Error(`timed out; changes=${changes.length} errors=${errors.map((e) => e.kind).join()}`);
        await Promise.race([new Promise<void>((r) => (wake = r)), sleep(50)]);
      }
    },
  };
}

async function writeAtomically(path: string, text: string): Promise<void> {
  await writeFile(`${path}.tmp`, text);
  await rename(`${path}.tmp`, path);
}

describe("watchTls", () => {
  let dir = "";
  let watcher: TlsWatch | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "bylaw-tlswatch-"));
  });
  afterEach(async () => {
    watcher?.close();
    await rm(dir, { recursive: true, force: true });
  });

  test("plain files: a new pair is delivered once; a bad pair is reported and not delivered", async () => {
    const cert = join(dir, "tls.crt");
    const key = join(dir, "tls.key");
    await writeFile(cert, a.cert);
    await writeFile(key, a.key);
    const r = recorder();
    watcher = watchTls(cert, key, r.onChange, r.onError, { debounceMs: 50 });
    await sleep(100);

    await writeAtomically(key, b.key); // cert a, key b: a mismatch
    await r.until(() => r.errors.length > 0);
    assert.equal(r.errors[0]?.kind, "tls-key-mismatch");
    assert.equal(r.changes.length, 0);

    await writeAtomically(cert, b.cert);
    await r.until(() => r.changes.length > 0);
    assert.deepEqual(r.changes, [{ cert: b.cert, key: b.key }]);

    await writeFile(join(dir, "unrelated.txt"), "x"); // same pair on disk: no new delivery
    await sleep(300);
    assert.equal(r.changes.length, 1);
  });

  test("a Kubernetes Secret volume update (..data symlink swap) is picked up", async () => {
    await mkdir(join(dir, "..2025_01_01_00_00_00.1"));
    await writeFile(join(dir, "..2025_01_01_00_00_00.1", "tls.crt"), a.cert);
    await writeFile(join(dir, "..2025_01_01_00_00_00.1", "tls.key"), a.key);
    await symlink("..2025_01_01_00_00_00.1", join(dir, "..data"));
    await symlink("..data/tls.crt", join(dir, "tls.crt"));
    await symlink("..data/tls.key", join(dir, "tls.key"));
    const r = recorder();
    watcher = watchTls(join(dir, "tls.crt"), join(dir, "tls.key"), r.onChange, r.onError, { debounceMs: 50 });
    await sleep(100);

    // What the kubelet's atomic writer does: new timestamped dir, new symlink, rename over ..data.
    await mkdir(join(dir, "..2025_01_02_00_00_00.2"));
    await writeFile(join(dir, "..2025_01_02_00_00_00.2", "tls.crt"), b.cert);
    await writeFile(join(dir, "..2025_01_02_00_00_00.2", "tls.key"), b.key);
    await symlink("..2025_01_02_00_00_00.2", join(dir, "..data_tmp"));
    await rename(join(dir, "..data_tmp"), join(dir, "..data"));
    await rm(join(dir, "..2025_01_01_00_00_00.1"), { recursive: true });

    await r.until(() => r.changes.length > 0);
    assert.deepEqual(r.changes, [{ cert: b.cert, key: b.key }]);
    assert.deepEqual(r.errors, []);
  });

  test("after close() nothing is delivered", async () => {
    const cert = join(dir, "tls.crt");
    const key = join(dir, "tls.key");
    await writeFile(cert, a.cert);
    await writeFile(key, a.key);
    const r = recorder();
    watcher = watchTls(cert, key, r.onChange, r.onError, { debounceMs: 50 });
    await sleep(100);
    watcher.close();
    await writeAtomically(cert, b.cert);
    await writeAtomically(key, b.key);
    await sleep(300);
    assert.deepEqual(r.changes, []);
    assert.deepEqual(r.errors, []);
  });

  test("a directory that cannot be watched is reported, not thrown", () => {
    const r = recorder();
    watcher = watchTls(join(dir, "missing", "tls.crt"), join(dir, "missing", "tls.key"), r.onChange, r.onError);
    assert.equal(r.errors[0]?.kind, "tls-watch");
  });
});
