import { preparedTransactionsRefusal } from './database-role-check';

describe('preparedTransactionsRefusal', () => {
  it('lets a server without prepared transactions (max_prepared_transactions = 0) start', () => {
    expect(preparedTransactionsRefusal(0)).toBeNull();
  });

  it.each([1, 2, 100])('refuses max_prepared_transactions = %i, saying why (the change feed) and what to do (set it to 0)', (n) => {
    const refusal = preparedTransactionsRefusal(n)!;
    expect(refusal).toContain(`ALLOWS PREPARED TRANSACTIONS (max_prepared_transactions = ${n}). Refusing to start`);
    expect(refusal).toContain('the change feed cannot order a transaction that outlives a server life');
    expect(refusal).toContain('Set max_prepared_transactions = 0');
  });
});
