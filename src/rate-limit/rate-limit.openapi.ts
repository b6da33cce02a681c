import type { OpenAPIObject } from '@nestjs/swagger';
import type { OperationObject, ResponseObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { BASE_POLICIES } from '../contract/rate-limit-policies';
import { POLICIES_EXTENSION } from '../contract/route-metadata';

/**
 * Documents rate limiting on every limited operation: the policies (`x-rate-limit-policies`,
 * the base policies when a bearer-token route declares none, as the guard applies them) and
 * the 429 in the route's own error shape (that of its 401); its headers are declared with
 * every other answer's (common/openapi/response-headers.ts).
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
      const unauthorized = operation.responses['401'] as ResponseObject | undefined;
      operation.responses['429'] = {
        description: `RATE_LIMIT_EXCEEDED: a policy of ${policies.map((p) => `\`${p}\``).join(', ')} has no requests left in its window; retry after \`Retry-After\` seconds.`,
        content: unauthorized?.content,
      };
    }
  }
}
