import type { OpenAPIObject } from '@nestjs/swagger';
import type { OperationObject, ResponseObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { RATE_LIMIT_HEADER, RATE_LIMIT_POLICY_HEADER } from './rate-limit-headers';
import { BASE_POLICIES, POLICIES_EXTENSION } from './rate-limit-policies';

const RATE_HEADERS = {
  [RATE_LIMIT_POLICY_HEADER]: {
    description:
      'The policies governing the route, e.g. `"client";q=600;w=60, "company";q=1800;w=60` (draft-ietf-httpapi-ratelimit-headers-11).',
    schema: { type: 'string' },
  },
  [RATE_LIMIT_HEADER]: {
    description: 'Per policy, requests remaining and seconds until the window resets, e.g. `"client";r=599;t=60, "company";r=1790;t=42`.',
    schema: { type: 'string' },
  },
};

/**
 * Documents rate limiting on every limited operation: the policies (`x-rate-limit-policies`,
 * the base policies when a bearer-token route declares none, as the guard applies them), the
 * RateLimit headers, and the 429 in the route's own error shape (that of its 401).
 */
export function documentRateLimits(document: OpenAPIObject, bearerScheme: string): void {
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item) as OperationObject[]) {
      if (!operation?.responses) continue;
      const ext = operation as OperationObject & { [POLICIES_EXTENSION]?: string[] };
      const bearer = operation.security?.some((requirement) => bearerScheme in requirement);
      const policies = ext[POLICIES_EXTENSION] ?? (bearer ? [...BASE_POLICIES] : undefined);
      if (!policies) continue;
      ext[POLICIES_EXTENSION] = policies;
      const ok = operation.responses['200'] as ResponseObject | undefined;
      if (ok) ok.headers = { ...ok.headers, ...RATE_HEADERS };
      const unauthorized = operation.responses['401'] as ResponseObject | undefined;
      operation.responses['429'] = {
        description: `RATE_LIMIT_EXCEEDED: a policy of ${policies.map((p) => `\`${p}\``).join(', ')} has no requests left in its window; retry after \`Retry-After\` seconds.`,
        headers: {
          'Retry-After': {
            description: 'Whole seconds until the violated window ends (at least 1).',
            schema: { type: 'integer', minimum: 1 },
          },
          ...RATE_HEADERS,
        },
        content: unauthorized?.content,
      };
    }
  }
}
