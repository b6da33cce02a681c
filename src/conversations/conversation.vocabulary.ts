/**
 * The vocabulary email and chat share, spelled once: the DTOs document it, the rows are typed by
 * it and the seeders write it. The conversations migration spells it again in its CHECK
 * constraints (a migration is history); test/medium/vocabularies.medium-spec.ts holds the
 * database to exactly these values.
 */

/** `direction` of a message and `last_message_direction` of a conversation, from the company's side. */
export const DIRECTIONS = ['inbound', 'outbound'] as const;
export type Direction = (typeof DIRECTIONS)[number];
