import { Scope } from '../auth/scopes';
import { IdKind } from '../common/ids/public-id';
import { RecordingKind } from './recording.vocabulary';

/** Meetings and calls: one shape, one implementation, two collections. */

export interface RecordingCollection {
  kind: RecordingKind;
  /** Public id kind (ID_PREFIX). */
  idKind: IdKind;
  /** The `object` value and the path segment. */
  object: 'meeting' | 'call';
  path: 'v1/meetings' | 'v1/calls';
  /** Route template of the list, the cursor's route binding. */
  listRoute: string;
  scope: Scope;
}

export const RECORDING_COLLECTIONS: Record<RecordingKind, RecordingCollection> = {
  meeting: {
    kind: 'meeting',
    idKind: 'meeting',
    object: 'meeting',
    path: 'v1/meetings',
    listRoute: 'GET /v1/meetings',
    scope: 'meetings.read',
  },
  call: { kind: 'call', idKind: 'call', object: 'call', path: 'v1/calls', listRoute: 'GET /v1/calls', scope: 'calls.read' },
};
