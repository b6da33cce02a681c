/** One rate-limit policy as the last answer reported it (the IETF `RateLimit` and `RateLimit-Policy` fields). */
export interface RateLimitPolicyState {
  /** The policy's name: `client`, `company`, `email_content`, `chat_content`, `export` or `token`. */
  policy: string;
  /** Requests allowed per window (`q`), when the answer announced the policy. */
  quota: number | null;
  /** The window in seconds (`w`), when announced. */
  window: number | null;
  /** Requests left in the current window (`r`). */
  remaining: number;
  /** Seconds until the window resets (`t`), as of `observedAt`. */
  reset: number;
}

/** Where the client stood after its last counted request. */
export interface RateLimitState {
  policies: RateLimitPolicyState[];
  /** When the answer that reported it arrived. */
  observedAt: Date;
}

/** `"client";r=599;t=60, "company";r=1790;t=42` → name → parameters (a structured-field list of strings with parameters). */
function parseList(field: string): Map<string, Record<string, number>> {
  const out = new Map<string, Record<string, number>>();
  for (const member of field.split(',')) {
    const [name, ...params] = member.trim().split(';');
    const policy = name?.trim().replace(/^"(.*)"$/, '$1');
    if (!policy) continue;
    const values: Record<string, number> = {};
    for (const param of params) {
      const [key, value] = param.trim().split('=');
      if (key && value !== undefined && /^-?\d+$/.test(value.trim())) values[key.trim()] = Number(value.trim());
    }
    out.set(policy, values);
  }
  return out;
}

/** The state the headers of one answer report, or null when the answer carried no `RateLimit` field. */
export function parseRateLimit(headers: Headers, now: Date): RateLimitState | null {
  const state = headers.get('ratelimit');
  if (!state) return null;
  const policies = parseList(headers.get('ratelimit-policy') ?? '');
  return {
    observedAt: now,
    policies: [...parseList(state)].map(([policy, { r, t }]) => ({
      policy,
      quota: policies.get(policy)?.q ?? null,
      window: policies.get(policy)?.w ?? null,
      remaining: r ?? 0,
      reset: t ?? 0,
    })),
  };
}

/** `Retry-After` in seconds: delay-seconds or an HTTP-date (RFC 9110 §10.2.3); null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  // An IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`; anything else is unreadable (normal backoff applies).
  if (!/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, (at - now) / 1000);
}
