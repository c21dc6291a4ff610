import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { renderJunit } from "./junit.js";
import { row } from "../../../test/support/result-rows.js";
import type { ResultRow } from "./types.js";

/** A strict-enough XML check: one root, tags nest and close, attributes quoted, only the five entities. */
function assertWellFormed(xml: string): void {
  const body = xml.replace(/^<\?xml [^?]*\?>\n/, "");
  const stack: string[] = [];
  let roots = 0;
  const tag = /<(\/?)([A-Za-z][\w.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/gy;
  let m: RegExpExecArray | null;
  let pos = 0;
  while (pos < body.length && (m = tag.exec(body)) !== null) {
    pos = tag.lastIndex;
    const [, close, name, attrs, selfClose, text] = m;
    if (text !== undefined) {
      assert.doesNotMatch(text, /&(?!(amp|lt|gt|quot|apos|#\d+);)/, `bad entity in ${JSON.stringify(text)}`);
      if (stack.length === 0) assert.match(text, /^\s*$/, "text outside the root");
      continue;
    }
    assert.doesNotMatch(attrs ?? "", /&(?!(amp|lt|gt|quot|apos|#\d+);)/);
    if (close) assert.equal(stack.pop(), name, `</${name}> closes the wrong element`);
    else if (!selfClose) {
      if (stack.length === 0) roots++;
      stack.push(name ?? "");
    } else if (stack.length === 0) roots++;
  }
  assert.equal(pos, body.length, `not XML at ${JSON.stringify(body.slice(pos, pos + 40))}`);
  assert.deepEqual(stack, []);
  assert.equal(roots, 1);
}

describe("renderJunit", () => {
  const rows = [
    row({ result: "pass" }),
    row({ result: "fail", resource: "Pod/shop/bad", message: `team "label" <required> & missing` }),
    row({ result: "skip", policy: "pss", rule: "restricted", message: "rule skipped due to PolicyException shop/ex" }),
    row({
      result: "error",
      policy: "pss",
      rule: "restricted",
      resource: "Pod/shop/bad",
      action: "-",
      message: "cannot evaluate\nsecond line",
    }),
    row({ result: "warn", policy: "latest", rule: "tag", action: "Audit", message: "tag latest" }),
  ];
  const xml = renderJunit(rows, "/repo");

  test("well-formed XML with escaped messages", () => {
    assertWellFormed(xml);
    assert.match(xml, /<failure message="team &quot;label&quot; &lt;required&gt; &amp; missing" type="Enforce">/);
    assert.match(
      xml,
      /<error message="cannot evaluate second line" type="error">cannot evaluate\nsecond line<\/error>/,
    );
  });

  test("totals on the root, and one testsuite per policy (sorted) with its own counts", () => {
    assert.match(xml, /<testsuites name="bylaw apply" tests="5" failures="1" errors="1" skipped="1">/);
    const suites = [
      ...xml.matchAll(/<testsuite name="([^"]+)" tests="(\d+)" failures="(\d+)" errors="(\d+)" skipped="(\d+)">/g),
    ].map((m) => m.slice(1).join(" "));
    assert.deepEqual(suites, ["latest 1 0 0 0", "pss 2 0 1 1", "require-team 2 1 0 0"]);
  });

  test("one testcase per rule and resource, named by rule and resource, with the manifest file and line", () => {
    assert.equal([...xml.matchAll(/<testcase /g)].length, 5);
    assert.match(
      xml,
      /<testcase name="check-team Pod\/shop\/bad" classname="require-team" file="manifests\/pods.yaml" line="1">/,
    );
    assert.match(
      xml,
      /<testcase name="restricted Pod\/shop\/web" classname="pss" [^>]*>\n {6}<skipped message="rule skipped due to PolicyException shop\/ex"\/>/,
    );
  });

  test("a warn passes, with its message in system-out", () => {
    assert.match(
      xml,
      /<testcase name="tag Pod\/shop\/web" classname="latest"[^>]*>\n {6}<system-out>warning: tag latest<\/system-out>/,
    );
  });

  test("characters XML cannot hold are dropped", () => {
    const out = renderJunit([row({ result: "fail", message: "bad\u0001byte" })], "/repo");
    assertWellFormed(out);
    assert.match(out, /message="badbyte"/);
  });

  test("the XML is pinned byte for byte", () => {
    const pinned = renderJunit(
      [
        ...rows,
        withoutOrigin(row({ result: "pass", policy: "ns/local", resource: "Pod/shop/no-origin" })),
        row({ result: "fail", resource: "Pod/shop/stdin", origin: { source: "<stdin>", line: 3 } }),
        row({ result: "fail", resource: "Pod/shop/no-line", origin: { source: "/repo/other.yaml" } }),
        row({ result: "warn", policy: "titled", info: { title: 'A "title"\nover lines' }, message: "tab\there" }),
      ],
      "/repo",
    );
    assert.equal(pinned, PINNED);
  });
});

function withoutOrigin(r: ResultRow): ResultRow {
  const copy = { ...r };
  delete copy.origin;
  return copy;
}

const PINNED = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="bylaw apply" tests="9" failures="3" errors="1" skipped="1">
  <testsuite name="latest" tests="1" failures="0" errors="0" skipped="0">
    <testcase name="tag Pod/shop/web" classname="latest" file="manifests/pods.yaml" line="1">
      <system-out>warning: tag latest</system-out>
    </testcase>
  </testsuite>
  <testsuite name="ns/local" tests="1" failures="0" errors="0" skipped="0">
    <testcase name="check-team Pod/shop/no-origin" classname="ns/local"/>
  </testsuite>
  <testsuite name="pss" tests="2" failures="0" errors="1" skipped="1">
    <testcase name="restricted Pod/shop/web" classname="pss" file="manifests/pods.yaml" line="1">
      <skipped message="rule skipped due to PolicyException shop/ex"/>
    </testcase>
    <testcase name="restricted Pod/shop/bad" classname="pss" file="manifests/pods.yaml" line="1">
      <error message="cannot evaluate second line" type="error">cannot evaluate
second line</error>
    </testcase>
  </testsuite>
  <testsuite name="require-team" tests="4" failures="3" errors="0" skipped="0">
    <testcase name="check-team Pod/shop/web" classname="require-team" file="manifests/pods.yaml" line="1"/>
    <testcase name="check-team Pod/shop/bad" classname="require-team" file="manifests/pods.yaml" line="1">
      <failure message="team &quot;label&quot; &lt;required&gt; &amp; missing" type="Enforce">team &quot;label&quot; &lt;required&gt; &amp; missing</failure>
    </testcase>
    <testcase name="check-team Pod/shop/stdin" classname="require-team">
      <failure message="validation error: team label required." type="Enforce">validation error: team label required.</failure>
    </testcase>
    <testcase name="check-team Pod/shop/no-line" classname="require-team" file="other.yaml">
      <failure message="validation error: team label required." type="Enforce">validation error: team label required.</failure>
    </testcase>
  </testsuite>
  <testsuite name="titled" tests="1" failures="0" errors="0" skipped="0">
    <properties><property name="title" value="A &quot;title&quot;&#10;over lines"/></properties>
    <testcase name="check-team Pod/shop/web" classname="titled" file="manifests/pods.yaml" line="1">
      <system-out>warning: tab	here</system-out>
    </testcase>
  </testsuite>
</testsuites>`;
