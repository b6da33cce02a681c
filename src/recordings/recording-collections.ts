import { COLLECTION_SCOPES, Scope } from '../contract/scopes';
import { CollectionDescriptor, listRouteOf } from '../conversations/collection-descriptor';
import { CallEnvelope, CallListEnvelope, MeetingEnvelope, MeetingListEnvelope } from './recording.dto';
import { RecordingKind } from './recording.vocabulary';

/**
 * One descriptor per collection of records, holding everything that tells meetings from calls
 * (the layout: CollectionDescriptor).
 */
export interface RecordingCollection extends CollectionDescriptor {
  /** `recordings.kind` of its records, which is also their `object`. */
  kind: RecordingKind;
  /** Needed, with `scope`, to read the transcript. */
  contentScope: Scope;
}

function collection<K extends RecordingKind>(c: Omit<RecordingCollection, 'listRoute'> & { kind: K }): RecordingCollection & { kind: K } {
  return { ...c, listRoute: listRouteOf(c.path) };
}

export const RECORDING_COLLECTIONS: { [K in RecordingKind]: RecordingCollection & { kind: K } } = {
  meeting: collection({
    kind: 'meeting',
    idKind: 'meeting',
    path: 'v1/meetings',
    idParam: 'meeting_id',
    tag: 'Meetings',
    operationNoun: 'Meeting',
    noun: 'meeting',
    scope: COLLECTION_SCOPES.meeting.read,
    contentScope: COLLECTION_SCOPES.meeting.content,
    schemas: { single: MeetingEnvelope, list: MeetingListEnvelope },
  }),
  call: collection({
    kind: 'call',
    idKind: 'call',
    path: 'v1/calls',
    idParam: 'call_id',
    tag: 'Calls',
    operationNoun: 'Call',
    noun: 'call',
    scope: COLLECTION_SCOPES.call.read,
    contentScope: COLLECTION_SCOPES.call.content,
    schemas: { single: CallEnvelope, list: CallListEnvelope },
  }),
};
