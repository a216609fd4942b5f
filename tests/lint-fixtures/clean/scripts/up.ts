// Lint fixture (tests/unit/layers.test.ts): every import here follows the layer rules.
import { worker } from '../worker';
import { boot } from '../temporal/dev/boot';
export const up = [worker, boot];
