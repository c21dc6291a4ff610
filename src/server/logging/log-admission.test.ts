/** The admission log line: one JSON line per review with the fields an operator searches by. */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { AdmissionOutcome } from "../types.js";
import { createLogger, isLogLevel } from "./create-logger.js";
import { logAdmission } from "./log-admission.js";
import { capture } from "../../../test/support/log-capture.js";

const outcome = (o: Partial<AdmissionOutcome> = {}): AdmissionOutcome => ({
  uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
  webhook: "validate",
  kind: "Pod",
  namespace: "default",
  name: "nginx",
  operation: "CREATE",
  allowed: false,
  dryRun: false,
  durationSeconds: 0.0012345,
  warnings: 2,
  ...o,
});

test("one JSON line with uid, kind, namespace/name, operation, decision, duration, patch ops and warnings", () => {
  const out = capture();
  logAdmission(createLogger({ destination: out }), outcome());
  assert.equal(out.lines.length, 1);
  assert.ok(out.lines[0]?.endsWith("\n"));
  const { time, pid, hostname, ...rest } = out.records()[0] ?? {};
  assert.equal(typeof time, "string");
  assert.ok(typeof pid === "number" && typeof hostname === "string");
  assert.deepEqual(rest, {
    level: "info",
    msg: "admission review",
    uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
    webhook: "validate",
    kind: "Pod",
    namespace: "default",
    name: "nginx",
    operation: "CREATE",
    decision: "denied",
    dryRun: false,
    durationMs: 1.235,
    patchOps: 0,
    warnings: 2,
  });
});

test("an allowed mutation logs its patch operation count; extra fields are added but cannot replace the outcome's", () => {
  const out = capture();
  logAdmission(createLogger({ destination: out }), outcome({ webhook: "mutate", allowed: true, patchOps: 3 }), {
    policies: ["add-labels"],
    decision: "forged",
  });
  const r = out.records()[0] ?? {};
  assert.equal(r["decision"], "allowed");
  assert.equal(r["patchOps"], 3);
  assert.deepEqual(r["policies"], ["add-labels"]);
});

test("below the logger's level nothing is written", () => {
  const out = capture();
  logAdmission(createLogger({ level: "warn", destination: out }), outcome());
  assert.deepEqual(out.lines, []);
});

test("an unknown level is refused with the list of levels", () => {
  assert.equal(isLogLevel("debug"), true);
  assert.equal(isLogLevel("verbose"), false);
  assert.throws(
    () => createLogger({ level: "verbose", destination: capture() }),
    /unknown log level "verbose": use one of fatal, error, warn, info, debug, trace, silent/,
  );
});
