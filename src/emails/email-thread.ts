/**
 * Thread identity of an email (RFC 5322 section 3.6.4), the key that deduplicates a
 * conversation across every mailbox of the company that captured it.
 *
 * A thread is named by its root: the first id of `References` (which a reply copies from
 * its parent and extends), else `In-Reply-To` (replies from clients that omit
 * `References`), else the message's own `Message-ID` (a message that starts a thread).
 * The root is the same id in every copy of every message of the thread, in whichever
 * mailbox it was captured, even when the root message itself was never captured.
 */
export interface ThreadHeaders {
  messageId: string;
  inReplyTo?: string | null;
  references?: string | null;
}

/** The msg-ids of a header value, in order: `<a@b> <c@d>` → `['a@b', 'c@d']`. */
export function msgIds(header: string | null | undefined): string[] {
  if (!header) return [];
  const bracketed = [...header.matchAll(/<([^<>\s]+)>/g)].map((m) => m[1]);
  // Some clients send a bare id without angle brackets.
  const ids = bracketed.length ? bracketed : header.split(/\s+/).filter((s) => s.includes('@'));
  return ids.map(normalizeMsgId);
}

/** Ids compare without their brackets; the domain part is case-insensitive, the local part is not. */
export function normalizeMsgId(id: string): string {
  const bare = id.trim().replace(/^<|>$/g, '');
  const at = bare.lastIndexOf('@');
  return at < 0 ? bare : bare.slice(0, at) + '@' + bare.slice(at + 1).toLowerCase();
}

export function threadKey(headers: ThreadHeaders): string {
  const [root] = msgIds(headers.references);
  if (root) return root;
  const [parent] = msgIds(headers.inReplyTo);
  if (parent) return parent;
  const [own] = msgIds(headers.messageId);
  if (!own) throw new Error('an email needs a Message-ID');
  return own;
}

/** The conversation's subject: the message subject without reply and forward prefixes (`Re:`, `Fwd:`, `RES:`, `ENC:`, `[EXT]`…). */
export function threadSubject(subject: string): string {
  let s = subject.trim();
  for (;;) {
    const next = s.replace(/^(?:(?:re|res|fw|fwd|enc|aw|wg|sv|tr)(?:\[\d+\])?\s*:|\[[^\]]{1,20}\])\s*/i, '');
    if (next === s) return s;
    s = next;
  }
}
