// Lint fixture (tests/unit/layers.test.ts): a wrong import the layer rules must report. workflows-deterministic
import { db } from '../lib/db';
export const workflowDb = db;
