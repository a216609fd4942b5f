/**
 * Quote and order amounts in minor units as `numeric(78,0)` instead of `bigint`: a quote
 * amount is up to 15 integer digits in major units (spec 4.9), and an 18-decimal asset (ETH) puts
 * 10 ETH at 10^19 wei, past bigint, which failed the insert with a 500 (found by the contract
 * fuzzer once the document stated the sides' assets). 78 digits hold any 256-bit token amount.
 */
import { MigrationInterface, QueryRunner } from 'typeorm';

const COLUMNS = ['final_in_minor', 'final_out_minor', 'fee_minor'];

export class QuoteAmountsNumeric1764510000000 implements MigrationInterface {
  name = 'QuoteAmountsNumeric1764510000000';

  public async up(runner: QueryRunner): Promise<void> {
    for (const table of ['quote_offers', 'orders']) {
      await runner.query(`ALTER TABLE ${table} ${COLUMNS.map((c) => `ALTER COLUMN ${c} TYPE numeric(78,0)`).join(', ')}`);
    }
  }

  public async down(runner: QueryRunner): Promise<void> {
    for (const table of ['quote_offers', 'orders']) {
      await runner.query(`ALTER TABLE ${table} ${COLUMNS.map((c) => `ALTER COLUMN ${c} TYPE bigint`).join(', ')}`);
    }
  }
}
