import { Type } from '@nestjs/common';
import { Scope } from '../contract/scopes';
import { ID_PREFIX, IdKind } from '../common/ids/public-id';

/**
 * What every collection of conversations the API serves has, meetings, calls, email and chat
 * alike: the part of a resource's descriptor its family's controller factory reads.
 *
 * The layout of the two families: one implementation per family (controller factory, service,
 * repository), told per call which resource it serves by that resource's descriptor, and one
 * descriptor per resource holding everything that tells it from its sibling, typed once. Meetings
 * and calls share their rows and wire format, so their descriptors live with their family in
 * src/recordings (RecordingCollection); email and chat differ in both, so each descriptor lives in
 * its own folder, src/emails and src/chat, beside its DTOs, presenter and SQL (ConversationChannel,
 * whose family is here in src/conversations).
 */
export interface CollectionDescriptor {
  idKind: IdKind;
  /** Path of the collection, e.g. `v1/meetings`. */
  path: string;
  /** Name of the id path parameter, e.g. `meeting_id`. */
  idParam: string;
  /** Its tag in the interface description. */
  tag: string;
  /** The noun of operation ids: `Meeting` gives listMeetings, getMeeting, getMeetingTranscript… */
  operationNoun: string;
  /** The noun of summaries and descriptions. */
  noun: string;
  scope: Scope;
  schemas: { single: Type; list: Type };
  /** Route template of the list: its cursors' route binding. */
  listRoute: string;
}

/** The list's route template, which its cursors are bound to. */
export const listRouteOf = (path: string): string => `GET /${path}`;

/** The id path parameter as the interface description shows it. */
export const idParamOf = (c: CollectionDescriptor) => ({ name: c.idParam, description: `A ${c.noun} id (\`${ID_PREFIX[c.idKind]}…\`).` });

/** Names a controller class built by a factory after its collection's tag: `MeetingsController`… */
export function named(controller: Type, c: CollectionDescriptor): Type {
  Object.defineProperty(controller, 'name', { value: `${c.tag.replace(/\s/g, '')}Controller` });
  return controller;
}
