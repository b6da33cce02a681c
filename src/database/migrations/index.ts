import { Platform1763800000000 } from './1763800000000-platform';
import { Credentials1763900000000 } from './1763900000000-credentials';
import { Recordings1764000000000 } from './1764000000000-recordings';
import { Conversations1764100000000 } from './1764100000000-conversations';
import { Audit1764200000000 } from './1764200000000-audit';
import { CredentialLookupsPlpgsql1764300000000 } from './1764300000000-credential-lookups-plpgsql';
import { PublicIdFunction1764400000000 } from './1764400000000-public-id-function';
import { AudienceFromParticipants1764500000000 } from './1764500000000-audience-from-participants';
import { AuditPartitions1764600000000 } from './1764600000000-audit-partitions';
import { DefinerSearchPath1764700000000 } from './1764700000000-definer-search-path';
import { ChangeFeed1764800000000 } from './1764800000000-change-feed';
import { ConversationActivityLock1764900000000 } from './1764900000000-conversation-activity-lock';
import { ChangeCaptureSkipsCreated1764950000000 } from './1764950000000-change-capture-skips-created';
import { Webhooks1765000000000 } from './1765000000000-webhooks';
import { LeanChangeCapture1765100000000 } from './1765100000000-lean-change-capture';
import { RecordingDocuments1765200000000 } from './1765200000000-recording-documents';
import { CaptureHoles1765300000000 } from './1765300000000-capture-holes';
import { ChangeHorizons1765400000000 } from './1765400000000-change-horizons';
import { FeedEpochs1765500000000 } from './1765500000000-feed-epochs';
import { EpochLives1765600000000 } from './1765600000000-epoch-lives';
import { ReaderEpochFloor1765700000000 } from './1765700000000-reader-epoch-floor';
import { DeliveryLeases1765800000000 } from './1765800000000-delivery-leases';
import { ExportOrder1765900000000 } from './1765900000000-export-order';
import { DocumentParts1766000000000 } from './1766000000000-document-parts';
import { MovedMessageParents1766100000000 } from './1766100000000-moved-message-parents';
import { ConversationDocuments1766200000000 } from './1766200000000-conversation-documents';
import { ConversationDocumentsCapture1766200000001 } from './1766200000001-conversation-documents-capture';
import { ReadModelLockOrder1766300000000 } from './1766300000000-read-model-lock-order';
import { AuditRead1766400000000 } from './1766400000000-audit-read';
import { AuditReadByMonth1766400000001 } from './1766400000001-audit-read-by-month';
import { TokenSecrets1766500000000 } from './1766500000000-token-secrets';
import { AuditReadUtc1766500000001 } from './1766500000001-audit-read-utc';
import { SharedRowLocks1766600000000 } from './1766600000000-shared-row-locks';
import { KindIds1766600000001 } from './1766600000001-kind-ids';
import { RecordingIdsByKind1766600000002 } from './1766600000002-recording-ids-by-kind';
import { SharedRowOrder1766600000003 } from './1766600000003-shared-row-order';
import { AuditReadBounded1766700000005 } from './1766700000005-audit-read-bounded';
import { DocumentTranscripts1766700000006 } from './1766700000006-document-transcripts';
import { WebhookEndpointsApi1766800000000 } from './1766800000000-webhook-endpoints-api';
import { WebhookSecretRotation1766800000001 } from './1766800000001-webhook-secret-rotation';
import { DeliveryStatusIndex1766800000002 } from './1766800000002-delivery-status-index';
import { ReplicaEpochs1766900000000 } from './1766900000000-replica-epochs';

/** Every migration in order; listed explicitly so that source and build behave the same. */
export const MIGRATIONS = [
  Platform1763800000000,
  Credentials1763900000000,
  Recordings1764000000000,
  Conversations1764100000000,
  Audit1764200000000,
  CredentialLookupsPlpgsql1764300000000,
  PublicIdFunction1764400000000,
  AudienceFromParticipants1764500000000,
  AuditPartitions1764600000000,
  DefinerSearchPath1764700000000,
  ChangeFeed1764800000000,
  ConversationActivityLock1764900000000,
  ChangeCaptureSkipsCreated1764950000000,
  Webhooks1765000000000,
  LeanChangeCapture1765100000000,
  RecordingDocuments1765200000000,
  CaptureHoles1765300000000,
  ChangeHorizons1765400000000,
  FeedEpochs1765500000000,
  EpochLives1765600000000,
  ReaderEpochFloor1765700000000,
  DeliveryLeases1765800000000,
  ExportOrder1765900000000,
  DocumentParts1766000000000,
  MovedMessageParents1766100000000,
  ConversationDocuments1766200000000,
  ConversationDocumentsCapture1766200000001,
  ReadModelLockOrder1766300000000,
  AuditRead1766400000000,
  AuditReadByMonth1766400000001,
  TokenSecrets1766500000000,
  AuditReadUtc1766500000001,
  SharedRowLocks1766600000000,
  KindIds1766600000001,
  RecordingIdsByKind1766600000002,
  SharedRowOrder1766600000003,
  AuditReadBounded1766700000005,
  DocumentTranscripts1766700000006,
  WebhookEndpointsApi1766800000000,
  WebhookSecretRotation1766800000001,
  DeliveryStatusIndex1766800000002,
  ReplicaEpochs1766900000000,
];
