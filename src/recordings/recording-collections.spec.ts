import { RECORDING_COLLECTIONS } from './recording-collections';

describe('recording collections', () => {
  it('bind their cursors to the routes they always did: a cursor a client holds outlives a deploy', () => {
    expect(Object.values(RECORDING_COLLECTIONS).map((c) => c.listRoute)).toEqual(['GET /v1/meetings', 'GET /v1/calls']);
  });
});
