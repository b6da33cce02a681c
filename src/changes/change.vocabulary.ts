import { COLLECTION_SCOPES, READ_SCOPES, Scope } from '../contract/scopes';

/** The objects the change feed reports, in the order the API lists them. */
export const CHANGE_OBJECTS = ['meeting', 'call', 'email', 'email_message', 'chat', 'chat_message'] as const;
export type ChangeObject = (typeof CHANGE_OBJECTS)[number];

export const CHANGE_ACTIONS = ['created', 'updated', 'deleted'] as const;
export type ChangeAction = (typeof CHANGE_ACTIONS)[number];

/** The parts of an object to re-read after an `updated` entry, each a route. */
export const CHANGED_PARTS = ['details', 'transcript', 'evaluation', 'answers', 'messages'] as const;
export type ChangedPart = (typeof CHANGED_PARTS)[number];

/** Every scope a token needs to see an object type's entries (a message needs its channel's content scope too). */
export const SCOPES_OF_OBJECT: Record<ChangeObject, readonly Scope[]> = {
  meeting: [COLLECTION_SCOPES.meeting.read],
  call: [COLLECTION_SCOPES.call.read],
  email: [COLLECTION_SCOPES.email.read],
  email_message: [COLLECTION_SCOPES.email.read, COLLECTION_SCOPES.email.content],
  chat: [COLLECTION_SCOPES.chat.read],
  chat_message: [COLLECTION_SCOPES.chat.read, COLLECTION_SCOPES.chat.content],
};

/** A token needs at least one of these to read the feed at all. */
export const FEED_SCOPES = READ_SCOPES;

/** The object types `scopes` can read, in the API's order. */
export function readableObjects(scopes: readonly string[]): ChangeObject[] {
  return CHANGE_OBJECTS.filter((object) => SCOPES_OF_OBJECT[object].every((scope) => scopes.includes(scope)));
}
