import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { run } from "../../../../test/support/cel-run.js";
import { textOf } from "../../api/json.js";

const check = (cases: readonly (readonly [string, unknown])[]): void => {
  for (const [expr, want] of cases) assert.deepEqual(run(expr), want, expr);
};

describe("ext.Strings v2", () => {
  test("charAt, replace, format, strings.quote", () => {
    check([
      ["'héllo'.charAt(1)", "é"],
      ["'abc'.charAt(3)", ""],
      ["'a-b-c'.replace('-', '+')", "a+b+c"],
      ["'a-b-c'.replace('-', '+', 1)", "a+b-c"],
      ["'%s has %d items at %.2f'.format(['cart', 3, 1.5])", "cart has 3 items at 1.50"],
      ["'%x %X %o %b %%'.format([255, 255, 8, 5])", "ff FF 10 101 %"],
      ["'%s'.format([[1, 'a']])", '[1, "a"]'],
      ['strings.quote("a\\"b\\n")', '"a\\"b\\n"'],
    ]);
    assert.match(textOf(run("'abc'.charAt(4)")), /^eval: index out of range: 4/);
    assert.match(textOf(run("'%d'.format(['x'])")), /^eval: error during formatting: integer clause/);
  });
  test("cel-js's own string functions stay: indexOf, lowerAscii, split, substring, trim, join", () => {
    check([
      ["'abcb'.lastIndexOf('b')", 3],
      ["'AbC'.lowerAscii() + 'x'.upperAscii()", "abcX"],
      ["'a,b'.split(',')", ["a", "b"]],
      ["'hello'.substring(1, 3)", "el"],
      ["'  x '.trim()", "x"],
      ["['a', 'b'].join('-')", "a-b"],
    ]);
  });
});

describe("lists: ext.Lists v3 and Kubernetes' lists", () => {
  test("slice, flatten, distinct, reverse, sort, first, last, lists.range", () => {
    check([
      ["[1, 2, 3, 4].slice(1, 3)", [2, 3]],
      ["[[1], [2, [3]]].flatten()", [1, 2, [3]]],
      ["[[1], [2, [3]]].flatten(2)", [1, 2, 3]],
      ["[1, 2, 1, 3].distinct()", [1, 2, 3]],
      ["[1, 2, 3].reverse()", [3, 2, 1]],
      ["['b', 'a'].sort()", ["a", "b"]],
      ["[4, 5].first().value() + [4, 5].last().value()", 9],
      ["[].first().hasValue()", false],
      ["lists.range(3)", [0, 1, 2]],
    ]);
    assert.match(textOf(run("[1].slice(0, 2)")), /^eval: cannot slice\(0, 2\), list is length 1/);
  });
  test("isSorted, sum, min, max, indexOf, lastIndexOf", () => {
    check([
      ["[1, 2, 2].isSorted()", true],
      ["[2, 1].isSorted()", false],
      ["[1, 2, 3].sum()", 6],
      ["[1.5, 2.5].sum()", 4],
      ["[3, 1, 2].min()", 1],
      ["['a', 'c', 'b'].max()", "c"],
      ["[1, 2, 1].indexOf(1)", 0],
      ["[1, 2, 1].lastIndexOf(1)", 2],
      ["[1, 2].indexOf(5)", -1],
    ]);
    assert.match(textOf(run("[].min()")), /^eval: min called on an empty list/);
  });
});

describe("ext.Sets", () => {
  test("contains, equivalent, intersects, with numeric equality across types", () => {
    check([
      ["sets.contains([1, 2, 3], [3, 1])", true],
      ["sets.contains([1, 2], [4])", false],
      ["sets.equivalent([1, 2, 2], [2, 1])", true],
      ["sets.equivalent([1], [1, 2])", false],
      ["sets.intersects([1, 2], [2, 5])", true],
      ["sets.intersects([1], [5])", false],
      ["sets.contains([dyn(1)], [dyn(1.0)])", true],
    ]);
  });
});

describe("ext.Math", () => {
  test("greatest, least, rounding, abs, sign, NaN/Inf, sqrt", () => {
    check([
      ["math.greatest(1, 5, 3)", 5],
      ["math.least([4, 2, 9])", 2],
      ["math.greatest(1)", 1],
      ["math.ceil(1.2)", 2],
      ["math.floor(-1.2)", -2],
      ["math.round(-1.5)", -2],
      ["math.round(2.5)", 3],
      ["math.trunc(-1.7)", -1],
      ["math.abs(-3)", 3],
      ["math.abs(-2.5)", 2.5],
      ["math.sign(-7)", -1],
      ["math.isNaN(0.0 / 0.0)", true],
      ["math.isInf(1.0 / 0.0)", true],
      ["math.isFinite(1.0)", true],
      ["math.sqrt(16)", 4],
    ]);
    assert.match(textOf(run("math.abs(-9223372036854775807 - 1)")), /^eval: integer overflow/);
  });
  test("bit operations", () => {
    check([
      ["math.bitAnd(6, 3)", 2],
      ["math.bitOr(6, 3)", 7],
      ["math.bitXor(6, 3)", 5],
      ["math.bitNot(0)", -1],
      ["math.bitShiftLeft(1, 4)", 16],
      ["math.bitShiftRight(16, 2)", 4],
      ["math.bitAnd(6u, 3u) == 2u", true],
    ]);
  });
});

describe("ext.Encoders", () => {
  test("base64.encode and base64.decode (padded or not)", () => {
    check([
      ["base64.encode(b'hello')", "aGVsbG8="],
      ["string(base64.decode('aGVsbG8='))", "hello"],
      ["string(base64.decode('aGVsbG8'))", "hello"],
    ]);
    assert.match(textOf(run("base64.decode('*')")), /^eval: illegal base64 data/);
  });
});

describe("regex: RE2 find/findAll and ext.Regex v1", () => {
  test("find and findAll", () => {
    check([
      ["'abc 123 def 456'.find('[0-9]+')", "123"],
      ["'abc'.find('[0-9]+')", ""],
      ["'a1b22c333'.findAll('[0-9]+')", ["1", "22", "333"]],
      ["'a1b22c333'.findAll('[0-9]+', 2)", ["1", "22"]],
    ]);
    assert.match(textOf(run("'a'.find('(')")), /^eval: error parsing regexp/);
  });
  test("regex.replace, regex.extract, regex.extractAll", () => {
    check([
      ["regex.replace('abcabc', 'b', 'X')", "aXcaXc"],
      ["regex.replace('abcabc', 'b', 'X', 1)", "aXcabc"],
      ["regex.replace('key=value', '(\\\\w+)=(\\\\w+)', '\\\\2=\\\\1')", "value=key"],
      ["regex.extract('id: 42', '[0-9]+').value()", "42"],
      ["regex.extract('id: 42', 'id: ([0-9]+)').value()", "42"],
      ["regex.extract('none', '[0-9]+').hasValue()", false],
      ["regex.extractAll('a1 b2', '[a-z]([0-9])')", ["1", "2"]],
    ]);
    assert.match(textOf(run("regex.extract('ab', '(a)(b)')")), /more than one capturing group/);
  });
});

describe("Kubernetes quantity", () => {
  test("quantity, isQuantity and the Quantity methods", () => {
    check([
      ["quantity('1Gi').isGreaterThan(quantity('1000Mi'))", true],
      ["quantity('500m').isLessThan(quantity('1'))", true],
      ["quantity('1k').compareTo(quantity('1000'))", 0],
      ["isQuantity('2Gi')", true],
      ["isQuantity('2 Gi')", false],
      ["quantity('1.5').isInteger()", false],
      ["quantity('2k').asInteger()", 2000],
      ["quantity('1500m').asApproximateFloat()", 1.5],
      ["quantity('-3').sign()", -1],
      ["quantity('1Gi').add(quantity('1Gi')).compareTo(quantity('2Gi'))", 0],
      ["quantity('1').add(2).asInteger()", 3],
      ["quantity('5').sub(quantity('500m')).asApproximateFloat()", 4.5],
      ["quantity('5').sub(1).asInteger()", 4],
      ["quantity('1k') == quantity('1000')", true],
      ["quantity('1k') != quantity('1Ki')", true],
    ]);
    assert.match(textOf(run("quantity('x')")), /^eval: quantities must match the regular expression/);
    assert.match(textOf(run("quantity('1.5').asInteger()")), /^eval: cannot convert value to integer/);
  });
});

describe("Kubernetes URLs", () => {
  test("url, isURL and the getters", () => {
    check([
      ["url('https://user@example.com:8443/a%20b/c?x=1&x=2&y').getScheme()", "https"],
      ["url('https://user@example.com:8443/a%20b/c?x=1&x=2&y').getHost()", "example.com:8443"],
      ["url('https://example.com:8443/p').getHostname()", "example.com"],
      ["url('https://example.com:8443/p').getPort()", "8443"],
      ["url('https://example.com/p').getPort()", ""],
      ["url('https://[::1]:80/p').getHostname()", "::1"],
      ["url('https://[::1]/p').getHost()", "[::1]"],
      ["url('https://example.com/a%20b/c').getEscapedPath()", "/a%20b/c"],
      ["url('https://example.com/p?x=1&x=2&y=a+b').getQuery()", { x: ["1", "2"], y: ["a b"] }],
      ["url('/api/v1?watch=true').getQuery()['watch']", ["true"]],
      ["string(url('https://example.com'))", "https://example.com"],
      ["url('/a') == url('/a') && url('/a') != url('/b')", true],
      ["isURL('https://example.com/x')", true],
      ["isURL('/relative/path')", true],
      ["isURL('example.com')", false],
      ["isURL('mailto:someone')", false],
      ["isURL('https://example.com:port/')", false],
    ]);
    assert.match(textOf(run("url('nope')")), /^eval: URL parse error during conversion from string/);
  });
});

describe("Kubernetes IP and CIDR", () => {
  test("ip, isIP, ip.isCanonical and the IP methods", () => {
    check([
      ["ip('10.0.0.1').family()", 4],
      ["ip('2001:db8::1').family()", 6],
      ["string(ip('2001:0DB8:0:0:0:0:0:1'))", "2001:db8::1"],
      ["string(ip('1:0:0:1:0:0:0:1'))", "1:0:0:1::1"],
      ["ip.isCanonical('2001:db8::1')", true],
      ["ip.isCanonical('2001:DB8::1')", false],
      ["isIP('1.2.3.4')", true],
      ["isIP('1.2.3')", false],
      ["isIP('01.2.3.4')", false],
      ["isIP('::ffff:1.2.3.4')", false],
      ["isIP('fe80::1%eth0')", false],
      ["ip('127.0.0.1').isLoopback() && ip('::1').isLoopback()", true],
      ["ip('0.0.0.0').isUnspecified() && ip('::').isUnspecified()", true],
      ["ip('169.254.1.1').isLinkLocalUnicast() && ip('fe80::1').isLinkLocalUnicast()", true],
      ["ip('224.0.0.5').isLinkLocalMulticast() && ip('ff02::1').isLinkLocalMulticast()", true],
      ["ip('8.8.8.8').isGlobalUnicast()", true],
      ["ip('255.255.255.255').isGlobalUnicast()", false],
      ["ip('192.168.1.1').isGlobalUnicast()", true],
      ["ip('::1') == ip('0:0::1')", true],
      ["ip('::1') != ip('::2')", true],
      ["type(ip('::1')) == type(ip('1.2.3.4'))", true],
    ]);
    assert.match(textOf(run("ip('::ffff:1.2.3.4')")), /IPv4-mapped IPv6 address is not allowed/);
  });
  test("cidr, isCIDR and the CIDR methods", () => {
    check([
      ["cidr('10.0.0.0/8').containsIP(ip('10.1.2.3'))", true],
      ["cidr('10.0.0.0/8').containsIP('11.0.0.1')", false],
      ["cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')", true],
      ["cidr('10.1.0.0/16').containsCIDR(cidr('10.0.0.0/8'))", false],
      ["cidr('2001:db8::/32').containsIP('2001:db8:1::1')", true],
      ["cidr('10.0.0.0/8').containsIP('2001:db8::1')", false],
      ["string(cidr('10.1.2.3/8').ip())", "10.1.2.3"],
      ["string(cidr('10.1.2.3/8').masked())", "10.0.0.0/8"],
      ["cidr('10.1.2.3/20').prefixLength()", 20],
      ["isCIDR('10.0.0.0/33')", false],
      ["isCIDR('10.0.0.0')", false],
      ["isCIDR('2001:db8::/64')", true],
      ["cidr('10.0.0.0/8') == cidr('10.0.0.0/8') && cidr('10.0.0.0/8') != cidr('10.0.0.0/9')", true],
    ]);
    assert.match(textOf(run("cidr('x/8')")), /^eval: network address parse error/);
  });
});

describe("Kubernetes semver (v1)", () => {
  test("semver, isSemver and the Semver methods", () => {
    check([
      ["semver('1.2.3').major() + semver('1.2.3').minor() + semver('1.2.3').patch()", 6],
      ["semver('1.2.3').isLessThan(semver('1.10.0'))", true],
      ["semver('1.0.0-alpha').isLessThan(semver('1.0.0'))", true],
      ["semver('1.0.0-alpha.2').isLessThan(semver('1.0.0-alpha.10'))", true],
      ["semver('1.0.0-alpha').isLessThan(semver('1.0.0-alpha.1'))", true],
      ["semver('1.0.0-1').isLessThan(semver('1.0.0-alpha'))", true],
      ["semver('2.0.0+build').compareTo(semver('2.0.0'))", 0],
      ["semver('3.0.0').isGreaterThan(semver('2.9.9'))", true],
      ["isSemver('1.2.3')", true],
      ["isSemver('v1.2')", false],
      ["isSemver('v1.2', true)", true],
      ["semver('v01.2', true).minor()", 2],
      ["isSemver('1.02.3')", false],
      ["semver('1.0.0+a') == semver('1.0.0+b')", true],
    ]);
    assert.match(textOf(run("semver('1.2')")), /^eval: could not parse semver/);
  });
});

describe("Kubernetes format", () => {
  test("format.<name>().validate and format.named, with Kubernetes' messages", () => {
    check([
      ["format.dns1123Label().validate('my-name').hasValue()", false],
      [
        "format.dns1123Label().validate('My_Name').value()",
        [
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        ],
      ],
      ["format.dns1123Subdomain().validate('apiextensions.k8s.io').hasValue()", false],
      [
        "format.dns1123Subdomain().validate('-x').value()",
        [
          "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        ],
      ],
      ["format.dns1035Label().validate('1abc').hasValue()", true],
      ["format.dns1123LabelPrefix().validate('my-prefix-').hasValue()", false],
      ["format.dns1123Label().validate('my-prefix-').hasValue()", true],
      ["format.qualifiedName().validate('example.com/MyName').hasValue()", false],
      ["format.qualifiedName().validate('a/b/c').value().size()", 1],
      ["format.qualifiedName().validate('/x').value()[0]", "prefix part must be non-empty"],
      ["format.labelValue().validate('').hasValue()", false],
      ["format.labelValue().validate('-x').hasValue()", true],
      ["format.uri().validate('https://example.com/x').hasValue()", false],
      ["format.uri().validate('example.com').hasValue()", true],
      ["format.uuid().validate('123e4567-e89b-12d3-a456-426614174000').hasValue()", false],
      ["format.uuid().validate('nope').value()", ["does not match the UUID format"]],
      ["format.byte().validate('aGVsbG8=').hasValue()", false],
      ["format.byte().validate('*').value()", ["invalid base64"]],
      ["format.date().validate('2024-02-29').hasValue()", false],
      ["format.date().validate('2023-02-29').value()", ["invalid date"]],
      ["format.datetime().validate('2021-01-01T00:00:00Z').hasValue()", false],
      ["format.datetime().validate('2021-01-01').value()", ["invalid datetime"]],
      ["format.named('labelValue').hasValue() && !format.named('nope').hasValue()", true],
      ["format.named('dns1123Label').value().validate('ok').hasValue()", false],
      ["'%s-%d'.format(['still', 1])", "still-1"],
    ]);
    assert.deepEqual(run("format.dns1123Label().validate(object.name).value()", { name: "x".repeat(64) }), [
      "must be no more than 63 characters",
    ]);
  });
});
