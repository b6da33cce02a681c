import { createCipheriv, hkdfSync } from 'node:crypto';
import { base62, ID_BODY_LENGTH, ID_PREFIX } from '../common/ids/public-id';

/**
 * The public id of a trail row: its internal key (one sequence for every company's rows) under a
 * keyed permutation, AES-128 of one block, written as base62. Each row gets one id, the same on
 * every read, and the id tells nothing: not the key, so not how many requests the whole service
 * (every other company) made between two of a company's events. Derived from CURSOR_SECRET like
 * the cursors, with its own label; ids change only if that secret does.
 */
export class AuditEventIds {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'conversation-read-api', 'audit-event-id/v1', 16));
  }

  publicId(key: string): string {
    const block = Buffer.alloc(16);
    block.writeBigUInt64BE(BigInt(key), 8);
    const cipher = createCipheriv('aes-128-ecb', this.key, null).setAutoPadding(false);
    return ID_PREFIX.auditEvent + base62(Buffer.concat([cipher.update(block), cipher.final()]), ID_BODY_LENGTH);
  }
}
