import { Type } from '@nestjs/common';
import { Scope } from '../auth/scopes';
import { IdKind } from '../common/ids/public-id';
import { CallEnvelope, CallListEnvelope, MeetingEnvelope, MeetingListEnvelope } from './recording.dto';
import { RecordingKind } from './recording.vocabulary';

/**
 * One descriptor per collection of records, holding everything that tells meetings from calls.
 *
 * The layout of every family of resources (meetings and calls here; email and chat in
 * src/conversations): one implementation of the family (controller factory, service,
 * repository), told per call which resource it serves by that resource's descriptor, and one
 * descriptor per resource. Meetings and calls share their rows and wire format, so both
 * descriptors live here; email and chat each have theirs (src/emails, src/chat).
 */
export interface RecordingCollection {
  /** `recordings.kind` of its records, which is also their `object`. */
  kind: RecordingKind;
  idKind: IdKind;
  /** Path of the collection, e.g. `v1/meetings`. */
  path: string;
  /** Name of the id path parameter, e.g. `meeting_id`. */
  idParam: string;
  /** Its tag in the interface description. */
  tag: string;
  /** The noun of operation ids: `Meeting` gives listMeetings, getMeeting, getMeetingTranscript… */
  operationNoun: string;
  /** The noun of summaries. */
  noun: string;
  scope: Scope;
  schemas: { single: Type; list: Type };
  /** Route template of the list: the cursor's route binding. */
  listRoute: string;
}

function collection<K extends RecordingKind>(c: Omit<RecordingCollection, 'listRoute'> & { kind: K }): RecordingCollection & { kind: K } {
  return { ...c, listRoute: `GET /${c.path}` };
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
    scope: 'meetings.read',
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
    scope: 'calls.read',
    schemas: { single: CallEnvelope, list: CallListEnvelope },
  }),
};
