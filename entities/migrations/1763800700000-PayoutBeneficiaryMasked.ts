/**
 * Payout beneficiaries take the address book's masked shape (spec 2.6 "Beneficiary", 2.11;
 * docs/decisions/0020-beneficiary-details.md): `payouts.beneficiary_masked` written by the former
 * payout-only masking (`iban`, `clabe`, `pix_key` with asterisks, no `currency`) is rewritten from
 * the encrypted raw details by domain/bank-details.ts `maskBankDetails`. The old JSON cannot be
 * converted on its own (it kept only part of the sort code and no Pix key kind), so rows with an
 * old-shape projection are decrypted with APP_ENCRYPTION_KEY (needed only when such rows exist).
 * Rows already in the new shape (they carry `currency`) are left alone; the raw ciphertext is
 * unchanged. Events already written keep the projection they were written with.
 */
import { MigrationInterface, QueryRunner } from 'typeorm';
import { maskBankDetails, type StoredBankDetails } from '../../domain/bank-details';
import { decrypt } from '../../lib/secrets';

const BATCH = 500;

export class PayoutBeneficiaryMasked1763800700000 implements MigrationInterface {
  name = 'PayoutBeneficiaryMasked1763800700000';

  public async up(runner: QueryRunner): Promise<void> {
    let after = '';
    for (;;) {
      const rows: Array<{ id: string; beneficiary_ciphertext: string }> = await runner.query(
        `SELECT id, beneficiary_ciphertext FROM payouts
          WHERE beneficiary_ciphertext IS NOT NULL AND NOT (coalesce(beneficiary_masked, '{}'::jsonb) ? 'currency') AND id > $1
          ORDER BY id LIMIT ${BATCH}`,
        [after],
      );
      for (const r of rows) {
        const masked = maskBankDetails(JSON.parse(decrypt(r.beneficiary_ciphertext)) as StoredBankDetails);
        await runner.query('UPDATE payouts SET beneficiary_masked = $2 WHERE id = $1', [r.id, JSON.stringify(masked)]);
      }
      if (rows.length < BATCH) break;
      after = rows[rows.length - 1].id;
    }
  }

  /** Irreversible data rewrite: the former masked form is not restored (its code is gone); the raw details are untouched. */
  public async down(): Promise<void> {
    // Nothing to undo in the schema.
  }
}
