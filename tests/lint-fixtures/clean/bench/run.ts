// Lint fixture (tests/unit/layers.test.ts): every import here follows the layer rules.
import { worker } from '../worker';
import { emit } from '../lib/outbox';
import { boot } from '../temporal/dev/boot';
export const run = [worker, emit, boot];
