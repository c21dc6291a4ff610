/**
 * Kubernetes' format library (k8s.io/apiserver/pkg/cel/library/format.go): `format.named(name)`,
 * `format.<name>()` and `<Format>.validate(s)`, which is optional.none() for a valid string and
 * otherwise the list of problems, in Kubernetes' words.
 */
import { Optional } from "@marcbachmann/cel-js";
import { base64Decode } from "../../jmespath/functions/kyverno/base64.js";
import { utf8Encode } from "../../jmespath/functions/kyverno/go-text.js";
import { namespace, type CelFunction, type CelLibrary } from "../library.js";
import {
  asPrefix,
  dns1035Label,
  dns1123Label,
  dns1123Subdomain,
  labelValue,
  qualifiedName,
} from "./name-validation.js";
import { parseUrl } from "./url.js";

const TYPE = "kubernetes.NamedFormat";
const NS = "bylaw.FormatNamespace";

class CelFormat {
  constructor(
    readonly name: string,
    readonly check: (s: string) => string[],
  ) {}
}

const UUID = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32})$/i;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function validDate(s: string): boolean {
  const m = DATE.exec(s);
  if (m === null) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  const days =
    [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1] ??
    0;
  return d <= days;
}

function validDatetime(s: string): boolean {
  const m = DATETIME.exec(s);
  return m !== null && validDate(m[1] ?? "") && Number(m[2]) < 24 && Number(m[3]) < 60 && Number(m[4]) < 60;
}

function uri(s: string): string[] {
  try {
    parseUrl(s);
    return [];
  } catch (e) {
    return [String((e as Error).message).replace(/^URL parse error during conversion from string: /, "")];
  }
}

const FORMATS: Readonly<Record<string, CelFormat>> = {
  dns1123Label: new CelFormat("DNS1123Label", dns1123Label),
  dns1123Subdomain: new CelFormat("DNS1123Subdomain", dns1123Subdomain),
  dns1035Label: new CelFormat("DNS1035Label", dns1035Label),
  qualifiedName: new CelFormat("QualifiedName", qualifiedName),
  dns1123LabelPrefix: new CelFormat("DNS1123LabelPrefix", asPrefix(dns1123Label)),
  dns1123SubdomainPrefix: new CelFormat("DNS1123SubdomainPrefix", asPrefix(dns1123Subdomain)),
  dns1035LabelPrefix: new CelFormat("DNS1035LabelPrefix", asPrefix(dns1035Label)),
  labelValue: new CelFormat("LabelValue", labelValue),
  uri: new CelFormat("URI", uri),
  uuid: new CelFormat("uuid", (s) => (UUID.test(s) ? [] : ["does not match the UUID format"])),
  byte: new CelFormat("byte", (s) => (typeof base64Decode(utf8Encode(s)) === "string" ? ["invalid base64"] : [])),
  date: new CelFormat("date", (s) => (validDate(s) ? [] : ["invalid date"])),
  datetime: new CelFormat("datetime", (s) => (validDatetime(s) ? [] : ["invalid datetime"])),
};

export function namedFormatLibrary(): CelLibrary {
  const each: CelFunction[] = Object.entries(FORMATS).map(([name, f]) => ({
    signature: `${NS}.${name}(): ${TYPE}`,
    handler: () => f,
  }));
  const ns = namespace("format", NS);
  return {
    name: "k8s.Format",
    types: [{ name: TYPE, ctor: CelFormat }, ...(ns.types ?? [])],
    constants: ns.constants ?? [],
    functions: [
      ...each,
      {
        signature: `${NS}.named(string): optional<${TYPE}>`,
        handler: (_: unknown, name: string) =>
          Object.hasOwn(FORMATS, name) ? Optional.of(FORMATS[name]) : Optional.none(),
      },
      {
        signature: `${TYPE}.validate(string): optional<list<string>>`,
        handler: (f: CelFormat, s: string) => {
          const problems = f.check(s);
          return problems.length === 0 ? Optional.none() : Optional.of(problems);
        },
      },
    ],
  };
}
