/**
 * Registry access for the synchronous engine, offline (`bylaw apply|test --registry`), by record
 * and re-run as the webhook does (docs/adr/0012, 0015): the engine asks for an image; an image
 * fetched before answers at once, a new one is recorded and answers "pending" (a rule error no
 * default replaces). The caller then `settle()`s (fetches what was recorded) and evaluates again
 * (`withRegistryPasses`). Each image is fetched at most once per run.
 */
import { err, type ImageSignatures, ok, type JsonValue, type Result } from "../../engine/index.js";
import { fetchFailed, imageDataOf, type ImageDataForm } from "./image-data.js";
import type { Keychain } from "./keychain.js";
import type { FetchedImage, RegistryClient } from "./registry-client.js";

/** Passes of one run at most: each pass can only add images, and a chain deeper than this is not real. */
type SignatureForm = "signatures" | "attestations";

export const MAX_REGISTRY_PASSES = 8;
const IN_PARALLEL = 4;

export interface ImageDataSource {
  /** `repository`: for forms "signatures" and "attestations", the repository holding them (the image's own when absent). */
  imageData(reference: string, form: ImageDataForm | SignatureForm, repository?: string): Result<JsonValue>;
}

export class RegistryAccess implements ImageDataSource {
  private readonly answers = new Map<string, Result<FetchedImage>>();
  private readonly waiting = new Set<string>();
  /** Signatures and attestations by image, signature repository and form. */
  private readonly signatures = new Map<string, Result<ImageSignatures>>();
  private readonly waitingSignatures = new Map<
    string,
    { readonly reference: string; readonly repository: string | undefined; readonly form: SignatureForm }
  >();

  constructor(
    private readonly client: RegistryClient,
    private readonly keychain: Keychain,
  ) {}

  imageData(reference: string, form: ImageDataForm | SignatureForm, repository?: string): Result<JsonValue> {
    if (form === "signatures" || form === "attestations") return this.signaturesOf(reference, repository, form);
    const known = this.answers.get(reference);
    if (known !== undefined)
      return known.ok
        ? ok(imageDataOf(known.value, form))
        : err("context", fetchFailed(reference, known.error.message));
    this.waiting.add(reference);
    return err("pending", `image ${reference}: not fetched from its registry yet`);
  }

  private signaturesOf(reference: string, repository: string | undefined, form: SignatureForm): Result<JsonValue> {
    const key = JSON.stringify([reference, repository ?? "", form]);
    const known = this.signatures.get(key);
    if (known !== undefined)
      return known.ok
        ? ok(known.value as unknown as JsonValue)
        : err("context", `failed to fetch the ${form} of ${reference}: ${known.error.message}`);
    this.waitingSignatures.set(key, { reference, repository, form });
    return err("pending", `the ${form} of image ${reference}: not fetched from the registry yet`);
  }

  /** Images (and signatures) recorded and not fetched yet. */
  get pending(): number {
    return this.waiting.size + this.waitingSignatures.size;
  }

  /** Fetches the recorded images (a few at a time) and keeps the answers. */
  async settle(): Promise<void> {
    const todo: (() => Promise<void>)[] = [];
    for (const reference of this.waiting)
      todo.push(async () => void this.answers.set(reference, await this.client.fetchImage(reference, this.keychain)));
    for (const [key, s] of this.waitingSignatures)
      todo.push(
        async () =>
          void this.signatures.set(
            key,
            await this.client.fetchSignatures(
              s.reference,
              s.repository,
              this.keychain,
              undefined,
              s.form === "attestations" ? "att" : "sig",
            ),
          ),
      );
    this.waiting.clear();
    this.waitingSignatures.clear();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < todo.length) await (todo[next++] as () => Promise<void>)();
    };
    await Promise.all(Array.from({ length: Math.min(IN_PARALLEL, todo.length) }, worker));
  }
}

/**
 * Runs `evaluate` until it asks for no image it has not been given: after a pass that recorded
 * images, they are fetched and the pass is run again. The last pass's answer is the answer.
 */
export async function withRegistryPasses<T>(
  access: RegistryAccess | undefined,
  evaluate: () => T | Promise<T>,
): Promise<T> {
  for (let pass = 1; ; pass++) {
    const answer = await evaluate();
    if (access === undefined || access.pending === 0 || pass >= MAX_REGISTRY_PASSES) return answer;
    await access.settle();
  }
}
