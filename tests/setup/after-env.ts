/** Per test file: release the file's database pool and Temporal client so Jest exits cleanly. */
import { closeDb } from '../../lib/db';
import { stopNotifyListener } from '../../lib/notify';
import { closeTemporalClient } from '../../temporal/client';

afterAll(async () => {
  await closeTemporalClient().catch(() => undefined);
  await stopNotifyListener();
  await closeDb();
});
