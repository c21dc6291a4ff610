import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { countAttributes, countCases, renderJunitXml, type JunitCase } from "./junit-xml.js";
import { xmlAttr, xmlEscape } from "./xml.js";

const cases: JunitCase[] = [
  { attributes: [["name", "ok"]] },
  { attributes: [["name", "bad"]], outcome: { kind: "failure", attributes: [["message", "a\nb"]], text: "<why>" } },
  {
    attributes: [
      ["name", "gone"],
      ["line", undefined],
    ],
    outcome: { kind: "skipped" },
  },
];

describe("renderJunitXml", () => {
  test("nested: each outcome on its own line, attribute line breaks as references, undefined attributes left out", () => {
    const xml = renderJunitXml(
      {
        attributes: countAttributes(countCases(cases)),
        suites: [{ attributes: [["name", "s"]], properties: [["k", "v"]], cases }],
      },
      { attributeText: xmlAttr, outcome: "nested" },
    );
    assert.equal(
      xml,
      [
        `<?xml version="1.0" encoding="UTF-8"?>`,
        `<testsuites tests="3" failures="1" errors="0" skipped="1">`,
        `  <testsuite name="s">`,
        `    <properties><property name="k" value="v"/></properties>`,
        `    <testcase name="ok"/>`,
        `    <testcase name="bad">`,
        `      <failure message="a&#10;b">&lt;why&gt;</failure>`,
        `    </testcase>`,
        `    <testcase name="gone">`,
        `      <skipped/>`,
        `    </testcase>`,
        `  </testsuite>`,
        `</testsuites>`,
      ].join("\n"),
    );
  });

  test("inline: the outcome on the testcase's line", () => {
    const xml = renderJunitXml(
      { attributes: [], suites: [{ attributes: [], cases }] },
      { attributeText: xmlEscape, outcome: "inline" },
    );
    assert.match(xml, /\n {4}<testcase name="bad"><failure message="a\nb">&lt;why&gt;<\/failure><\/testcase>\n/);
    assert.match(xml, /\n {4}<testcase name="gone"><skipped\/><\/testcase>\n/);
    assert.doesNotMatch(xml, /<properties>/);
  });
});
