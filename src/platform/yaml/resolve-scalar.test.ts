import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { resolvePlain, resolveTagged } from "./resolve-scalar.js";

const value = (text: string): unknown => resolvePlain(text).value;

describe("resolvePlain (go-yaml v2 / YAML 1.1 rules)", () => {
  it("reads every boolean spelling go-yaml v2 accepts", () => {
    for (const t of ["y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"])
      assert.equal(value(t), true, t);
    for (const f of ["n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"])
      assert.equal(value(f), false, f);
  });

  it("keeps other spellings as strings", () => {
    for (const s of ["tRUE", "yEs", "oN", "nO", "Nope", "yess", "t", "f"]) assert.equal(value(s), s);
  });

  it("reads nulls", () => {
    for (const n of ["", "~", "null", "Null", "NULL"]) assert.equal(value(n), null, JSON.stringify(n));
    assert.equal(value("nULL"), "nULL");
  });

  it("reads decimal, octal, hex and binary ints with optional sign and underscores", () => {
    assert.equal(value("42"), 42);
    assert.equal(value("-17"), -17);
    assert.equal(value("+5"), 5);
    assert.equal(value("0"), 0);
    assert.equal(value("0777"), 511);
    assert.equal(value("0o17"), 15);
    assert.equal(value("0x1F"), 31);
    assert.equal(value("-0x1f"), -31);
    assert.equal(value("0b101"), 5);
    // go-yaml v2 (so kubectl) parses what follows "0b" as a signed base-2 int
    assert.equal(value("0b-101"), -5);
    assert.equal(value("0b+1_01"), 5);
    assert.deepEqual(resolvePlain("0B-101"), { kind: "str", value: "0B-101" });
    assert.deepEqual(resolvePlain("-0b-101"), { kind: "str", value: "-0b-101" });
    assert.equal(value("1_000_000"), 1000000);
    assert.deepEqual(resolvePlain("0777"), { kind: "int", value: 511, text: "511" });
  });

  it("reads floats, including go-yaml's exponent-without-dot form", () => {
    assert.equal(value("1.5"), 1.5);
    assert.equal(value("-.5"), -0.5);
    assert.equal(value(".5"), 0.5);
    assert.equal(value("1e3"), 1000);
    assert.equal(value("1."), 1);
    assert.equal(value("08"), 8);
    assert.equal(resolvePlain("08").kind, "float");
    assert.equal(value(".inf"), Infinity);
    assert.equal(value("-.Inf"), -Infinity);
    assert.ok(Number.isNaN(value(".NaN")));
  });

  it("keeps timestamps, versions and other near-numbers as strings", () => {
    for (const s of [
      "2024-01-01",
      "2001-12-14t21:59:43.10-05:00",
      "2001-12-14 21:59:43.10",
      "1.2.3",
      "v1",
      "0x",
      "1e400",
      "-",
      "12:30",
      "0x1p3",
      "1_0.5x",
    ]) {
      assert.equal(value(s), s);
    }
  });

  it("turns ints beyond int64 into unsigned or float values like Go", () => {
    assert.equal(resolvePlain("18446744073709551615").kind, "uint");
    assert.equal(resolvePlain("-9223372036854775809").kind, "float");
    assert.equal(resolvePlain("0xFFFFFFFFFFFFFFFFFF").kind, "str");
  });
});

describe("resolveTagged", () => {
  it("!!str keeps the text, whatever it looks like", () => {
    assert.deepEqual(resolveTagged("yes", "tag:yaml.org,2002:str"), {
      ok: true,
      scalar: { kind: "str", value: "yes" },
    });
  });

  it("!!int and !!float resolve quoted text and refuse other kinds", () => {
    assert.deepEqual(resolveTagged("12", "tag:yaml.org,2002:int"), {
      ok: true,
      scalar: { kind: "int", value: 12, text: "12" },
    });
    assert.deepEqual(resolveTagged("3", "tag:yaml.org,2002:float"), { ok: true, scalar: { kind: "float", value: 3 } });
    assert.deepEqual(resolveTagged("abc", "tag:yaml.org,2002:int"), {
      ok: false,
      message: "cannot decode !!str `abc` as a !!int",
    });
  });

  it("!!binary decodes base64 and rejects bad data", () => {
    assert.deepEqual(resolveTagged("aGVsbG8=", "tag:yaml.org,2002:binary"), {
      ok: true,
      scalar: { kind: "str", value: "hello" },
    });
    assert.equal(resolveTagged("not base64!", "tag:yaml.org,2002:binary").ok, false);
  });

  it("!!null accepts only null spellings", () => {
    assert.deepEqual(resolveTagged("~", "tag:yaml.org,2002:null"), { ok: true, scalar: { kind: "null", value: null } });
    assert.equal(resolveTagged("abc", "tag:yaml.org,2002:null").ok, false);
  });

  it("unknown and local tags leave the text as a string", () => {
    assert.deepEqual(resolveTagged("12", "!custom"), { ok: true, scalar: { kind: "str", value: "12" } });
  });

  it("!!timestamp accepts dates and refuses the rest", () => {
    assert.equal(resolveTagged("2024-01-31", "tag:yaml.org,2002:timestamp").ok, true);
    assert.equal(resolveTagged("2024-13-01", "tag:yaml.org,2002:timestamp").ok, false);
  });
});
