/**
 * Kubernetes' name validations (k8s.io/apimachinery util/validation and api/validation), with
 * their messages: DNS-1123 labels and subdomains, DNS-1035 labels, qualified names, label values.
 * Each returns the list of problems, empty when the value is valid.
 */

function regexError(msg: string, fmt: string, ...examples: string[]): string {
  let s = `${msg} (e.g. `;
  examples.forEach((e, i) => {
    if (i > 0) s += " or ";
    s += `'${e}', `;
  });
  return `${s}regex used for validation is '${fmt}')`;
}

const maxLen = (n: number): string => `must be no more than ${n} characters`;

const LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const LABEL_RE = new RegExp(`^${LABEL_FMT}$`);
const SUBDOMAIN_FMT = `${LABEL_FMT}(\\.${LABEL_FMT})*`;
const SUBDOMAIN_RE = new RegExp(`^${SUBDOMAIN_FMT}$`);
const DNS1035_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1035_RE = new RegExp(`^${DNS1035_FMT}$`);
const QNAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const QNAME_RE = new RegExp(`^${QNAME_FMT}$`);
const QNAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = `(${QNAME_FMT})?`;
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);

export function dns1123Label(s: string): string[] {
  const errs: string[] = [];
  if (s.length > 63) errs.push(maxLen(63));
  if (!LABEL_RE.test(s))
    errs.push(
      regexError(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
        LABEL_FMT,
        "my-name",
        "123-abc",
      ),
    );
  return errs;
}

export function dns1123Subdomain(s: string): string[] {
  const errs: string[] = [];
  if (s.length > 253) errs.push(maxLen(253));
  if (!SUBDOMAIN_RE.test(s))
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        SUBDOMAIN_FMT,
        "example.com",
      ),
    );
  return errs;
}

export function dns1035Label(s: string): string[] {
  const errs: string[] = [];
  if (s.length > 63) errs.push(maxLen(63));
  if (!DNS1035_RE.test(s))
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        DNS1035_FMT,
        "my-name",
        "abc-123",
      ),
    );
  return errs;
}

/** A name prefix (generateName): a trailing '-' is allowed, as Kubernetes masks it. */
export function asPrefix(validate: (s: string) => string[]): (s: string) => string[] {
  return (s) => validate(s.endsWith("-") ? `${s.slice(0, -1)}a` : s);
}

export function qualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split("/");
  let name: string;
  if (parts.length === 1) name = parts[0] ?? "";
  else if (parts.length === 2) {
    const prefix = parts[0] ?? "";
    name = parts[1] ?? "";
    if (prefix === "") errs.push("prefix part must be non-empty");
    else errs.push(...dns1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(QNAME_MSG, QNAME_FMT, "MyName", "my.name", "123-abc")} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name === "") errs.push("name part must be non-empty");
  else if (name.length > 63) errs.push(`name part ${maxLen(63)}`);
  if (!QNAME_RE.test(name)) errs.push(`name part ${regexError(QNAME_MSG, QNAME_FMT, "MyName", "my.name", "123-abc")}`);
  return errs;
}

export function labelValue(s: string): string[] {
  const errs: string[] = [];
  if (s.length > 63) errs.push(maxLen(63));
  if (!LABEL_VALUE_RE.test(s))
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE_FMT,
        "MyValue",
        "my_value",
        "12345",
      ),
    );
  return errs;
}
