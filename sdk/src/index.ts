/**
 * The official TypeScript SDK of the Conversation Read API.
 *
 * ```ts
 * import { ConversationApi, JsonFileStore } from '@conversation-read-api/sdk';
 * const api = new ConversationApi({ baseUrl, clientId, clientSecret });
 * for await (const meeting of api.meetings.list({ owner_email: 'ana@acme.com' })) console.log(meeting.title);
 * await api.sync(await JsonFileStore.open('copy.json')); // a complete, current copy of the company
 * ```
 */
export * from './client.js';
export * from './types.js';
export { ApiError, WebhookVerificationError } from './errors.js';
export { ExportStream } from './export.js';
export type { ExportStreamOptions } from './export.js';
export type { components, operations, paths } from './generated/openapi.js';
export { PageIterable } from './pagination.js';
export type { Page } from './pagination.js';
export type { RateLimitPolicyState, RateLimitState } from './rate-limit.js';
export { JsonFileStore, MemoryStore } from './stores.js';
export { syncCopy } from './sync.js';
export type { SyncCheckpoint, SyncObject, SyncObjectType, SyncOptions, SyncProgress, SyncResult, SyncSource, SyncStore } from './sync.js';
export { Transport, realClock } from './transport.js';
export type { Clock, RequestOptions, RetryOptions, RetryPolicy, TransportOptions } from './transport.js';
export { verifyWebhook } from './webhooks.js';
export type { WebhookEvent, WebhookHeaders, WebhookTestEvent } from './webhooks.js';
