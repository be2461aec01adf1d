import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Seals the `secrets` of a queued run before they go to Redis, so any instance that starts the run
 * can forward them to ORS while Redis (its memory, its dumps) holds only ciphertext: AES-256-GCM
 * under a key derived from the instances' shared secret, bound to the run id. They are deleted once
 * the run has started (`docs/security.md`).
 */
export class SealedSecrets {
  readonly #key: Buffer;

  constructor(secret: Buffer) {
    this.#key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'runbridge queued secrets', 32));
  }

  seal(runId: string, secrets: Record<string, unknown>): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, nonce, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(runId, 'utf8'));
    const body = Buffer.concat([cipher.update(JSON.stringify(secrets), 'utf8'), cipher.final()]);
    return Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64');
  }

  /** The secrets sealed for `runId`; throws when the text was not sealed for it under this secret. */
  unseal(runId: string, sealed: string): Record<string, unknown> {
    const bytes = Buffer.from(sealed, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(0, NONCE_BYTES), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(Buffer.from(runId, 'utf8'));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    const body = Buffer.concat([
      decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES)),
      decipher.final(),
    ]);
    return JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  }
}
