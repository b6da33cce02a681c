import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ConfigError } from '../config/app-config';
import { RuntimeSecrets } from '../config/runtime-secrets';

/** The Standard Webhooks secret prefix: `whsec_` then the base64 of the key bytes. */
const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;
const SEALED_VERSION = 'v1';

/** A new signing secret, `whsec_` + base64 of 32 random bytes (what the `standardwebhooks` package reads). */
export function generateSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/**
 * The Standard Webhooks signature of one message: `v1,` + base64 HMAC-SHA256, keyed with the
 * secret's bytes, of `id.timestamp.body`. Several secrets (during a rotation's overlap) give
 * several signatures, space-separated, any of which a receiver may verify.
 */
export function signatureHeader(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
      return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
    })
    .join(' ');
}

/**
 * Signing secrets at rest: AES-256-GCM under a key derived from WEBHOOK_SECRET_KEY, bound to
 * the endpoint's id (a sealed secret copied to another endpoint's row does not open). The
 * service needs the secret itself to sign, so it cannot be hashed like a client secret; a
 * database dump alone does not reveal it.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(keyText: string) {
    this.key = createHash('sha256').update(keyText, 'utf8').digest();
  }

  seal(secret: string, endpointId: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(endpointId, 'utf8'));
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return [SEALED_VERSION, iv, cipher.getAuthTag(), sealed]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  /** The secret, or an error when the key or the endpoint differ from the ones that sealed it. */
  open(sealed: string, endpointId: string): string {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== SEALED_VERSION || !iv || !tag || data === undefined) throw new Error('not a sealed webhook secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(endpointId, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    try {
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new Error('the webhook secret does not open with WEBHOOK_SECRET_KEY (was the key changed?)');
    }
  }
}

/**
 * WEBHOOK_SECRET_KEY, checked once: the box that seals and opens signing secrets, for the admin
 * commands and the sender alike. Without the key (production without WEBHOOK_SECRET_KEY) every
 * use says so the same way; the worker asks at start-up and refuses to start.
 */
@Injectable()
export class SigningKeys {
  private readonly sealed?: SecretBox;

  constructor(secrets: RuntimeSecrets) {
    if (secrets.webhookSecretKey) this.sealed = new SecretBox(secrets.webhookSecretKey);
  }

  get box(): SecretBox {
    if (!this.sealed) {
      throw new ConfigError('Invalid configuration: WEBHOOK_SECRET_KEY is required to keep and sign webhook secrets (NODE_ENV=production)');
    }
    return this.sealed;
  }
}
