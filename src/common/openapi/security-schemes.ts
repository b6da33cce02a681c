/** Version of the API the OpenAPI document describes. */
export const API_VERSION = '0.1.0';

/** OAuth 2.0 client credentials: the bearer token of every `/v1` route. */
export const OAUTH2_SCHEME = 'oauth2';

/** HTTP Basic client authentication at the token endpoint (RFC 6749 §2.3.1). */
export const CLIENT_BASIC_SCHEME = 'client_basic';
