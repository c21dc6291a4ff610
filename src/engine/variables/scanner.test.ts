import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { escapeVariables, goTrimSpace, scanVariables, unescapeVariables } from "./scanner.js";
import { compileTemplate } from "./template.js";

describe("scanVariables finds variables with Kyverno's regex semantics", () => {
  const cases: { text: string; found: [string, boolean][] }[] = [
    { text: "plain text", found: [] },
    { text: "{{ request.object.metadata.name }}", found: [["request.object.metadata.name", false]] },
    { text: "{{request.namespace}}", found: [["request.namespace", false]] },
    {
      text: "a {{ x }} b {{ y }}",
      found: [
        ["x", false],
        ["y", false],
      ],
    },
    // single-brace groups are allowed inside: JMESPath multi-select hashes
    {
      text: "{{ {name: metadata.name, ns: metadata.namespace} }}",
      found: [["{name: metadata.name, ns: metadata.namespace}", false]],
    },
    { text: "{{ items(@, 'k', 'v')[?v == `{}`] }}", found: [["items(@, 'k', 'v')[?v == `{}`]", false]] },
    // nested: only the innermost is found in the first pass
    { text: "{{ cm.data.{{ request.object.metadata.name }} }}", found: [["request.object.metadata.name", false]] },
    // escaped variables are not found
    { text: "\\{{ request.object.metadata.name }}", found: [] },
    { text: "x \\{{ a }} {{ b }}", found: [["b", false]] },
    // touching variables: the character before the second one was consumed by the first
    { text: "{{a}}{{b}}", found: [["a", false]] },
    {
      text: "{{a}}-{{b}}",
      found: [
        ["a", false],
        ["b", false],
      ],
    },
    // shallow substitution marker
    { text: "{{- hcl }}", found: [["hcl", true]] },
    { text: "x{{-hcl}}", found: [["hcl", true]] },
    // spaces are trimmed; an empty variable is still a variable
    { text: "{{ \t a \n }}", found: [["a", false]] },
    { text: "{{}}", found: [["", false]] },
    // unbalanced braces are not variables
    { text: "{{ a", found: [] },
    { text: "{ a }", found: [] },
  ];
  for (const c of cases) {
    test(JSON.stringify(c.text), () => {
      assert.deepEqual(
        scanVariables(c.text).map((m) => [m.expression, m.shallow]),
        c.found,
      );
    });
  }

  test("reports the position of the braces, not of the consumed preceding character", () => {
    const [m] = scanVariables("ab{{ x }}c");
    assert.deepEqual(m && { start: m.start, end: m.end, text: m.text }, { start: 2, end: 9, text: "{{ x }}" });
  });
});

describe("escapes", () => {
  test("unescapeVariables removes the backslash of well-formed escaped variables only", () => {
    assert.equal(unescapeVariables("\\{{ a }} and \\{{ b }}"), "{{ a }} and {{ b }}");
    assert.equal(unescapeVariables("\\{{ unbalanced"), "\\{{ unbalanced");
    assert.equal(unescapeVariables("no escapes"), "no escapes");
  });

  test("escapeVariables marks every {{ so no later pass expands it", () => {
    const escaped = escapeVariables("a {{ b }} {{ c }}");
    assert.equal(escaped, "a \\{{ b }} \\{{ c }}");
    assert.deepEqual(scanVariables(escaped), []);
    assert.equal(unescapeVariables(escaped), "a {{ b }} {{ c }}");
  });

  test("goTrimSpace trims Go's white space (NEL yes, BOM no)", () => {
    assert.equal(goTrimSpace("\u0085 a \u00a0"), "a");
    assert.equal(goTrimSpace("\ufeffa"), "\ufeffa");
  });
});

describe("compileTemplate", () => {
  test("marks strings that need no work as literal", () => {
    assert.equal(compileTemplate("just text").literal, true);
    assert.equal(compileTemplate("\\{{ x }}").literal, false);
    assert.equal(compileTemplate("{{ x }}").literal, false);
    assert.equal(compileTemplate("{{ x }}").matches.length, 1);
  });
});
