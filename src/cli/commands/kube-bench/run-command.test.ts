import { test } from "node:test";
import assert from "node:assert/strict";
import { runCommand } from "./run-command.js";

const limits = { timeoutMs: 10_000, maxBytes: 1024 };
const sh = (script: string) => ["sh", "-c", script];

test("the command's stdout; the command is executed directly, its arguments not read by a shell", async () => {
  assert.deepEqual(await runCommand(["printf", "%s", '{"a":1} $HOME'], limits), {
    ok: true,
    stdout: '{"a":1} $HOME',
  });
});

test("a non-zero exit quotes the end of stderr", async () => {
  const r = await runCommand(sh("echo boom >&2; exit 4"), limits);
  assert.deepEqual(r, { ok: false, error: `"sh -c echo boom >&2; exit 4" exited with code 4; its stderr ends: boom` });
});

test("a command that is not there cannot start", async () => {
  const r = await runCommand(["/nonexistent/kube-bench", "run"], limits);
  assert.match(r.ok ? "" : r.error, /"\/nonexistent\/kube-bench run" could not start: .*ENOENT/);
});

test("too much output, too much time, or a stop request kills the command", async () => {
  const big = await runCommand(["head", "-c", "5000", "/dev/zero"], limits);
  assert.match(big.ok ? "" : big.error, /wrote more than 1024 bytes/);
  const slow = await runCommand(["sleep", "30"], { ...limits, timeoutMs: 200 });
  assert.match(slow.ok ? "" : slow.error, /still running after 0.2s/);
  const stop = new AbortController();
  const stopped = runCommand(["sleep", "30"], { ...limits, signal: stop.signal });
  setTimeout(() => stop.abort(), 100);
  const r = await stopped;
  assert.match(r.ok ? "" : r.error, /Bylaw was asked to stop/);
});
