/**
 * Which secrets of a client may still stand behind its tokens: today's statements, in the one
 * place they live (the migration that installed them holds them literally; a medium spec checks
 * that a fresh database runs these, word for word).
 *
 * A token records the secret that was presented for it (`sec`: the first 8 bytes of SHA-256 of
 * the stored hash, in hex: it identifies the secret among the client's and reveals nothing of
 * it). Every request reads the fingerprints of the client's secrets valid now, in the round trip
 * that reads its state: a token whose secret was ended (`client:expire-previous-secret`, or its
 * grace running out) stops at once, on every instance, while tokens of the current secret go on.
 */
export const TOKEN_SECRETS_SQL: string[] = [
  `CREATE OR REPLACE FUNCTION app_client_token_secrets(client_public_id text) RETURNS text[]
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  RETURN ARRAY(
    SELECT encode(substr(sha256(s.secret_hash), 1, 8), 'hex') FROM client_secrets s JOIN api_clients c ON c.id = s.client_id
    WHERE c.public_id = client_public_id AND (s.expires_at IS NULL OR s.expires_at > now())
    ORDER BY s.created_at DESC LIMIT 2
  );
END $$`,
  `REVOKE ALL ON FUNCTION app_client_token_secrets(text) FROM PUBLIC`,
];
