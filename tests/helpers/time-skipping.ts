/**
 * The Java time-skipping test server for workflow tests (ARCHITECTURE.md "Temporal"): the wrapper
 * from temporal/dev (resolved from Maven Central, cached outside the checkout).
 */
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { ensureTestServer } from '../../temporal/dev/bootstrap';

const ATTEMPTS = 5;

/**
 * Starts a time-skipping environment on the cached Java test server. The SDK gives the JVM 5 s to
 * listen, which a busy 2-core machine can miss on a cold start; such a start is tried again (up to
 * ATTEMPTS, pausing 1 s, 2 s, ... between them). Any other failure is thrown at once.
 */
export async function startTimeSkipping(): Promise<TestWorkflowEnvironment> {
  const path = await ensureTestServer();
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path } } });
    } catch (e) {
      if (attempt >= ATTEMPTS || !/Failed to start ephemeral server/.test(String((e as Error)?.message))) throw e;
      await new Promise((r) => setTimeout(r, attempt * 1000));
    }
  }
}
