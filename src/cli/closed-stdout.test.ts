/** `bylaw … | head`: a closed stdout ends the run quietly with 141, as a command ended by SIGPIPE. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { EventEmitter } from "node:events";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tempTree } from "../../test/support/temp-dir.js";
import { CLOSED_PIPE_EXIT, stopQuietlyWhenStdoutCloses } from "./closed-stdout.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));

test("EPIPE exits 141; any other stdout error is still thrown", () => {
  const stdout = new EventEmitter();
  const exits: number[] = [];
  stopQuietlyWhenStdoutCloses(stdout, (code) => exits.push(code));
  stdout.emit("error", Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
  assert.deepEqual(exits, [CLOSED_PIPE_EXIT]);
  assert.throws(() => stdout.emit("error", Object.assign(new Error("boom"), { code: "EIO" })), /boom/);
});

test("bylaw apply with stdout closed after the first line prints no stack trace and exits 141", async () => {
  const pods = Array.from(
    { length: 2000 },
    (_, i) =>
      `apiVersion: v1\nkind: Pod\nmetadata: {name: p${i}, namespace: a}\nspec: {containers: [{name: c, image: nginx}]}`,
  ).join("\n---\n");
  const dir = tempTree({ "pods.yaml": pods });
  const child = spawn(
    process.execPath,
    [
      join(root, "bin", "bylaw.js"),
      "apply",
      join(root, "examples", "policies"),
      "-r",
      join(dir, "pods.yaml"),
      "--detailed-results",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  // As head does: read the first chunk, then close the pipe.
  child.stdout.once("data", () => child.stdout.destroy());
  const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
  assert.equal(stderr, "");
  assert.equal(code, CLOSED_PIPE_EXIT);
});
