import type { Request } from 'express';

/**
 * Told of every failure the exception filter answers (the audit trail records it,
 * best-effort). Declared here, provided by the audit module: the filter knows nothing of audit.
 */
export abstract class FailedRequests {
  abstract failed(req: Request, status: number, code: string): void;
}
