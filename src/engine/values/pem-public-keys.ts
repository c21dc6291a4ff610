/**
 * The PEM public keys in one `publicKeys` string, as Kyverno's `ExpandStaticKeys` cuts them (for
 * verifyImages and validate.manifests attestors alike): each block up to and including its
 * `-----END PUBLIC KEY-----`, trimmed, with a final newline. Text after the last block is dropped.
 */
const PEM_PUBLIC_KEY_END = "-----END PUBLIC KEY-----";

export function pemPublicKeys(text: string): string[] {
  return text
    .split(PEM_PUBLIC_KEY_END)
    .slice(0, -1)
    .map((k) => `${k.trim()}\n${PEM_PUBLIC_KEY_END}\n`);
}
