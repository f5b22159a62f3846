/**
 * How a failure from pg is told apart: the connection is gone (the pool suspects an outage), the
 * server is busy (503, try again), or an answer like any other (a constraint: the caller's).
 */
import { describe, expect, it } from 'vitest';
import { DatabaseUnavailable, databaseFailureKind, isDatabaseUnavailable } from './postgres-pool.js';

/** An error as pg gives it: a message and PostgreSQL's SQLSTATE (or Node's network code). */
const pgError = (code: string, message = 'from PostgreSQL') => Object.assign(new Error(message), { code });

describe('databaseFailureKind', () => {
  it.each([
    ['ECONNREFUSED', 'connection'],
    // The host's name not found for good, as a lookup that can only fail again says.
    ['EAI_FAIL', 'connection'],
    ['08006', 'connection'],
    ['57P01', 'connection'],
    ['57014', 'busy'],
    ['53300', 'busy'],
    // A transaction PostgreSQL ended to break a deadlock, or for a serialization conflict: the
    // request may be tried again as it was (docs/decisions/instances.md "Row locks").
    ['40P01', 'busy'],
    ['40001', 'busy'],
    ['23505', null],
    ['42P01', null],
  ])('reads %s as %s', (code, kind) => {
    expect(databaseFailureKind(pgError(code))).toBe(kind);
    expect(isDatabaseUnavailable(pgError(code))).toBe(kind !== null);
  });

  it('reads pg’s own lost connections by their message, and its own wrapper by its reason', () => {
    expect(databaseFailureKind(new Error('Connection terminated unexpectedly'))).toBe('connection');
    expect(databaseFailureKind(new DatabaseUnavailable('busy'))).toBe('busy');
    expect(databaseFailureKind(new Error('duplicate key'))).toBeNull();
    expect(databaseFailureKind('not an error')).toBeNull();
  });
});
