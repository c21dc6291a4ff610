import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { isObject, type JsonObject, type JsonValue, textOf } from "../../../api/json.js";
import { JmesPathError } from "../../types.js";
import { call } from "../../../../../test/support/fake-function-context.js";
import { DOCS_CERT, EC_CERT, RSA_CSR } from "../../../../../test/support/x509-pems.js";
import { x509Functions } from "./x509.js";

function decode(pem: string): JsonObject {
  const v = call(x509Functions, "x509_decode", [pem]);
  if (!isObject(v)) throw new Error("expected an object");
  return v;
}

const CN_NAME = {
  CommonName: "*.kyverno.svc",
  Country: null,
  ExtraNames: null,
  Locality: null,
  Names: [{ Type: [2, 5, 4, 3], Value: "*.kyverno.svc" }],
  Organization: null,
  OrganizationalUnit: null,
  PostalCode: null,
  Province: null,
  SerialNumber: "",
  StreetAddress: null,
};

/** Fields exactly as the kyverno.io docs show them for this certificate. */
const DOCS_FIELDS: Record<string, JsonValue> = {
  AuthorityKeyId: null,
  BasicConstraintsValid: true,
  CRLDistributionPoints: null,
  DNSNames: null,
  EmailAddresses: null,
  ExcludedDNSDomains: null,
  ExcludedEmailAddresses: null,
  ExcludedIPRanges: null,
  ExcludedURIDomains: null,
  ExtKeyUsage: null,
  Extensions: [
    { Critical: true, Id: [2, 5, 29, 15], Value: "AwICpA==" },
    { Critical: true, Id: [2, 5, 29, 19], Value: "MAMBAf8=" },
    { Critical: false, Id: [2, 5, 29, 14], Value: "BBSWivt1n53+61ZGAczAi0mleejTKg==" },
  ],
  ExtraExtensions: null,
  IPAddresses: null,
  IsCA: true,
  Issuer: CN_NAME,
  IssuingCertificateURL: null,
  KeyUsage: 37,
  MaxPathLen: -1,
  MaxPathLenZero: false,
  NotAfter: "2023-10-10T12:46:32Z",
  NotBefore: "2022-10-10T11:46:32Z",
  OCSPServer: null,
  PermittedDNSDomains: null,
  PermittedDNSDomainsCritical: false,
  PermittedEmailAddresses: null,
  PermittedIPRanges: null,
  PermittedURIDomains: null,
  PolicyIdentifiers: null,
  PublicKeyAlgorithm: 1,
  RawIssuer: "MBgxFjAUBgNVBAMMDSoua3l2ZXJuby5zdmM=",
  RawSubject: "MBgxFjAUBgNVBAMMDSoua3l2ZXJuby5zdmM=",
  SerialNumber: 0,
  SignatureAlgorithm: 4,
  Subject: CN_NAME,
  SubjectKeyId: "lor7dZ+d/utWRgHMwItJpXno0yo=",
  URIs: null,
  UnhandledCriticalExtensions: null,
  UnknownExtKeyUsage: null,
  Version: 3,
};

describe("x509_decode", () => {
  test("decodes the kyverno.io example certificate field for field", () => {
    const cert = decode(DOCS_CERT);
    for (const [field, want] of Object.entries(DOCS_FIELDS)) assert.deepEqual(cert[field], want, field);
    assert.deepEqual(cert["PublicKey"], {
      E: 65537,
      N: "28595925905962223424520947352207105451744616797088171943239289907331901888529856098458304611629660120574607501039902142361333982065793213267074854658525100799280158707840279479550961169213763526857247298653141711003931642606662052674943191476488665842309583311097351331994267413776792462637192775240062778036062353517979538994974045127175206597906751521558536719043095219698535279694800624795673809356898452438518041024126624051887044932164506019573725987204208750674129677584956156611454245004918943771571492757639432459688931855526941886354880727024912384140238027697348634609952850513122734230521040730560514233467",
    });
    assert.ok(textOf(cert["Raw"]).startsWith("MIIC7TCCAdWgAwIBAgIBADANBgkq"));
    assert.ok(textOf(cert["Signature"]).startsWith("2Oxem/rfQV+9PfCchpOs3k9/TKC3"));
    assert.ok(textOf(cert["RawSubjectPublicKeyInfo"]).startsWith("MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA4oX7"));
  });

  test("accepts text around the PEM block", () => {
    assert.equal(decode(`some preamble\n${DOCS_CERT}\ntrailing`)["SerialNumber"], 0);
  });

  test("decodes an RSA certificate request", () => {
    const csr = decode(RSA_CSR);
    assert.equal(csr["Version"], 0);
    assert.equal(csr["SignatureAlgorithm"], 4);
    assert.equal(csr["PublicKeyAlgorithm"], 1);
    assert.deepEqual(csr["DNSNames"], ["foo.example"]);
    assert.deepEqual(csr["IPAddresses"], ["10.1.2.3"]);
    assert.deepEqual(csr["EmailAddresses"], ["a@b.c"]);
    assert.equal(csr["URIs"], null);
    const subject = csr["Subject"];
    assert.ok(isObject(subject));
    assert.equal(subject["CommonName"], "csr.example");
    assert.deepEqual(subject["Country"], ["US"]);
    assert.deepEqual(subject["Organization"], ["Acme"]);
    assert.deepEqual(csr["PublicKey"], {
      E: 65537,
      N: "128402152928209609515248283592228035962098792386788622908225426115897808681203141104007982679383584272288312469478590891384281208445211301310147476140412922937470773606799041523919810892097603291880699907080137571521970852175440914886257100258703130237158733515195812117883691878252428262625678037952428656991",
    });
    const extensions = csr["Extensions"];
    assert.ok(Array.isArray(extensions));
    assert.deepEqual((extensions[0] as JsonObject)["Id"], [2, 5, 29, 17]);
  });

  const errors: ReadonlyArray<readonly [string, string]> = [
    ["not a pem", "failed to decode PEM block"],
    [EC_CERT, "certificate should use rsa algorithm"],
    [
      "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n",
      "PEM block neither contains a CERTIFICATE or CERTIFICATE REQUEST",
    ],
    ["-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", "x509: malformed certificate"],
  ];
  for (const [pem, message] of errors) {
    test(`fails: ${message}`, () => {
      assert.throws(
        () => decode(pem),
        (e: unknown) => e instanceof JmesPathError && e.message === message,
      );
    });
  }
});
