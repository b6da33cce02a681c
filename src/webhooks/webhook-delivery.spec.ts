import { DELIVERY_ERROR_KINDS, DeliveryErrorKind, errorKindOf } from './webhook-delivery';
import { reasonOf, SOCKET_REASONS } from './webhook-transport';

/** An error as Node raises it: a code, and a message the transport never repeats. */
const nodeError = (code: string | undefined, message = 'whatever Node says about 10.0.0.1') => Object.assign(new Error(message), { code });

describe('errorKindOf: every reason the worker records, as the API shows it', () => {
  it('has exactly the kinds of the contract', () => {
    expect(DELIVERY_ERROR_KINDS).toEqual(['timeout', 'connection', 'tls', 'refused_address', 'non_2xx']);
  });

  it('is null when nothing went wrong (delivered, or never attempted)', () => {
    expect(errorKindOf(null)).toBeNull();
  });

  // Phrased by WebhookTransport itself (its AttemptFailures, judge) and the destination policy through it.
  it.each<[string, DeliveryErrorKind]>([
    ['HTTP 500', 'non_2xx'],
    ['HTTP 404', 'non_2xx'],
    ['HTTP 429', 'non_2xx'],
    ['HTTP 0', 'non_2xx'], // judge() with no status code at all
    ['redirect not followed (HTTP 301)', 'non_2xx'],
    ['redirect not followed (HTTP 302)', 'non_2xx'],
    ['timed out after 10000 ms', 'timeout'], // the whole attempt's deadline, DNS included
    ['connect timed out after 5000 ms', 'timeout'], // connect or TLS handshake
    ['refused destination: only https: URLs are accepted', 'refused_address'],
    ['refused destination: credentials in the URL (user:pass@) are not accepted', 'refused_address'],
    ['refused destination: 127.0.0.1 is a loopback address', 'refused_address'],
    ['refused destination: 64:ff9b::a00:1 embeds 10.0.0.1, a private address', 'refused_address'],
    ['refused destination: 169.254.169.254 is a cloud metadata address', 'refused_address'],
    ['refused destination: localhost is a local name', 'refused_address'],
    ['refused destination: 2001:db8::1 is outside the global unicast space (2000::/3)', 'refused_address'],
    ['host not found', 'connection'], // DestinationUnresolved: DNS
    ['host has no address', 'connection'],
    ['DNS lookup failed (EAI_AGAIN)', 'connection'],
    ['DNS lookup failed', 'connection'],
    ['connection closed before an answer', 'connection'],
    ['transport closed', 'connection'], // a send after shutdown closed the transport
  ])('%s: %s', (reason, kind) => {
    expect(errorKindOf(reason)).toBe(kind);
  });

  it('judges every socket reason the transport phrases (SOCKET_REASONS: a new one must be judged here too)', () => {
    const kinds = Object.fromEntries(Object.entries(SOCKET_REASONS).map(([code, reason]) => [code, errorKindOf(reason)]));
    expect(kinds).toEqual({
      ECONNREFUSED: 'connection',
      ECONNRESET: 'connection',
      EPIPE: 'connection',
      EHOSTUNREACH: 'connection',
      ENETUNREACH: 'connection',
      ETIMEDOUT: 'timeout',
      ERR_INVALID_CHAR: 'connection', // a request header Node refused: no request left, so no answer
      ERR_INVALID_HTTP_TOKEN: 'connection',
      ERR_HTTP_INVALID_HEADER_VALUE: 'connection',
    });
  });

  it.each<[string | undefined, string, DeliveryErrorKind]>([
    ['ECONNRESET', 'connection closed before an answer', 'connection'], // with Node's 'socket hang up'
    ['HPE_INVALID_CONSTANT', 'invalid HTTP answer (HPE_INVALID_CONSTANT)', 'connection'], // an answer that is not HTTP: no status
    ['CERT_HAS_EXPIRED', 'TLS failed (CERT_HAS_EXPIRED)', 'tls'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'TLS failed (DEPTH_ZERO_SELF_SIGNED_CERT)', 'tls'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'TLS failed (ERR_TLS_CERT_ALTNAME_INVALID)', 'tls'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'TLS failed (ERR_SSL_WRONG_VERSION_NUMBER)', 'tls'], // https to a plain http port
    ['EPROTO', 'TLS failed (EPROTO)', 'tls'],
    // OpenSSL verification codes reasonOf's test misses: still TLS failures.
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'request failed (UNABLE_TO_VERIFY_LEAF_SIGNATURE)', 'tls'],
    ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'TLS failed (UNABLE_TO_GET_ISSUER_CERT_LOCALLY)', 'tls'],
    ['INVALID_CA', 'request failed (INVALID_CA)', 'tls'],
    ['EADDRNOTAVAIL', 'request failed (EADDRNOTAVAIL)', 'connection'],
    [undefined, 'request failed', 'connection'], // an error without a code
  ])('reasonOf an error with code %s: "%s", %s', (code, reason, kind) => {
    const error = code === 'ECONNRESET' ? nodeError(code, 'socket hang up') : nodeError(code);
    expect(reasonOf(error)).toBe(reason);
    expect(errorKindOf(reasonOf(error))).toBe(kind);
  });

  it("a delivery not sent because its secret did not open is 'connection' (no request left this process)", () => {
    // WebhookSender's `unsigned`: the tail is the error's message, which must not decide the kind.
    expect(errorKindOf('not sent: Unsupported state or unable to authenticate data')).toBe('connection');
    expect(errorKindOf('not sent: timed out')).toBe('connection');
  });

  it("never answers anything outside the contract's kinds, for text it has never seen either", () => {
    for (const reason of ['', 'something new', 'HTTP', 'TLS', 'refused', 'timed'])
      expect(DELIVERY_ERROR_KINDS).toContain(errorKindOf(reason));
  });
});
