import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { ApiError } from '../errors/api-error';

/** What a cursor is bound to: it opens only where all of these are the same again. */
export interface CursorBinding {
  /** Route template, e.g. `GET /v1/meetings`. */
  route: string;
  /** Internal company id of the authenticated client. */
  company: string;
  /** Normalized filters of the request (never `limit`, which may change between pages). */
  filters: Record<string, string | number | boolean | null | undefined>;
  /** Parent resource (the conversation of a messages route). */
  parent?: string;
}

/** A keyset position: the sort-key values of the last row of a page. */
export type KeysetPosition = ReadonlyArray<string | number>;

const PREFIX = 'cur_';
const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * Seals keyset positions into opaque cursors with AES-256-GCM. The binding is the
 * associated data: it is authenticated but not carried, so a cursor neither reveals its
 * filters nor opens under other ones, and any edited byte fails authentication.
 */
export class CursorCodec {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'conversation-read-api', 'cursor/v1', 32));
  }

  seal(binding: CursorBinding, position: KeysetPosition): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(associatedData(binding));
    const body = Buffer.concat([cipher.update(JSON.stringify(position), 'utf8'), cipher.final()]);
    const sealed = Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
    return PREFIX + sealed.toString('base64url');
  }

  /** The position sealed in `cursor`; `400 INVALID_CURSOR` when it is not one of ours for this binding. */
  open(cursor: string, binding: CursorBinding): KeysetPosition {
    const position = this.tryOpen(cursor, binding);
    if (!position) throw new ApiError('INVALID_CURSOR', 'The cursor is not valid for this request.');
    return position;
  }

  private tryOpen(cursor: string, binding: CursorBinding): KeysetPosition | null {
    if (!cursor.startsWith(PREFIX)) return null;
    const text = cursor.slice(PREFIX.length);
    if (!BASE64URL.test(text)) return null;
    const sealed = Buffer.from(text, 'base64url');
    // Base64 has spare bits in its last character: demand the canonical encoding so that
    // no edit of the text, not even of those bits, opens.
    if (sealed.toString('base64url') !== text) return null;
    if (sealed.length <= 1 + IV_BYTES + TAG_BYTES || sealed[0] !== VERSION) return null;
    const iv = sealed.subarray(1, 1 + IV_BYTES);
    const tag = sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
    const body = sealed.subarray(1 + IV_BYTES + TAG_BYTES);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, iv);
      decipher.setAAD(associatedData(binding));
      decipher.setAuthTag(tag);
      const plain = Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
      const position: unknown = JSON.parse(plain);
      return isPosition(position) ? position : null;
    } catch {
      return null;
    }
  }
}

function associatedData(binding: CursorBinding): Buffer {
  const filters = Object.keys(binding.filters)
    .filter((k) => binding.filters[k] !== undefined)
    .sort()
    .map((k) => [k, binding.filters[k]]);
  return Buffer.from(JSON.stringify([binding.route, binding.company, binding.parent ?? null, filters]), 'utf8');
}

function isPosition(value: unknown): value is KeysetPosition {
  return Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number');
}
