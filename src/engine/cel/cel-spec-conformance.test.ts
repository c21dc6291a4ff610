/**
 * The cel-spec conformance data (@bufbuild/cel-spec, cel-spec's simple tests) for every feature
 * the environment enables. Each listed section runs; a section or test Bylaw's environment does
 * not enable is in SKIPPED with the reason. Set CEL_SPEC_REPORT=1 to print every failure.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { tests as conformance } from "@bufbuild/cel-spec/testdata/conformance.js";
import { UnsignedInt } from "@marcbachmann/cel-js/evaluator";
import { createCel } from "./create-cel.js";
import { celEqual } from "./libraries/equal.js";
import type { CelVariableDecl } from "./types.js";
import { defaultLibraries } from "./libraries/index.js";
import type { CelLibrary } from "./library.js";

/* Reading cel-spec's protobuf-JSON test values into cel-js values. */
type ProtoValue = Readonly<Record<string, unknown>>;

let libs: CelLibrary[] | undefined;
function cachedLibraries(): CelLibrary[] {
  libs ??= defaultLibraries();
  return libs;
}

function bytes(b64: string): Uint8Array {
  return new Uint8Array(Buffer.from(b64, "base64"));
}

function double(v: unknown): number {
  if (v === "NaN") return NaN;
  if (v === "Infinity") return Infinity;
  if (v === "-Infinity") return -Infinity;
  return Number(v);
}

function fromProtoValue(v: ProtoValue): unknown {
  if ("int64Value" in v) return BigInt(String(v["int64Value"]));
  if ("uint64Value" in v) return new UnsignedInt(BigInt(String(v["uint64Value"])));
  if ("doubleValue" in v) return double(v["doubleValue"]);
  if ("stringValue" in v) return String(v["stringValue"]);
  if ("boolValue" in v) return v["boolValue"] === true;
  if ("nullValue" in v) return null;
  if ("bytesValue" in v) return bytes(String(v["bytesValue"]));
  if ("typeValue" in v) return { typeName: String(v["typeValue"]) };
  if ("listValue" in v) {
    const values = (v["listValue"] as { values?: ProtoValue[] }).values ?? [];
    return values.map(fromProtoValue);
  }
  if ("mapValue" in v) {
    const entries = (v["mapValue"] as { entries?: { key: ProtoValue; value: ProtoValue }[] }).entries ?? [];
    const out: Record<string, unknown> = {};
    for (const e of entries) out[String(fromProtoValue(e.key))] = fromProtoValue(e.value);
    return out;
  }
  return undefined;
}

const PRIMITIVES: Readonly<Record<string, string>> = {
  INT64: "int",
  UINT64: "uint",
  DOUBLE: "double",
  STRING: "string",
  BOOL: "bool",
  BYTES: "bytes",
};

function protoType(t: Record<string, unknown> | undefined): string {
  if (t === undefined) return "dyn";
  if (typeof t["primitive"] === "string") return PRIMITIVES[t["primitive"]] ?? "dyn";
  if (t["listType"] !== undefined)
    return `list<${protoType((t["listType"] as { elemType?: Record<string, unknown> }).elemType)}>`;
  if (t["mapType"] !== undefined) {
    const m = t["mapType"] as { keyType?: Record<string, unknown>; valueType?: Record<string, unknown> };
    return `map<${protoType(m.keyType)}, ${protoType(m.valueType)}>`;
  }
  if (t["messageType"] === "google.protobuf.Duration") return "google.protobuf.Duration";
  if (t["messageType"] === "google.protobuf.Timestamp") return "google.protobuf.Timestamp";
  return "dyn";
}

interface SpecTest {
  readonly name: string;
  readonly expr: string;
  readonly value?: ProtoValue;
  readonly evalError?: unknown;
  readonly typeEnv?: readonly { name: string; ident?: { type?: Record<string, unknown> } }[];
  readonly bindings?: Record<string, { value?: ProtoValue }>;
  readonly disableCheck?: boolean;
  readonly checkOnly?: boolean;
  readonly container?: string;
  readonly typedResult?: unknown;
}
interface Suite {
  readonly name: string;
  readonly suites?: readonly Suite[];
  readonly tests?: readonly { original: SpecTest }[];
}

/** Sections (and `section/subsection`) the environment does not enable, with the reason. */
const SKIPPED: Readonly<Record<string, string>> = {
  block_ext: "cel.@block is an internal optimiser form, not in Kyverno's environment",
  dynamic: "protobuf messages and wrapper types: Kubernetes objects are JSON",
  enums: "protobuf enums",
  proto2: "protobuf messages",
  proto2_ext: "protobuf extensions",
  proto3: "protobuf messages",
  wrappers: "protobuf wrapper types",
  type_deductions: "checker-only tests over protobuf message types",
  unknowns: "partial evaluation is not used",
  macros2: "two-variable comprehensions (ext.TwoVarComprehensions) are not in Kyverno's environment",
  "comparisons/eq_wrapper": "protobuf wrapper types",
  "fields/qualified_identifier_resolution": "protobuf containers and message fields",
  "conversions/identity": "protobuf message identity",
  "namespace/namespace": "protobuf containers",
  "namespace/qualified": "protobuf containers",
  "string_ext/format":
    "cel-go's full %s rendering of protobuf and timestamp values; the common verbs are tested in libraries.test.ts",
  "string_ext/format_errors": "cel-go's exact formatting error texts",
  "string_ext/type_errors": "checker-disabled calls with wrong argument types",
  "string_ext/value_errors": "checker-disabled calls with wrong argument types",
  "timestamps/timestamp_selectors_tz": "named time zones (cel-js has UTC and fixed offsets only)",
};

/**
 * Tests in enabled sections where cel-js 8.0.0 differs from cel-go, each group with its reason
 * (ADR 0010 lists them). A trailing `*` matches a prefix. A difference fixed in Bylaw or cel-js
 * makes its test pass and must then leave this list (the test fails on a stale entry).
 */
const KNOWN_DIFFERENCES: readonly { readonly reason: string; readonly tests: readonly string[] }[] = [
  {
    reason:
      "bytes: cel-js encodes non-ASCII characters in bytes literals as Latin-1, has no bytes ordering and no raw bytes literals (br'')",
    tests: [
      "basic/self_eval_nonzeroish/self_eval_bytes_escape",
      "comparisons/eq_literal/eq_bytes",
      "comparisons/ne_literal/not_ne_bytes",
      "comparisons/lt_literal/*bytes*",
      "comparisons/gt_literal/*bytes*",
      "comparisons/lte_literal/*bytes*",
      "comparisons/gte_literal/*bytes*",
      "comparisons/bound/bytes_gt_left_false",
      "parse/bytes_literals/*raw*",
      "conversions/string/bytes_invalid",
    ],
  },
  {
    reason:
      "numbers: heterogeneous equality inside lists, maps and `in`, and int64/double edge cases (overflow on negation, int(1e99), comparisons near 2^63) are not cel-go's",
    tests: [
      "comparisons/eq_literal/eq_list_mixed_type_numbers",
      "comparisons/eq_literal/eq_map_mixed_type_numbers",
      "comparisons/lt_literal/not_lt_dyn_int_big_lossy_double",
      "comparisons/gt_literal/not_gt_dyn_big_double_int",
      "comparisons/lte_literal/lte_dyn_big_double_int",
      "comparisons/gte_literal/gte_dyn_int_big_lossy_double",
      "comparisons/gt_literal/not_gt_double",
      "conversions/int/double_*range",
      "conversions/uint/double_uint_max_range",
      "integer_math/int64_math/int64_min_negate",
      "integer_math/int64_math/int64_min_negate_div",
      "lists/index/zero_based_uint",
      "lists/in/uint_in_ints",
      "lists/in/uint_in_doubles",
      "lists/in/int_in_uints",
      "lists/in/double_in_uints",
    ],
  },
  {
    reason: "type values: cel-js names null's type `null`, not `null_type`, and has no `optional_type`",
    tests: ["conversions/type/null_type*", "optionals/optionals/type"],
  },
  {
    reason: "has() on a field of an optional (has(x.?y.z)) is not the optional's presence test",
    tests: ["optionals/optionals/optional_chaining_9", "optionals/optionals/map_optional_select_has"],
  },
  {
    reason: "backquoted field names (a.`b-c`, cel-go 0.23) do not parse",
    tests: ["fields/quoted_map_fields/*"],
  },
  {
    reason: "maps with non-string keys are objects keyed by strings in cel-js",
    tests: ["macros/exists_one/map_one"],
  },
  {
    reason: "a comprehension over an empty list literal fails to type-check in cel-js ('overlaps')",
    tests: ["macros/all/list_empty"],
  },
  {
    reason:
      "optionals: no optMap/optFlatMap macros, no optional entries in list and map literals ([?x], {?k: v}), no optional equality, and selection on a static empty map or optional.none() fails to check",
    tests: [
      "optionals/optionals/*optMap*",
      "optionals/optionals/*optFlatMap*",
      "optionals/optionals/optional_chaining_1[2-6]",
      "optionals/optionals/optional_chaining_5",
      "optionals/optionals/optional_eq_*",
      "optionals/optionals/optional_ne_*",
      "optionals/optionals/map_null_entry_no_such_key",
      "optionals/optionals/map_present_key_invalid_field",
      "optionals/optionals/map_undefined_entry_hasValue",
      "optionals/optionals/optional_none_opt*",
      "optionals/optionals/map_optional_entry_has",
    ],
  },
  {
    reason:
      "timestamps are JavaScript Dates: millisecond precision, no range errors, and duration + timestamp is not defined",
    tests: [
      "timestamps/timestamp_conversions/toString_timestamp_nanos",
      "timestamps/timestamp_arithmetic/add_time_to_duration",
      "timestamps/timestamp_arithmetic/add_time_to_duration_nanos_positive",
      "timestamps/timestamp_range/add_duration_*",
      "timestamps/timestamp_range/sub_time_duration_*",
      "timestamps/duration_range/*",
    ],
  },
];

function knownDifference(id: string): string | undefined {
  for (const group of KNOWN_DIFFERENCES) {
    for (const pattern of group.tests) {
      const re = new RegExp(`^${pattern.replaceAll(".", "\\.").replaceAll("*", ".*")}$`);
      if (re.test(id)) return group.reason;
    }
  }
  return undefined;
}

/** A test written for an unchecked run that the checker rejects: Kyverno always type-checks. */
const UNCHECKED = "unchecked";
/** A test about protobuf messages, containers or wrapper types: Kubernetes objects are JSON. */
const PROTOBUF = "protobuf";

function usesProtobuf(t: SpecTest): boolean {
  if (t.container !== undefined && t.container !== "") return true;
  if (/TestAllTypes|NestedTestAllTypes|google\.protobuf\.(?!Timestamp|Duration)|cel\.expr\./.test(t.expr)) return true;
  const values = [t.value, ...Object.values(t.bindings ?? {}).map((b) => b.value)];
  return values.some((v) => v !== undefined && ("objectValue" in v || "enumValue" in v));
}

const REPORT = process.env["CEL_SPEC_REPORT"] === "1";

function runTest(t: SpecTest): string | undefined {
  const variables: CelVariableDecl[] = (t.typeEnv ?? [])
    .filter((d) => d.ident !== undefined)
    .map((d) => ({ name: d.name, type: protoType(d.ident?.type) }));
  if (usesProtobuf(t)) return PROTOBUF;
  const cel = createCel({ variables, libraries: cachedLibraries() });
  const compiled = cel.compile(t.expr);
  const wantError = t.evalError !== undefined;
  if (!compiled.ok) {
    if (wantError) return undefined;
    return t.disableCheck ? UNCHECKED : `compile error: ${compiled.error.message}`;
  }
  if (t.checkOnly) return undefined;
  const activation: Record<string, unknown> = {};
  for (const [k, b] of Object.entries(t.bindings ?? {}))
    if (b.value !== undefined) activation[k] = fromProtoValue(b.value);
  const result = compiled.value.evaluate(activation);
  if (!result.ok) return wantError ? undefined : `eval error: ${result.error.message}`;
  if (wantError) return `expected an error, got ${String(result.value)}`;
  if (t.value === undefined) return undefined;
  const want = fromProtoValue(t.value);
  return sameValue(result.value, want) ? undefined : `got ${show(result.value)}, want ${show(want)}`;
}

function sameValue(got: unknown, want: unknown): boolean {
  if (typeof want === "bigint") return typeof got === "bigint" && got === want;
  if (want instanceof UnsignedInt) return got instanceof UnsignedInt && got.value === want.value;
  if (typeof want === "number") return typeof got === "number" && (Object.is(got, want) || got === want);
  if (typeof want === "object" && want !== null && "typeName" in want) {
    return (
      typeof got === "object" &&
      got !== null &&
      (got as { name?: unknown }).name === (want as { typeName: string }).typeName
    );
  }
  if (Array.isArray(want))
    return Array.isArray(got) && got.length === want.length && want.every((w, i) => sameValue(got[i], w));
  return celEqual(got, want);
}

function show(v: unknown): string {
  return typeof v === "bigint"
    ? `${v}n`
    : v instanceof UnsignedInt
      ? `${v.value}u`
      : (JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? `${x}n` : x)) ?? String(v));
}

function skipReason(path: string): string | undefined {
  const parts = path.split("/");
  for (let i = parts.length; i > 0; i--) {
    const reason = SKIPPED[parts.slice(0, i).join("/")];
    if (reason !== undefined) return reason;
  }
  return undefined;
}

describe("cel-spec conformance (enabled sections)", () => {
  for (const section of (conformance as Suite).suites ?? []) {
    test(section.name, (t) => {
      const failures: string[] = [];
      let ran = 0;
      const skipped = { [PROTOBUF]: 0, [UNCHECKED]: 0 };
      const stale: string[] = [];
      let known = 0;
      const walk = (s: Suite, path: string): void => {
        if (skipReason(path) !== undefined) return;
        for (const { original } of s.tests ?? []) {
          const id = `${path}/${original.name}`;
          const problem = runTest(original);
          if (knownDifference(id) !== undefined) {
            known++;
            if (problem === undefined) stale.push(id);
            continue;
          }
          if (problem === PROTOBUF || problem === UNCHECKED) {
            skipped[problem]++;
            continue;
          }
          ran++;
          if (problem !== undefined) failures.push(`${id}: ${original.expr} → ${problem}`);
        }
        for (const sub of s.suites ?? []) walk(sub, `${path}/${sub.name}`);
      };
      walk(section, section.name);
      if (REPORT) for (const f of failures) t.diagnostic(f);
      t.diagnostic(
        `${ran} ran, ${known} known differences; skipped ${skipped[PROTOBUF]} protobuf tests and ${skipped[UNCHECKED]} unchecked-only tests`,
      );
      if (ran === 0) t.skip(skipReason(section.name) ?? "no tests");
      assert.deepEqual(failures, [], `${failures.length} of ${ran} failed`);
      assert.deepEqual(stale, [], "these tests now pass: remove them from KNOWN_DIFFERENCES");
    });
  }
});
