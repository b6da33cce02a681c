import { contractViolations } from './contract-recorder';

/**
 * After every test file: each answer its test apps gave must have matched the OpenAPI document
 * (contract-recorder.ts). Listed once per distinct problem, so a broken route reads clearly.
 */
afterAll(() => {
  const distinct = [...new Map(contractViolations.map((v) => [v.replace(/[A-Za-z0-9_-]{22,}/g, '…'), v])).values()];
  expect(distinct.slice(0, 25)).toEqual([]);
});
