/**
 * Idempotent replays byte-identical to the first answer: the stored response
 * body as `json`, which keeps the text it was given verbatim, instead of `jsonb`, which reorders
 * object keys (shorter keys first). A replay answered the same object with its fields in another
 * order than the request that executed (found by tests/api/idempotency-concurrency.test.ts).
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

export class IdempotencyResponseText1764520000000 implements MigrationInterface {
  name = 'IdempotencyResponseText1764520000000';

  public async up(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE idempotency_records ALTER COLUMN response_body TYPE json USING response_body::json');
  }

  public async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE idempotency_records ALTER COLUMN response_body TYPE jsonb USING response_body::jsonb');
  }
}
