/**
 * Reading `kube-bench run --json` output (monitoring.md §1): an object {Controls, Totals}, or with
 * --nototals the bare array of controls. Only the fields Bylaw pushes are read; the ones older
 * kube-bench versions leave out (detected_version, reason, the totals) are optional. A wrong shape
 * is an error naming the file and the field, e.g. `result.json: Controls[0].tests[1].results[2].status: …`.
 */
import type { Result } from "../../../engine/index.js";

export interface KubeBenchCheck {
  readonly testNumber: string;
  readonly testDesc: string;
  readonly audit: string;
  readonly type: string;
  readonly remediation: string;
  readonly status: string;
  readonly actualValue: string;
  readonly expectedResult: string;
  readonly scored: boolean;
  readonly reason: string;
}

export interface KubeBenchGroup {
  readonly section: string;
  readonly desc: string;
  readonly results: readonly KubeBenchCheck[];
}

export interface KubeBenchControls {
  readonly id: string;
  readonly version: string;
  readonly text: string;
  readonly nodeType: string;
  readonly totals: Readonly<Record<"PASS" | "FAIL" | "WARN" | "INFO", number>>;
  readonly tests: readonly KubeBenchGroup[];
}

type Json = Readonly<Record<string, unknown>>;
type Fail = { ok: false; error: string };

class ShapeError extends Error {}

const describe = (v: unknown): string =>
  v === null
    ? "null"
    : Array.isArray(v)
      ? "an array"
      : typeof v === "object"
        ? "an object"
        : `${typeof v} ${JSON.stringify(v)}`;

function object(v: unknown, path: string): Json {
  if (typeof v !== "object" || v === null || Array.isArray(v))
    throw new ShapeError(`${path}: expected an object, found ${describe(v)}`);
  return v as Json;
}

function array(v: unknown, path: string): readonly unknown[] {
  if (!Array.isArray(v)) throw new ShapeError(`${path}: expected an array, found ${describe(v)}`);
  return v;
}

function field<T>(
  o: Json,
  path: string,
  spec: { key: string; type: "string" | "boolean" | "number"; fallback?: T },
): T {
  const v = o[spec.key];
  if (v === undefined && spec.fallback !== undefined) return spec.fallback;
  if (typeof v !== spec.type)
    throw new ShapeError(
      `${path}.${spec.key}: expected a ${spec.type}, found ${v === undefined ? "nothing" : describe(v)}`,
    );
  return v as T;
}

const str = (o: Json, path: string, key: string, fallback?: string): string =>
  field<string>(o, path, fallback === undefined ? { key, type: "string" } : { key, type: "string", fallback });

function check(v: unknown, path: string): KubeBenchCheck {
  const o = object(v, path);
  return {
    testNumber: str(o, path, "test_number"),
    testDesc: str(o, path, "test_desc"),
    audit: str(o, path, "audit", ""),
    type: str(o, path, "type", ""),
    remediation: str(o, path, "remediation", ""),
    status: str(o, path, "status"),
    actualValue: str(o, path, "actual_value", ""),
    expectedResult: str(o, path, "expected_result", ""),
    scored: field<boolean>(o, path, { key: "scored", type: "boolean", fallback: false }),
    reason: str(o, path, "reason", ""),
  };
}

function group(v: unknown, path: string): KubeBenchGroup {
  const o = object(v, path);
  return {
    section: str(o, path, "section"),
    desc: str(o, path, "desc", ""),
    results: array(o["results"] ?? [], `${path}.results`).map((r, i) => check(r, `${path}.results[${i}]`)),
  };
}

function controls(v: unknown, path: string): KubeBenchControls {
  const o = object(v, path);
  const total = (key: string): number => field<number>(o, path, { key, type: "number", fallback: 0 });
  return {
    id: str(o, path, "id"),
    version: str(o, path, "version"),
    text: str(o, path, "text", ""),
    nodeType: str(o, path, "node_type"),
    totals: {
      PASS: total("total_pass"),
      FAIL: total("total_fail"),
      WARN: total("total_warn"),
      INFO: total("total_info"),
    },
    tests: array(o["tests"], `${path}.tests`).map((g, i) => group(g, `${path}.tests[${i}]`)),
  };
}

function controlsList(doc: unknown): readonly KubeBenchControls[] {
  if (Array.isArray(doc)) return doc.map((c, i) => controls(c, `[${i}]`));
  if (typeof doc === "object" && doc !== null && "Controls" in doc)
    return array((doc as Json)["Controls"], "Controls").map((c, i) => controls(c, `Controls[${i}]`));
  const found =
    typeof doc === "object" && doc !== null
      ? `an object with keys ${Object.keys(doc).join(", ") || "(none)"}`
      : describe(doc);
  throw new ShapeError(
    `expected kube-bench's --json output: an object with "Controls" (and "Totals"), or the array --nototals writes; found ${found}`,
  );
}

/** The controls of one kube-bench JSON document; `source` (a file name) starts every error. */
export function readKubeBenchJson(text: string, source: string): Result<readonly KubeBenchControls[], string> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `${source}: not JSON (${(e as Error).message}); kube-bench writes it with run --json` };
  }
  try {
    return { ok: true, value: controlsList(doc) };
  } catch (e) {
    if (e instanceof ShapeError) return { ok: false, error: `${source}: ${e.message}` } satisfies Fail;
    throw e;
  }
}
