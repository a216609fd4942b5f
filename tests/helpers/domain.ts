/** Unit-test helper: runs `fn` and returns the DomainError it throws (fails when it throws none or another error). */
import { DomainError } from '../../domain/errors';

export function caught(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error('expected a DomainError');
}
